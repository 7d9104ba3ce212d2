"""`exec`/`env --scrub-other-providers`: other LLM providers' keys and base URLs reached a
profile's command (a new user's `OPENAI_API_KEY` in Claude Code's environment under `exec
a-claude -- claude`, a `GEMINI_API_KEY` beside any profile). By default they still do (a
command may need them: docs/profiles.md says why); with the flag they are left out, named on
stderr (names only), and what is no provider's (`GITHUB_TOKEN`) stays. A real child process
prints the names of its environment, never a value."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_helpers import world_env
from tests.new_user_helpers import add, cli, home

__all__ = ["home"]  # the fixture, shared

GATEWAY = "http://127.0.0.1:9/v1"
PROFILE_KEY = "k-profile-" + "7" * 12
#: another provider's, each: left out with the flag (unless it is the profile's own family)
OTHERS = {
    "OPENAI_API_KEY": "sk-other-openai-" + "3" * 12,
    "OPENAI_BASE_URL": "https://api.openai.example/v1",
    "GEMINI_API_KEY": "other-gemini-" + "5" * 12,
    "DEEPSEEK_API_KEY": "other-deepseek-" + "6" * 12,
    "TAOTOKEN_BASE_URL": "https://taotoken.example/api/v1",
    "MYGW_API_KEY": "other-mygw-" + "8" * 12,  # the family of another profile's env_prefix
}
#: no provider's: kept
KEPT = {"GITHUB_TOKEN": "ghp-kept-" + "9" * 12, "UNRELATED": "kept"}
NAMES = "import os; print('\\n'.join(sorted(os.environ)))"


def _names_script(home: Path) -> Path:
    """A child that ignores its arguments (exec gives Claude Code `--settings FILE`, Codex
    `-c ...`) and prints its variables' names."""
    script = home / "names.py"
    script.write_text(f"#!{sys.executable}\n{NAMES}\n")
    script.chmod(0o755)
    return script


def _profiles(home: Path, app: str) -> None:
    add(home, "b", app, GATEWAY, "--key-env", "B_KEY")
    add(home, "other", "sdk", "https://mygw.example/v1", "--key-env", "B_KEY",
        "--option", "env_prefix=MYGW")  # fmt: skip


@pytest.mark.parametrize(
    ("app", "as_", "own"),
    [
        ("claude", "claude", ()),
        ("claude", "plain", ("OPENAI_API_KEY", "OPENAI_BASE_URL")),  # set to the profile's
        ("sdk", "plain", ("OPENAI_API_KEY", "OPENAI_BASE_URL")),
        ("codex", "codex", ()),
    ],
)
def test_exec_leaves_other_providers_out_only_when_asked(
    home: Path, app: str, as_: str, own: tuple[str, ...]
) -> None:
    _profiles(home, app)
    script = str(_names_script(home))
    shell = {**OTHERS, **KEPT, "B_KEY": PROFILE_KEY}
    plain = cli(home, "exec", "b", "--as", as_, "--", script, env=shell)
    scrubbed = cli(home, "exec", "b", "--scrub-other-providers", "--as", as_, "--", script,
                   env=shell)  # fmt: skip
    assert plain.returncode == 0 and scrubbed.returncode == 0, plain.stderr + scrubbed.stderr
    before, after = set(plain.stdout.split()), set(scrubbed.stdout.split())
    gone = set(OTHERS) - set(own)
    assert gone <= before  # the default passes them through, as before
    assert not gone & after and set(own) <= after and set(KEPT) <= after
    line = f"exec: left out other LLM providers' variables: {', '.join(sorted(gone))}"
    assert line in scrubbed.stderr.splitlines(), scrubbed.stderr
    for value in (*OTHERS.values(), PROFILE_KEY):
        assert value not in plain.stderr + scrubbed.stdout + scrubbed.stderr


def test_env_unsets_other_providers_only_when_asked(home: Path) -> None:
    _profiles(home, "claude")
    shell_env = {**world_env(home), **OTHERS, **KEPT}
    seen = []
    for flag in ((), ("--scrub-other-providers",)):
        exports = cli(home, "env", "b", *flag, env={**OTHERS, "B_KEY": PROFILE_KEY})
        assert exports.returncode == 0, exports.stderr
        child = subprocess.run(
            ["bash", "-c", f'eval "$1"; exec {sys.executable} -c "$2"', "-", exports.stdout,
             NAMES],
            capture_output=True, text=True, timeout=60, env=shell_env,
        )  # fmt: skip
        assert child.returncode == 0, child.stderr
        seen.append(set(child.stdout.split()))
    gone = set(OTHERS) - {"OPENAI_API_KEY", "OPENAI_BASE_URL"}  # the profile's, exported
    assert gone <= seen[0]
    assert not gone & seen[1] and set(KEPT) <= seen[1] and "OPENAI_API_KEY" in seen[1]


def test_the_flag_before_the_profile_name_does_the_same(home: Path) -> None:
    _profiles(home, "claude")
    script = str(_names_script(home))
    done = cli(home, "exec", "--scrub-other-providers", "b", "--as", "claude", "--", script,
               env={**OTHERS, **KEPT, "B_KEY": PROFILE_KEY})  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert not set(OTHERS) & set(done.stdout.split()) and set(KEPT) <= set(done.stdout.split())


@pytest.mark.parametrize(
    ("app", "as_"), [("sdk", "plain"), ("claude", "claude"), ("codex", "codex")]
)
def test_the_profiles_own_key_variable_is_never_scrubbed(home: Path, app: str, as_: str) -> None:
    """A profile reading its key from ``DEEPSEEK_API_KEY`` (a DeepSeek profile) had that very
    variable taken out, named as another provider's, and `env` unset it in the shell, so the
    next `env` found no key (a review). Its ``key_env`` family is its own; so is any variable
    holding its key's value."""
    add(home, "ds", app, GATEWAY, "--key-env", "DEEPSEEK_API_KEY")
    script = str(_names_script(home))
    shell = {"DEEPSEEK_API_KEY": PROFILE_KEY, "GEMINI_API_KEY": PROFILE_KEY, **KEPT,
             "MISTRAL_API_KEY": "other-mistral-" + "4" * 12}  # fmt: skip
    done = cli(home, "exec", "ds", "--scrub-other-providers", "--as", as_, "--", script, env=shell)
    assert done.returncode == 0, done.stderr
    names = set(done.stdout.split())
    assert "MISTRAL_API_KEY" not in names  # another provider's: still left out
    assert {"DEEPSEEK_API_KEY", "GEMINI_API_KEY"} <= names, done.stderr
    assert "DEEPSEEK_API_KEY" not in done.stderr and PROFILE_KEY not in done.stderr
    if app == "sdk":
        exports = cli(home, "env", "ds", "--scrub-other-providers", env=shell)
        assert exports.returncode == 0, exports.stderr
        assert "unset MISTRAL_API_KEY" in exports.stdout
        assert "unset DEEPSEEK_API_KEY" not in exports.stdout
        assert "unset GEMINI_API_KEY" not in exports.stdout


#: Another provider's by prefix, not by an exact ``FAMILY_SUFFIX`` (a review: each survived)
BY_PREFIX = {
    "ANTHROPIC_FOUNDRY_API_KEY": "other-foundry-" + "1" * 12,
    "GOOGLE_GENERATIVE_AI_API_KEY": "other-google-ai-" + "2" * 12,
    "AZURE_API_KEY": "other-azure-" + "3" * 12,
    "CLAUDE_CODE_OAUTH_TOKEN": "other-cc-oauth-" + "4" * 12,
    "CLAUDE_CODE_CLIENT_KEY": "/home/u/mtls.key",
    # a second review: Azure AI inference's LLM keys survived the narrowed AZURE_AI
    "AZURE_AI_INFERENCE_API_KEY": "other-azinf-" + "5" * 12,
    "AZURE_AI_CHAT_KEY": "other-azchat-" + "6" * 12,
}
#: no key, token, secret or base URL of an LLM provider: kept (a cloud's own secrets under the
#: broad ``AZURE``/``GOOGLE`` prefixes too: a review found them scrubbed and `env` unset them)
NOT_KEYS = {
    "GOOGLE_CLOUD_PROJECT": "p", "ANTHROPIC_LOG": "debug", "AWS_SECRET_ACCESS_KEY": "a",
    "AZURE_CLIENT_SECRET": "c", "AZURE_STORAGE_KEY": "s", "GOOGLE_MAPS_API_KEY": "m",
    "GOOGLE_OAUTH_ACCESS_TOKEN": "o",
}  # fmt: skip


@pytest.mark.parametrize(
    ("app", "as_", "own"),
    [
        ("sdk", "plain", ()),
        ("codex", "codex", ()),
        # Claude Code's own variables stay beside a Claude profile (its login, its mTLS key
        # file); Foundry is another provider still
        ("claude", "claude", ("CLAUDE_CODE_OAUTH_TOKEN", "CLAUDE_CODE_CLIENT_KEY")),
    ],
)
def test_a_providers_variables_are_scrubbed_by_prefix(
    home: Path, app: str, as_: str, own: tuple[str, ...]
) -> None:
    add(home, "b", app, GATEWAY, "--key-env", "B_KEY")
    script = str(_names_script(home))
    shell = {**BY_PREFIX, **NOT_KEYS, **KEPT, "B_KEY": PROFILE_KEY}
    done = cli(home, "exec", "b", "--scrub-other-providers", "--as", as_, "--", script, env=shell)
    assert done.returncode == 0, done.stderr
    names = set(done.stdout.split())
    gone = set(BY_PREFIX) - set(own)
    assert not gone & names, done.stderr
    assert {*own, *NOT_KEYS, *KEPT} <= names
    # a plain command loses another Azure OpenAI account's key without the flag, unnamed
    said = gone - {"AZURE_API_KEY"} if as_ == "plain" else gone
    line = f"exec: left out other LLM providers' variables: {', '.join(sorted(said))}"
    assert line in done.stderr.splitlines(), done.stderr
    if app == "sdk":
        exports = cli(home, "env", "b", "--scrub-other-providers", env=shell)
        assert exports.returncode == 0, exports.stderr
        unset = {line.split()[1] for line in exports.stdout.splitlines() if line[:6] == "unset "}
        assert gone <= unset and not unset & {*NOT_KEYS, *KEPT}


def test_the_profiles_own_key_env_stays_under_a_longer_prefix(home: Path) -> None:
    """A profile reading its key from ``GOOGLE_GENERATIVE_AI_API_KEY`` owns that family, the
    longest prefix that fits (its ``_ADMIN_KEY`` too); ``GOOGLE_API_KEY`` (family ``GOOGLE``) is
    another's still."""
    add(home, "g", "sdk", GATEWAY, "--key-env", "GOOGLE_GENERATIVE_AI_API_KEY")
    script = str(_names_script(home))
    shell = {"GOOGLE_GENERATIVE_AI_API_KEY": PROFILE_KEY, "GOOGLE_API_KEY": "other-" + "5" * 12,
             "GOOGLE_GENERATIVE_AI_ADMIN_KEY": "admin-" + "6" * 12}  # fmt: skip
    done = cli(home, "exec", "g", "--scrub-other-providers", "--", script, env=shell)
    assert done.returncode == 0, done.stderr
    names = set(done.stdout.split())
    assert {"GOOGLE_GENERATIVE_AI_API_KEY", "GOOGLE_GENERATIVE_AI_ADMIN_KEY"} <= names
    assert "GOOGLE_API_KEY" not in names


def test_an_azure_openai_profile_keeps_its_clouds_secrets(home: Path) -> None:
    """Beside an Azure OpenAI profile, the Azure cloud's own secrets stay in the command and in
    the shell (a review: `env` printed `unset AZURE_CLIENT_SECRET`); the profile's family stays;
    Azure AI inference's and Google AI's keys (other LLM families) go."""
    add(home, "az", "sdk", GATEWAY, "--key-env", "AZURE_OPENAI_API_KEY")
    script = str(_names_script(home))
    cloud = {"AZURE_CLIENT_SECRET": "c", "AZURE_AI_SEARCH_KEY": "s", "AZURE_TENANT_ID": "t"}
    mine = {"AZURE_OPENAI_API_KEY": PROFILE_KEY}
    llm = {"AZURE_AI_API_KEY": "other-azure-ai-" + "1" * 12, "GOOGLE_API_KEY": "g",
           "GOOGLE_GENERATIVE_AI_BASE_URL": "https://g.example/v1", "AZURE_API_BASE": "a",
           "CO_API_KEY": "co", "CO_API_URL": "https://co.example"}  # fmt: skip
    shell = {**cloud, **mine, **llm}
    done = cli(home, "exec", "az", "--scrub-other-providers", "--", script, env=shell)
    assert done.returncode == 0, done.stderr
    names = set(done.stdout.split())
    assert {*cloud, *mine} <= names and not set(llm) & names, done.stderr
    exports = cli(home, "env", "az", "--scrub-other-providers", env=shell)
    assert exports.returncode == 0, exports.stderr
    unset = {line.split()[1] for line in exports.stdout.splitlines() if line[:6] == "unset "}
    assert set(llm) <= unset and not unset & {*cloud, *mine}, exports.stdout


#: Another gateway's key in Claude Code's headers (``x-api-key: ...``), beside a Codex or sdk
#: profile: the scrub kept it (no key or base URL suffix), so Claude Code run by the command
#: sent it on (a new user)
HEADERS = {"ANTHROPIC_CUSTOM_HEADERS": "x-api-key: other-ant-" + "2" * 12 + "\nX-Org: acme"}


@pytest.mark.parametrize(("app", "as_"), [("sdk", "plain"), ("codex", "codex")])
def test_another_providers_headers_are_scrubbed(home: Path, app: str, as_: str) -> None:
    add(home, "b", app, GATEWAY, "--key-env", "B_KEY")
    script = str(_names_script(home))
    shell = {**HEADERS, **KEPT, "B_KEY": PROFILE_KEY}
    done = cli(home, "exec", "b", "--scrub-other-providers", "--as", as_, "--", script, env=shell)
    assert done.returncode == 0, done.stderr
    names = set(done.stdout.split())
    assert "ANTHROPIC_CUSTOM_HEADERS" not in names and set(KEPT) <= names
    line = "exec: left out other LLM providers' variables: ANTHROPIC_CUSTOM_HEADERS"
    assert line in done.stderr.splitlines() and "other-ant" not in done.stderr
    if app == "sdk":
        exports = cli(home, "env", "b", "--scrub-other-providers", env=shell)
        assert "unset ANTHROPIC_CUSTOM_HEADERS" in exports.stdout.splitlines()


@pytest.mark.parametrize("flag", [[], ["--scrub-other-providers"]])
def test_the_shells_headers_of_the_profiles_own_family_go_too(home: Path, flag: list[str]) -> None:
    """The profile points the Anthropic family at its gateway, so the shell's Anthropic headers
    (another gateway's key) go as its Anthropic token does, with or without the flag (the
    lane that added header scrubbing kept them: a script running Claude Code sent them on)."""
    add(home, "a", "sdk", GATEWAY, "--key-env", "B_KEY", "--option", "env_prefix=ANTHROPIC")
    script = str(_names_script(home))
    shell = {**HEADERS, "B_KEY": PROFILE_KEY}
    done = cli(home, "exec", "a", *flag, "--", script, env=shell)
    assert done.returncode == 0, done.stderr
    assert "ANTHROPIC_CUSTOM_HEADERS" not in done.stdout.split()


#: Variables of a prefix another profile names: a profile with ``env_prefix = "AWS"`` made the
#: scrub of every other profile take AWS's secret and session token and leave its key id (a
#: new user; AWS itself is refused as an env_prefix since, so a gateway's name stands in)
AWS = {"ACME_SECRET_ACCESS_KEY": "s", "ACME_ACCESS_KEY_ID": "i", "ACME_SESSION_TOKEN": "t"}


def test_another_profiles_env_prefix_takes_only_what_that_profile_exports(home: Path) -> None:
    add(home, "b", "codex", GATEWAY, "--key-env", "B_KEY")
    add(home, "aws", "sdk", "https://aws-gw.example/v1", "--key-env", "B_KEY",
        "--option", "env_prefix=ACME")  # fmt: skip
    add(home, "ox", "sdk", "https://ox.example/v1", "--key-env", "B_KEY",
        "--option", "env_prefix=OPENAI_X")  # fmt: skip
    script = str(_names_script(home))
    exported = {"ACME_API_KEY": "other-aws-gw-" + "1" * 12, "ACME_BASE_URL": "https://aws-gw.x"}
    openai = {"OPENAI_X_ADMIN_KEY": "other-openai-admin-" + "2" * 12}  # OpenAI's still
    shell = {**AWS, **exported, **openai, "B_KEY": PROFILE_KEY}
    done = cli(home, "exec", "b", "--scrub-other-providers", "--as", "codex", "--", script,
               env=shell)  # fmt: skip
    assert done.returncode == 0, done.stderr
    names = set(done.stdout.split())
    assert set(AWS) <= names and not {*exported, *openai} & names, done.stderr


#: Another OpenAI account's ids: taken from a plain command (given the profile's OPENAI_*),
#: but kept for Claude Code and Codex even with the scrub that took that account's key
ACCOUNT = {"OPENAI_API_KEY": "other-openai-" + "3" * 12, "OPENAI_ORG_ID": "org-other",
           "OPENAI_PROJECT_ID": "proj-other", "OPENAI_ORGANIZATION": "org-other"}  # fmt: skip


@pytest.mark.parametrize(("app", "as_"), [("claude", "claude"), ("codex", "codex")])
def test_an_openai_accounts_ids_go_with_its_key(home: Path, app: str, as_: str) -> None:
    add(home, "b", app, GATEWAY, "--key-env", "B_KEY")
    script = str(_names_script(home))
    shell = {**ACCOUNT, "B_KEY": PROFILE_KEY}
    plain = cli(home, "exec", "b", "--as", as_, "--", script, env=shell)
    scrubbed = cli(home, "exec", "b", "--scrub-other-providers", "--as", as_, "--", script,
                   env=shell)  # fmt: skip
    assert plain.returncode == 0 and scrubbed.returncode == 0, plain.stderr + scrubbed.stderr
    assert set(ACCOUNT) <= set(plain.stdout.split())  # the user's own account, whole
    assert not set(ACCOUNT) & set(scrubbed.stdout.split()), scrubbed.stderr
    line = f"exec: left out other LLM providers' variables: {', '.join(sorted(ACCOUNT))}"
    assert line in scrubbed.stderr.splitlines()


#: LiteLLM's names for Azure OpenAI: the same service as AZURE_OPENAI_*, one rule for both
LITELLM_AZURE = {"AZURE_API_KEY": "other-azure-" + "4" * 12, "AZURE_API_BASE": "https://o.x",
                 "AZURE_API_VERSION": "2024-06-01"}  # fmt: skip


def test_litellms_azure_variables_are_azure_openais(home: Path) -> None:
    """A plain command lost another Azure OpenAI key in ``AZURE_OPENAI_API_KEY`` but kept it in
    ``AZURE_API_KEY``; the scrub beside an Azure OpenAI Codex profile took LiteLLM's names as
    another provider's and kept ``AZURE_OPENAI_ENDPOINT``."""
    add(home, "az", "sdk", GATEWAY, "--key-env", "AZURE_OPENAI_API_KEY")
    add(home, "azc", "codex", GATEWAY, "--key-env", "AZURE_OPENAI_API_KEY")
    script = str(_names_script(home))
    shell = {**LITELLM_AZURE, "AZURE_OPENAI_API_KEY": PROFILE_KEY}
    done = cli(home, "exec", "az", "--", script, env=shell)
    assert done.returncode == 0, done.stderr
    names = set(done.stdout.split())
    assert "AZURE_OPENAI_API_KEY" in names and not set(LITELLM_AZURE) & names
    exports = cli(home, "env", "az", env=shell).stdout.splitlines()
    assert {f"unset {name}" for name in LITELLM_AZURE} <= set(exports)
    mine = cli(home, "exec", "az", "--", script, env={**shell, "AZURE_API_KEY": PROFILE_KEY})
    assert "AZURE_API_KEY" in set(mine.stdout.split())  # the profile's own key: kept
    same = cli(home, "exec", "azc", "--scrub-other-providers", "--as", "codex", "--", script,
               env={**shell, "AZURE_OPENAI_ENDPOINT": "https://o.x"})  # fmt: skip
    assert same.returncode == 0, same.stderr
    assert {*LITELLM_AZURE, "AZURE_OPENAI_ENDPOINT"} <= set(same.stdout.split()), same.stderr

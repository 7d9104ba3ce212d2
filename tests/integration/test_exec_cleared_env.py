"""`exec` (a plain command) and `env` give a command the profile's environment and take away
what a shell holds of another account or endpoint (a new user's trial): a shell's
``ANTHROPIC_API_KEY`` outranked a Claude profile's token in the Anthropic SDK and went to the
profile's gateway; the legacy ``OPENAI_API_BASE`` sent the profile's key to another gateway;
organisation, project and Azure variables, Claude Code's cloud switches and model tiers came
along. Real CLI, real bash; the profiles read their key from a variable (no keyring needed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_helpers import world_env
from tests.new_user_helpers import add, cli, home

__all__ = ["home"]  # the fixture, shared

GATEWAY = "http://127.0.0.1:9/v1"
PROFILE_KEY = "k-profile-" + "7" * 12
#: a shell set up for another provider: each of these must not reach the command as it was
SHELL = {
    "ANTHROPIC_API_KEY": "shell-anthropic-" + "1" * 12,
    "ANTHROPIC_AUTH_TOKEN": "shell-token-" + "2" * 12,
    "ANTHROPIC_BASE_URL": "https://other.example",
    "ANTHROPIC_DEFAULT_OPUS_MODEL": "other-opus",
    "CLAUDE_CODE_USE_BEDROCK": "1",
    "OPENAI_API_KEY": "shell-openai-" + "3" * 12,
    "OPENAI_BASE_URL": "https://other.example/v1",
    "OPENAI_API_BASE": "https://legacy.other.example/v1",
    "OPENAI_ORG_ID": "org-other",
    "OPENAI_PROJECT_ID": "proj-other",
    "AZURE_OPENAI_API_KEY": "shell-azure-" + "4" * 12,
    "AZURE_OPENAI_ENDPOINT": "https://other.openai.azure.com",
    "UNRELATED": "kept",
}
PRINT_ENV = "import json, os; print(json.dumps(dict(os.environ)))"


def expected(app: str) -> dict[str, str | None]:
    """What the command sees of each shell variable: the profile's value, or nothing."""
    seen: dict[str, str | None] = dict.fromkeys(SHELL)
    seen |= {"UNRELATED": "kept", "OPENAI_API_KEY": PROFILE_KEY}
    seen |= {"OPENAI_BASE_URL": GATEWAY, "OPENAI_API_BASE": GATEWAY}
    if app == "claude":
        seen |= {"ANTHROPIC_AUTH_TOKEN": PROFILE_KEY, "ANTHROPIC_BASE_URL": GATEWAY[:-3]}
    else:  # another provider's Anthropic variables are the shell's own business
        for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"):
            seen[name] = SHELL[name]
        seen |= {n: SHELL[n] for n in ("ANTHROPIC_DEFAULT_OPUS_MODEL", "CLAUDE_CODE_USE_BEDROCK")}
    return seen


@pytest.mark.parametrize("app", ["claude", "sdk"])
def test_exec_gives_the_profile_and_nothing_of_another_account(home: Path, app: str) -> None:
    add(home, "b", app, GATEWAY, "--key-env", "B_KEY")
    done = cli(
        home, "exec", "b", "--as", "plain", "--", sys.executable, "-c", PRINT_ENV,
        env={**SHELL, "B_KEY": PROFILE_KEY},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert {name: seen.get(name) for name in SHELL} == expected(app)


@pytest.mark.parametrize("app", ["claude", "sdk"])
def test_env_exports_unset_what_exec_takes_away(home: Path, app: str) -> None:
    add(home, "b", app, GATEWAY, "--key-env", "B_KEY")
    exports = cli(home, "env", "b", "--shell", "bash", env={"B_KEY": PROFILE_KEY})
    assert exports.returncode == 0, exports.stderr
    shell = subprocess.run(
        ["bash", "-c", f'eval "$1"; exec {sys.executable} -c "$2"', "-", exports.stdout,
         PRINT_ENV],
        capture_output=True, text=True, timeout=60, env={**world_env(home), **SHELL},
    )  # fmt: skip
    assert shell.returncode == 0, shell.stderr
    seen = json.loads(shell.stdout)
    assert {name: seen.get(name) for name in SHELL} == expected(app)


def test_a_claude_profiles_own_tiers_are_set_not_cleared(home: Path) -> None:
    """`cleared` took away every tier the profile's variables did not set, and those never
    set a tier: a profile's own default_opus_model was unset (the review of the change)."""
    add(home, "b", "claude", GATEWAY, "--key-env", "B_KEY", "--option", "default_opus_model=glm-x")
    done = cli(
        home, "exec", "b", "--as", "plain", "--", sys.executable, "-c", PRINT_ENV,
        env={**SHELL, "B_KEY": PROFILE_KEY},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["ANTHROPIC_DEFAULT_OPUS_MODEL"] == "glm-x"
    exports = cli(home, "env", "b", "--shell", "bash", env={"B_KEY": PROFILE_KEY}).stdout
    assert "export ANTHROPIC_DEFAULT_OPUS_MODEL='glm-x'" in exports
    assert "unset ANTHROPIC_DEFAULT_OPUS_MODEL" not in exports


#: provider A's credentials a shell holds, of the family an sdk profile's env_prefix exports
PROVIDER_A = {
    "ANTHROPIC_AUTH_TOKEN": "a-token-" + "5" * 12,
    "ANTHROPIC_TOKEN": "a-plain-" + "6" * 12,
    "OPENAI_ADMIN_KEY": "a-admin-" + "8" * 12,
    # provider A's key as a header Claude Code (run by the program) would send to B
    "ANTHROPIC_CUSTOM_HEADERS": "x-api-key: a-header-" + "9" * 12,
    # and the shell's Claude Code switches that send it past B (to Bedrock, other tiers)
    "CLAUDE_CODE_USE_BEDROCK": "1",
    "ANTHROPIC_DEFAULT_OPUS_MODEL": "a-opus",
}


def test_an_env_prefix_family_keeps_no_credential_of_another_provider(home: Path) -> None:
    """An sdk profile with env_prefix=ANTHROPIC exported ANTHROPIC_API_KEY and left a shell's
    ANTHROPIC_AUTH_TOKEN (provider A's) in place (a new user): a program that ranks the token
    first sends A's to B (the anthropic SDK 0.40 and 2.17 take the API key; tried by hand), as
    does A's key in ANTHROPIC_CUSTOM_HEADERS once the program runs Claude Code (a lane).
    Neither exec nor env leaves one; the variable the profile reads its own key from stays
    (unset, the next `env` finds no key)."""
    add(home, "b", "sdk", GATEWAY, "--key-env", "ANTHROPIC_KEY", "--option", "env_prefix=ANTHROPIC")
    shell = {**PROVIDER_A, "ANTHROPIC_KEY": PROFILE_KEY}
    done = cli(
        home, "exec", "b", "--", sys.executable, "-c", PRINT_ENV, env=shell,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert [name for name in PROVIDER_A if name in seen] == []
    assert seen["ANTHROPIC_API_KEY"] == seen["ANTHROPIC_KEY"] == PROFILE_KEY
    exports = cli(home, "env", "b", "--shell", "bash", env={"ANTHROPIC_KEY": PROFILE_KEY})
    assert exports.returncode == 0, exports.stderr
    loaded = subprocess.run(
        ["bash", "-c", f'eval "$1"; exec {sys.executable} -c "$2"', "-", exports.stdout,
         PRINT_ENV],
        capture_output=True, text=True, timeout=60, env={**world_env(home), **shell},
    )  # fmt: skip
    assert loaded.returncode == 0, loaded.stderr
    after = json.loads(loaded.stdout)
    assert [name for name in PROVIDER_A if name in after] == []
    assert after["ANTHROPIC_API_KEY"] == after["ANTHROPIC_KEY"] == PROFILE_KEY


def test_an_anthropic_env_prefix_gets_the_anthropic_base(home: Path) -> None:
    """An sdk profile with env_prefix=ANTHROPIC got ANTHROPIC_BASE_URL=http://host/v1: the
    Anthropic SDK appends /v1/messages, so it called http://host/v1/v1/messages. The family
    gets the base without /v1 (as a Claude profile's), the OpenAI variables keep theirs."""
    add(home, "b", "sdk", GATEWAY, "--key-env", "B_KEY", "--option", "env_prefix=anthropic")
    done = cli(
        home, "exec", "b", "--", sys.executable, "-c", PRINT_ENV, env={"B_KEY": PROFILE_KEY},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    # what the Anthropic SDK posts to: base_url + "/v1/messages"
    assert seen["ANTHROPIC_BASE_URL"] + "/v1/messages" == "http://127.0.0.1:9/v1/messages"
    assert seen["OPENAI_BASE_URL"] + "/chat/completions" == "http://127.0.0.1:9/v1/chat/completions"
    exports = cli(home, "env", "b", "--shell", "bash", env={"B_KEY": PROFILE_KEY}).stdout
    assert "export ANTHROPIC_BASE_URL='http://127.0.0.1:9'\n" in exports


def test_exec_passes_its_command_words_on_untouched(home: Path) -> None:
    """The CLI joined `--bins -0.01,0.2` into `--bins=-0.01,0.2` (judgeaudit's own lists) and
    checked words for UTF-8 before exec saw them: a command's words are its own (reviewer)."""
    add(home, "b", "sdk", GATEWAY, "--key-env", "B_KEY")
    words = ["--bins", "-0.01,0.2", os.fsdecode(b"caf\xe9")]
    printed = "import sys; print(ascii(sys.argv[1:]))"
    done = cli(home, "exec", "b", "--", sys.executable, "-c", printed, *words,
               env={"B_KEY": PROFILE_KEY})  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ascii(words)


@pytest.mark.parametrize("prefix", ["AWS", "NODE", "github"])
def test_another_services_prefix_is_refused_at_the_field(home: Path, prefix: str) -> None:
    """`env_prefix = "AWS"` had its family's other credentials cleared from the command: the
    shell's AWS_SESSION_TOKEN went while the key id stayed (a split login); "NODE" took npm's
    NODE_AUTH_TOKEN (a new user). Such a prefix is refused where it is given."""
    done = cli(home, "profile", "add", "b", "--app", "sdk", "--base-url", GATEWAY,
               "--key-env", "B_KEY", "--option", f"env_prefix={prefix}")  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert f"options.env_prefix: {prefix.upper()} is another service's prefix" in done.stderr


def test_a_gateways_own_prefix_clears_its_other_credentials(home: Path) -> None:
    """A custom prefix's other credential variables go (a client ranking MYGW_AUTH_TOKEN above
    MYGW_API_KEY sent another endpoint's token to this gateway; the review of a change that had
    stopped clearing them)."""
    add(home, "b", "sdk", GATEWAY, "--key-env", "B_KEY", "--option", "env_prefix=MYGW")
    shell = {"MYGW_AUTH_TOKEN": "gwa-tok", "MYGW_CUSTOM_HEADERS": "Authorization: Bearer gwa",
             "B_KEY": PROFILE_KEY}  # fmt: skip
    done = cli(home, "exec", "b", "--", sys.executable, "-c", PRINT_ENV, env=shell)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert "MYGW_AUTH_TOKEN" not in seen and "MYGW_CUSTOM_HEADERS" not in seen
    assert seen["MYGW_API_KEY"] == PROFILE_KEY

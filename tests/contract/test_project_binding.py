"""Per-project binding with the real Claude Code (newest from npm) and Codex: a profile bound
to a project reaches its own gateway with its own key from that directory, the global profile
everywhere else; ``off --project`` gives the project's file back; Codex is refused with the
reason Codex itself prints."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import pytest

from tests.cli_helpers import cli, stored_keys, tool, tool_env
from tests.contract.test_real_tools import npm_bin
from tests.helpers import sim_server

pytestmark = pytest.mark.usefixtures("secret_service")


def _ja(
    env: dict[str, str], *args: str, stdin: str | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return cli(*args, env=env, stdin=stdin, cwd=cwd, whole_env=True)


def _user_settings(tmp_path: Path, env_vars: dict[str, str]) -> tuple[dict[str, str], Path, Path]:
    """An isolated world whose user settings.json sets ``env_vars``: (env, project, that file)."""
    env = tool_env(tmp_path, leave_out=("ANTHROPIC_", "CLAUDE_"))
    project = tmp_path / "proj"
    project.mkdir()
    user = Path(env["CLAUDE_CONFIG_DIR"]) / "settings.json"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(json.dumps({"env": env_vars}) + "\n")
    return env, project, user


def _bind(
    env: dict[str, str], name: str, url: str, key: str, project: Path
) -> subprocess.CompletedProcess[str]:
    """Add a Claude profile on ``url`` with keyring entry ``key`` and bind it to ``project``."""
    done = _ja(
        env, "profile", "add", name, "--app", "claude", "--base-url", url, "--model",
        "m-project", "--key", key,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    done = _ja(env, "profile", "use", name, "--project", cwd=project)
    assert done.returncode == 0, done.stderr
    return done


def test_claude_project_binding(tmp_path: Path) -> None:
    env = tool_env(tmp_path, leave_out=("ANTHROPIC_", "CLAUDE_"))
    (tmp_path / "proj" / ".claude").mkdir(parents=True)
    project = tmp_path / "proj"
    own = {"permissions": {"allow": ["Bash(make test)"]}}
    local = project / ".claude" / "settings.local.json"
    local.write_text(json.dumps(own, indent=2) + "\n")
    original = local.read_bytes()
    log = tmp_path / "requests.log"
    keys = {"pb-global": "fake-global-key-1", "pb-project": "fake-project-key-2"}
    with sim_server("--request-log", str(log)) as url, stored_keys(env, keys):
        for name, model in (("pb-global", "m-global"), ("pb-project", "m-project")):
            done = _ja(
                env,
                "profile",
                "add",
                name,
                "--app",
                "claude",
                "--base-url",
                url,
                "--model",
                model,
                "--key",
                name,
            )
            assert done.returncode == 0, done.stderr
        assert _ja(env, "profile", "use", "pb-global").returncode == 0
        done = _ja(env, "profile", "use", "pb-project", "--project", cwd=project)
        assert done.returncode == 0 and f"in {project}" in done.stdout, done.stderr
        assert "backup:" in done.stdout  # the project's own file was backed up first
        assert json.loads(local.read_text())["permissions"] == own["permissions"]

        def claude(cwd: Path) -> dict[str, object]:
            done = tool([npm_bin("claude"), "-p", "hi"], env=env, cwd=cwd, timeout=180)
            assert "simulated reply" in done.stdout, done.stdout[-1500:] + done.stderr[-1500:]
            line: dict[str, object] = json.loads(log.read_text().splitlines()[-1])
            return line

        def fp(key: str) -> str:
            return hashlib.sha256(key.encode()).hexdigest()[:16]

        here = claude(project)
        assert here["model"] == "m-project" and here["key_sha256"] == fp(keys["pb-project"])
        elsewhere = claude(tmp_path / "home")
        assert elsewhere["model"] == "m-global" and elsewhere["key_sha256"] == fp(keys["pb-global"])
        said = _ja(env, "profile", "doctor", "claude", cwd=project).stdout
        assert "bound to this directory: pb-project" in said and "m-project" in said
        done = _ja(env, "profile", "off", "claude", "--project", str(project))
        assert done.returncode == 0, done.stderr
        assert local.read_bytes() == original
        assert claude(project)["model"] == "m-global"


def test_a_project_binding_hides_the_user_files_model_tiers(tmp_path: Path) -> None:
    """A tier in the user's settings.json (a CC Switch preset's opus model) reached the bound
    gateway from `claude --model opus` in the project (a new user's trial): the binding's
    layer cannot remove it, so it blanks every tier the profile does not set, and the real
    Claude Code sends its own opus id instead; the doctor no longer warns about the binding's
    own keys, nor about the hidden tier."""
    env, project, user = _user_settings(tmp_path, {"ANTHROPIC_DEFAULT_OPUS_MODEL": "other-opus"})
    mine = user.read_bytes()
    log = tmp_path / "requests.log"
    with sim_server("--request-log", str(log)) as url, stored_keys(env, {"pt-key": "fake-pt-4"}):
        _bind(env, "pt", url, "pt-key", project)
        ran = tool(
            [npm_bin("claude"), "-p", "hi", "--model", "opus"], env=env, cwd=project, timeout=180
        )
        assert "simulated reply" in ran.stdout, ran.stdout[-1500:] + ran.stderr[-1500:]
        models = [json.loads(line)["model"] for line in log.read_text().splitlines()]
        assert models and "other-opus" not in models, models
        said = _ja(env, "profile", "doctor", "claude", cwd=project).stdout
        assert "tier: ANTHROPIC_DEFAULT_OPUS_MODEL" not in said, said
        assert "overrides the user settings" not in said, said
        done = _ja(env, "profile", "off", "claude", "--project", str(project))
        assert done.returncode == 0, done.stderr
    assert user.read_bytes() == mine and list(project.iterdir()) == []


def test_codex_project_binding_is_refused_with_codexs_own_reason(tmp_path: Path) -> None:
    env = tool_env(tmp_path)
    (tmp_path / "proj").mkdir()
    assert (
        _ja(
            env,
            "profile",
            "add",
            "pb-codex",
            "--app",
            "codex",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--key-env",
            "X",
        ).returncode
        == 0
    )
    done = _ja(env, "profile", "use", "pb-codex", "--project", str(tmp_path / "proj"))
    assert done.returncode == 2
    assert "Codex ignores model_provider and model_providers in a project's" in done.stderr
    assert not (tmp_path / "proj" / ".codex").exists()
    # What Codex itself says about such a file (why the binding is refused).
    project = tmp_path / "proj"
    (project / ".codex").mkdir()
    (project / ".codex" / "config.toml").write_text(
        'model_provider = "x"\n[model_providers.x]\nname = "x"\nbase_url = "http://127.0.0.1:9/v1"\n'
    )
    trust = f'[projects."{project}"]\ntrust_level = "trusted"\n'
    (tmp_path / "codex" / "config.toml").write_text(trust)
    try:  # Codex then retries the built-in provider until the timeout: its warning comes first
        seen = tool(
            [npm_bin("codex"), "exec", "--skip-git-repo-check", "hi"],
            env=env,
            cwd=project,
            timeout=40,
        )
        said = seen.stdout + seen.stderr
    except subprocess.TimeoutExpired as exc:
        said = "".join(
            x.decode() if isinstance(x, bytes) else (x or "") for x in (exc.stdout, exc.stderr)
        )
    said = said.replace("\n", " ")
    assert "Ignored unsupported project-local config keys" in said
    assert "model_provider, model_providers" in said


def test_a_project_binding_never_sends_the_user_files_token_to_its_gateway(
    tmp_path: Path,
) -> None:
    """A token in the user's settings.json (another provider's, set by hand or a CC Switch
    preset) outranks the binding's apiKeyHelper in Claude Code, so `claude` in the project sent
    that provider's key to the bound gateway. The binding's layer blanks both token variables
    (empty is unset to Claude Code): the gateway sees only the profile's key; `off` gives both
    files back byte for byte."""
    other = "fake-other-provider-token-9"
    tokens = {"ANTHROPIC_AUTH_TOKEN": other, "ANTHROPIC_API_KEY": other}
    env, project, user = _user_settings(tmp_path, tokens)
    mine = user.read_bytes()
    log = tmp_path / "requests.log"
    with sim_server("--request-log", str(log)) as url, stored_keys(env, {"pk": "fake-pk-5"}):
        done = _bind(env, "pk", url, "pk", project)
        assert other not in done.stdout + done.stderr
        ran = tool([npm_bin("claude"), "-p", "hi"], env=env, cwd=project, timeout=180)
        assert "simulated reply" in ran.stdout, ran.stdout[-1500:] + ran.stderr[-1500:]
        seen = [json.loads(line) for line in log.read_text().splitlines()]
        fingerprints = {line.get("key_sha256") for line in seen}
        fingerprints |= {line.get("x_api_key_sha256") for line in seen} - {None}
        assert fingerprints == {hashlib.sha256(b"fake-pk-5").hexdigest()[:16]}, seen
        said = _ja(env, "profile", "doctor", "claude", cwd=project).stdout
        assert other not in said
        done = _ja(env, "profile", "off", "claude", "--project", str(project))
        assert done.returncode == 0, done.stderr
    assert user.read_bytes() == mine and list(project.iterdir()) == []


def _env_profile(env: dict[str, str], url: str, project: Path) -> None:
    """Add a `key_mode = "env"` Claude profile ``pe`` on ``url`` and bind it to ``project``."""
    done = _ja(
        env, "profile", "add", "pe", "--app", "claude", "--base-url", url, "--model",
        "m-project", "--key-env", "ANTHROPIC_AUTH_TOKEN", "--option", "key_mode=env",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    done = _ja(env, "profile", "use", "pe", "--project", cwd=project)
    assert done.returncode == 0, done.stderr


def test_a_key_mode_env_binding_keeps_the_shells_token(tmp_path: Path) -> None:
    """`key_mode = "env"`: Claude Code takes the key from its own environment. The binding must
    not blank the token variables then (a settings env outranks the shell: a review found the
    blank left Claude Code with no key), and the gateway sees the shell's token."""
    env, project, _user = _user_settings(tmp_path, {})
    log = tmp_path / "requests.log"
    with sim_server("--request-log", str(log)) as url:
        _env_profile(env, url, project)
        written = json.loads((project / ".claude" / "settings.local.json").read_text())["env"]
        assert "ANTHROPIC_AUTH_TOKEN" not in written and "ANTHROPIC_API_KEY" not in written
        shell = {**env, "ANTHROPIC_AUTH_TOKEN": "fake-shell-token-6"}
        ran = tool([npm_bin("claude"), "-p", "hi"], env=shell, cwd=project, timeout=180)
        assert "simulated reply" in ran.stdout, ran.stdout[-1500:] + ran.stderr[-1500:]
        seen = json.loads(log.read_text().splitlines()[-1])
        assert seen["key_sha256"] == hashlib.sha256(b"fake-shell-token-6").hexdigest()[:16]


def test_a_key_mode_env_binding_is_refused_under_a_user_api_key_helper(tmp_path: Path) -> None:
    """A review: an apiKeyHelper in the user's settings.json (a global helper-mode profile)
    stays in force under an env-mode binding; with the shell's ANTHROPIC_API_KEY the real
    Claude Code sends the helper's key (another provider's) to the bound gateway beside it."""
    env, project, user = _user_settings(tmp_path, {})
    log = tmp_path / "requests.log"
    other = "fake-helper-provider-key-3"
    with sim_server("--request-log", str(log)) as url:
        _env_profile(env, url, project)
        user.write_text(json.dumps({"apiKeyHelper": f"printf {other}"}) + "\n")
        shell = {**env, "ANTHROPIC_API_KEY": "fake-shell-api-key-2"}
        ran = tool([npm_bin("claude"), "-p", "hi"], env=shell, cwd=project, timeout=180)
        assert "simulated reply" in ran.stdout, ran.stdout[-1500:] + ran.stderr[-1500:]
        seen = [json.loads(line) for line in log.read_text().splitlines()]
        fingerprints = {line.get("key_sha256") for line in seen}
        assert hashlib.sha256(other.encode()).hexdigest()[:16] in fingerprints, seen
        said = _ja(env, "profile", "doctor", "claude", cwd=project).stdout
        assert f"warning: {user}: apiKeyHelper is set" in said, said
        assert _ja(env, "profile", "off", "claude", "--project", str(project)).returncode == 0
        refused = _ja(env, "profile", "use", "pe", "--project", cwd=project)
    assert refused.returncode != 0 and list(project.iterdir()) == []
    assert f"{user}: apiKeyHelper is set" in refused.stderr, refused.stderr


def test_a_key_mode_env_binding_is_refused_under_a_settings_token(tmp_path: Path) -> None:
    """Why a `key_mode = "env"` binding is refused while a settings file holds a token: bound
    first, then a token put in the user's settings.json, the real Claude Code sends that token
    (another provider's) to the bound gateway, not the shell's; the doctor names the file.
    With the token there, the binding itself is refused in one line and writes nothing."""
    env, project, user = _user_settings(tmp_path, {})
    log = tmp_path / "requests.log"
    other = "fake-other-provider-token-8"
    with sim_server("--request-log", str(log)) as url:
        _env_profile(env, url, project)
        user.write_text(json.dumps({"env": {"ANTHROPIC_AUTH_TOKEN": other}}) + "\n")
        shell = {**env, "ANTHROPIC_AUTH_TOKEN": "fake-shell-token-7"}
        ran = tool([npm_bin("claude"), "-p", "hi"], env=shell, cwd=project, timeout=180)
        assert "simulated reply" in ran.stdout, ran.stdout[-1500:] + ran.stderr[-1500:]
        seen = json.loads(log.read_text().splitlines()[-1])
        assert seen["key_sha256"] == hashlib.sha256(other.encode()).hexdigest()[:16]
        said = _ja(env, "profile", "doctor", "claude", cwd=project)
        assert f"warning: {user}: env.ANTHROPIC_AUTH_TOKEN is set" in said.stdout, said.stdout
        assert other not in said.stdout + said.stderr
        assert _ja(env, "profile", "off", "claude", "--project", str(project)).returncode == 0
        assert list(project.iterdir()) == []
        refused = _ja(env, "profile", "use", "pe", "--project", cwd=project)
    assert refused.returncode != 0 and list(project.iterdir()) == []
    assert f"{user}: env.ANTHROPIC_AUTH_TOKEN is set" in refused.stderr, refused.stderr
    assert other not in refused.stdout + refused.stderr

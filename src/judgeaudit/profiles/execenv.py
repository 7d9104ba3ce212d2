"""``judgeaudit exec PROFILE -- CMD``: one process with the profile, the global files untouched.

Claude Code gets the profile as a private settings layer (``claude --settings FILE``, a 0600
temp file removed afterwards): it outranks the user and project files for that process only,
and blanks leftover tokens that would outrank ``apiKeyHelper``. Codex gets ``-c`` overrides
(provider table, provider id, model). Any other command gets the profile's environment.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

from judgeaudit.profiles.model import Profile, ProfileError
from judgeaudit.profiles.targets import claude, codex, sdk


@dataclass
class Launch:
    argv: list[str]
    env: dict[str, str]
    settings: dict[str, object] | None = None  # Claude Code's private settings layer
    notes: list[str] = field(default_factory=list)


def tool_of(command: list[str]) -> str:
    name = Path(command[0]).name.lower()
    for suffix in (".exe", ".cmd", ".js"):
        name = name.removesuffix(suffix)
    return name


def _toml_inline(value: object) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {_toml_inline(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_toml_inline(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def plan_launch(profile: Profile, key: str, command: list[str], base_env: dict[str, str]) -> Launch:
    """What to run: argv, environment and (Claude) the private settings layer."""
    tool = tool_of(command)
    env = dict(base_env)
    if profile.app == "claude" and tool == "claude":
        if "--settings" in command[1:]:
            raise ProfileError(
                "exec: the command already passes --settings; exec adds its own layer (drop "
                "yours, or run claude without exec)"
            )
        for variable in claude.TOKEN_VARS:
            env.pop(variable, None)
        layer_env = {"ANTHROPIC_BASE_URL": claude.anthropic_base(profile), "ANTHROPIC_API_KEY": ""}
        if profile.model:
            layer_env["ANTHROPIC_MODEL"] = profile.model
        for option, variable in claude.ENV_FOR_OPTION.items():
            if profile.option(option):
                layer_env[variable] = str(profile.option(option))
        settings: dict[str, object] = {"env": layer_env}
        if profile.key:
            layer_env["ANTHROPIC_AUTH_TOKEN"] = ""  # a leftover token must not outrank it
            settings["apiKeyHelper"] = claude.helper_command(profile.key)
        else:  # key_env only: the key goes into the 0600 layer, removed when claude exits
            layer_env["ANTHROPIC_AUTH_TOKEN"] = key
        return Launch([command[0], "--settings", "<layer>", *command[1:]], env, settings)
    if profile.app == "codex" and tool == "codex":
        ident = codex.provider_id(profile)
        table = codex.provider_table(profile)
        table["name"] = f"{profile.name} (judgeaudit exec)"
        overrides = [
            "-c",
            f"model_provider={json.dumps(ident)}",
            "-c",
            f"model_providers.{ident}={_toml_inline(table)}",
        ]
        if profile.model:
            overrides += ["-c", f"model={json.dumps(profile.model, ensure_ascii=False)}"]
        if "env_key" in table:
            env[str(table["env_key"])] = key
        return Launch([command[0], *overrides, *command[1:]], env)
    env.update(sdk.variables(profile, key))
    return Launch(list(command), env)


@contextlib.contextmanager
def _settings_file(settings: dict[str, object]) -> Iterator[str]:
    fd, name = tempfile.mkstemp(prefix="judgeaudit-claude-", suffix=".json")  # mode 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(settings, handle, indent=2)
        os.chmod(name, 0o600)
        yield name
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name)


def run(launch: Launch) -> int:
    """Run the command to its end (signals forwarded); the settings layer is always removed."""
    with contextlib.ExitStack() as stack:
        argv = list(launch.argv)
        if launch.settings is not None:
            argv[argv.index("<layer>")] = stack.enter_context(_settings_file(launch.settings))
        try:
            child = subprocess.Popen(argv, env=launch.env)
        except FileNotFoundError:
            raise ProfileError(f"exec: command not found: {argv[0]}") from None
        except PermissionError:
            raise ProfileError(f"exec: not executable: {argv[0]}") from None

        def forward(signum: int, _frame: FrameType | None) -> None:
            with contextlib.suppress(ProcessLookupError):
                child.send_signal(signum)

        previous = {sig: signal.signal(sig, forward) for sig in (signal.SIGTERM,)}
        try:
            while True:
                try:
                    return child.wait()
                except KeyboardInterrupt:  # the terminal sent SIGINT to the child too
                    continue
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
    return 0  # not reached

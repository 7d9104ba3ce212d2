"""Where judgeaudit keeps user profiles, state, backups and locks (relocatable for tests)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import platformdirs

CONFIG_ENV = "JUDGEAUDIT_CONFIG_DIR"
PRESETS_ENV = "JUDGEAUDIT_PRESETS_DIR"


def config_dir() -> Path:
    override = os.environ.get(CONFIG_ENV)
    return Path(override) if override else Path(platformdirs.user_config_dir("judgeaudit"))


def presets_dir() -> Path:
    """The shipped presets (the repository's ``profiles/`` links here), or
    ``$JUDGEAUDIT_PRESETS_DIR``."""
    override = os.environ.get(PRESETS_ENV)
    if override:
        return Path(override)
    return Path(__file__).resolve().parents[1] / "data" / "profiles"


def _absolute(base: str) -> Path:
    """A relative ``CLAUDE_CONFIG_DIR``/``CODEX_HOME`` names a folder under the working directory
    (as the tools read it): made absolute here, so a marker, ledger or backup written in one
    directory is never taken for another directory's file of the same relative name."""
    return Path(os.path.abspath(base))


def claude_settings() -> Path:
    base = os.environ.get("CLAUDE_CONFIG_DIR")
    return (_absolute(base) if base else Path.home() / ".claude") / "settings.json"


def codex_home() -> Path:
    base = os.environ.get("CODEX_HOME")
    return _absolute(base) if base else Path.home() / ".codex"


def live_file(app: str) -> Path | None:
    """The user file a global switch of ``app`` writes in this environment (``CLAUDE_CONFIG_DIR``,
    ``CODEX_HOME``): what its active profile belongs to. None for the SDK (no file)."""
    if app == "claude":
        return claude_settings()
    if app == "codex":
        return codex_home() / "config.toml"
    return None


CLAUDE_MANAGED_ENV = "JUDGEAUDIT_CLAUDE_MANAGED_SETTINGS"
CODEX_MANAGED_ENV = "JUDGEAUDIT_CODEX_MANAGED_CONFIG"


def claude_managed_settings() -> Path:
    """Claude Code's managed (policy) settings file for this platform; it outranks everything."""
    override = os.environ.get(CLAUDE_MANAGED_ENV)
    if override:
        return Path(override)
    if sys.platform == "darwin":
        return Path("/Library/Application Support/ClaudeCode/managed-settings.json")
    if sys.platform == "win32":
        return Path(r"C:\ProgramData\ClaudeCode\managed-settings.json")
    return Path("/etc/claude-code/managed-settings.json")


def codex_managed_config() -> Path:
    override = os.environ.get(CODEX_MANAGED_ENV)
    return Path(override) if override else Path("/etc/codex/managed_config.toml")


def project_dirs(cwd: Path) -> list[Path]:
    """The current directory and its parents up to the repository root (where a .git is),
    nearest first: where project settings of Claude Code and Codex live."""
    out = []
    for directory in (cwd, *cwd.parents):
        out.append(directory)
        if (directory / ".git").exists() or directory == Path.home():
            break
    return out


def shown(path: Path) -> str:
    """A file as the user knows it, for the switch preview's diff headers and notes (the CLI's
    and the app's): under the home folder as ``~/.claude/settings.json``, else under the working
    directory relative to it (as git does; a relative ``CLAUDE_CONFIG_DIR`` reads as given),
    else whole. Was relative to the working directory first, so the same file read
    ``.claude/settings.json`` in ``~`` and ``/home/me/.claude/settings.json`` elsewhere."""
    try:
        return "~/" + path.relative_to(Path.home()).as_posix()
    except (ValueError, RuntimeError):  # elsewhere, or no home to be found
        pass
    try:
        return str(path.relative_to(Path.cwd()))
    except (ValueError, OSError):  # elsewhere, or the working directory is gone
        return str(path)

"""Where judgeaudit keeps user profiles, state, backups and locks (relocatable for tests)."""

from __future__ import annotations

import os
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


def claude_settings() -> Path:
    base = os.environ.get("CLAUDE_CONFIG_DIR")
    return (Path(base) if base else Path.home() / ".claude") / "settings.json"


def codex_home() -> Path:
    base = os.environ.get("CODEX_HOME")
    return Path(base) if base else Path.home() / ".codex"

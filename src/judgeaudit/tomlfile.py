"""Reading a TOML file with one-line errors that name the file (specs, profiles, sim configs)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any


def read_toml(path: Path, what: str, error: type[Exception]) -> dict[str, Any]:
    """The parsed file, or ``error("PATH: cannot read WHAT: ...")`` / ``"... not valid TOML: ..."``."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise error(f"{path}: cannot read {what}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{path}: not valid TOML: {exc}") from None

"""How to install one of judgeaudit's extras (``duckdb``, ``spark``) into the environment this
process runs in, for the line that says it is missing.

A venv made by ``make demo`` or ``make venv`` has no pip of its own (uv filled it, and its uv sits
beside its Python), so "pip install …" is not a command its user can run there: the line names
that uv with this interpreter instead, relative to the current directory when under it (the
README's ``.venv/bin/uv``). Anywhere with pip, it is pip.
"""

from __future__ import annotations

import contextlib
import importlib.util
import shlex
import sys
from pathlib import Path


def install(extra: str) -> str:
    """The command that installs ``judgeaudit[extra]`` here."""
    package = shlex.quote(f"judgeaudit[{extra}]")
    if importlib.util.find_spec("pip") is None:
        python = Path(sys.executable)
        uv = python.parent / "uv"
        if uv.is_file():
            return f"{_shown(uv)} pip install --python {_shown(python)} {package}"
    return f"pip install {package}"


def _shown(path: Path) -> str:
    """``path`` as the user would type it here: relative under the current directory."""
    with contextlib.suppress(ValueError):  # not under it: the whole path
        path = path.relative_to(Path.cwd())
    return shlex.quote(str(path))

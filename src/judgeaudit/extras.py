"""How to install one of judgeaudit's extras (``duckdb``, ``spark``) into the environment this
process runs in, for the line that says it is missing.

A venv made by ``make demo`` or ``make venv`` has no pip of its own (uv filled it, and its uv sits
beside its Python), so "pip install …" is not a command its user can run there: the line names
that uv with this interpreter instead. Anywhere with pip, it is pip.
"""

from __future__ import annotations

import importlib.util
import shlex
import sys
from pathlib import Path


def install(extra: str) -> str:
    """The command that installs ``judgeaudit[extra]`` here."""
    package = shlex.quote(f"judgeaudit[{extra}]")
    if importlib.util.find_spec("pip") is None:
        uv = Path(sys.executable).parent / "uv"
        if uv.is_file():
            return f"{shlex.quote(str(uv))} pip install --python {shlex.quote(sys.executable)} {package}"
    return f"pip install {package}"

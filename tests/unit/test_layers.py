"""The engine never imports textual (the TUI is the only layer that may)."""

from __future__ import annotations

import subprocess
import sys

ENGINE = ("sim", "llm", "audit", "analysis", "profiles", "bridge", "cli", "rollouts")


def test_engine_packages_never_import_textual() -> None:
    code = (
        "import importlib, pkgutil, sys\n"
        "import judgeaudit\n"
        f"for pkg in {ENGINE!r}:\n"
        "    mod = importlib.import_module('judgeaudit.' + pkg)\n"
        "    for info in pkgutil.walk_packages(mod.__path__, mod.__name__ + '.'):\n"
        "        importlib.import_module(info.name)\n"
        "importlib.import_module('judgeaudit.engine')\n"
        "bad = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.'))\n"
        "print(len(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "0", out.stdout + out.stderr

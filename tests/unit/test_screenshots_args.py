"""`python scripts/screenshots.py --help` prints its help and writes nothing: it took `--help`
as the output folder and wrote `./--help/` (twenty-eighth session); an unknown option is
refused the same way, exit 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "screenshots.py"


def test_help_prints_help_and_an_unknown_option_is_refused(tmp_path: Path) -> None:
    shown = subprocess.run(
        [sys.executable, str(SCRIPT), "--help"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith("usage: python scripts/screenshots.py [-h] [OUT_DIR]")
    refused = subprocess.run(
        [sys.executable, str(SCRIPT), "--shots"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert refused.returncode == 2
    assert "unrecognized arguments: --shots" in refused.stderr
    assert list(tmp_path.iterdir()) == []  # no `--help/` or `--shots/` folder

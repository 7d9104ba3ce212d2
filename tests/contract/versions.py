"""The client releases the tests are pinned to (``client-versions.env``, also read by
scripts/test.sh)."""

from __future__ import annotations

from pathlib import Path

PINS = Path(__file__).with_name("client-versions.env")


def pinned(app: str) -> str:
    """``pinned("claude")`` -> the Claude Code version the contract tests run."""
    wanted = f"{app.upper()}_VERSION="
    for line in PINS.read_text(encoding="utf-8").splitlines():
        if line.startswith(wanted):
            return line[len(wanted) :].strip()
    raise KeyError(f"{PINS}: no {wanted}...")

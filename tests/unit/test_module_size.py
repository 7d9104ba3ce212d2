"""Every module in ``src/`` stays under 400 lines, so a newcomer can read one in a sitting and a
file that grows past it is split by subject (see docs/architecture.md) rather than by accident."""

from __future__ import annotations

from pathlib import Path

LIMIT = 400
SRC = Path(__file__).resolve().parents[2] / "src" / "judgeaudit"


def test_no_module_over_the_limit() -> None:
    sizes = {p: len(p.read_text(encoding="utf-8").splitlines()) for p in SRC.rglob("*.py")}
    assert len(sizes) > 100  # the tree was found
    over = sorted(f"{p.relative_to(SRC.parent)}: {n} lines" for p, n in sizes.items() if n > LIMIT)
    assert not over, f"split these modules below {LIMIT} lines: {over}"

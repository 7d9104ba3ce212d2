"""The committed screenshots show the app as it is: `scripts/screenshots.py` renders every
screen again into a scratch directory and the text of each picture must match the committed one
(digits and hex ids masked: run ids, times and rates are not the point; the judge log, whose
order depends on scheduling, is left out of the two Run pictures). The mid-run picture is
compared row by row too, but for what depends on timing (`steady_live`): until the
twenty-ninth session only its first and last rows were, and a stale break of its figures line
(`limits:` at the end of one row, `sim 31/32` on the next) passed."""

from __future__ import annotations

import html
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SHOTS = REPO / "screenshots"
TEXT = re.compile(r'<text class="[^"]*" x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>', re.S)
LIVE = {"run-live", "run"}
# a re-judge's id ends in a hash of its spec, which names the source run's random uid
HEX = re.compile(r"\b(?=[0-9a-f]*\d)[0-9a-f]{4,}\b")
BAR = re.compile(r"[━╸╺╾╼]+")
ETA = re.compile(r"ETA \S+")


def svg_lines(path: Path) -> list[str]:
    rows: dict[float, list[tuple[float, str]]] = {}
    for x, y, body in TEXT.findall(path.read_text(encoding="utf-8")):
        rows.setdefault(float(y), []).append((float(x), html.unescape(body)))
    lines = ["".join(t for _, t in sorted(parts)).rstrip() for _, parts in sorted(rows.items())]
    return [re.sub(r"\d+", "9", HEX.sub("#", line.replace("\xa0", " "))) for line in lines]


def without_log(lines: list[str]) -> list[str]:
    out, inside = [], False
    for line in lines:
        if "judge log" in line and "╭" in line:
            inside = True
        if not inside:
            out.append(line)
        if inside and "╰" in line:
            inside = False
    return out


def steady_live(lines: list[str]) -> list[str]:
    """The mid-run picture's rows without what a timing changes: where the bar's head is, the
    ETA (`--`, `7s`, `1m05s`), a count past 4 digits (masked as a hex id), the column widths,
    and the agent-pair table's rows (a pair shows once the judge has decided one of its
    pairs). Every other row, the figures line's break among them, must match."""
    kept, body = [], False
    for line in lines:
        if body and line.startswith(" "):  # a row of the table (the footer starts a key)
            continue
        body = "agent A" in line and "agent B" in line
        line = ETA.sub("ETA …", BAR.sub("━", line)).replace("#", "9")
        kept.append(" ".join(line.split()))
    return kept


def test_committed_screenshots_match_a_fresh_render(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "screenshots.py"), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    fresh = sorted(p.stem for p in tmp_path.glob("*.svg"))
    assert fresh == sorted(p.stem for p in SHOTS.glob("*.svg")), "a picture added or gone"
    stale = []
    for name in fresh:
        new, old = svg_lines(tmp_path / f"{name}.svg"), svg_lines(SHOTS / f"{name}.svg")
        if name in LIVE:
            new, old = without_log(new), without_log(old)
            if name == "run-live":  # mid-run: some of what is on screen depends on timing
                new, old = steady_live(new), steady_live(old)
        if new != old:
            stale.append(name)
    assert not stale, f"stale screenshots (run `make screenshots`): {stale}"

"""The ``style`` section as text lines, Markdown, an SVG forest plot and a terminal forest plot
(one renderer per form; the report, ``show`` and the app's Why view all call these)."""

from __future__ import annotations

import itertools
import math
from html import escape
from typing import Any

from judgeaudit.analysis.fmt import ratio_text, with_ci

LABELS = {
    "position": "position (shown first)",
    "success": "success (state check)",
    "length": "length",
    "turns": "agent turns",
    "tool_calls": "tool calls",
    "claimed_done": "claimed done",
    "claimed_but_failed": "claimed but failed",
    "courtesy": "courtesy markers",
    "asks_confirmation": "asks confirmation",
    "cites_ids": "cites order/item ids",
}


COLOURS = {"style": "#b03030", "process": "#b07020", "claim": "#8030a0"}
#: beside an unstable term's odds ratio wherever one is printed (``why.instability``)
UNSTABLE = "(unstable)"


def _unstable(term: dict[str, Any]) -> bool:
    # imported here: why.py loads numpy, which the app must not load before its first paint;
    # a fitted style section is only rendered after a report has loaded it anyway
    from judgeaudit.analysis.why import is_unstable

    return is_unstable(term)


def _stable_first(terms: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The terms in their order, unstable ones moved last (a section kept before the flag
    existed is ordered by |log odds ratio| alone)."""
    return sorted(terms, key=_unstable)


def _unstable_note(terms: list[dict[str, Any]]) -> str | None:
    from judgeaudit.analysis.why import UNSTABLE_SPAN

    if not any(_unstable(t) for t in terms):
        return None
    return (
        f"{UNSTABLE} marks a term whose 95% interval's ends are more than {UNSTABLE_SPAN:g}-fold "
        "apart (few judged orders differ in the feature, or nearly all the same way): read its "
        "direction, not its size; no ranking puts it above a stable term (docs/why.md)"
    )


def _rate(rate: dict[str, Any] | None) -> str:
    if not rate:
        return "n/a"
    return with_ci(rate["rate"], [rate["ci_low"], rate["ci_high"]])


def _model_rate(controlled: dict[str, Any]) -> str:
    """The fitted model's own rate (style kept) with its interval, the controlled rate's method
    (a section kept before it had one says so)."""
    return with_ci(controlled["model_rate"], controlled.get("model_rate_ci"), none="[no CI]")


SHOWN = 3  # terms the headline names; the rest are counted ("and 1 more")


def headline(style: dict[str, Any]) -> str:
    """One sentence: misselected rate raw and controlled, and how many pairs style explains."""
    if style.get("status") != "ok":
        return str(style.get("note", "style attribution: not computed"))
    top = [
        t
        for t in _stable_first(style["terms"])
        if t["kind"] not in ("success", "position") and t["ci_low"] > 1
    ]
    moves = ", ".join(_label(t, " (size unstable)") for t in top[:SHOWN]) or "no style term"
    if len(top) > SHOWN:  # every qualifying term is in the table below; say how many are not here
        moves += f" and {len(top) - SHOWN} more"
    return (
        f"rewards {moves} (odds ratio > 1, interval excluding 1); per judged order it picks the "
        f"failed side {_rate(style['raw_rate'])}, controlled for style "
        f"({', '.join(style['zeroed']) or 'no style feature varies'}) "
        f"{_rate(style['controlled_rate'])}; "
        f"style explains {style['explained']} of {style['misselected']} misselected pairs"
    )


def style_lines(style: dict[str, Any]) -> list[str]:
    """The text report's "what moves this judge" block."""
    lines = ["what moves this judge (style attribution):"]
    if style.get("status") != "ok":
        return [*lines, f"  {style.get('note')}"]
    lines.append(f"  {headline(style)}")
    terms = _stable_first(style["terms"])
    lines += [" ".join(parts) for parts in term_lines(style)]
    note = _unstable_note(terms)
    lines += [f"  {note}"] if note else []
    for d in style.get("dropped", []):
        lines.append(f"  {d['feature']}: left out ({d['reason']})")
    by = ", ".join(f"{k} {v}" for k, v in style["explained_by"].items()) or "none"
    lines += [
        f"  explained by style: {style['explained']}/{style['misselected']} misselected pairs "
        f"(largest push: {by})",
        f"  raw {_rate(style['raw_rate'])} vs style-controlled {_rate(style['controlled_rate'])}"
        f" of {style['raw_rate']['orders']} judged orders of decisive pairs (the model with style "
        f"kept: {_model_rate(style['controlled_rate'])}, the same interval)",
        f"  ({style['method']}; {style['orders']} orders over {style['tasks']} tasks; "
        f"controlled: {style['controlled_rate']['method']})",
    ]
    return lines


def term_lines(style: dict[str, Any]) -> list[tuple[str, str]]:
    """Each term of the text report, in its order, as (figures, unit): one line there, joined by
    a space; the app's Why view puts the unit on a line of its own where that is too wide."""
    return [
        (
            f"  {LABELS.get(t['feature'], t['feature']):<26} OR {ratio_text(t['odds_ratio']):>7} "
            f"95% CI [{ratio_text(t['ci_low'])}, {ratio_text(t['ci_high'])}]  {t['kind']:<8}",
            f"{t['unit']}" + (f"  {UNSTABLE}" if _unstable(t) else ""),
        )
        for t in _stable_first(style["terms"])
    ]


def style_markdown(style: dict[str, Any]) -> list[str]:
    out = ["## What moves this judge", ""]
    if style.get("status") != "ok":
        return [*out, str(style.get("note")), ""]
    out += [headline(style) + ".", "", "| term | odds ratio | 95% CI | unit |", "|---|---|---|---|"]
    terms = _stable_first(style["terms"])
    for t in terms:
        out.append(
            f"| {LABELS.get(t['feature'], t['feature'])} | {_value(t)} | "
            f"[{ratio_text(t['ci_low'])}, {ratio_text(t['ci_high'])}] | {t['unit']} |"
        )
    note = _unstable_note(terms)
    out += ["", f"{note}."] if note else []
    out += [
        "",
        f"Model: {style['method']}. Controlled rate: {style['controlled_rate']['method']}.",
        "",
    ]
    return out


def _label(t: dict[str, Any], flag: str = f" {UNSTABLE}") -> str:
    name = str(t["feature"])
    return LABELS.get(name, name) + (flag if _unstable(t) else "")


def _value(t: dict[str, Any]) -> str:
    """The odds ratio as printed, flagged when unstable: ``796 (unstable)``."""
    return ratio_text(t["odds_ratio"]) + (f" {UNSTABLE}" if _unstable(t) else "")


def _axis(terms: list[dict[str, Any]]) -> tuple[float, float]:
    values = [v for t in terms for v in (t["ci_low"], t["ci_high"]) if v > 0]
    low = min([0.5, *values])
    high = max([2.0, *values])
    return math.log(max(low, 1e-3)), math.log(min(high, 1e3))


#: The fewest pixels between two tick labels of the forest plot (``0.002`` is ~30 wide).
TICK_GAP_PX = 34


def log_ticks(lo: float, hi: float, width: float) -> list[float]:
    """Round ticks over a log axis from e^lo to e^hi drawn ``width`` pixels wide: 1, 2 and 5 of
    each decade, only the powers of ten where those crowd (closer than :data:`TICK_GAP_PX`),
    always 1 (the line of no effect); the axis spans 1e-3 to 1e3, so fixed ticks (0.25 to 10)
    left a wide interval's ends unlabelled."""
    span = hi - lo
    if span <= 0:
        return [1.0]
    first, last = math.floor(lo / math.log(10)), math.ceil(hi / math.log(10))
    for steps in ((1, 2, 5), (1,)):
        ticks = [
            float(f"{m}e{e}")  # 2e-3, not 0.0020000000000000005
            for e in range(first, last + 1)
            for m in steps
            if lo - 1e-12 <= math.log(m) + e * math.log(10) <= hi + 1e-12
        ]
        gaps = [math.log(b / a) / span * width for a, b in itertools.pairwise(ticks)]
        if all(g >= TICK_GAP_PX for g in gaps):
            break
    return ticks or [1.0]


def _past_axis(t: dict[str, Any], lo: float, hi: float) -> tuple[bool, bool]:
    """Whether the interval runs past the axis's low and high end (it stops at 1e-3, 1e3)."""
    return math.log(max(t["ci_low"], 1e-9)) < lo, math.log(max(t["ci_high"], 1e-9)) > hi


def _clipped(
    t: dict[str, Any], lo: float, hi: float, left: int, width: int, y: int, colour: str
) -> list[str]:
    """Arrowheads at an axis end the interval runs past."""
    marks = []
    past_low, past_high = _past_axis(t, lo, hi)
    if past_high:
        x = left + width
        marks.append(f"<path d='M{x},{y - 5} L{x + 8},{y} L{x},{y + 5} Z' fill='{colour}'/>")
    if past_low:
        marks.append(
            f"<path d='M{left},{y - 5} L{left - 8},{y} L{left},{y + 5} Z' fill='{colour}'/>"
        )
    return marks


def forest_svg(style: dict[str, Any], title: str) -> str:
    """Odds ratios with their 95% intervals on a log axis, the line at 1 marked."""
    terms = _stable_first(style.get("terms") or [])
    if style.get("status") != "ok" or not terms:
        return ""
    lo, hi = _axis(terms)
    left, width, row = 190, 420, 22
    height = 50 + row * len(terms)

    def px(value: float) -> float:
        v = min(max(math.log(max(value, 1e-9)), lo), hi)
        return left + (v - lo) / (hi - lo) * width

    parts = [
        f"<svg width='{left + width + 130}' height='{height}' "
        f"role='img' aria-label='{escape(title)}'>",
        f"<text x='4' y='16' font-size='13' font-weight='bold'>{escape(title)}</text>",
        f"<line x1='{px(1):.1f}' y1='26' x2='{px(1):.1f}' y2='{height - 14}' stroke='#888' "
        "stroke-dasharray='3,3'/>",
    ]
    for i, t in enumerate(terms):
        y = 38 + i * row
        colour = COLOURS.get(t["kind"], "#305080")
        dashed = " stroke-dasharray='4,3'" if _unstable(t) else ""  # a size the data cannot pin
        parts += [
            f"<text x='4' y='{y + 4}' font-size='12'>{escape(LABELS.get(t['feature'], t['feature']))}</text>",
            f"<line x1='{px(t['ci_low']):.1f}' y1='{y}' x2='{px(t['ci_high']):.1f}' y2='{y}' "
            f"stroke='{colour}' stroke-width='2'{dashed}/>",
            f"<circle cx='{px(t['odds_ratio']):.1f}' cy='{y}' r='4' fill='{colour}'/>",
            *_clipped(t, lo, hi, left, width, y, colour),
            f"<text x='{left + width + 6}' y='{y + 4}' font-size='11'>{_value(t)}</text>",
        ]
    for tick in log_ticks(lo, hi, width):
        parts.append(
            f"<text x='{px(tick):.1f}' y='{height - 2}' font-size='10' "
            f"text-anchor='middle'>{tick:g}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def forest_text(style: dict[str, Any], width: int = 40) -> list[str]:
    """The same forest plot in characters: ``─`` the interval, ``●`` the odds ratio, ``│`` 1."""
    terms = _stable_first(style.get("terms") or [])
    if style.get("status") != "ok" or not terms:
        return [str(style.get("note", "style attribution: not computed"))]
    lo, hi = _axis(terms)

    def col(value: float) -> int:
        v = min(max(math.log(max(value, 1e-9)), lo), hi)
        return round((v - lo) / (hi - lo) * (width - 1))

    lines = []
    for t in terms:
        cells = [" "] * width
        for c in range(col(t["ci_low"]), col(t["ci_high"]) + 1):
            cells[c] = "─"
        cells[col(1.0)] = "│" if cells[col(1.0)] == " " else "┼"
        cells[min(max(col(t["odds_ratio"]), 1), width - 2)] = "●"
        # past the axis: an arrow at that end, not a clipped line
        past_low, past_high = _past_axis(t, lo, hi)
        if past_high:
            cells[-1] = "▶"
        if past_low:
            cells[0] = "◀"
        label = LABELS.get(t["feature"], t["feature"])
        lines.append(f"{label:<24} {''.join(cells)} {_value(t)}")
    lines.append(f"{'':<24} {math.exp(lo):<{width // 2}.2g}{math.exp(hi):>{width - width // 2}.2g}")
    return lines

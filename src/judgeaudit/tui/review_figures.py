"""The Review screen's agreement figures: as labelled, and weighted back to the audit by the
inverse sampling probability of each stratum with a stratified-bootstrap interval (the report's
own figures, :func:`judgeaudit.analysis.review.agreement`), and the sample size a 20-point
interval needs (what `review export` suggests).

The figures are computed in the screen's workers (the bootstrap takes a moment), not on every
key press."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.text import Text

from judgeaudit.analysis.fmt import LABELLED_SHORT, as_labelled, contradicting_line, weighted

if TYPE_CHECKING:  # pandas loads when the figures are first computed
    import pandas as pd

#: `review export --width`'s default: the interval width the suggested sample size aims at
WIDTH = 0.2


@dataclass(frozen=True)
class ReviewFigures:
    agreement: dict[str, Any]  # analysis.review.agreement's result
    suggested: int  # labelled pairs for a WIDTH-wide 95% interval on the weighted agreement
    pairs: int = 0  # the run's pairs (``suggested`` never exceeds them)


def review_figures(pairs: pd.DataFrame, labels: pd.DataFrame) -> ReviewFigures:
    from judgeaudit.analysis.review import agreement  # pandas: when the figures are computed
    from judgeaudit.analysis.review_weights import stratum_of, suggested_n

    population = {str(k): int(v) for k, v in stratum_of(pairs).value_counts().items()}
    return ReviewFigures(
        agreement(pairs, labels, population), suggested_n(population, WIDTH), len(pairs)
    )


PARTS = (
    ("judge_vs_human", "judge vs human", "pairs"),
    ("success_check_vs_human", "success check vs human", "conversations"),
)


def figures_text(figures: ReviewFigures | None) -> Text:
    """One line per comparison (as labelled, then weighted to the audit), then the method and
    the suggested sample size."""
    if figures is None:
        return Text("")
    found = figures.agreement
    text = Text()
    if line := contradicting_line(found):
        text.append(f"{line}\n", style="bold yellow")
    for key, name, unit in PARTS:
        part = found.get(key)
        if not isinstance(part, dict):
            continue
        text.append(f"{name}: ", style="bold")
        text.append(f"{part['n']} {unit}, as labelled {as_labelled(part)}; weighted to the audit: ")
        text.append(weighted(part).split(" (95%: ")[0], style="bold")
        text.append("\n")
    method = next(
        (found[k]["interval"] for k, _, _ in PARTS if isinstance(found.get(k), dict)), None
    )
    if method:
        text.append(f"95%: as labelled, {LABELLED_SHORT}; weighted, {method}; ", style="dim")
    needs = (
        f"every one of the run's {figures.suggested} pairs labelled"
        if figures.suggested == figures.pairs
        else f"~{figures.suggested} labelled pairs"
    )
    text.append(
        f"a {WIDTH * 100:g}-point interval on the weighted agreement needs {needs}", style="dim"
    )
    return text

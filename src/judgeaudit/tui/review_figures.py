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


@dataclass(frozen=True)
class ReviewFigures:
    agreement: dict[str, Any]  # analysis.review.agreement's result
    suggested: int  # labelled pairs for a WIDTH_POINTS-wide 95% interval (review_weights)
    pairs: int = 0  # the run's pairs (``suggested`` never exceeds them)


def review_figures(pairs: pd.DataFrame, labels: pd.DataFrame) -> ReviewFigures:
    from judgeaudit.analysis.review import agreement  # pandas: when the figures are computed
    from judgeaudit.analysis.review_weights import WIDTH_POINTS, stratum_of, suggested_n

    population = {str(k): int(v) for k, v in stratum_of(pairs).value_counts().items()}
    return ReviewFigures(
        agreement(pairs, labels, population),
        suggested_n(population, WIDTH_POINTS / 100),
        len(pairs),
    )


PARTS = (
    ("judge_vs_human", "judge vs human", "pairs"),
    ("success_check_vs_human", "success check vs human", "conversations"),
)


def needs_text(figures: ReviewFigures) -> str:
    needs = (
        f"every one of the run's {figures.suggested} pairs labelled"
        if figures.suggested == figures.pairs
        else f"~{figures.suggested} labelled pairs"
    )
    from judgeaudit.analysis.review_weights import WIDTH_POINTS  # loaded with the figures

    return f"a {WIDTH_POINTS}-point interval on the weighted agreement needs {needs}"


def methods(figures: ReviewFigures) -> list[tuple[str, str]]:
    """Each comparison's name and how its weighted intervals are drawn (or why one is not)."""
    found = figures.agreement
    return [
        (name, str(found[key]["interval"]))
        for key, name, _ in PARTS
        if isinstance(found.get(key), dict) and found[key].get("interval")
    ]


#: the screen's pointer to the whole method note (a new user saw it cut mid-sentence at 120x40)
METHOD_KEY = "m: how each 95% interval is drawn"


def figures_text(figures: ReviewFigures | None) -> Text:
    """One line per comparison (as labelled, then weighted to the audit), the suggested sample
    size, then where the method is (:func:`method_text`: too long to read whole beside the
    transcripts at 80x24)."""
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
    text.append(needs_text(figures), style="dim")
    if methods(figures):
        missing = any(
            part.get("weighted_agreement_ci") is None
            or (part.get("weighted_kappa") is not None and part.get("weighted_kappa_ci") is None)
            for part in (found.get(key) for key, _, _ in PARTS)
            if isinstance(part, dict)
        )
        text.append(f"\n{METHOD_KEY}" + (" and why one has none" if missing else ""), style="dim")
    return text


def method_text(figures: ReviewFigures | None) -> Text:
    """The whole method note: the intervals as labelled, then each comparison's weighted ones
    (or why there is none yet), then the suggested sample size."""
    if figures is None or not (said := methods(figures)):
        return Text("No agreement figures yet: label a pair (1-4, a/b/t) first.")
    text = Text("95% intervals\n\n", style="bold")
    text.append("As labelled: ", style="bold")
    text.append(f"{LABELLED_SHORT}.\n\n")
    for name, how in said:
        text.append(f"{name}, weighted to the audit: ", style="bold")
        text.append(f"{how}.\n\n")
    text.append(f"{needs_text(figures)}.")
    return text

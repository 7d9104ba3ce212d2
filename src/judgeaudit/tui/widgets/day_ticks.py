"""The Trends charts' x tick labels: the dates (or periods) the HTML page's axis shows
(:func:`~judgeaudit.analysis.trend_axis.x_ticks`, one owner of where ticks fall), not
textual-plot's day numbers (0, 5, 10 … beside an axis named "day (0 = 2026-11-01)").

Imported when a trend is first drawn: textual-plot loads numpy."""

from __future__ import annotations

from collections.abc import Sequence

from textual_plot import AxisFormatter, PlotWidget

from judgeaudit.analysis.trend_axis import x_ticks

#: cells between the plot's left edge and its first x (textual-plot's y-axis margin)
_MARGIN = 10


def short(label: str) -> str:
    """A tick label in a terminal's few cells: a date without its year (11-08); a period's
    own name (2026-W05, 2026-11) as is."""
    if len(label) == 10 and label[4] == "-" and label[7] == "-":
        return label[5:]
    return label


class _DayLabels(AxisFormatter):
    """Ticks where :func:`x_ticks` puts them for the plot's width when it draws (its size is
    0 when the trend's data is set), each labelled with its date."""

    def __init__(self, plot: PlotWidget, periods: list[str]) -> None:
        self.plot, self.periods = plot, periods
        self.labels: dict[float, str] = {}

    def get_ticks(self, min_: float, max_: float, max_ticks: int = 8) -> list[float]:
        width = max(10, self.plot.size.width - _MARGIN)
        widest = max(len(short(p[:10])) for p in self.periods)
        ticks = x_ticks(self.periods, width=width, label=widest)
        self.labels = {float(x): short(label) for x, label in ticks}
        return sorted(x for x in self.labels if min_ <= x <= max_)

    def get_labels_for_ticks(self, ticks: Sequence[float]) -> list[str]:
        return [self.labels.get(float(t), "") for t in ticks]


def label_days(plot: PlotWidget, periods: list[str]) -> None:
    """Put ``periods``' date ticks on ``plot``'s x axis, as many as its width keeps apart."""
    plot.set_x_formatter(_DayLabels(plot, periods))
    plot.set_xticks(None)

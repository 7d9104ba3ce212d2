"""``judgeaudit trend OUT...``: misselection and the judge's other figures over many runs, with
alerts on a rise (``--fail-on-alert`` exits 3)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judgeaudit.cli import command_help
from judgeaudit.cli.common import GAP_SOURCE_HELP, UserError

if TYPE_CHECKING:
    from judgeaudit.cli.common import Sub


def register(sub: Sub) -> None:
    from judgeaudit.analysis.trend_alerts import ALERT_EXIT, ALPHA, BASELINE, UNTESTED_EXIT
    from judgeaudit.trend_work import WORK_DEFAULT

    trend = sub.add_parser(
        "trend",
        help=command_help("trend"),
        description="Orders the finished runs by period (the `period` of recorded imports, else "
        "the run's creation time) and reports each period's figures with intervals; alerts "
        "when overall or near-bucket misselection, or the overall tie-aware rate (a tie counts "
        "half a loss), rises above the baseline window.",
    )
    trend.add_argument(
        "targets",
        nargs="+",
        metavar="OUT",
        help="output directories, a folder of them, a quoted glob, or a folder of daily "
        "recorded-verdict files DAY.jsonl (each audited into --work, again when its content "
        "changes; a refused day is left out and named, exit 6)",
    )
    trend.add_argument(
        "--format",
        choices=["table", "json", "csv", "html"],
        default="table",
        help="table (default), json, csv (one row per period and figure) or html (charts)",
    )
    trend.add_argument("--output", type=Path, help="write to this file instead of stdout")
    trend.add_argument(
        "--gap-source", choices=["capability", "judge", "external"], help=GAP_SOURCE_HELP
    )
    trend.add_argument(
        "--baseline",
        type=int,
        default=BASELINE,
        metavar="N",
        help=f"the first N periods are the baseline window (default {BASELINE})",
    )
    trend.add_argument(
        "--alpha",
        type=float,
        default=ALPHA,
        help=f"family-wise false-alert rate over the series (Holm; default {ALPHA})",
    )
    trend.add_argument(
        "--fail-on-alert",
        action="store_true",
        help=f"exit {ALERT_EXIT} when any alert is raised, {UNTESTED_EXIT} when nothing could be "
        "tested (too few periods), else 0 (for cron and CI)",
    )
    trend.add_argument(
        "--work",
        type=Path,
        help=f"where daily files are audited (default: FOLDER/{WORK_DEFAULT})",
    )
    trend.set_defaults(func=cmd_trend)


def build(
    targets: list[str],
    gap_source: str | None = None,
    baseline: int = 7,
    alpha: float = 0.05,
    work: Path | None = None,
) -> dict[str, Any]:
    """The trend with its alerts; one-line errors as UserError (exit 2)."""
    from judgeaudit.analysis.frame import AnalysisError
    from judgeaudit.daily import trend_with_alerts

    try:
        return trend_with_alerts(targets, gap_source, baseline, alpha, work)
    except (AnalysisError, KeyError) as exc:
        raise UserError(str(exc)) from None


def cmd_trend(args: argparse.Namespace) -> int:
    from judgeaudit.analysis.trend_alerts import ALERT_EXIT, UNTESTED_EXIT, untested
    from judgeaudit.analysis.trend_fmt import dropped_part, missing_line, render
    from judgeaudit.cli.common import print_output, write_output
    from judgeaudit.daily import PARTIAL_EXIT

    if args.output and args.output.is_dir():  # refused before any day is audited
        raise UserError(f"--output {args.output}: is a directory; give a file path")
    reads = _reads(args.targets)
    if args.output:  # and over a file it reads or a run owns (again when it is written)
        from judgeaudit.analysis.outputs import check_output

        check_output(args.output, "--output", reads)
    trend = build(args.targets, args.gap_source, args.baseline, args.alpha, args.work)
    # refused and ignored days: one line each on stderr (a cron job's mail sees them however
    # stdout is redirected); a table printed to stdout leaves them to stderr, a file keeps them
    text = render(trend, args.format, files=args.output is not None)
    if args.output:
        write_output(args.output, text, "--output", reads)
    else:
        print_output(text)
    for left in trend.get("unfinished", []):  # left out of the series: said where cron reads it
        print(f"judgeaudit: trend: left out {left['out']}#{left['run_id']}, which is "
              f"{left['because']}", file=sys.stderr)  # fmt: skip
    daily = trend.get("daily", {})
    for missing in daily.get("missing", []):  # a log that never arrived: said, not silent
        print(f"judgeaudit: trend: {missing_line(missing)}", file=sys.stderr)
    for skipped in daily.get("ignored", []):
        print(f"judgeaudit: trend: ignored {skipped['file']}: {skipped['reason']}", file=sys.stderr)
    for labels in daily.get("labels", []):
        if labels["dropped"]:  # a reviewer's work left behind: said where cron reads it
            print(f"judgeaudit: trend: day {labels['period']}: human labels {dropped_part(labels)}",
                  file=sys.stderr)  # fmt: skip
    for refused in daily.get("refused", []):
        print(
            f"judgeaudit: trend: day {refused['period']} refused, not in the series: "
            f"{refused['reason']}",
            file=sys.stderr,
        )
    if args.fail_on_alert and trend["alerts"]:
        return ALERT_EXIT
    if daily.get("refused"):
        return PARTIAL_EXIT
    if not args.fail_on_alert or not untested(trend):
        return 0
    print(
        f"trend: --fail-on-alert: nothing was tested ({untested(trend)}), so no alert is no"
        f" finding: exit {UNTESTED_EXIT}",
        file=sys.stderr,
    )
    return UNTESTED_EXIT


def _reads(targets: list[str]) -> list[Path]:
    """What a trend reads: each target (a run directory, a file) and a folder's daily files."""
    from judgeaudit.daily import daily_files

    return [p for t in targets for p in (Path(t), *daily_files(Path(t)))]


def run_monitor(out: Path) -> dict[str, Any]:
    """``demo --monitor``: a month of daily recorded verdicts, audited, trended; OUT/trend.html."""
    import sys

    from judgeaudit.daily import monitor_demo
    from judgeaudit.sim.stream import CHANGED_JUDGE

    print(
        f"judgeaudit demo --monitor: 30 days of recorded verdicts from the embedded judge, the "
        f"judge replaced by {CHANGED_JUDGE} on day 21 -> {out / 'logs'}",
        file=sys.stderr,
    )
    return monitor_demo(out)

"""The parsers of ``judgeaudit run``, ``demo``, ``report``, ``compare``, ``show`` and ``review``
(the run commands live in :mod:`judgeaudit.cli.run_cmds`, the reading ones in report_cmds)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from judgeaudit.analysis.features import STYLE
from judgeaudit.cli import command_help
from judgeaudit.cli.common import GAP_SOURCE_HELP, OUT_HELP, RUN_HELP
from judgeaudit.cli.report_cmds import (
    cmd_compare,
    cmd_report,
    cmd_review_export,
    cmd_review_import,
    cmd_show,
)
from judgeaudit.cli.run_cmds import Interrupted, cmd_demo, cmd_rejudge, cmd_run, cmd_tui, demo_spec
from judgeaudit.score_scale import SATISFIED_AT, SCORE_MAX

if TYPE_CHECKING:
    from judgeaudit.cli.common import Sub


def register(sub: Sub) -> None:
    run = sub.add_parser("run", help=command_help("run"))
    run.add_argument("spec", type=Path, help="the run spec (TOML; docs/audit.md)")
    run.add_argument("--out", type=Path, help="output directory (required unless --dry-run)")
    run.add_argument(
        "--dry-run",
        action="store_true",
        help="print units, calls per role, estimated tokens and cost; call and write nothing",
    )
    run.add_argument("--concurrency", type=int, help="override run.concurrency")
    run.add_argument(
        "--events",
        choices=["jsonl", "progress"],
        help="jsonl: one JSON event per line (default without a TTY)",
    )
    run.add_argument(
        "--new-run",
        action="store_true",
        help="add a new run to an OUT that holds a run from a different spec",
    )
    run.set_defaults(func=cmd_run)

    rejudge = sub.add_parser(
        "rejudge",
        help=command_help("rejudge"),
    )
    rejudge.add_argument("source", type=Path, help="output dir of the finished run")
    rejudge.add_argument("--out", type=Path, required=True, help="output directory")
    rejudge.add_argument(
        "--run", help="the source run id (default: the latest one there that is not a re-judge)"
    )
    rejudge.add_argument(
        "--judge-model",
        action="append",
        help="default: the source run's judge model; repeat it to re-judge with several judges "
        "(each a run in OUT; rank them with `judgeaudit judges OUT`)",
    )
    rejudge.add_argument(
        "--judge-prompt", type=Path, help="a judge template file (default: the source's)"
    )
    rejudge.add_argument(
        "--judge-endpoint",
        help="embedded, profile:NAME or a URL (default: the source run's judge endpoint)",
    )
    rejudge.add_argument("--judge-key-env", help="variable holding the key of a URL endpoint")
    rejudge.add_argument(
        "--judge-temperature", type=float, help="default: the source run's judge temperature"
    )
    rejudge.add_argument("--concurrency", type=int, help="override the source run's concurrency")
    rejudge.add_argument(
        "--events",
        choices=["jsonl", "progress"],
        help="jsonl: one JSON event per line (default without a TTY)",
    )
    rejudge.add_argument(
        "--dry-run", action="store_true", help="print what it would do and cost; write nothing"
    )
    rejudge.set_defaults(func=cmd_rejudge)

    demo = sub.add_parser("demo", help=command_help("demo"))
    demo.add_argument(
        "--out", type=Path, default=Path("out/demo"), help="output directory (default out/demo)"
    )
    demo.add_argument("--no-tui", action="store_true", help="print progress and a summary instead")
    demo.add_argument(
        "--events",
        choices=["jsonl", "progress"],
        help="progress (default): a status line on stderr, off a terminal a line per tenth of "
        "each phase; jsonl: every event as a JSON line on stdout (about 4,300) before the summary",
    )
    demo.add_argument(
        "--seeds",
        type=int,
        help="run the demo for seeds 1..N (OUT/seed-K) and print each figure's spread",
    )
    demo.add_argument(
        "--monitor",
        action="store_true",
        help="a deterministic 30-day stream of recorded verdicts (the judge changes on day 21), "
        "audited and trended with alerts: OUT/trend.html (default OUT: out/monitor)",
    )
    demo.set_defaults(func=cmd_demo)

    tui = sub.add_parser("tui", help=command_help("tui"))
    tui.add_argument("--out", type=Path, default=Path("out/tui"), help="output dir for runs")
    tui.set_defaults(func=cmd_tui)

    report = sub.add_parser(
        "report",
        help=command_help("report"),
        description="Misselection by capability gap, satisfied-but-failed, position bias and "
        "more for one run (docs/reports.md). A report of files unchanged since an earlier one "
        "is read back from the cache, byte for byte: "
        "$XDG_CACHE_HOME/judgeaudit (~/.cache/judgeaudit); JUDGEAUDIT_CACHE_DIR=DIR moves it, "
        "JUDGEAUDIT_CACHE_DIR= (empty) turns it off, JUDGEAUDIT_REPORT_MEMO=0 turns off the "
        "kept reports alone.",
    )
    report.add_argument("out", type=Path, help=OUT_HELP)
    report.add_argument("--run", help=RUN_HELP)
    report.add_argument(
        "--format",
        choices=["table", "json", "csv", "md", "html"],
        default="table",
        help="table (default), json (docs/reports.md lists its fields), csv, md or html",
    )
    report.add_argument(
        "--gap-source", choices=["capability", "judge", "external"], help=GAP_SOURCE_HELP
    )
    report.add_argument(
        "--bins", type=_floats, help="comma-separated bin edges, e.g. -0.01,0.2,0.5,1,5"
    )
    report.add_argument("--labels", type=_words, help="comma-separated labels, or 'en' / 'zh'")
    report.add_argument(
        "--threshold",
        type=float,
        default=SATISFIED_AT,
        help=f"judge score that counts as satisfied (0-{SCORE_MAX:g}; default {SATISFIED_AT:g})",
    )
    report.add_argument("--output", type=Path, help="write to this file instead of stdout")
    report.add_argument(
        "--engine",
        choices=["auto", "sqlite", "duckdb", "spark"],
        default="auto",
        help="where the pairs are aggregated: audit.db (sqlite), or Parquet on DuckDB or on "
        "Spark (extras duckdb, spark); the same figures. auto (default): DuckDB over "
        "OUT/audit_pairs.parquet for a finished run of 200,000 pairs or more, else audit.db; "
        "on such a run it names the engine on stderr",
    )
    report.add_argument(
        "--parquet",
        metavar="PATH|GLOB|DIR",
        help="the pairs for --engine duckdb/spark: a file, a glob, or a directory of "
        "period=…/ shards (default OUT/audit_pairs.parquet, see `export parquet`)",
    )
    report.set_defaults(func=cmd_report)

    comp = sub.add_parser("compare", help=command_help("compare"))
    comp.add_argument("out_a", type=Path, help="run A's output directory (the baseline)")
    comp.add_argument(
        "out_b",
        type=Path,
        nargs="?",
        help="default: OUT_A, comparing its two runs (or the ones --run-a/--run-b name)",
    )
    comp.add_argument(
        "--run-a",
        help="run A's id (default: the latest run in OUT_A; without OUT_B, the older of its two)",
    )
    comp.add_argument(
        "--run-b",
        help="run B's id (default: the latest run in OUT_B; without OUT_B, the newer of OUT_A's two)",
    )
    comp.add_argument(
        "--format",
        choices=["table", "json"],
        default="table",
        help="table (default; the gate's lines on stderr) or json (docs/gate.md lists its fields)",
    )
    comp.add_argument(
        "--fail-on-rise",
        action="store_true",
        help="gate run B against run A on the same trajectories (a re-judge): exit 3 when a row "
        "is worse (one-sided task sign-flip test, weighted Holm across buckets and overall) or run B's "
        "judge gave no verdict for over 5%% of orders or significantly more often than A's; "
        "0 when the overall row is not worse (its one-sided 95%% task-clustered upper bound is "
        "below --margin); 5 when the data cannot tell (the output says how many pairs would); "
        "2 for runs over different conversations (two days of a log are: `judgeaudit trend` "
        "compares periods), nothing decisive or no shared task; 4 for an unfinished run",
    )
    comp.add_argument(
        "--margin",
        type=float,
        default=2.0,
        metavar="POINTS",
        help="the rise in misselection (percentage points) that 'not worse' rules out: the "
        "row's one-sided 95%% upper bound must be below it (default 2); 'worse' is a "
        "significant rise of any size, whatever the margin",
    )
    comp.set_defaults(func=cmd_compare)

    show = sub.add_parser("show", help=command_help("show"))
    show.add_argument("out", type=Path, help=OUT_HELP)
    show.add_argument(
        "pair_id",
        help="a pair id, a unique tail of one (TASK/tTRIAL/A~B), or an imported pair's own"
        " pair_id in its log; a part that matches several pairs (the agents alone, A~B)"
        " counts them, names the first ones and says what to add (exit 2)",
    )
    show.add_argument(
        "--format", choices=["text", "json"], default="text", help="text (default) or json"
    )
    show.set_defaults(func=cmd_show)

    review = sub.add_parser("review", help=command_help("review"))
    rsub = review.add_subparsers(dest="review_command", required=True, metavar="SUBCOMMAND")
    rexp = rsub.add_parser("export", help="write a stratified sample to label")
    rexp.add_argument("out", type=Path, help=OUT_HELP)
    # default: analysis.review.SAMPLE_N (importing it here would load pandas for every command)
    rexp.add_argument("--n", type=int, help="how many pairs to sample (default 40)")
    rexp.add_argument("--run", help=RUN_HELP)
    rexp.add_argument(
        "--seed", type=int, default=0, help="the sample's random seed (default 0: the same sample)"
    )
    rexp.add_argument(
        "--out",
        dest="file",
        type=Path,
        metavar="FILE",
        help="the sample to write (CSV; default: OUT/review_sample.csv)",
    )
    # The name before the session-20 rename, kept so existing scripts go on working.
    rexp.add_argument("--file", dest="file", type=Path, help=argparse.SUPPRESS)
    rexp.add_argument(
        "--force",
        action="store_true",
        help="replace --out even when a reviewer has filled in labels or notes there",
    )
    rexp.add_argument(
        "--width",
        type=float,
        default=None,  # checked_width: the review sizing's WIDTH_POINTS
        metavar="POINTS",
        help="target width of the weighted agreement's 95%% interval in percentage points, for "
        "the suggested --n (default 20: ±10 points; a fraction such as 0.2 is refused)",
    )
    rexp.add_argument(
        "--explained-by",
        choices=["style", *STYLE],
        help="over-sample (up to half of --n) the misselected pairs the style model attributes "
        "to this feature (docs/why.md); style: to any style term",
    )
    rexp.add_argument(
        "--unblind",
        action="store_true",
        help="also write each pair's stratum, the judge's preference and the success check "
        "(blind by default: a reviewer shown them anchors on them)",
    )
    rexp.set_defaults(func=cmd_review_export)
    rimp = rsub.add_parser("import", help="store labels from a filled-in sample")
    rimp.add_argument("out", type=Path, help=OUT_HELP)
    rimp.add_argument(
        "file", type=Path, help="the filled-in sample (CSV: comma, semicolon or tab; UTF-8)"
    )
    rimp.set_defaults(func=cmd_review_import)


def _floats(text: str) -> list[float]:
    """``--bins``: finite, strictly increasing edges, checked before any report is built."""
    from judgeaudit.validate import ValidationError, bin_edges

    try:
        edges = [float(x) for x in text.split(",")]
        return bin_edges(edges, None, "--bins")[0]
    except ValueError as exc:
        message = str(exc) if isinstance(exc, ValidationError) else "comma-separated numbers"
        raise argparse.ArgumentTypeError(message.replace("--bins.bins", "--bins")) from None


def _words(text: str) -> list[str]:
    return [w.strip() for w in text.split(",")]


# the public names, including those re-exported from the split-out module
__all__ = [
    "Interrupted",
    "cmd_demo",
    "cmd_rejudge",
    "cmd_run",
    "cmd_tui",
    "demo_spec",
    "register",
]

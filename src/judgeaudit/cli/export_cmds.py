"""``judgeaudit export preferences OUT --format trl|openai|jsonl --labels state|judge|agree
--out FILE``: a finished audit's pairs as training preferences, with a data card beside them;
``export parquet``: the pairs as Parquet; ``export files``: OUT's derived files on request."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING

from judgeaudit.cli import command_help
from judgeaudit.cli.common import UserError
from judgeaudit.suggest import command

if TYPE_CHECKING:
    from judgeaudit.cli.common import Sub


def register(sub: Sub) -> None:
    export = sub.add_parser(
        "export",
        help=command_help("export"),
    )
    kinds = export.add_subparsers(dest="what", metavar="WHAT", required=True)
    prefs = kinds.add_parser(
        "preferences",
        help="preference pairs (TRL, OpenAI or our JSONL) with a data card",
        description="Writes FILE and, beside it, FILE's data card (.card.md and .card.json): rows "
        "by bucket and task type, the judge labels state reverses, label noise per bucket.",
    )
    prefs.add_argument("out", type=Path, help="the audit's output directory")
    prefs.add_argument(
        "--format",
        default="trl",
        metavar="trl|openai|jsonl",
        help="trl: prompt/chosen/rejected message lists (default); openai: preference "
        "fine-tuning (pairs that differ before the last assistant message are skipped and "
        "counted); jsonl: both trajectories, both orders' verdicts, every column",
    )
    prefs.add_argument(
        "--labels",
        default="state",
        metavar="state|judge|agree",
        help="state: decisive pairs, the side that succeeded (a human label wins where there "
        "is one) (default); judge: the judge's order-consistent verdict, ties left out; "
        "agree: only pairs where state and judge agree",
    )
    prefs.add_argument(
        "--out",
        dest="dest",
        type=Path,
        required=True,
        metavar="FILE",
        help="the file to write (JSON lines); its data card goes beside it",
    )
    prefs.add_argument("--force", action="store_true", help="replace FILE and its card")
    prefs.add_argument("--run", help="the run id (default: the latest run in OUT)")
    prefs.set_defaults(func=cmd_export_preferences)
    parquet = kinds.add_parser(
        "parquet",
        help="the run's pairs as Parquet for `report --engine duckdb|spark` (written by DuckDB)",
        description="Writes the run's pairs table (every audit_pairs column, plus seq, the row "
        "order) as OUT/audit_pairs.parquet, or with --to into DIR: with --partition as "
        "hive-partitioned shards DIR/period=…/ (a month of daily runs exported into one DIR "
        "is read by `report --engine duckdb --parquet DIR`). Into OUT it is refused while a run "
        "is writing there. Needs DuckDB (extra duckdb).",
    )
    parquet.add_argument("out", type=Path, help="the audit's output directory")
    parquet.add_argument("--run", help="the run id (default: the latest run in OUT)")
    parquet.add_argument(
        "--to",
        type=Path,
        metavar="DIR",
        help="write into DIR (DIR/audit_pairs.parquet, or shards with --partition)",
    )
    parquet.add_argument(
        "--partition",
        choices=["period", "day"],
        help="shards by the run's period (a recorded import's, else the day the run began) or "
        "by each pair's day; needs --to",
    )
    parquet.set_defaults(func=cmd_export_parquet)
    files = kinds.add_parser(
        "files",
        help="OUT's derived files from audit.db: audit_pairs.csv, judge_logs.jsonl, "
        "manifest.json, report.html, misselection.svg",
        description="Rewrites OUT/audit_pairs.csv, OUT/judge_logs.jsonl, OUT/manifest.json, "
        "OUT/report.html and OUT/misselection.svg for the run from audit.db, each atomically, so "
        "they all show that run (`export parquet OUT --run RUN` rewrites the Parquet). A "
        "recorded-verdict run writes no audit_pairs.csv "
        "and no judge_logs.jsonl by itself (audit.db holds its pairs and verdicts); this writes "
        "them on request. Refused while a run is writing OUT (they are its files too).",
    )
    files.add_argument("out", type=Path, help="the audit's output directory")
    files.add_argument("--run", help="the run id (default: the latest run in OUT)")
    files.set_defaults(func=cmd_export_files)


def cmd_export_preferences(args: argparse.Namespace) -> int:
    from judgeaudit.analysis.frame import AnalysisError
    from judgeaudit.analysis.pref_card_text import export_summary, left_out_lines
    from judgeaudit.analysis.preferences import ExportOptions, export_preferences

    options = ExportOptions(args.out, args.format, args.labels, args.dest, args.force, args.run)
    try:
        result = export_preferences(options)
    except AnalysisError as exc:
        raise UserError(f"export preferences: {exc}") from None
    card = result.card
    print(export_summary(card, result.dest))
    print(f"data card: {result.card_md} and {result.card_json}")
    for line in left_out_lines(card):
        print(f"export preferences: {line}", file=sys.stderr)
    return 0


def cmd_export_parquet(args: argparse.Namespace) -> int:
    from judgeaudit.analysis.engines import PARQUET
    from judgeaudit.analysis.frame import AnalysisError, open_db, resolve_run
    from judgeaudit.audit.store.parquet_out import write_pairs

    if args.partition and args.to is None:
        raise UserError("export parquet: --partition writes shards into a directory; add --to DIR")
    if args.to is not None and args.to.exists() and not args.to.is_dir():
        raise UserError(f"export parquet: --to {args.to} is a file; give a directory")
    into_out = args.to is None or inside(args.to, args.out)
    from judgeaudit.analysis.outputs import check_output

    if args.partition:  # the shards' folder: never a run's own file name (a folder there
        check_output(args.to, "export parquet: --to", [args.out])  # blocks the run's writer)
    else:  # never another run's Parquet (OUT's own is this command's to write)
        check_output((args.to or args.out) / PARQUET, "export parquet: --to", [args.out], [PARQUET])
    try:
        db = open_db(args.out)
        try:
            run_id = resolve_run(db, args.run)
            dest = args.to if args.partition else (args.to or args.out) / PARQUET
            with holding(args.out, "export parquet") if into_out else nullcontext():
                count = write_pairs(db, run_id, dest, args.partition)
        finally:
            db.close()
    except AnalysisError as exc:
        raise UserError(f"export parquet: {exc}") from None
    print(f"wrote {count} pairs of run {run_id} to {dest}")
    return 0


def cmd_export_files(args: argparse.Namespace) -> int:
    from judgeaudit.analysis.frame import AnalysisError, open_db, resolve_run
    from judgeaudit.audit.export import LOGS_JSONL, MANIFEST, PAIRS_CSV, export_all
    from judgeaudit.audit.store import AuditStore

    path = args.out / "audit.db"
    if not path.is_file():  # checked first: opening the store would create an empty database
        raise UserError(
            f"export files: {path}: no audit database; run "
            f"`{command('run', 'SPEC', '--out', args.out)}` first"
        )
    try:
        db = open_db(args.out)
        try:
            run_id = resolve_run(db, args.run)
        finally:
            db.close()
    except AnalysisError as exc:
        raise UserError(f"export files: {exc}") from None
    from judgeaudit.analysis.report import ReportOptions, build_report, write_report_files

    with holding(args.out, "export files"):
        # the report files too: after `--run` an older run's CSV beside the latest's report.html
        # would mix two runs in one OUT (a new user's finding). Built before the store opens:
        # opening it for writing changes audit.db's state, and the report the run kept would
        # be computed again (17.6 s of CPU at 1M recorded pairs)
        built = build_report(args.out, ReportOptions(run_id=run_id))
        store = AuditStore(path)
        try:
            summary = export_all(store, run_id, args.out, logs=True, pairs_csv=True)
        finally:
            store.close()
        pages = write_report_files(args.out, built, holding=True)
    names = ", ".join(
        [*(str(args.out / name) for name in (PAIRS_CSV, LOGS_JSONL, MANIFEST)), *map(str, pages)]
    )
    print(f"wrote {names} for run {run_id} ({summary['pairs']} pairs)")
    return 0


@contextmanager
def holding(out: Path, what: str) -> Iterator[None]:
    """OUT's run lock for an export that rewrites files a run writes there: refused at once in
    one line while a run holds it (the files stay as the run writes them)."""
    from judgeaudit.audit.store.out_lock import EXPORT_ADVICE, OutBusy, writing

    try:
        with writing(out, EXPORT_ADVICE):
            yield
    except OutBusy as exc:
        raise UserError(f"{what}: {exc}") from None


def inside(path: Path, out: Path) -> bool:
    """Whether ``path`` is OUT or under it (an export there writes into OUT)."""
    return path.resolve().is_relative_to(out.resolve())

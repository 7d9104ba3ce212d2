"""``judgeaudit run``, ``demo``, ``report``, ``compare``, ``show`` and ``review``."""

from __future__ import annotations

import argparse
import os
import sys
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judgeaudit.analysis.features import STYLE
from judgeaudit.audit.events import EventSink
from judgeaudit.cli.common import UserError
from judgeaudit.cli.display import JsonLinesDisplay, ProgressDisplay
from judgeaudit.cli.report_cmds import (
    cmd_compare,
    cmd_report,
    cmd_review_export,
    cmd_review_import,
    cmd_show,
)
from judgeaudit.errors import JudgeauditError

if TYPE_CHECKING:
    from judgeaudit.audit.events import RunFinished
    from judgeaudit.audit.spec import RunSpec
    from judgeaudit.cli.common import Sub


class Interrupted(JudgeauditError):
    """Ctrl-C during a run (exit 130, as the shell reports a SIGINT)."""

    exit_code = 130


def register(sub: Sub) -> None:
    run = sub.add_parser("run", help="run an audit from a spec file")
    run.add_argument("spec", type=Path)
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
        help="judge a finished run's stored trajectories again (no agent or user calls)",
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
    rejudge.add_argument("--judge-temperature", type=float)
    rejudge.add_argument("--concurrency", type=int)
    rejudge.add_argument("--events", choices=["jsonl", "progress"])
    rejudge.add_argument(
        "--dry-run", action="store_true", help="print what it would do and cost; write nothing"
    )
    rejudge.set_defaults(func=cmd_rejudge)

    demo = sub.add_parser("demo", help="run the demo audit on the embedded simulated provider")
    demo.add_argument("--out", type=Path, default=Path("out/demo"))
    demo.add_argument("--no-tui", action="store_true", help="print progress and a summary instead")
    demo.add_argument("--events", choices=["jsonl", "progress"])
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

    tui = sub.add_parser("tui", help="open the terminal app (also: judgeaudit with no arguments)")
    tui.add_argument("--out", type=Path, default=Path("out/tui"), help="output dir for runs")
    tui.set_defaults(func=cmd_tui)

    report = sub.add_parser("report", help="misselection report for an output directory")
    report.add_argument("out", type=Path)
    report.add_argument("--run")
    report.add_argument("--format", choices=["table", "json", "csv", "md", "html"], default="table")
    report.add_argument("--gap-source", choices=["capability", "judge", "external"])
    report.add_argument(
        "--bins", type=_floats, help="comma-separated bin edges, e.g. -0.01,0.2,0.5,1,5"
    )
    report.add_argument("--labels", type=_words, help="comma-separated labels, or 'en' / 'zh'")
    report.add_argument(
        "--threshold", type=float, default=4.0, help="judge score that counts as satisfied"
    )
    report.add_argument("--output", type=Path, help="write to this file instead of stdout")
    report.add_argument(
        "--engine",
        choices=["sqlite", "duckdb", "spark"],
        default="sqlite",
        help="where the pairs are aggregated: audit.db (default), or Parquet on DuckDB or on "
        "Spark (extras duckdb, spark); the same figures",
    )
    report.add_argument(
        "--parquet",
        metavar="PATH|GLOB|DIR",
        help="the pairs for --engine duckdb/spark: a file, a glob, or a directory of "
        "period=…/ shards (default OUT/audit_pairs.parquet, see `export parquet`)",
    )
    report.set_defaults(func=cmd_report)

    comp = sub.add_parser(
        "compare", help="drift between two runs (per-bucket change; paired after a re-judge)"
    )
    comp.add_argument("out_a", type=Path)
    comp.add_argument(
        "out_b",
        type=Path,
        nargs="?",
        help="default: OUT_A, comparing its two runs (or the ones --run-a/--run-b name)",
    )
    comp.add_argument("--run-a")
    comp.add_argument("--run-b")
    comp.add_argument("--format", choices=["table", "json"], default="table")
    comp.add_argument(
        "--fail-on-rise",
        action="store_true",
        help="gate run B against run A on the same trajectories (a re-judge): exit 3 when a row "
        "is worse (one-sided task sign-flip test, Holm across buckets and overall) or run B's "
        "judge gave no verdict for over 5%% of orders or significantly more often than A's; "
        "0 when the overall row is not worse (its one-sided 95%% task-clustered upper bound is "
        "below --margin); 5 when the data cannot tell (the output says how many pairs would); "
        "2 for runs over different conversations, nothing decisive or no shared task; 4 for an "
        "unfinished run",
    )
    comp.add_argument(
        "--margin",
        type=float,
        default=2.0,
        metavar="POINTS",
        help="the rise in misselection (percentage points) that counts as worse (default 2)",
    )
    comp.set_defaults(func=cmd_compare)

    show = sub.add_parser(
        "show", help="one pair: outcomes, and each judge call's rendered prompt and raw output"
    )
    show.add_argument("out", type=Path)
    show.add_argument("pair_id", help="a pair id, or a unique tail of one (TASK/tTRIAL/A~B)")
    show.add_argument("--format", choices=["text", "json"], default="text")
    show.set_defaults(func=cmd_show)

    review = sub.add_parser("review", help="human review sample export/import")
    rsub = review.add_subparsers(dest="review_command", required=True, metavar="SUBCOMMAND")
    rexp = rsub.add_parser("export", help="write a stratified sample to label")
    rexp.add_argument("out", type=Path)
    rexp.add_argument("--n", type=int, default=40)
    rexp.add_argument("--run")
    rexp.add_argument("--seed", type=int, default=0)
    rexp.add_argument("--file", type=Path, help="default: OUT/review_sample.csv")
    rexp.add_argument(
        "--width",
        type=float,
        default=0.2,
        help="target width of the weighted agreement's 95%% interval, for the suggested --n",
    )
    rexp.add_argument(
        "--explained-by",
        choices=["style", *STYLE],
        help="over-sample (up to half of --n) the misselected pairs the style model attributes "
        "to this feature (docs/why.md); style: to any style term",
    )
    rexp.set_defaults(func=cmd_review_export)
    rimp = rsub.add_parser("import", help="store labels from a filled-in sample")
    rimp.add_argument("out", type=Path)
    rimp.add_argument("file", type=Path)
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


def _sink(choice: str | None) -> EventSink:
    if choice == "jsonl" or (choice is None and not sys.stderr.isatty()):
        return JsonLinesDisplay()
    return ProgressDisplay()


def _print_plan(spec: Path | RunSpec, out: Path | None, events: str | None) -> int:
    import json

    from judgeaudit.audit.dryrun import render_plan
    from judgeaudit.engine import plan_run

    result = plan_run(spec, out)
    if events == "jsonl":
        print(json.dumps({"event": "dry_run", **result}, ensure_ascii=False))
    else:
        print(render_plan(result))
    return 0


def _run_blocking(spec: Path | RunSpec, out: Path, **options: Any) -> RunFinished:
    """The engine's blocking run; Ctrl-C says how to resume (the stored units are kept)."""
    from judgeaudit.engine import run_audit_blocking

    try:
        finished = run_audit_blocking(spec, out, **options)
    except KeyboardInterrupt:
        raise Interrupted(
            f"interrupted; the units finished so far are kept in {out}: rerun the same "
            "command to resume"
        ) from None
    if finished.summary.get("parquet") is False:
        from judgeaudit.audit.store.parquet_out import INSTALL_HINT, PARQUET

        print(f"{out / PARQUET}: not written; {INSTALL_HINT}", file=sys.stderr)
    return finished


def cmd_run(args: argparse.Namespace) -> int:

    if args.dry_run:
        return _print_plan(args.spec, args.out, args.events)
    if args.out is None:
        raise UserError("run: --out DIR is required (the output directory; or use --dry-run)")
    _run_blocking(
        args.spec,
        args.out,
        on_event=_sink(args.events),
        concurrency=args.concurrency,
        new_run=args.new_run,
    )
    return 0


def cmd_rejudge(args: argparse.Namespace) -> int:
    models = args.judge_model or [None]
    if len(set(models)) != len(models):
        raise UserError("rejudge: --judge-model: the same model is named twice; name each once")
    if len(models) > 1 and args.dry_run:
        for model in models:
            _rejudge_one(args, model)
        return 0
    finished = [_rejudge_one(args, model) for model in models]
    if len(finished) > 1:
        print(f"rank them: judgeaudit judges {args.out}")
    return 0


def _rejudge_one(args: argparse.Namespace, model: str | None) -> str | None:
    from judgeaudit.audit.inputs.rejudge import RejudgeRequest, rejudge_spec

    spec = rejudge_spec(
        RejudgeRequest(
            args.source,
            args.run,
            model,
            args.judge_prompt,
            args.judge_endpoint,
            args.judge_key_env,
            args.judge_temperature,
        )
    )
    from judgeaudit.audit.inputs import source_of

    source = source_of(spec)
    assert source is not None
    if args.dry_run:
        from judgeaudit.analysis.gate_power import power_lines, rejudge_power

        _print_plan(spec, args.out, args.events)
        power = rejudge_power(source.out, source.run_id)
        if args.events == "jsonl":
            import json

            print(json.dumps({"event": "gate_power", **power}, ensure_ascii=False))
        else:
            print("\n".join(power_lines(power)))
        return None
    # Into the source's own directory, or an OUT holding another judge's re-judge: add the
    # re-judge as a run there (or resume it).
    existing = (args.out / "audit.db").is_file()
    new_run = existing and not _holds_spec(args.out, spec)
    finished = _run_blocking(
        spec,
        args.out,
        on_event=_sink(args.events),
        concurrency=args.concurrency,
        new_run=new_run,
    )
    print(
        f"re-judged {source.run_id} as {finished.run_id}; compare them with: judgeaudit "
        f"compare {args.source} {args.out} --run-a {source.run_id} --run-b {finished.run_id}"
    )
    if Path(os.path.realpath(args.out)) == source.out:
        print(
            f"{args.out}: audit_pairs.csv, judge_logs.jsonl and report.html now show "
            f"{finished.run_id}; {source.run_id} stays in audit.db (judgeaudit report "
            f"{args.out} --run {source.run_id})"
        )
    return finished.run_id


def _holds_spec(out: Path, spec: RunSpec) -> bool:
    from judgeaudit.audit.store import open_readonly

    db = open_readonly(out / "audit.db")
    try:
        row = db.execute("SELECT 1 FROM runs WHERE spec_hash = ?", (spec.spec_hash(),)).fetchone()
    finally:
        db.close()
    return row is not None


def demo_spec() -> Path:
    """The demo spec shipped in the package (``examples/demo.toml`` links to it)."""
    return Path(str(resources.files("judgeaudit").joinpath("data/demo.toml")))


def _need_tty() -> None:
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UserError(
            "the terminal app needs a TTY; try `judgeaudit demo --no-tui` or "
            "`judgeaudit run SPEC --out DIR`"
        )


def cmd_tui(args: argparse.Namespace) -> int:
    _need_tty()
    from judgeaudit.tui.launch import run_app

    return run_app(args.out, demo_spec())


def cmd_demo(args: argparse.Namespace) -> int:
    if args.monitor:
        return _demo_monitor(args)
    if args.seeds is not None:
        return _demo_seeds(args)
    if not args.no_tui and sys.stdin.isatty() and sys.stdout.isatty():
        from judgeaudit.tui.launch import run_app

        return run_app(args.out, demo_spec(), start_demo=True)
    print(
        "judgeaudit demo: simulated agents, user simulator and judge on the embedded provider "
        "(no key, no network)",
        file=sys.stderr,
    )
    finished = _run_blocking(demo_spec(), args.out, on_event=_sink(args.events))
    from judgeaudit.analysis.report import ReportOptions, bucket_lines, build_report

    report = build_report(args.out, ReportOptions(run_id=finished.run_id))
    print("\n".join(bucket_lines(report)))
    print(
        f"report: {args.out / 'report.html'}  pairs: {args.out / 'audit_pairs.csv'}  "
        f"judge log: {args.out / 'judge_logs.jsonl'}"
    )
    return 0


def _demo_monitor(args: argparse.Namespace) -> int:
    """A month of judge logs with a judge change, trended: the terminal app's Trends screen
    (with a TTY and without --no-tui), else the table and OUT/trend.html."""
    from judgeaudit.analysis.trend_fmt import render
    from judgeaudit.cli.trend_cmds import run_monitor

    if args.seeds is not None:
        raise UserError("demo: --monitor and --seeds: give one of them")
    out = Path("out/monitor") if args.out == Path("out/demo") else args.out
    trend = run_monitor(out)
    if not args.no_tui and sys.stdin.isatty() and sys.stdout.isatty():
        from judgeaudit.tui.launch import run_app

        return run_app(out / "runs", demo_spec(), trend=trend)
    print(render(trend, "table"))
    print(f"trend: {out / 'trend.html'}  (json: {out / 'trend.json'})")
    return 0


def _demo_seeds(args: argparse.Namespace) -> int:
    """The demo once per seed 1..N, then every headline figure's spread (OUT/seeds.json)."""
    import json
    import re

    from judgeaudit.analysis.report import ReportOptions, build_report
    from judgeaudit.analysis.seeds import spread, spread_lines
    from judgeaudit.fsutil import atomic_write_text

    if args.seeds < 2:
        raise UserError(f"demo: --seeds {args.seeds}: give 2 or more seeds for a spread")
    text = demo_spec().read_text(encoding="utf-8")
    reports = {}
    for seed in range(1, args.seeds + 1):
        out = args.out / f"seed-{seed}"
        out.mkdir(parents=True, exist_ok=True)
        spec = out / "demo.toml"
        spec.write_text(re.sub(r"(?m)^seed = \d+", f"seed = {seed}", text), encoding="utf-8")
        print(f"seed {seed}/{args.seeds}: {out}", file=sys.stderr)
        finished = _run_blocking(spec, out, on_event=_sink(args.events))
        reports[seed] = build_report(out, ReportOptions(run_id=finished.run_id))
    summary = spread(reports)
    atomic_write_text(args.out / "seeds.json", json.dumps(summary, indent=2))
    print("\n".join(spread_lines(summary)))
    print(f"per seed: {args.out}/seed-K/report.html; all figures: {args.out / 'seeds.json'}")
    return 0

"""``judgeaudit run``, ``demo``, ``report``, ``compare``, ``show`` and ``review``."""

from __future__ import annotations

import argparse
import sys
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judgeaudit.analysis.drift import compare, render_compare
from judgeaudit.analysis.frame import AnalysisError, load_pairs, open_db, resolve_run
from judgeaudit.analysis.report import ReportOptions, bucket_lines, build_report, render
from judgeaudit.analysis.review import read_labels, sample, store_labels, write_sample
from judgeaudit.audit.events import EventSink
from judgeaudit.cli.common import UserError
from judgeaudit.cli.display import JsonLinesDisplay, ProgressDisplay
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
    rejudge.add_argument("--judge-model", help="default: the source run's judge model")
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
        help="exit 3 when a bucket's misselection rose significantly (McNemar exact when the runs "
        "are paired, Fisher exact otherwise; Holm-adjusted across buckets) or run B's judge gave "
        "no verdict for over 5%% of orders or significantly more often than A's; exit 4 for an "
        "unfinished run, 2 when nothing decisive or no task is shared",
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
        return run_audit_blocking(spec, out, **options)
    except KeyboardInterrupt:
        raise Interrupted(
            f"interrupted; the units finished so far are kept in {out}: rerun the same "
            "command to resume"
        ) from None


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
    from judgeaudit.audit.rejudge import RejudgeRequest, rejudge_spec

    spec = rejudge_spec(
        RejudgeRequest(
            args.source,
            args.run,
            args.judge_model,
            args.judge_prompt,
            args.judge_endpoint,
            args.judge_key_env,
            args.judge_temperature,
        )
    )
    assert spec.source is not None
    if args.dry_run:
        return _print_plan(spec, args.out, args.events)
    # Into the source's own directory: add the re-judge as a run there (or resume it).
    same_dir = args.out.resolve() == spec.source.out and not _holds_spec(args.out, spec)
    finished = _run_blocking(
        spec,
        args.out,
        on_event=_sink(args.events),
        concurrency=args.concurrency,
        new_run=same_dir,
    )
    print(
        f"re-judged {spec.source.run_id} as {finished.run_id}; compare them with: judgeaudit "
        f"compare {args.source} {args.out} --run-a {spec.source.run_id} --run-b {finished.run_id}"
    )
    return 0


def _holds_spec(out: Path, spec: RunSpec) -> bool:
    import sqlite3

    db = sqlite3.connect(f"file:{out / 'audit.db'}?mode=ro", uri=True)
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
    if not args.no_tui and sys.stdin.isatty() and sys.stdout.isatty():
        from judgeaudit.tui.launch import run_app

        return run_app(args.out, demo_spec(), start_demo=True)
    print(
        "judgeaudit demo: simulated agents, user simulator and judge on the embedded provider "
        "(no key, no network)",
        file=sys.stderr,
    )
    finished = _run_blocking(demo_spec(), args.out, on_event=_sink(args.events))
    report = build_report(args.out, ReportOptions(run_id=finished.run_id))
    print("\n".join(bucket_lines(report)))
    print(
        f"report: {args.out / 'report.html'}  pairs: {args.out / 'audit_pairs.csv'}  "
        f"judge log: {args.out / 'judge_logs.jsonl'}"
    )
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    import math

    if not (math.isfinite(args.threshold) and 0 <= args.threshold <= 5):
        raise UserError(
            f"report: --threshold {args.threshold:g} is outside the judge's 0-5 score range; "
            "use a score from 0 to 5 (default 4)"
        )
    try:
        report = build_report(
            args.out,
            ReportOptions(args.run, args.gap_source, args.bins, args.labels, args.threshold),
        )
    except (AnalysisError, KeyError) as exc:
        raise UserError(str(exc)) from None
    text = render(report, args.format)
    if args.output:
        from judgeaudit.fsutil import atomic_write_text

        atomic_write_text(args.output, text)
    else:
        print(text)
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    from judgeaudit.analysis.gate import choose_runs, gate_ready

    try:
        out_a, out_b, run_a, run_b = choose_runs(args.out_a, args.out_b, args.run_a, args.run_b)
        result = compare(out_a, out_b, run_a, run_b)
        if args.fail_on_rise:
            gate_ready(result)
    except AnalysisError as exc:
        raise UserError(str(exc)) from None
    if args.format == "json":
        import json

        print(json.dumps(result, ensure_ascii=False, indent=2, default=str))
    else:
        print(render_compare(result))
    if not args.fail_on_rise:
        return 0
    if result["verdicts"]["failed"]:
        print(
            f"judgeaudit: the judge of run B often gave no verdict: "
            f"{'; '.join(result['verdicts']['failed'])}; its misselection figures would "
            "understate it (see `judgeaudit report OUT_B`)",
            file=sys.stderr,
        )
        return 3
    if result["rises"]:
        rose = ", ".join(
            f"{r['label']} (p={r['p_value']:.3g}, Holm {r['p_adjusted']:.3g})"
            for r in [*result["buckets"], result["overall"]]
            if r["significant_rise"]
        )
        kind = "paired" if result["paired"] else "unpaired"
        print(
            f"judgeaudit: misselection rose in: {rose}; decided by the {kind} test: "
            f"{result['decided_by']}",
            file=sys.stderr,
        )
        return 3
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    from judgeaudit.analysis.pair_detail import pair_detail, render_detail

    detail = pair_detail(args.out, args.pair_id)
    if args.format == "json":
        import json

        print(json.dumps(detail, ensure_ascii=False, indent=2, default=str))
    else:
        print(render_detail(detail))
    return 0


def cmd_review_export(args: argparse.Namespace) -> int:
    try:
        db = open_db(args.out)
        run_id = resolve_run(db, args.run)
        pairs = load_pairs(db, run_id)
        db.close()
    except AnalysisError as exc:
        raise UserError(str(exc)) from None
    path = args.file or args.out / "review_sample.csv"
    if path.suffix.lower() != ".csv":
        raise UserError(
            f"review export: --file {path}: the sample is written as CSV; name a .csv file"
        )
    if args.n < 1:
        raise UserError(f"review export: --n {args.n}: give how many pairs to sample (1 or more)")
    frame = sample(pairs, args.n, args.seed)
    write_sample(frame, path)
    print(
        f"wrote {len(frame)} pairs to {path}; fill human_success_a/_b (0/1) and human_pref "
        f"(A/B/tie), then: judgeaudit review import {args.out} {path}"
    )
    return 0


def cmd_review_import(args: argparse.Namespace) -> int:
    try:
        db = open_db(args.out)
        known = {r[0] for r in db.execute("SELECT pair_id FROM audit_pairs")}
        db.close()
        labels = read_labels(args.file, known)
    except AnalysisError as exc:
        raise UserError(str(exc)) from None
    count = store_labels(args.out / "audit.db", labels)
    refreshed = _refresh_report_html(args.out)
    print(
        f"stored {count} labelled pairs (re-importing the same file changes nothing)"
        + (f"; {refreshed} shows them" if refreshed else "")
    )
    return 0


def _refresh_report_html(out: Path) -> Path | None:
    """Rewrite OUT/report.html (for the run it shows) so it includes the new labels."""
    import json

    from judgeaudit.analysis.report import write_report_files

    if not (out / "report.html").is_file():
        return None
    try:
        shown = json.loads((out / "manifest.json").read_text(encoding="utf-8")).get("run_id")
    except (OSError, ValueError):
        shown = None
    try:
        report = build_report(out, ReportOptions(run_id=shown))
    except AnalysisError:
        report = build_report(out)
    return write_report_files(out, report)[0]

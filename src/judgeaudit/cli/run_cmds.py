"""``judgeaudit run``, ``rejudge``, ``demo`` and ``tui``: the commands that run an audit
(their parsers are declared in :mod:`judgeaudit.cli.audit_cmds`)."""

from __future__ import annotations

import argparse
import os
import sys
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from judgeaudit.audit.events import EventSink
from judgeaudit.cli.common import UserError
from judgeaudit.cli.display import JsonLinesDisplay, ProgressDisplay
from judgeaudit.errors import CheckFailed, JudgeauditError
from judgeaudit.suggest import command

if TYPE_CHECKING:
    from judgeaudit.audit.events import RunFinished
    from judgeaudit.audit.spec import RunSpec


class Interrupted(JudgeauditError):
    """Ctrl-C during a run (exit 130, as the shell reports a SIGINT)."""

    exit_code = 130


def _sink(choice: str | None, piped: str = "jsonl") -> EventSink:
    """The run's watcher for ``--events``; without it, progress on a terminal, else ``piped``:
    JSON lines for `run` and `rejudge` (a pipe reads them), progress lines for `demo` (its
    summary is what a pipe or CI log wants, not 4,300 events before it)."""
    return JsonLinesDisplay() if _json_lines(choice, piped) else ProgressDisplay()


def _json_lines(choice: str | None, piped: str = "jsonl") -> bool:
    """Whether the run's events are JSON lines on stdout (then every other line goes to stderr,
    so a reader parses every stdout line)."""
    return (choice or ("progress" if sys.stderr.isatty() else piped)) == "jsonl"


def _said(choice: str | None) -> TextIO:
    """Where a command's next-step lines go: stdout, unless its JSON lines own it."""
    return sys.stderr if _json_lines(choice) else sys.stdout


def _print_plan(
    spec: Path | RunSpec, out: Path | None, events: str | None, concurrency: int | None
) -> int:
    import json

    from judgeaudit.audit.dryrun import render_plan
    from judgeaudit.engine import plan_run
    from judgeaudit.validate import integer

    if concurrency is not None:  # refused as the run would refuse it, not passed as a plan
        integer(concurrency, "--concurrency", 1, 1024)
    result = plan_run(spec, out)
    if events == "jsonl":
        print(json.dumps({"event": "dry_run", **result}, ensure_ascii=False))
    else:
        print(render_plan(result))
    return 0


def _run_blocking(
    spec: Path | RunSpec,
    out: Path,
    *,
    fail_unjudged: str | None = None,
    model_given: bool = True,
    **options: Any,
) -> RunFinished:
    """The engine's blocking run; Ctrl-C says how to resume (the stored units are kept).
    ``fail_unjudged``: the re-judge's model, whose run failed if no order got a verdict;
    ``model_given``: whether ``--judge-model`` named it (else the source run's judge)."""
    from judgeaudit.audit.units.first_verdicts import NoVerdictYet
    from judgeaudit.engine import run_audit_blocking

    try:
        finished = run_audit_blocking(spec, out, stop_unjudged=fail_unjudged is not None, **options)
    except NoVerdictYet as exc:  # stopped early and undone: what it saw, and what to check
        raise CheckFailed(
            f"rejudge failed: judge model {fail_unjudged!r} gave no verdict on any of {exc.where}"
            f"; stopped, nothing kept ({out} as before); {exc.reply}; check "
            f"{_unjudged_check(model_given)} (a typo, or a model whose replies carry no verdict)"
            " and rerun"
        ) from None
    except KeyboardInterrupt:
        raise Interrupted(
            f"interrupted; the units finished so far are kept in {out}: rerun the same "
            "command to resume"
        ) from None
    _say_if_unjudged(out, finished.run_id, fail_unjudged, model_given)
    if finished.summary.get("parquet") is False:
        from judgeaudit.audit.store.parquet_out import PARQUET, install_hint

        print(f"{out / PARQUET}: not written; {install_hint()}", file=sys.stderr)
    _say_on_request(out, finished.summary)
    return finished


def _say_on_request(out: Path, summary: dict[str, Any]) -> None:
    """One line for the derived files a recorded-verdict run leaves to ``export files`` (the
    run's summary says which: both or neither, :func:`judgeaudit.audit.export.on_request`)."""
    from judgeaudit.audit.export import LOGS_JSONL, PAIRS_CSV

    left = [
        n
        for key, n in (("pairs_csv", PAIRS_CSV), ("judge_logs", LOGS_JSONL))
        if summary.get(key) is False
    ]
    if left:
        print(
            f"{', '.join(str(out / name) for name in left)}: not written for recorded verdicts "
            f"(audit.db holds them); `{command('export', 'files', out)}` writes them",
            file=sys.stderr,
        )


def _unjudged_check(model_given: bool) -> str:
    """What a re-judge without a verdict tells the user to check."""
    if model_given:
        return "--judge-model"
    return "the judge's endpoint (the source run's judge model: no --judge-model given)"


def _say_if_unjudged(
    out: Path, run_id: str, rejudged: str | None = None, model_given: bool = True
) -> None:
    """After the run's closing line: a plain warning when most judge orders got no verdict (the
    run completed, but "0 misselected" would be no finding). The exit stays 0 (docs/judge.md),
    but for a re-judge (``rejudged``, its judge model) whose every order got none: judging was
    all it had to do, so it failed (a typo'd model), and says so as one line, exit 1 (a re-judge
    of more pairs stops early and is undone: :mod:`first_verdicts`)."""
    from judgeaudit.analysis.frame import stored_manifest
    from judgeaudit.analysis.verdicts import nothing_judged, unjudged, verdict_health
    from judgeaudit.audit.spec.records import recorded_verdicts
    from judgeaudit.audit.store import open_readonly

    db = open_readonly(out / "audit.db")
    try:
        (text,) = db.execute("SELECT manifest FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        recorded = recorded_verdicts(stored_manifest(text, run_id))
        health = verdict_health(db, run_id)
        note = unjudged(health, str(out), recorded=recorded)
    finally:
        db.close()
    if rejudged is not None and nothing_judged(health):
        raise CheckFailed(
            f"rejudge failed: judge model {rejudged!r} gave no verdict on any order "
            f"({health['no_verdict_orders']}/{health['orders']}; run {run_id} kept in {out}); "
            f"check {_unjudged_check(model_given)} (a typo, or a model whose replies carry no verdict: "
            f"`{command('report', out, '--run', run_id)}` shows the parse failures) and rerun"
        )
    if note is not None:
        print(f"warning: {note}", file=sys.stderr)


def cmd_run(args: argparse.Namespace) -> int:

    if args.dry_run:
        return _print_plan(args.spec, args.out, args.events, args.concurrency)
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
    failed: list[CheckFailed] = []
    for model in models:  # a judge that gave no verdict at all fails; the others still run
        try:
            _rejudge_one(args, model)
        except CheckFailed as exc:
            failed.append(exc)
    if len(models) - len(failed) > 1:
        print(f"rank them: {command('judges', args.out)}", file=_said(args.events))
    if failed:
        more = f" (and {len(failed) - 1} more judge model(s) the same)" if len(failed) > 1 else ""
        raise CheckFailed(f"{failed[0]}{more}")
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

        _print_plan(spec, args.out, args.events, args.concurrency)
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
        fail_unjudged=spec.judge.model,
        model_given=model is not None,
        on_event=_sink(args.events),
        concurrency=args.concurrency,
        new_run=new_run,
    )
    said = _said(args.events)
    print(
        f"re-judged {source.run_id} as {finished.run_id}; compare them with: "
        + command(
            "compare", args.source, args.out, "--run-a", source.run_id, "--run-b", finished.run_id
        ),
        file=said,
    )
    if Path(os.path.realpath(args.out)) == source.out:
        print(
            f"{args.out}: audit_pairs.csv, judge_logs.jsonl and report.html now show "
            f"{finished.run_id}; {source.run_id} stays in audit.db "
            f"({command('report', args.out, '--run', source.run_id)})",
            file=said,
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
    finished = _run_blocking(demo_spec(), args.out, on_event=_sink(args.events, "progress"))
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
    from judgeaudit.analysis.seeds import SEEDS_JSON, spread, spread_lines
    from judgeaudit.fsutil import atomic_write_text

    if args.seeds < 2:
        raise UserError(f"demo: --seeds {args.seeds}: give 2 or more seeds for a spread")
    from judgeaudit.analysis.outputs import check_output

    check_output(args.out / SEEDS_JSON, "demo --seeds: --out")  # before any seed runs
    text = demo_spec().read_text(encoding="utf-8")
    reports = {}
    for seed in range(1, args.seeds + 1):
        out = args.out / f"seed-{seed}"
        out.mkdir(parents=True, exist_ok=True)
        spec = out / "demo.toml"
        spec.write_text(re.sub(r"(?m)^seed = \d+", f"seed = {seed}", text), encoding="utf-8")
        print(f"seed {seed}/{args.seeds}: {out}", file=sys.stderr)
        finished = _run_blocking(spec, out, on_event=_sink(args.events, "progress"))
        reports[seed] = build_report(out, ReportOptions(run_id=finished.run_id))
    summary = spread(reports)
    atomic_write_text(args.out / SEEDS_JSON, json.dumps(summary, indent=2))
    print("\n".join(spread_lines(summary)))
    print(f"per seed: {args.out}/seed-K/report.html; all figures: {args.out / SEEDS_JSON}")
    return 0

"""``judgeaudit report``, ``compare``, ``show`` and ``review``: reading finished runs (the
parsers are declared with the run commands in :mod:`judgeaudit.cli.audit_cmds`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judgeaudit.cli import command_help
from judgeaudit.cli.common import UserError, print_output, write_output
from judgeaudit.credentials import scrub_content
from judgeaudit.suggest import command

if TYPE_CHECKING:
    from judgeaudit.analysis.report_types import Report
    from judgeaudit.cli.common import Sub


def cmd_report(args: argparse.Namespace) -> int:
    import math

    from judgeaudit.analysis.frame import AnalysisError
    from judgeaudit.analysis.report import ReportOptions, build_report, render
    from judgeaudit.analysis.report_render import REPORT_HTML
    from judgeaudit.score_scale import SATISFIED_AT, SCORE_MAX

    if not (math.isfinite(args.threshold) and 0 <= args.threshold <= SCORE_MAX):
        raise UserError(
            f"report: --threshold {args.threshold:g} is outside the judge's 0-{SCORE_MAX:g} "
            f"score range; use a score from 0 to {SCORE_MAX:g} (default {SATISFIED_AT:g})"
        )
    try:
        report = build_report(
            args.out,
            ReportOptions(
                args.run,
                args.gap_source,
                args.bins,
                args.labels,
                args.threshold,
                args.engine,
                args.parquet,
                note=lambda line: print(line, file=sys.stderr),
            ),
        )
    except (AnalysisError, KeyError) as exc:
        raise UserError(str(exc)) from None
    from judgeaudit.analysis.unfinished import run_status

    shown = run_status(args.out, report["status"])  # "stopped", as the app says
    _say_if_stopped(args.out, report, shown)
    report["status"] = shown
    text = scrub_content(render(report, args.format))  # examples quote conversations
    if args.output:
        reads = [args.out, *_parquet(args.parquet)]
        # the run's own report.html may take its HTML report (the docs' example), nothing else
        own = [REPORT_HTML] if args.format == "html" else []
        write_output(args.output, text, "--output", reads, own)
    else:
        print_output(text)
    return 0


def _parquet(given: Path | None) -> list[Path]:
    """``--parquet``'s file, or the files under its folder (the report reads each of them)."""
    if given is None:
        return []
    return [given, *given.rglob("*")] if given.is_dir() else [given]


def _say_if_stopped(out: Path, report: Report, shown: str) -> None:
    """A run marked ``running`` that no process writes was stopped without closing (``kill
    -9``, a crash, a machine shut down): say so and how to go on, beside the figures so far.
    ``shown``: its status as :func:`~judgeaudit.analysis.unfinished.run_status` tells it (read
    once: that is the /proc/locks lookup)."""
    from judgeaudit.audit.store.out_lock import STOPPED

    folder = out if out.is_dir() else out.parent
    status = report.get("status")
    if status == "running" and shown == STOPPED:
        said = f"is marked running, but no process is writing {folder}: it was"
    elif status == STOPPED:  # marked so by a later run into the same OUT
        said = "was"
    else:
        return
    later = _later_of_its_spec(folder, str(report["run_id"]))
    then = (
        f"a later run of the same spec ({later}) is the one `judgeaudit run` resumes, so these"
        " figures stay as they are"
        if later
        else "rerun the same `judgeaudit run` command to resume it"
    )
    print(
        f"report: run {report['run_id']} {said} stopped without closing (killed, or a crash);"
        f" {then}",
        file=sys.stderr,
    )


def _later_of_its_spec(folder: Path, run_id: str) -> str | None:
    """The later run of ``run_id``'s spec that a rerun of the spec resumes
    (:func:`~judgeaudit.audit.run_choice.resumed_run`), or None when that is ``run_id``."""
    import sqlite3

    from judgeaudit.audit.run_choice import resumed_run
    from judgeaudit.audit.store import open_readonly
    from judgeaudit.audit.store.readonly import RUN_ORDER

    db = open_readonly(folder / "audit.db")
    try:
        db.row_factory = sqlite3.Row
        runs = db.execute(f"SELECT run_id, spec_hash FROM runs {RUN_ORDER}").fetchall()
    finally:
        db.close()
    spec = next((r["spec_hash"] for r in runs if r["run_id"] == run_id), None)
    resumed = resumed_run(runs, spec) if spec is not None else None
    return resumed if resumed != run_id else None


def cmd_compare(args: argparse.Namespace) -> int:
    """Exit codes with --fail-on-rise: 0 not worse, 3 worse (or run B's judge often gave no
    verdict), 5 inconclusive (not enough data), 2 refused (unpaired, nothing decisive, a run
    whose judge gave no verdict at all), 4
    unfinished."""
    from judgeaudit.analysis.compare_entry import compare_runs
    from judgeaudit.analysis.drift import render_compare
    from judgeaudit.analysis.frame import AnalysisError
    from judgeaudit.analysis.gate import gate_ready, refuse_unpaired

    margin = checked_margin(args.margin, "compare")
    try:
        compared = compare_runs(args.out_a, args.out_b, args.run_a, args.run_b, margin=margin / 100)
        if args.fail_on_rise:  # a refusal: exit 2 or 4 before anything is printed
            gate_ready(compared.result)
            refuse_unpaired(compared.result)
    except AnalysisError as exc:
        raise UserError(str(exc)) from None
    result = compared.result
    if args.format == "json":
        import json

        print(scrub_content(json.dumps(result, ensure_ascii=False, indent=2, default=str)))
    else:
        print(scrub_content(render_compare(result)))
    if not args.fail_on_rise:
        if compared.gate in ("failed", "inconclusive"):  # a CI step without the flag: exit 0
            print(
                f"judgeaudit: the gate is not enforced: with --fail-on-rise this comparison "
                f"exits {compared.gate_exit} ({compared.gate}); without it, 0",
                file=sys.stderr,
            )
        return 0
    for reason in compared.said(in_json=args.format == "json"):
        print(f"judgeaudit: {reason}", file=sys.stderr)
    return compared.gate_exit


def register(sub: Sub) -> None:
    """``judgeaudit judges`` (the other reading commands are declared in audit_cmds)."""
    judges = sub.add_parser("judges", help=command_help("judges"))
    judges.add_argument("outs", type=Path, nargs="+", metavar="OUT", help="output directories")
    judges.add_argument(
        "--format",
        choices=["table", "json", "md"],
        default="table",
        help="table (default), json or md",
    )
    judges.add_argument(
        "--margin", type=float, default=2.0, metavar="POINTS", help="the gate's margin vs the best"
    )
    judges.add_argument("--output", type=Path, help="write to this file instead of stdout")
    judges.set_defaults(func=cmd_judges)


def checked_margin(margin: float, command: str) -> float:
    """The gate's margin in points, for ``compare`` and ``judges`` alike (NaN, inf, 0 or
    negative are refused in one line)."""
    import math

    if not (math.isfinite(margin) and 0 < margin < 100):
        raise UserError(
            f"{command}: --margin {margin:g} is not a rise in percentage points between 0 and "
            "100; give e.g. --margin 2"
        )
    return margin


def checked_width(width: float | None) -> float:
    """``review export --width`` in percentage points, as the line it prints and ``compare
    --margin`` speak, as a fraction for ``suggested_n``. It took a fraction (0.2) before: a value
    under 1 is refused with the points it meant, never read silently as a hundredth of them."""
    import math

    from judgeaudit.analysis.review_weights import WIDTH_POINTS

    if width is None:  # the sizing rule's own default (the app's Review screen says the same)
        return WIDTH_POINTS / 100
    if math.isfinite(width) and 0 < width < 0.01:  # not even a point as a fraction
        raise UserError(
            f"review export: --width {width:g}: give the interval's width in percentage points, "
            f"at least 1 (default {WIDTH_POINTS})"
        )
    if math.isfinite(width) and 0 < width < 1:
        raise UserError(
            f"review export: --width {width:g}: the width is in percentage points now (as the "
            f"suggested --n line and compare --margin); for {width * 100:g} points give --width "
            f"{width * 100:g}"
        )
    if not (math.isfinite(width) and 1 <= width < 100):
        raise UserError(
            f"review export: --width {width:g}: give the interval's width in percentage points, "
            f"from 1 to under 100 (default {WIDTH_POINTS})"
        )
    return width / 100


def cmd_judges(args: argparse.Namespace) -> int:
    from judgeaudit.analysis.frame import AnalysisError
    from judgeaudit.analysis.leaderboard import leaderboard, render_leaderboard

    try:
        board = leaderboard(args.outs, margin=checked_margin(args.margin, "judges") / 100)
    except AnalysisError as exc:
        raise UserError(str(exc)) from None
    for left in board["left_out"]:
        if not left["finished"]:  # ranked as finished before (a new user's finding): said
            print(f"judges: left out {left['out']}#{left['run_id']}, which is {left['because']}",
                  file=sys.stderr)  # fmt: skip
    text = scrub_content(render_leaderboard(board, args.format))
    if args.output:
        write_output(args.output, text, "--output", args.outs)
    else:
        print(text)
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    from judgeaudit.analysis.pair_detail import pair_detail, render_detail
    from judgeaudit.terminal import printable

    detail = pair_detail(args.out, args.pair_id)
    if args.format == "json":
        import json

        print(json.dumps(detail, ensure_ascii=False, indent=2, default=str))
    else:
        # a logged reply's escapes stay on the page; CRLF line ends are line ends
        print(printable(render_detail(detail).replace("\r\n", "\n")))
    return 0


def _explained(db: Any, run_id: str, feature: str | None) -> tuple[str, set[str]] | None:
    """``--explained-by``: the misselected pairs the style model attributes to ``feature``."""
    if feature is None:
        return None
    from judgeaudit.analysis.why import fit_style
    from judgeaudit.analysis.why_data import load_run

    style = fit_style(load_run(db, run_id))
    if style["status"] != "ok":
        db.close()
        raise UserError(f"review export: --explained-by {feature}: {style['note']}")
    reasons: dict[str, str] = style["explained_pairs"]
    ids = {p for p, why in reasons.items() if feature in ("style", why)}
    if not ids:
        print(
            f"review export: no misselected pair is explained by {feature} in run {run_id} "
            f"(explained: {style['explained_by'] or 'none'}); sampling as usual",
            file=sys.stderr,
        )
    return feature, ids


def cmd_review_export(args: argparse.Namespace) -> int:
    from judgeaudit.analysis.frame import (
        AnalysisError,
        load_pairs,
        open_db,
        resolve_run,
        stored_labels,
    )
    from judgeaudit.analysis.review import (
        SAMPLE_FILE,
        SAMPLE_N,
        check_replace,
        draws,
        for_reviewer,
        sample,
        sample_csv,
    )
    from judgeaudit.analysis.review_weights import kish_design_effect, stratum_of, suggested_n

    if args.n is None:
        args.n = SAMPLE_N
    try:
        draws(args.seed)  # refused in one line before the database is read
    except AnalysisError as exc:
        raise UserError(str(exc)) from None

    try:
        db = open_db(args.out)
        run_id = resolve_run(db, args.run)
        pairs = load_pairs(db, run_id)
        stored = stored_labels(db)
        explained = _explained(db, run_id, args.explained_by)
        (status,) = db.execute("SELECT status FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        db.close()
    except AnalysisError as exc:
        raise UserError(str(exc)) from None
    if status != "finished":  # a live or stopped run: the sample covers what is stored so far
        print(
            f"review export: run {run_id} is {status} ({len(pairs)} pairs stored so far): the"
            " sample is drawn from those; export again once it has finished to sample the whole"
            " run",
            file=sys.stderr,
        )
    path = args.file or args.out / SAMPLE_FILE
    if path.suffix.lower() != ".csv":
        raise UserError(
            f"review export: --out {path}: the sample is written as CSV; name a .csv file"
        )
    if args.n < 1:
        raise UserError(f"review export: --n {args.n}: give how many pairs to sample (1 or more)")
    width = checked_width(args.width)
    from judgeaudit.analysis.outputs import check_output

    flag = "review export: --out"
    check_output(path, flag, [args.out], may_replace=[SAMPLE_FILE])  # a run's file, --force or not
    try:
        check_replace(path, args.out, args.force)  # a filled-in sample is the reviewer's work
    except AnalysisError as exc:
        raise UserError(str(exc)) from None
    drawn = sample(pairs, args.n, args.seed, explained=explained, stored=stored)
    frame = for_reviewer(drawn, blind=not args.unblind, seed=args.seed)
    write_output(path, sample_csv(frame), flag, [args.out], [SAMPLE_FILE])
    print(
        f"wrote {len(frame)} pairs to {path}; fill human_success_a/_b (0/1) and human_pref "
        f"(A/B/tie), then: {command('review', 'import', args.out, path)}"
    )
    population = {str(k): int(v) for k, v in stratum_of(pairs).value_counts().items()}
    need = suggested_n(population, width)
    every = " (every pair of the run: no fewer would do)" if need == len(pairs) else ""
    print(
        f"suggested --n {need}{every}: labelled pairs for a 95% interval {width * 100:g} "
        f"points wide on the weighted agreement (worst case 50%, Kish design effect "
        f"{kish_design_effect(population):.2f} of the stratum weights)"
        + ("" if args.n >= need else f"; --n {args.n} gives a wider interval")
    )
    return 0


def cmd_review_import(args: argparse.Namespace) -> int:
    from judgeaudit.analysis.frame import AnalysisError, open_db
    from judgeaudit.analysis.label_conversations import sides_of
    from judgeaudit.analysis.label_import import import_checked
    from judgeaudit.analysis.review_labels import read_sample

    try:
        db = open_db(args.out)
        known = set(sides_of(db))
        db.close()
        read = read_sample(args.file, known)
        numbered = read.numbered
        if not numbered:
            raise AnalysisError(
                f"{args.file}: no row holds a label, so nothing was stored; fill in "
                "human_success_a/_b (0/1) or human_pref (A/B/tie) on the pairs you reviewed"
            )
        where = [(f"{args.file}:{n}", label) for n, label in numbered]
        stored, refreshed = import_checked(args.out, where, f"in {args.file}")
    except AnalysisError as exc:
        raise UserError(str(exc)) from None
    report = refreshed.said()
    replaced = (
        f"; {stored.replaced} of them replaced a different label stored before"
        if stored.replaced
        else ""
    )
    if stored.notes_cleared:
        replaced += (
            f"; {stored.notes_cleared} of them removed a note stored before (its note cell "
            "was empty)"
        )
    print(
        f"stored {stored.written} labelled pairs (re-importing the same file changes nothing)"
        + replaced
        + read.skipped()
        + (f"; {report}" if report else "")
    )
    return 0

"""``judgeaudit report``, ``compare``, ``show`` and ``review``: reading finished runs (the
parsers are declared with the run commands in :mod:`judgeaudit.cli.audit_cmds`)."""

from __future__ import annotations

import argparse
import sys

from judgeaudit.cli.common import UserError


def cmd_report(args: argparse.Namespace) -> int:
    import math

    from judgeaudit.analysis.frame import AnalysisError
    from judgeaudit.analysis.report import ReportOptions, build_report, render

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
    from judgeaudit.analysis.drift import compare, render_compare
    from judgeaudit.analysis.frame import AnalysisError
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
    from judgeaudit.analysis.frame import AnalysisError, load_pairs, open_db, resolve_run
    from judgeaudit.analysis.review import sample, write_sample

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
    from judgeaudit.analysis.frame import AnalysisError, open_db
    from judgeaudit.analysis.label_import import import_labels
    from judgeaudit.analysis.review import read_labels

    try:
        db = open_db(args.out)
        known = {r[0] for r in db.execute("SELECT pair_id FROM audit_pairs")}
        db.close()
        labels = read_labels(args.file, known)
    except AnalysisError as exc:
        raise UserError(str(exc)) from None
    count, refreshed = import_labels(args.out, labels)
    print(
        f"stored {count} labelled pairs (re-importing the same file changes nothing)"
        + (f"; {refreshed} shows them" if refreshed else "")
    )
    return 0

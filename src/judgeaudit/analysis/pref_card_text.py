"""The data card of a preference export as text: the JSON and the Markdown written beside the
file, the export's one summary line and its lines on the labels left out, for the CLI and the
app alike (split from :mod:`judgeaudit.analysis.pref_card`, which counts it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from judgeaudit.analysis.fmt import bracket, pct, ratio_text

#: The reasons a pair is left out whose pairs the card lists (a reviewer's to correct).
LISTED = ("human_label_contradicts", "human_marks_disagree")
#: Per listed reason: what is wrong with such a pair's label, and what to do.
_LISTED_SAID = {
    "human_label_contradicts": (
        "human label prefers the side its own success marks say failed, or a tie",
        "correct them",
    ),
    "human_marks_disagree": (
        "human label marks a conversation succeeded that another pair's label marks failed "
        "(or the reverse)",
        "give each conversation one mark",
    ),
}


def left_out_lines(card: dict[str, Any]) -> list[str]:
    """One line per listed reason with pairs left out (the CLI's stderr, the app's notice):
    a reviewer's labels dropped from an export must not go unsaid."""
    lines = []
    for reason in LISTED:
        if left := card["left_out"].get(reason):
            ids = left["pair_ids"]
            shown = ", ".join(ids[:3]) + (f" and {len(ids) - 3} more" if len(ids) > 3 else "")
            what, fix = _LISTED_SAID[reason]
            lines.append(
                f"left out {len(ids)} pair(s) whose {what}: {shown} (all listed in the card);"
                f" {fix} with judgeaudit review import"
            )
    return lines


def _counted(what: str, reasons: dict[str, Any]) -> str:
    """``2 decisive pairs left out (2 human_label_not_decisive)``: the top reason named, the
    rest left to the card."""
    counts = sorted(((v["pairs"], k) for k, v in reasons.items()), key=lambda c: (-c[0], c[1]))
    if not counts:
        return f"0 {what}"
    total, (top, name) = sum(n for n, _ in counts), counts[0]
    what = what.replace("pairs", "pair") if total == 1 else what
    rest = f", {total - top} more: see the card" if total > top else ""
    return f"{total} {what} ({top} {name}{rest})"


def trl_keeps(kept: int) -> str:
    """``--format trl keeps 626 of them (whole conversations)``: of the pairs the openai format
    skipped, those trl writes (the card's ``kept_by_trl``); the summary line and the Markdown
    card say it alike. '' when none."""
    return f"--format trl keeps {kept} of them (whole conversations)" if kept else ""


def export_summary(card: dict[str, Any], dest: Path) -> str:
    """The export's one line (the CLI's stdout, the app's notice), in the card's figures: the
    judge's backwards labels over the run's decisive pairs (the report's misselected) and over
    the rows written (a human label or a left-out pair makes them differ), then the decisive
    pairs left out and the pairs the format skipped, each with its top reason."""
    left = {k: v for k, v in card["left_out"].items() if k != "not_decisive"}
    undecided = card["left_out"].get("not_decisive", {}).get("pairs", 0)
    if card["labels"] == "judge":  # every pair the judge decided, decisive by state or not:
        # its own rows never contradict it, state does (a new user read "contradicts 0")
        against = f"state (or a human) contradicts {card['rows_labelled_against_state']}"
        dropped = _counted("pairs left out", left)
    else:
        against = f"contradicts {card['rows_labelled_against_judge']}"
        dropped = f"{_counted('decisive pairs left out', left)} and {undecided} not decisive"
    return (
        f"wrote {card['rows']} {card['format']} rows ({card['labels']} labels) of run "
        f"{card['run_id']} to {dest}; the judge labelled {card['reversed_by_state']} of the "
        f"run's {card['decisive_pairs']} decisive pairs backwards by state and {against} of "
        f"the rows written; {dropped}; "
        f"{_counted('skipped by the format', card['skipped'])}"
        + (f"; {kept}" if (kept := trl_keeps(_kept_by_trl(card))) else "")
    )


def _kept_by_trl(card: dict[str, Any]) -> int:
    return sum(item.get("kept_by_trl", 0) for item in card["skipped"].values())


def render_card(card: dict[str, Any]) -> tuple[str, str]:
    """(JSON text, Markdown text) of a data card."""
    return json.dumps(card, ensure_ascii=False, indent=2) + "\n", _markdown(card)


def _markdown(c: dict[str, Any]) -> str:
    judge, tasks, gap = c["judge"], c["task_set"], c["gap"]
    lines = [
        f"# Data card: {Path(c['file']).name}",
        "",
        f"- **Format** `{c['format']}`, **labels** `{c['labels']}`: {c['rows']} rows from run "
        f"`{c['run_id']}` (spec `{c['spec_hash']}`, judgeaudit {c['tool_version']}).",
        f"- **Judge** ({judge['source']}) `{judge['model'] or ', '.join(judge['models_on_pairs'])}`"
        f" (on pairs: {', '.join(judge['models_on_pairs']) or '—'}), prompt hash "
        f"`{judge['prompt_hash']}` ({judge['prompt_source']}).",
        f"- **Task set** `{tasks.get('source')}`, hash `{tasks.get('hash')}`, {tasks.get('count')} tasks.",
        f"- **Gap** `{gap['source']}`, bins {gap['bins']}.",
        f"- **Reversed by state**: the judge labelled **{c['reversed_by_state']}** of the run's "
        f"{c['decisive_pairs']} decisive pairs backwards (the report's misselected count).",
        f"- Rows whose label the judge contradicts: {c['rows_labelled_against_judge']}; rows "
        f"whose label state (or a human) contradicts: {c['rows_labelled_against_state']}.",
        f"- Rows a human review took from state: {_over(c)}.",
        f"- Label sources: {', '.join(f'{k} {v}' for k, v in c['label_sources'].items())}.",
        "",
        "## Rows by bucket and task type",
        "",
    ]
    types = list(c["rows_by_task_type"])
    lines += ["| bucket | " + " | ".join(types) + " | all |", "|---" * (len(types) + 2) + "|"]
    cells = {(r["bucket"], r["task_type"]): r["rows"] for r in c["rows_by_bucket_and_task_type"]}
    for bucket, n in c["rows_by_bucket"].items():
        row = " | ".join(str(cells.get((bucket, t), 0)) for t in types)
        lines.append(f"| {bucket} | {row} | {n} |")
    noise = c["label_noise"]
    lines += [
        "",
        "## Judge label noise by bucket",
        "",
        f"Noise: {noise['definition']}. Interval: {noise['method']}.",
        "",
        "| bucket | decisive | judge ties | judge labelled | reversed | noise | 95% CI |",
        "|---|---|---|---|---|---|---|",
    ]
    for b in [*noise["by_bucket"], noise["overall"]]:
        ci = bracket([b["ci_low"], b["ci_high"]])
        lines.append(
            f"| {b['bucket']} | {b['decisive']} | {b['judge_ties']} | {b['judge_labelled']} | "
            f"{b['reversed']} | {pct(b['rate'])} | {ci} |"
        )
    lines += ["", "## Left out and skipped", ""]
    for title, key in (
        ("Left out by the label mode", "left_out"),
        ("Skipped by the format", "skipped"),
    ):
        entries = c[key]
        if not entries:
            lines.append(f"- {title}: none.")
        for reason, item in entries.items():
            kept = trl_keeps(item.get("kept_by_trl", 0))
            lines.append(
                f"- {title}: {item['pairs']} `{reason}` — {item['why']}"
                + (f"; {kept}." if kept else ".")
            )
            lines += [f"  - `{pair_id}`" for pair_id in item.get("pair_ids", [])]
    lines += ["", "## Transformations", "", *(f"- {t}" for t in c["transformations"])]
    lines += [
        "",
        "## Style features behind reversed labels",
        "",
        *_style_lines(c["style_features"]),
        "",
    ]
    return "\n".join(lines)


def _style_lines(style: dict[str, Any]) -> list[str]:
    if not style.get("computed"):
        return [f"Not fitted: {style.get('reason')} (`{style.get('see')}`)."]
    return [
        f"From {style['method']}; the terms with the largest odds ratios, stable ones first "
        f"(`{style['see']}` shows them all, and how many misselected pairs style explains):",
        "",
        *(
            f"- {t['feature']} ({t['kind']}): odds ratio {ratio_text(t['odds_ratio'])} "
            f"[{ratio_text(t['ci_low'])}, {ratio_text(t['ci_high'])}], p = {t['p_value']:.2g}"
            + (f"; unstable: {t['unstable_reason']}" if t.get("unstable") else "")
            for t in style["terms"]
        ),
    ]


def _over(c: dict[str, Any]) -> str:
    """The rows a human label set against state, with their pair ids (few: a review's)."""
    over = c.get("rows_a_human_took_from_state") or {"rows": 0, "pair_ids": []}
    if not over["rows"]:
        return "0"
    shown = ", ".join(f"`{p}`" for p in over["pair_ids"][:20])
    more = f" and {over['rows'] - 20} more (the card's JSON lists all)" if over["rows"] > 20 else ""
    return f"**{over['rows']}** ({shown}{more}): a reviewer says state got these wrong"

"""One pair as the judge saw it: both sides' outcome, and every judge call's rendered prompt
next to its raw output (``judgeaudit show``; the app's Pair detail reads the same)."""

from __future__ import annotations

import json
import shlex
import sqlite3
import unicodedata
from pathlib import Path
from typing import Any, NamedTuple

from judgeaudit.analysis.frame import AnalysisError, open_db
from judgeaudit.analysis.why_data import one_side, run_lexicon
from judgeaudit.audit.export import PAIRS_CSV
from judgeaudit.audit.store.schema import has_source_ids, has_table
from judgeaudit.audit.units.ids import (
    is_recorded_log,
    pair_trial_b,
    shown_source_id,
    swapped_pair_id,
    trials_at,
)
from judgeaudit.suggest import command

SHOW_MATCHES = 5


def pair_detail(out: Path, pair_id: str) -> dict[str, Any]:
    """The pair row, its two trajectories and its judge calls with their rendered messages."""
    _refuse_a_history(out, pair_id)
    db = open_db(out)
    try:
        pair = _find_pair(db, pair_id, out)
        sides = [
            db.execute(
                "SELECT * FROM trajectories WHERE run_id = ? AND task_id = ? AND trial = ?"
                " AND agent = ?",
                (pair["run_id"], pair["task_id"], trial, agent),
            ).fetchone()
            for agent, trial in (
                (pair["agent_a"], pair["trial"]),
                (pair["agent_b"], pair_trial_b(pair)),
            )
        ]
        join = (
            "SELECT l.*, p.messages_json FROM judge_logs l LEFT JOIN prompts p"
            " ON p.prompt_hash = l.prompt_hash"
            if has_table(db, "prompts")
            else "SELECT l.*, NULL AS messages_json FROM judge_logs l"
        )
        logs = db.execute(
            join + ' WHERE l.pair_id = ? ORDER BY l."order", l.attempt', (pair["pair_id"],)
        ).fetchall()
        extension = run_lexicon(db, pair["run_id"])
        feats = [None if row is None else one_side(db, row, extension).as_dict() for row in sides]
    finally:
        db.close()
    return {
        "pair": dict(pair),
        "sides": [_side(row) for row in sides],
        "features": feats,
        "judge_calls": [_call(row) for row in logs],
    }


def _refuse_a_history(out: Path, pair_id: str) -> None:
    """A Parquet history keeps rows, not conversations: say so (it said "not found" and sent
    the user to `export files`, which refuses a history)."""
    from judgeaudit.analysis.engines.history import is_history

    if is_history(out):
        key, shards = (_sql_text(t) for t in (pair_id, f"{out}/**/*.parquet"))
        query = (
            f"SELECT * FROM read_parquet({shards}, union_by_name = true)"
            f" WHERE pair_id = {key} OR source_id = {key}"
        )
        raise AnalysisError(
            f"{out} is a Parquet history: it keeps each pair's row, not its conversations or"
            " judge calls, so `show` needs the output directory of the run that judged it; the"
            f" row: duckdb -c {shlex.quote(query)}"
        )


def _sql_text(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


#: No pair id is longer (run, task and two agent names are each capped far below it).
MAX_PAIR_ID = 2000


#: Where a user finds the ids (a recorded run leaves the CSV to `export files`).
def _where_ids(out: Path) -> str:
    return (
        f"(listed in {out / PAIRS_CSV}, which `{command('export', 'files', out)}` writes if absent)"
    )


def _find_pair(db: sqlite3.Connection, pair_id: str, out: Path) -> sqlite3.Row:
    if len(pair_id) > MAX_PAIR_ID:
        raise AnalysisError(
            f"pair id {pair_id[:40]!r}... is {len(pair_id)} characters long, longer than any "
            f"pair id; ids look like RUN/TASK/tTRIAL/A~B {_where_ids(out)}"
        )
    matches, total = _matches(db, pair_id)
    if len(matches) == 1:
        return matches[0]  # the id, or a unique tail such as "T-001/t0/ace~weak"
    if matches:
        shown = ", ".join(repr(m["pair_id"]) for m in matches[:SHOW_MATCHES])
        more = f" and {total.pairs - SHOW_MATCHES} more" if total.pairs > SHOW_MATCHES else ""
        raise AnalysisError(
            f"pair {pair_id!r} matches {total.pairs} pairs{_on_tasks(total)} ({shown}{more});"
            f" {_how_to_pick(db, pair_id, matches[0])}"
        )
    other_way = swapped_pair_id(pair_id)
    found, turned = _matches(db, other_way) if other_way is not None else ([], _NONE)
    if found and other_way is not None:
        why = "the agents the other way round"
        if trials_at(pair_id.split("/")) is None:  # the agents alone: turn round what was typed
            meant = f"{other_way!r} ({why}: {turned.pairs} pairs{_on_tasks(turned)})"
        else:
            meant = " or ".join(repr(m["pair_id"]) for m in found[:SHOW_MATCHES])
            meant += f"{', ...' if len(found) > SHOW_MATCHES else ''} ({why})"
        raise AnalysisError(f"pair {pair_id!r} not found; did you mean {meant}?")
    logged = ", or the pair_id an imported log gave it" if _source_ids_kept(db) else ""
    raise AnalysisError(
        f"pair {pair_id!r} not found; ids look like RUN/TASK/tTRIAL/A~B{logged} {_where_ids(out)}"
    )


class _Total(NamedTuple):
    """How many pairs an id names in all, and on how many tasks (only the first few are
    listed: "matches several" left a user to guess between 6 and 84)."""

    pairs: int
    tasks: int


_NONE = _Total(0, 0)


def _on_tasks(total: _Total) -> str:
    return f" on {total.tasks} tasks" if total.tasks > 1 else ""


def _matches(db: sqlite3.Connection, pair_id: str) -> tuple[list[sqlite3.Row], _Total]:
    """The pair of that id, or else the pairs an imported log gave that id and those whose id
    ends in it as whole '/'-parts ("9/t1/…" is no tail of "…/退货-9/t1/…"), the first
    SHOW_MATCHES + 1 and how many in all: a log id that is also another pair's tail names both,
    never one in silence. The agents alone (``ace~keen``, no task) name that pair of agents on
    every task: it said "not found" where ``t0/ace~keen`` listed the pairs it matches. An id
    typed on a terminal that decomposes accents (NFD) names the same pair as the stored
    composed (NFC) one, and the other way round: each spelling is tried."""
    by_source = has_source_ids(db)
    for spelling in dict.fromkeys(
        (pair_id, unicodedata.normalize("NFC", pair_id), unicodedata.normalize("NFD", pair_id))
    ):
        row: sqlite3.Row | None = db.execute(
            "SELECT * FROM audit_pairs WHERE pair_id = ?", (spelling,)
        ).fetchone()
        if row is not None:
            return [row], _Total(1, 1)
        named: list[str] = []
        if by_source:  # the log's own id: one pair per run that imported it
            named.append("source_id = :id")
        # a tail holds the trials part: "small" of agent "acme/small" is no pair
        if trials_at(spelling.split("/")) is not None:  # no LIKE: no pattern to choke on
            named.append("substr(pair_id, -length(:id) - 1) = '/' || :id")
        elif "~" in spelling:  # the agents alone, "ace~keen": the same pair on every task
            named.append("agent_a || '~' || agent_b = :id")
        if not named:
            continue
        where = " OR ".join(f"({n})" for n in named)
        args = {"id": spelling, "n": SHOW_MATCHES + 1}
        found = db.execute(
            f"SELECT * FROM audit_pairs WHERE {where} ORDER BY pair_id LIMIT :n", args
        ).fetchall()
        if found:
            pairs, tasks = db.execute(
                f"SELECT COUNT(*), COUNT(DISTINCT task_id) FROM audit_pairs WHERE {where}", args
            ).fetchone()
            return found, _Total(int(pairs), int(tasks))
    return [], _NONE


def _how_to_pick(db: sqlite3.Connection, typed: str, first: sqlite3.Row) -> str:
    """What to put before an id that names several pairs: the agents alone (``ace~keen``) lack
    the task and trial, a tail from the trials on (``t0/ace~keen``) the task; the first match's
    id past its run is offered only if it names that one pair (across runs, or for a log's own
    id, it would match several again: a reviewer's finding). ``t0/ace~keen`` said only "give the
    whole id"."""
    whole = "give the whole id (the run's id first)"
    parts = typed.split("/")
    if len(parts) == 1 and "~" in typed:
        lacking = "the task and trial"
    elif len(parts) > 1 and trials_at(parts) == 0:
        lacking = "the task"
    else:
        return whole
    example = str(first["pair_id"]).partition("/")[2]
    if _matches(db, example)[1].pairs != 1:
        return whole
    return f"put {lacking} first, as {example!r}, or {whole}"


def _source_ids_kept(db: sqlite3.Connection) -> bool:
    """Whether any pair in audit.db carries its log's own id (imported runs)."""
    return has_source_ids(db) and bool(
        db.execute("SELECT 1 FROM audit_pairs WHERE source_id IS NOT NULL LIMIT 1").fetchone()
    )


def _side(row: sqlite3.Row | None) -> dict[str, Any] | None:
    if row is None:
        return None
    side = dict(row)
    side["events"] = json.loads(side["events"])
    side["success_detail"] = json.loads(side["success_detail"] or "{}")
    return side


def no_prompt_reason(call: dict[str, Any]) -> str:
    """Why a judge call shows no rendered prompt (``show`` and the app's Pair detail say it)."""
    if is_recorded_log(str(call.get("log_id") or "")):
        return "a recorded verdict: the log it came from holds no prompt"
    return "run made before prompts were kept"


def _hashes(call: dict[str, Any]) -> str:
    """`` (prompt P, template T)``, each named only when known (a recorded verdict may have
    neither: no "prompt None")."""
    known = [
        f"{label} {value}"
        for label, value in (
            ("prompt", call.get("prompt_hash")),
            ("template", call.get("prompt_template_hash")),
        )
        if value
    ]
    return f" ({', '.join(known)})" if known else ""


def raw_output_text(call: dict[str, Any]) -> str:
    """A judge call's raw output as ``show`` and Pair detail print it: verbatim, or for a
    recorded verdict (or recorded lack of one) that came without the judge's text, that it was
    not recorded."""
    raw = call.get("raw_output")
    if raw is not None:
        return str(raw)
    if call.get("parse_error"):  # recorded with "winner": null
        return "(not recorded: the log held neither the judge's text nor a verdict)"
    return "(not recorded: the log held the verdict without the judge's text; see parsed_json)"


def _call(row: sqlite3.Row) -> dict[str, Any]:
    call = dict(row)
    raw = call.pop("messages_json")
    call["messages"] = json.loads(raw) if raw else None
    call["parsed_json"] = json.loads(call["parsed_json"]) if call["parsed_json"] else None
    return call


def _said(pref: str | None) -> str:
    """An order's preference; none stored: that order was not judged (no swap, or one recorded)."""
    return "not judged" if pref is None else pref


def _scores(a: float | None, b: float | None) -> str:
    """The judge's mean scores (none given: its replies or the log held no scores)."""
    if a is None and b is None:
        return "no scores"
    return f"scores {'none' if a is None else a}/{'none' if b is None else b}"


def render_detail(detail: dict[str, Any]) -> str:
    """Plain text: the verdict line, each side's outcome, then prompt and raw output per call."""
    pair = detail["pair"]
    flag = "  MISSELECTED" if pair["misselected"] else ""
    lines = [
        f"pair {pair['pair_id']}"
        + ("" if (log := shown_source_id(pair)) is None else f" (in the log: {log})"),
        f"task {pair['task_id']} ({pair['task_type']}); judge {pair['judge_model']} prefers "
        f"{pair['judge_pref']} (AB: {_said(pair['pref_ab'])}, BA: {_said(pair['pref_ba'])}); "
        + _scores(pair["judge_score_a"], pair["judge_score_b"])
        + flag,
    ]
    for label, side in zip("AB", detail["sides"], strict=True):
        if side is None:
            lines.append(f"{label}: trajectory not stored")
            continue
        verdict = "SUCCESS" if side["success"] else "FAILED"
        lines.append(
            f"{label}: {side['agent']} {verdict} ({side['success_source']}), ending "
            f"{side['ending']}"
        )
        for problem in side["success_detail"].get("state_diff", []):
            lines.append(f"   state: {problem}")
        for fact in side["success_detail"].get("missing_facts", []):
            lines.append(f"   never told the user: {fact}")
    lines += feature_lines(detail.get("features") or [])
    shown = 0
    for call in detail["judge_calls"]:
        first = pair["agent_a"] if call["order"] == "AB" else pair["agent_b"]
        lines += [
            "",
            f"== judge call: order {call['order']} (shown as A: {first}), attempt "
            f"{call['attempt']}, {call['model']}{_hashes(call)}",
        ]
        messages = call["messages"]
        if messages is None:
            lines.append(f"-- rendered prompt: not stored ({no_prompt_reason(call)})")
        else:
            # A retry repeats the earlier messages; show only what it added.
            new = messages[shown:] if call["attempt"] > 0 else messages
            shown = len(messages)
            lines.append(
                "-- rendered prompt" + (" (added by the retry):" if call["attempt"] else ":")
            )
            for message in new:
                lines.append(f"[{message['role']}]")
                lines.append(str(message.get("content") or ""))
        lines.append("-- raw output:")
        lines.append(raw_output_text(call))
        if call["parse_error"]:
            lines.append(f"-- PARSE ERROR: {call['parse_error']}")
    return "\n".join(lines)


def feature_lines(feats: list[dict[str, Any] | None]) -> list[str]:
    """The two sides' style features side by side (definitions: docs/why.md)."""
    a, b = [*feats, None, None][:2]
    if a is None or b is None:
        return []
    lines = ["", f"features (docs/why.md)      {'A':>8} {'B':>8}"]
    for name in a:
        if name == "tokens" and a[name] is None and b[name] is None:
            continue
        shown = ["n/a" if v is None else str(v) for v in (a[name], b[name])]
        mark = "  (differs)" if a[name] != b[name] else ""
        lines.append(f"  {name:<25} {shown[0]:>8} {shown[1]:>8}{mark}")
    return lines

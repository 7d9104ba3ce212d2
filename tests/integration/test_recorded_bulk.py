"""``import recorded-jsonl`` checks a clean file in bulk (issue 23, goal 4) and reads it again
line by line only when something is unusual. What a user must still see: the same pairs file,
record and summary as the line-by-line import; a file that is only unusual (a line given twice)
still imported; a bad file refused in one line naming the *first* bad line, with exit 2 and
nothing written."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from judgeaudit.rollouts import recorded_bulk
from judgeaudit.rollouts.messages import RolloutError
from judgeaudit.rollouts.pairing import ImportSummary
from judgeaudit.rollouts.recorded import VERDICT_FIELDS, import_recorded
from judgeaudit.rollouts.recorded_bulk import SCRATCH_TABLES, Unusual, load_bulk
from judgeaudit.validate import iter_jsonl
from tests.cli_helpers import cli

ROLLOUTS = Path(__file__).resolve().parents[2] / "examples" / "rollouts"


def varied_log() -> list[dict[str, Any]]:
    """The example log, plus lines that take every optional field a clean log may carry."""
    records: list[dict[str, Any]] = [
        json.loads(line)
        for line in (ROLLOUTS / "recorded-verdicts.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    records += [
        {"pair_id": "q1", "order": "BA", "winner": "tie", "score_a": 3, "score_b": 0,
         "reasons": ["close", "ünïcode"], "raw_output": "", "judge_model": "rm-2",
         "prompt_hash": "h1"},  # before its pair, integer scores
        {"pair_id": "q1", "task_id": "17", "task_type": "refund", "agent_a": "a1", "agent_b": "a2",
         "trial_a": 0, "trial_b": 2, "success_a": True, "success_b": 0, "reward_a": 0.25,
         "reward_b": 1, "satisfied_a": False, "context": "policy ✓", "period": "2026-11-03",
         "judge_model": "rm-2", "meta": {"shard": 3}},
        {"type": "verdict", "pair_id": "q1", "order": "AB", "winner": "A", "score_a": 4.5,
         "judge_model": "rm-2", "prompt_hash": "h1"},
        {"pair_id": "q2", "task_id": "17", "task_type": "refund", "agent_a": "a2", "agent_b": "a1",
         "trial": 1, "success_a": 1, "success_b": 1, "context": "policy ✓",
         "trajectory_a": "user: hi\nagent: done", "trajectory_b": []},
        {"pair_id": "q2", "order": "AB", "winner": "B", "score_a": None, "reasons": None},
        {"pair_id": "q3", "task_id": "t3", "agent_a": "a1", "agent_b": "a2", "success_a": 0,
         "success_b": 1},  # no verdict: skipped
        {"pair_id": "nope", "order": "AB", "winner": "A"},  # no pair: skipped
    ]  # fmt: skip
    return records


def write(path: Path, records: list[dict[str, Any]]) -> Path:
    """A log with a byte-order mark and a blank line, which the import reads past."""
    lines = [json.dumps(r, ensure_ascii=False) + "\n" for r in records]
    path.write_bytes(b"\xef\xbb\xbf" + "".join([*lines[:5], "\n", *lines[5:]]).encode())
    return path


def bulk(log: Path) -> None:
    """The bulk path alone, into join tables like the import's."""
    db = sqlite3.connect(":memory:", isolation_level=None)
    for table in SCRATCH_TABLES:
        db.execute(table)
    load_bulk(db, [log], ImportSummary(unit="pairs"), None, frozenset(VERDICT_FIELDS))


def imported(tmp: Path, name: str, log: Path, *, exact: bool) -> tuple[bytes, str, ImportSummary]:
    out = tmp / name / "pairs.jsonl"
    summary = import_recorded([log], out, "2026-11-03", exact=exact)
    return out.read_bytes(), (tmp / name / "pairs.jsonl.checked.json").read_text(), summary


def test_a_clean_log_takes_the_bulk_path_and_gives_what_the_exact_path_gives(
    tmp_path: Path,
) -> None:
    log = write(tmp_path / "log.jsonl", varied_log())
    bulk(log)  # no Unusual
    fast = imported(tmp_path, "fast", log, exact=False)
    slow = imported(tmp_path, "slow", log, exact=True)
    assert fast == slow
    skipped = " ".join(fast[2].skips.reasons)
    assert b'"score_a":3.0' in fast[0] and "'q3' has no" in skipped and "no pair line" in skipped


@pytest.mark.parametrize(
    "extra",
    [
        {"pair_id": "q2", "order": "AB", "winner": "B", "score_a": None, "reasons": None},
        {"pair_id": "q3", "task_id": "t3", "agent_a": "a1", "agent_b": "a2", "success_a": 0,
         "success_b": 1},
    ],
    ids=["the same verdict line twice", "the same pair line twice"],
)  # fmt: skip
def test_a_line_given_twice_is_unusual_but_imported_as_before(
    tmp_path: Path, extra: dict[str, Any]
) -> None:
    records = varied_log()
    records.insert(3, extra)
    log = write(tmp_path / "log.jsonl", records)
    with pytest.raises(Unusual):
        bulk(log)
    fast = imported(tmp_path, "fast", log, exact=False)
    assert fast == imported(tmp_path, "slow", log, exact=True)
    # the repeat is said, not taken in silence: "log.jsonl:4: pair line repeats log.jsonl:N ..."
    repeats = [r for r in fast[2].skips.reasons if "repeats" in r]
    assert len(repeats) == 1 and "(same content; kept once)" in repeats[0]


CLASH = {
    "pair_id": "c1",
    "task_id": "prod-0",
    "agent_a": "policy-v7",
    "agent_b": "x9",
    "trial": 0,
    "success_a": 0,
    "success_b": 1,
}  # prod-0 has another task text on line 1
BAD_WINNER = {"pair_id": "c1", "order": "AB", "winner": "X"}
OTHER_TEXT = {"pair_id": "p000", "task_id": "prod-0", "agent_a": "policy-v7", "agent_b": "zz",
              "success_a": 1, "success_b": 0}  # fmt: skip


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        (CLASH, BAD_WINNER, "task: task_id 'prod-0' has a different task"),
        (BAD_WINNER, CLASH, 'winner: must be "A", "B" or "tie"'),
        (OTHER_TEXT, BAD_WINNER, "pair_id: 'p000' is already on"),
    ],
    ids=["a clash, then a bad field", "a bad field, then a clash", "a pair id reused"],
)  # fmt: skip
def test_the_first_bad_line_of_the_file_is_the_one_refused_and_nothing_is_written(
    tmp_path: Path, first: dict[str, Any], second: dict[str, Any], expected: str
) -> None:
    records = varied_log()
    at = len(records) - 2
    records[at:at] = [first, {"pair_id": "p001", "order": "AB", "winner": "A"}, second]
    log = write(tmp_path / "log.jsonl", records)
    out = tmp_path / "out"
    out.mkdir()
    result = cli("import", "recorded-jsonl", str(log), "--out", str(out / "pairs.jsonl"))
    message = result.stderr.strip()
    assert result.returncode == 2 and "\n" not in message, result
    line = at + 2  # the log's blank line is line 6
    assert message.startswith(f"judgeaudit: {log}:{line}: ") and expected in message, message
    with pytest.raises(RolloutError) as exact:
        import_recorded([log], tmp_path / "exact" / "pairs.jsonl", exact=True)
    assert message.endswith(str(exact.value)), (message, exact.value)
    assert list(out.iterdir()) == []  # no pairs file, no record, no scratch database


@pytest.mark.parametrize(
    "line",
    [
        b'{"pair_id": "p001", "order": "AB", "winner": "A", "score_a": NaN}',
        b'{"pair_id": "p001", "order": "AB", "winner": "A", "score_a": 1e400}',
        b'["pair_id", "p001"]',
        b'{"pair_id": "p001", "order": "AB", "winner": "A", "reasons": ["\xff"]}',
        b'{"pair_id": "p001", "order": "AB", "winner": "A"',
    ],
    ids=["NaN", "a float too large", "not an object", "not UTF-8", "not JSON"],
)
def test_a_line_the_strict_parser_refuses_is_refused_by_name(tmp_path: Path, line: bytes) -> None:
    log = write(tmp_path / "log.jsonl", varied_log())
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join([*lines[:9], line + b"\n", *lines[9:]]))
    out = tmp_path / "out"
    out.mkdir()
    result = cli("import", "recorded-jsonl", str(log), "--out", str(out / "pairs.jsonl"))
    message = result.stderr.strip()
    assert result.returncode == 2 and message.startswith(f"judgeaudit: {log}:10: "), result
    with pytest.raises(RolloutError) as exact:
        import_recorded([log], tmp_path / "exact" / "pairs.jsonl", exact=True)
    assert message.endswith(str(exact.value)), (message, exact.value)
    assert list(out.iterdir()) == []


@pytest.mark.parametrize("block", [5, 64, 1 << 20])
def test_the_block_reader_gives_each_line_and_its_number_as_the_line_reader_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    """Lines cut across blocks (a character of several bytes too), Windows line ends, blank
    lines, a byte-order mark and a last line without a newline."""
    log = write(tmp_path / "log.jsonl", varied_log())
    data = log.read_bytes().replace(b"\n", b"\r\n", 3) + b'\n \n{"pair_id": "\xe2\x9c\x93"}'
    log.write_bytes(data)
    monkeypatch.setattr(recorded_bulk, "BLOCK", block)
    read = list(recorded_bulk._clean_lines(log))
    assert read == [(where, row) for where, _, row in iter_jsonl(log, "line", RolloutError)]
    lines = len(data.split(b"\n"))
    assert read[-1] == (f"{log}:{lines}", {"pair_id": "✓"})


def test_no_verdicts_and_contradicting_winners_take_the_bulk_path_and_agree_with_the_exact(
    tmp_path: Path,
) -> None:
    """``"winner": null`` lines (with and without parse_error and raw_output) and winners that
    contradict their own scores are clean: the bulk path takes them, and both paths write the
    same file and record, and count (and name) the same lines in the same order."""
    records = varied_log()
    records += [
        {"pair_id": "n1", "task_id": "t9", "agent_a": "a1", "agent_b": "a2", "success_a": 1,
         "success_b": 0},
        {"pair_id": "n1", "order": "BA", "winner": None, "parse_error": "invalid JSON: \x1b[0m",
         "raw_output": "{ünïcode", "reasons": [], "score_a": None, "judge_model": "rm-2"},
        {"pair_id": "n1", "order": "AB", "winner": "B", "score_a": 4, "score_b": 1.5,
         "judge_model": "rm-2"},  # contradicts
        {"pair_id": "n2", "task_id": "t9", "agent_a": "a2", "agent_b": "a1", "trial": 1, "success_a": 0,
         "success_b": 1},
        {"type": "verdict", "pair_id": "n2", "order": "AB", "winner": None},
        {"pair_id": "n2", "order": "BA", "winner": None, "parse_error": None},
        {"pair_id": "gone", "order": "AB", "winner": "A", "score_a": 0, "score_b": 5},  # no pair
    ]  # fmt: skip
    log = write(tmp_path / "log.jsonl", records)
    bulk(log)  # no Unusual
    fast = imported(tmp_path, "fast", log, exact=False)
    slow = imported(tmp_path, "slow", log, exact=True)
    assert fast == slow
    summary = fast[2]
    assert summary.no_verdicts == 3
    # by hand: a verdict of a pair line that picked the side it scored strictly lower
    picked_lower = [
        f"{log}:{i + 1 + (i >= 5)}"  # the blank line write() puts after the fifth record
        for i, r in enumerate(records)
        if r.get("winner") in ("A", "B") and r["pair_id"] != "gone"
        and None not in (r.get("score_a"), r.get("score_b"))
        and (r["score_a"] < r["score_b"]) == (r["winner"] == "A") and r["score_a"] != r["score_b"]
    ]  # fmt: skip
    assert [r.split(": ")[0] for r in summary.contradictions.reasons] == picked_lower
    assert summary.contradictions.reasons[-1] == (
        f"{log}:{len(records) - 4 + 1}: winner B but score_a 4 > score_b 1.5"
    )
    assert b'"parse_error":"invalid JSON: \\u001b[0m"' in fast[0]
    assert (
        b'{"order":"AB","winner":null,"score_a":null,"score_b":null,"raw_output":null,' in fast[0]
    )

"""A production log can say its judge gave no verdict (``"winner": null``, with ``parse_error``
and ``raw_output`` when the log has them): through the real CLI, import → run → report, trend and
compare show the no-verdict share with the report's interval (checked against statsmodels'
Wilson at the task design effect's effective n), a judge outage's log (every winner null) is
audited with misselection said to be not measured, and a winner that contradicts its own scores
is kept but named at import. Before, every such line was refused, so a recorded run's no-verdict
share was 0% by construction."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from statsmodels.stats.proportion import proportion_confint

from judgeaudit.rollouts.messages import RolloutError
from judgeaudit.rollouts.recorded import import_recorded
from tests.cli_helpers import cli, cli_ok
from tests.unit.test_split_figures import _statsmodels_interval

KEY = "sk-ant-api03-" + "Q" * 40  # key-shaped: must never reach the pairs file or audit.db
SPEC = '[run]\nname = "prod"\nimported = "pairs.jsonl"\n\n[judge]\nsource = "recorded"\n'
#: per task: its pairs (each judged AB then BA), and how many of its orders the log recorded
#: with no verdict; the missing orders bunch in two tasks, so the design effect is above 1.
TASKS = {"t1": (3, 4), "t2": (2, 2), "t3": (4, 0), "t4": (3, 0), "t5": (2, 1)}


def log_lines(tasks: dict[str, tuple[int, int]], error: str = "no JSON object found") -> list[Any]:
    """Pairs (A succeeded, B failed) whose judged orders pick A, and per task its first
    ``missing`` orders with ``"winner": null``."""
    lines: list[dict[str, Any]] = []
    for task, (pairs, missing) in tasks.items():
        orders = [(f"{task}-{i}", o) for i in range(pairs) for o in ("AB", "BA")]
        for i in range(pairs):
            lines.append({"type": "pair", "pair_id": f"{task}-{i}", "task_id": task,
                          "agent_a": "policy-v7", "agent_b": "policy-v8", "trial": i,
                          "success_a": 1, "success_b": 0})  # fmt: skip
        for j, (pair, order) in enumerate(orders):
            if j < missing:  # the judge's text for every other one only
                raw = {"raw_output": f"I think A is better {KEY}"} if j % 2 == 0 else {}
                lines.append({"type": "verdict", "pair_id": pair, "order": order, "winner": None,
                              "parse_error": error, **raw, "judge_model": "rm-1"})  # fmt: skip
            else:
                lines.append({"type": "verdict", "pair_id": pair, "order": order, "winner": "A",
                              "score_a": 4, "score_b": 2, "judge_model": "rm-1"})  # fmt: skip
    return lines


def write(path: Path, lines: list[Any]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def audited(folder: Path, log: Path) -> tuple[Path, str]:
    """``import`` then ``run`` in ``folder``; the run's OUT and the import's stdout."""
    imported = cli_ok("import", "recorded-jsonl", str(log), "--out", str(folder / "pairs.jsonl"))
    (folder / "spec.toml").write_text(SPEC)
    cli_ok("run", str(folder / "spec.toml"), "--out", str(folder / "out"))
    return folder / "out", imported.stdout


def expected(tasks: dict[str, tuple[int, int]]) -> tuple[float, float]:
    """statsmodels' Wilson at the effective n, from the orders themselves (1: no verdict)."""
    y = np.array([float(j < m) for p, m in tasks.values() for j in range(2 * p)])
    groups = np.array([t for t, (p, _) in tasks.items() for _ in range(2 * p)])
    return _statsmodels_interval(y, groups)


def test_null_winners_give_the_no_verdict_share_with_its_interval(tmp_path: Path) -> None:
    log = write(tmp_path / "log.jsonl", log_lines(TASKS, "invalid JSON: \x1b[31mred"))
    out, said = audited(tmp_path, log)
    assert "28 recorded verdicts (7 with winner null: no verdict)" in said
    report = json.loads(cli_ok("report", str(out), "--format", "json").stdout)
    verdicts = report["verdicts"]
    assert (verdicts["no_verdict_orders"], verdicts["orders"]) == (7, 28)
    low, high = expected(TASKS)
    assert verdicts["no_verdict_rate_ci"] == pytest.approx([low, high], rel=1e-9)
    # by hand: 7/28 bunched in two of five tasks, so wider than Wilson over 28 orders (12.7–43.4%)
    assert low < 0.127 and high > 0.434
    assert verdicts["pairs_without_verdict"] == 4  # t1-0, t1-1, t2-0 (both orders), t5-0 (AB)
    text = cli_ok("report", str(out)).stdout
    assert f"25.0% of orders (7/28; 95% CI [{low * 100:.1f}, {high * 100:.1f}]" in text
    # the verdicts came from the log: no judge was called, nothing was retried
    for fmt in ("table", "md", "html"):
        shown = cli_ok("report", str(out), "--format", fmt).stdout
        assert "no verdict (verdicts the log gave as null or unparsable): 25.0%" in shown, fmt
        assert "7/28 recorded verdicts null or unparsable" in shown, fmt
        assert "after retries" not in shown and "7/28 calls" not in shown, fmt

    db = sqlite3.connect(out / "audit.db")
    # the swap rule of a live judge: an order without a verdict is a tie and agrees with nothing
    pairs = {
        row[0]: row[1:]
        for row in db.execute(
            "SELECT source_id, pref_ab, pref_ba, judge_pref, consistent FROM audit_pairs"
        )
    }
    assert pairs["t1-1"] == ("tie", "tie", "tie", 0)  # both orders null
    assert pairs["t5-0"] == ("tie", "A", "tie", 0)  # AB null, BA picked A
    assert pairs["t3-0"] == ("A", "A", "A", 1)
    logs = db.execute(
        "SELECT raw_output, parsed_json, parse_error FROM judge_logs WHERE parse_error IS NOT NULL"
    ).fetchall()
    db.close()
    assert len(logs) == 7
    raw, parsed, error = logs[0]
    assert parsed is None and error == "invalid JSON: \x1b[31mred"
    assert raw.startswith("I think A is better ") and KEY not in raw
    assert KEY not in (tmp_path / "pairs.jsonl").read_text()
    # printed with its control characters shown, never sent to the terminal
    shown = cli_ok("show", str(out), "t1-0").stdout
    assert "PARSE ERROR: invalid JSON: �[31mred" in shown and "\x1b" not in shown
    assert "(not recorded: the log held neither the judge's text nor a verdict)" in shown


def test_the_trend_shows_a_days_no_verdict_share_and_a_judge_outage(tmp_path: Path) -> None:
    """Two days: one with some null winners, one where the judge never answered (every winner
    null), which is imported and audited rather than refused."""
    days = tmp_path / "logs"
    days.mkdir()
    write(days / "2026-11-03.jsonl", log_lines(TASKS))
    outage = {task: (pairs, 2 * pairs) for task, (pairs, _) in TASKS.items()}
    write(days / "2026-11-04.jsonl", log_lines(outage, "upstream returned 503"))
    trend = json.loads(
        cli_ok("trend", str(days), "--work", str(tmp_path / "runs"), "--format", "json").stdout
    )
    first, second = trend["periods"]
    low, high = expected(TASKS)
    assert first["no_verdict"]["rate"] == pytest.approx(7 / 28)
    assert [first["no_verdict"]["ci_low"], first["no_verdict"]["ci_high"]] == pytest.approx(
        [low, high], rel=1e-9
    )
    # every order alike (no verdict), so no spread between tasks: the design effect is 1
    low, high = proportion_confint(28, 28, method="wilson")
    assert (second["no_verdict"]["no_verdict_orders"], second["no_verdict"]["orders"]) == (28, 28)
    assert [second["no_verdict"]["ci_low"], second["no_verdict"]["ci_high"]] == pytest.approx(
        [low, high], rel=1e-9
    )
    assert second.get("pairs_without_verdict", 0) == 0  # every pair was judged, none left out
    # nothing judged: no misselection figure, not a 0% over all-tie pairs with an interval
    assert second["misselection"]["rate"] is None and second["misselection"]["ci_low"] is None
    assert second["misselection"]["not_measured"].startswith("not measured")
    assert all(b["rate"] is None for b in second["buckets"])
    # nor a consistency: every order a tie agrees with nothing (a review: it read 0.0% [0.0, 21.5])
    consistency = second["position_consistency"]
    assert consistency["rate"] is None and consistency["ci_low"] is None
    assert consistency["not_measured"].startswith("not measured")
    assert first["position_consistency"]["rate"] is not None
    rows = list(csv.DictReader(io.StringIO(cli_ok(
        "trend", str(days), "--work", str(tmp_path / "runs"), "--format", "csv").stdout)))  # fmt: skip
    for metric in ("position consistency", "tie-aware misselection", "misselection"):
        row = next(r for r in rows if r["period"] == "2026-11-04" and r["metric"] == metric)
        assert row["rate"] == "" and row["no_interval"].startswith("not measured"), row
    html = cli_ok("trend", str(days), "--work", str(tmp_path / "runs"), "--format", "html").stdout
    assert "2026-11-04: not measured: the judge gave no verdict on any order" in html
    assert first["misselection"]["rate"] is not None
    table = cli_ok("trend", str(days), "--work", str(tmp_path / "runs")).stdout
    assert f"100.0% [{low * 100:.1f}, {high * 100:.1f}]" in table
    outage_row = next(line for line in table.splitlines() if line.startswith("2026-11-04"))
    # misselection, near, consistent and consistent where an order named a side; and the user's
    # satisfied-but-failed, which a log without satisfied_a/_b never measures (any day)
    assert outage_row.split()[1:3] == ["not", "measured"], outage_row
    assert "0.0% [0.0" not in outage_row and outage_row.count("not measured") == 5, outage_row


def test_a_judge_outage_s_log_is_audited_and_says_nothing_was_measured(tmp_path: Path) -> None:
    (tmp_path / "ok").mkdir()
    (tmp_path / "down").mkdir()
    before, _ = audited(tmp_path / "ok", write(tmp_path / "ok.jsonl", log_lines(TASKS)))
    outage = {task: (pairs, 2 * pairs) for task, (pairs, _) in TASKS.items()}
    down = tmp_path / "down"
    said = cli_ok("import", "recorded-jsonl", str(write(tmp_path / "down.jsonl",
                  log_lines(outage))), "--out", str(down / "pairs.jsonl")).stdout  # fmt: skip
    (down / "spec.toml").write_text(SPEC)
    ran = cli_ok("run", str(down / "spec.toml"), "--out", str(down / "out"))
    after = down / "out"
    assert "28 recorded verdicts (28 with winner null: no verdict)" in said
    # the run's close names the log, not a judge model no recorded run calls
    assert "warning: every recorded verdict was null or unparsable (28/28)" in ran.stderr
    assert "[judge] model" not in ran.stderr
    text = cli_ok("report", str(after)).stdout
    assert "misselection not measured (the judge gave no verdict on any of 28 orders)" in text
    # a run that measured nothing is no side of a comparison (before: B's outage was a rise in
    # misselection's 0% and A's outage an INCONCLUSIVE gate, exit 5, against a 0% baseline)
    for args, side in (((before, after), "B"), ((after, before), "A")):
        for gate in ([], ["--fail-on-rise"]):
            refused = cli("compare", *map(str, args), *gate)
            assert refused.returncode == 2 and not refused.stdout, refused
            line = refused.stderr.strip()
            assert line.count("\n") == 0 and f"run {side} ({after}#" in line, line
            # the recorded wording of the run's close: no judge model was called
            assert (
                "measured nothing: every recorded verdict was null or unparsable (28/28): "
                "nothing was judged" in line
            ), line
            assert "check the log's winner fields" in line and "[judge] model" not in line
            assert "re-judge" not in line and f"judgeaudit report {after}" in line


def test_judges_ranks_a_judge_that_never_answered_last_as_not_measured(tmp_path: Path) -> None:
    """A review: `judges` ranked an outage's all-tie 0% as the best judge, on the frontier, and
    gated the judge that answered against it."""
    (tmp_path / "ok").mkdir()
    (tmp_path / "down").mkdir()
    good, _ = audited(tmp_path / "ok", write(tmp_path / "ok.jsonl", log_lines(TASKS)))
    outage = {task: (pairs, 2 * pairs) for task, (pairs, _) in TASKS.items()}
    down, _ = audited(tmp_path / "down", write(tmp_path / "down.jsonl", log_lines(outage)))
    board = json.loads(cli_ok("judges", str(down), str(good), "--format", "json").stdout)
    first, last = board["judges"]
    assert first["out"] == str(good) and first["measured"] and first["frontier"]
    assert first["vs_best"] is None and first["misselection"]["rate"] is not None
    assert last["out"] == str(down) and not last["measured"] and not last["frontier"]
    assert last["rank"] == 2 and last["vs_best"] is None
    assert last["misselection"]["rate"] is None and last["not_measured"].startswith("not measured")
    table = cli_ok("judges", str(down), str(good)).stdout.splitlines()
    row = next(line for line in table if line.startswith("2 "))
    assert "not measured" in row and " *" not in row and "0.0% [" not in row.split("100.0%")[0]
    assert table[1].startswith("1 ") and "*" in table[1] and "best" in table[1]


@pytest.mark.parametrize(
    ("line", "field", "expected"),
    [
        ({"winner": "A", "parse_error": "bad JSON"}, "parse_error", 'given with winner "A"'),
        ({"winner": None, "score_a": 3}, "score_a", "given with winner null"),
        ({"winner": None, "parse_error": 7}, "parse_error", "must be a non-empty string"),
    ],
)
def test_a_bad_no_verdict_line_is_refused_at_its_line_by_both_paths(
    tmp_path: Path, line: dict[str, Any], field: str, expected: str
) -> None:
    lines = log_lines(TASKS)
    lines.insert(4, {"type": "verdict", "pair_id": "t1-0", "order": "AB", **line})
    log = write(tmp_path / "log.jsonl", lines)
    out = tmp_path / "out"
    out.mkdir()
    done = cli("import", "recorded-jsonl", str(log), "--out", str(out / "pairs.jsonl"))
    message = done.stderr.strip()
    assert done.returncode == 2 and "\n" not in message, done
    assert message.startswith(f"judgeaudit: {log}:5: {field}: {expected}"), message
    with pytest.raises(RolloutError) as exact:
        import_recorded([log], tmp_path / "exact" / "pairs.jsonl", exact=True)
    assert message.endswith(str(exact.value))
    assert list(out.iterdir()) == []


def test_winners_that_contradict_their_scores_are_kept_and_named_at_import(
    tmp_path: Path,
) -> None:
    lines = log_lines({"t1": (14, 0)})  # 14 pairs, 28 verdicts picking A at 4 vs 2
    flipped = [i for i, line in enumerate(lines) if line["type"] == "verdict"][:12]
    for i in flipped:
        lines[i] |= {"score_a": 1, "score_b": 4.5}  # picks A, scores B higher
    log = write(tmp_path / "log.jsonl", lines)
    done = cli_ok("import", "recorded-jsonl", str(log), "--out", str(tmp_path / "pairs.jsonl"))
    said = done.stderr.splitlines()
    assert said[0] == (
        "12 verdict(s) whose winner contradicts its own scores, kept as recorded (the winner was "
        "the reward signal):"
    )
    assert said[1:11] == [
        f"  {log}:{i + 1}: winner A but score_a 1 < score_b 4.5" for i in flipped[:10]
    ]
    assert said[11] == "  ... and 2 more"
    (tmp_path / "spec.toml").write_text(SPEC)
    cli_ok("run", str(tmp_path / "spec.toml"), "--out", str(tmp_path / "out"))
    report = json.loads(cli_ok("report", str(tmp_path / "out"), "--format", "json").stdout)
    assert report["misselected"] == 0  # the winner (A, the side that succeeded) was kept


def test_an_openai_jsonl_verdict_line_may_say_no_verdict_too(tmp_path: Path) -> None:
    """The rule is the one owner's (verdict_rules): an ``openai-jsonl`` verdict line takes
    ``"winner": null`` and ``parse_error`` as a ``recorded-jsonl`` one does."""
    example = (
        Path(__file__).resolve().parents[2] / "examples" / "rollouts" / "openai-rollouts.jsonl"
    )
    lines = [json.loads(line) for line in example.read_text(encoding="utf-8").splitlines()]
    verdict = next(line for line in lines if line.get("type") == "verdict")
    for key in ("score_a", "score_b"):
        verdict.pop(key, None)
    verdict |= {"winner": None, "parse_error": "no JSON object found"}
    log = write(tmp_path / "rollouts.jsonl", lines)
    cli_ok("import", "openai-jsonl", str(log), "--out", str(tmp_path / "pairs.jsonl"))
    (tmp_path / "spec.toml").write_text(SPEC)
    cli_ok("run", str(tmp_path / "spec.toml"), "--out", str(tmp_path / "out"))
    db = sqlite3.connect(tmp_path / "out" / "audit.db")
    stored = db.execute(
        "SELECT parse_error, parsed_json FROM judge_logs WHERE parse_error IS NOT NULL"
    ).fetchall()
    db.close()
    assert stored == [("no JSON object found", None)]


def test_a_gate_failed_on_missing_verdicts_says_so_on_its_verdict_line(tmp_path: Path) -> None:
    """Run B's judge gave no verdict on half the orders: the gate exits 3 whatever the rows say,
    and its verdict line (the app's too) says it fails, not a bare NOT WORSE / INCONCLUSIVE."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    whole = {task: (pairs, 0) for task, (pairs, _) in TASKS.items()}
    half = {task: (pairs, pairs) for task, (pairs, _) in TASKS.items()}
    before, _ = audited(tmp_path / "a", write(tmp_path / "a.jsonl", log_lines(whole)))
    after, _ = audited(tmp_path / "b", write(tmp_path / "b.jsonl", log_lines(half)))
    gated = cli("compare", str(before), str(after), "--fail-on-rise")
    assert gated.returncode == 3, gated.stdout + gated.stderr
    line = next(x for x in gated.stdout.splitlines() if x.startswith("gate ("))
    assert line.endswith(
        "on the verdicts given; the gate FAILS: run B's judge often gave no verdict"
    ), line
    assert "the judge of run B often gave no verdict" in gated.stderr
    ungated = cli_ok("compare", str(before), str(after))
    assert line in ungated.stdout.splitlines()

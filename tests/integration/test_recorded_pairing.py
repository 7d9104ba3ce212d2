"""Recorded-verdict runs in `compare`, its gate and `judges`, as a new user's trial found them.

Two days of a production log (no transcripts, the common shape) were gated as "the same stored
conversations": their empty transcripts digest alike, and the pairs whose success labels
differed were left out while the rest were gated. The same conversations are now the same
pairs with the same labels and log pair ids; two days are unpaired, and the gate refuses them
naming why and what to use. And the judge and prompt of recorded verdicts are the ones the log
names, in compare's changes and judges' columns, never the built-in template's hash.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from tests.cli_helpers import cli, recorded_run

ROLLOUTS = Path(__file__).resolve().parents[2] / "examples" / "rollouts"
AGENTS = (("agent-a", "agent-b"), ("agent-a", "agent-c"), ("agent-b", "agent-c"))


def _day_log(prefix: str, judge: str, prompt: str, labels_seed: int, verdicts_seed: int) -> str:
    """A day of a production log without transcripts: 12 tasks, three agent pairs each."""
    labels, verdicts = random.Random(labels_seed), random.Random(verdicts_seed)
    lines: list[dict[str, object]] = []
    for task in range(12):
        success = {name: labels.randint(0, 1) for name in ("agent-a", "agent-b", "agent-c")}
        for a, b in AGENTS:
            pair = f"{prefix}t{task}/{a}~{b}"
            lines.append(
                {"pair_id": pair, "task_id": f"task-{task}", "task": f"Task {task}",
                 "agent_a": a, "agent_b": b, "success_a": success[a], "success_b": success[b]}
            )  # fmt: skip
            for order in ("AB", "BA"):
                winner = verdicts.choice("AB")
                lines.append(
                    {"pair_id": pair, "order": order, "winner": winner, "judge_model": judge,
                     "prompt_hash": prompt}
                )  # fmt: skip
    return "".join(json.dumps(line) + "\n" for line in lines)


def _recorded(folder: Path, log_text: str, period: str | None = None) -> Path:
    return recorded_run(folder, log_text, period=period)


def test_two_days_of_a_log_without_transcripts_are_not_gated_as_the_same_conversations(
    tmp_path: Path,
) -> None:
    # the demo's days: pair ids carry the day; a user's own: the same ids every day
    dated_1 = _recorded(tmp_path / "dated-1", _day_log("2026-11-01/", "rm-judge-1", "ph1", 1, 1))
    dated_2 = _recorded(tmp_path / "dated-2", _day_log("2026-11-02/", "rm-judge-1", "ph1", 1, 2))
    same_ids = _recorded(tmp_path / "same-ids", _day_log("2026-11-01/", "rm-judge-1", "ph1", 7, 2))
    for other, why in (
        (dated_2, "of the 36 pairs both hold, the logs' pair ids differ in 36"),
        (same_ids, "of the 36 pairs both hold, success labels differ in "),
    ):
        shown = cli("compare", str(dated_1), str(other))
        assert shown.returncode == 0, shown.stderr
        assert f"unpaired: the runs judged different conversations: {why}" in shown.stdout
        assert "\npaired: " not in shown.stdout
        gated = cli("compare", str(dated_1), str(other), "--fail-on-rise")
        assert gated.returncode == 2, gated.stdout + gated.stderr
        assert gated.stdout == ""
        refusal = gated.stderr.strip()
        assert len(refusal.splitlines()) == 1
        assert f"are not paired (the runs judged different conversations: {why}" in refusal
        assert "judgeaudit trend DIR compares periods unpaired" in refusal
        board = cli("judges", str(dated_1), str(other))
        assert board.returncode != 0 and board.stdout == ""
        assert "fewer than two runs judged the same conversations" in board.stderr
        assert why in board.stderr and "judgeaudit trend" in board.stderr


def test_two_days_with_the_same_pair_ids_and_labels_are_still_two_days(tmp_path: Path) -> None:
    """A review: a log that restarts its pair ids each day on a fixed task set (a daily canary)
    has the same ids and labels every day, so only the verdicts differ; the days' periods tell
    them apart, and the gate must not call them the same conversations."""
    log = _day_log("", "rm-judge-1", "ph1", 5, 1)
    first = _recorded(tmp_path / "d1", log, period="2026-11-01")
    second = _recorded(tmp_path / "d2", log.replace('"winner": "A"', '"winner": "B"'), "2026-11-02")
    shown = cli("compare", str(first), str(second))
    assert shown.returncode == 0, shown.stderr
    assert "unpaired: the runs judged different conversations: they are logs of different " in (
        shown.stdout
    )
    gated = cli("compare", str(first), str(second), "--fail-on-rise")
    assert gated.returncode == 2 and "are not paired" in gated.stderr, gated.stdout


def test_two_judges_recorded_on_the_same_logged_pairs_pair_and_are_named_as_logged(
    tmp_path: Path,
) -> None:
    one = _recorded(tmp_path / "one", _day_log("", "rm-judge-1", "ph1", 3, 1))
    two = _recorded(tmp_path / "two", _day_log("", "rm-judge-2", "ph2", 3, 2))
    manifest = json.loads((one / "manifest.json").read_text(encoding="utf-8"))
    # the built-in judge template was never rendered for these verdicts
    assert manifest["prompts"]["hashes"]["judge"] is None
    assert manifest["prompts"]["templates"]["judge"] is None
    shown = cli("compare", str(one), str(two))
    assert shown.returncode == 0, shown.stderr
    assert "\npaired: both judged the same stored conversations" in shown.stdout
    assert "  models.judge.model: 'rm-judge-1' -> 'rm-judge-2'\n" in shown.stdout
    assert "  prompts.hashes.judge: 'ph1' -> 'ph2'\n" in shown.stdout
    assert "judge model and prompt hash as the recorded verdicts name them" in shown.stdout
    gated = cli("compare", str(one), str(two), "--fail-on-rise")
    assert gated.returncode in (0, 3, 5), gated.stderr
    board = cli("judges", str(one), str(two), "--format", "json")
    assert board.returncode == 0, board.stderr
    rows = {r["run_id"].split("-")[0]: r for r in json.loads(board.stdout)["judges"]}
    assert {k: (r["judge_model"], r["prompt_hash"], r["recorded"]) for k, r in rows.items()} == {
        "one": ("rm-judge-1", "ph1", True),
        "two": ("rm-judge-2", "ph2", True),
    }
    table = cli("judges", str(one), str(two), env={"COLUMNS": "250"})
    assert "recorded: rm-judge-1" in table.stdout and "recorded: rm-judge-2" in table.stdout
    assert "c90a22eb" not in table.stdout


def test_a_rejudge_of_a_recorded_run_still_pairs_and_names_both_judges(tmp_path: Path) -> None:
    source = _recorded(tmp_path / "rec", (ROLLOUTS / "recorded-verdicts.jsonl").read_text())
    again = tmp_path / "again"
    done = cli(
        "rejudge", str(source), "--judge-model", "judge-default", "--judge-endpoint", "embedded",
        "--out", str(again),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    shown = cli("compare", str(source), str(again), "--fail-on-rise")
    assert shown.returncode != 2, shown.stderr
    assert "re-judges" in shown.stdout and "\npaired: " in shown.stdout
    assert "  models.judge.model: 'rm-judge-2026' -> 'judge-default'\n" in shown.stdout
    assert "  prompts.hashes.judge: 'f00d' -> 'c90a22eb5c5a1dc2'\n" in shown.stdout
    board = cli("judges", str(source), str(again), "--format", "json")
    assert board.returncode == 0, board.stderr
    found = {(r["judge_model"], r["prompt_hash"]) for r in json.loads(board.stdout)["judges"]}
    assert found == {("rm-judge-2026", "f00d"), ("judge-default", "c90a22eb5c5a1dc2")}

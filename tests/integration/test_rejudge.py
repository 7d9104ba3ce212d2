"""Re-judging stored trajectories: only judge calls, the source's task set and agents, refusals
of specs that contradict it, and the paired compare it enables."""

from __future__ import annotations

import json
import shlex
import shutil
import sqlite3
from pathlib import Path

import pytest

from tests.audit_helpers import write_spec, write_tasks
from tests.cli_helpers import cli

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "prompts"


def calls_by_role(out: Path) -> dict[str, int]:
    db = sqlite3.connect(out / "audit.db")
    try:
        return dict(db.execute("SELECT role, COUNT(*) FROM calls GROUP BY role").fetchall())
    finally:
        db.close()


def rejudge_spec(folder: Path, body: str = "", name: str = "again.toml") -> Path:
    path = folder / name
    path.write_text(
        '[run]\nname = "again"\ntrajectories_from = "base"\n'
        + body
        + '\n[endpoints.sim]\nbase_url = "embedded"\n'
        '[judge]\nmodel = "judge-default"\nendpoint = "sim"\n',
        encoding="utf-8",
    )
    return path


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("rejudge")
    write_tasks(folder / "tasks.jsonl", 12)
    shutil.copy(FIXTURES / "judge_rubric.toml", folder / "rubric.toml")
    spec = write_spec(folder / "spec.toml", tasks="tasks.jsonl")
    spec.write_text(
        spec.read_text().replace(
            'model = "judge-default"', 'model = "judge-default"\nprompt = "rubric.toml"'
        )
    )
    done = cli("run", str(spec), "--out", str(folder / "base"), "--events", "jsonl")
    assert done.returncode == 0, done.stderr
    return folder


def test_same_judge_rejudge_calls_only_the_judge_and_reproduces_every_verdict(
    base: Path, tmp_path: Path
) -> None:
    spec = rejudge_spec(base, name="same.toml")
    out = tmp_path / "same"
    done = cli("run", str(spec), "--out", str(out), "--events", "jsonl")
    assert done.returncode == 0, done.stderr
    assert set(calls_by_role(out)) == {"judge"}, "no agent or user-simulator call"
    assert calls_by_role(base / "base")["judge"] == calls_by_role(out)["judge"]
    manifest = json.loads((out / "manifest.json").read_text())
    source = json.loads((base / "base" / "manifest.json").read_text())
    assert manifest["trajectories"]["source_run_id"] == source["run_id"]
    assert manifest["trajectories"]["root"] == source["trajectories"]["root"]
    assert manifest["models"]["agents"] == source["models"]["agents"]
    assert manifest["prompts"]["hashes"]["judge"] == source["prompts"]["hashes"]["judge"], (
        "the source's own judge template is kept when the spec names none"
    )
    compared = cli("compare", str(base / "base"), str(out), "--fail-on-rise", "--format", "json")
    assert compared.returncode == 5, "too few pairs to rule out a 2-point rise: inconclusive"
    assert json.loads(compared.stdout)["overall"]["verdict"] == "too few pairs to tell"
    compared = cli(
        "compare",
        str(base / "base"),
        str(out),
        "--fail-on-rise",
        "--format",
        "json",
        "--margin",
        "20",
    )
    assert compared.returncode == 0, compared.stderr
    result = json.loads(compared.stdout)
    assert result["gate"]["verdict"] == "not worse"
    assert result["paired"] and result["pairing"]["only_in_a"] == 0
    for row in [*result["buckets"], result["overall"]]:
        assert row["paired"]["flipped_to_misselected"] == 0
        assert row["paired"]["flipped_to_correct"] == 0


def test_cli_rejudge_with_another_judge_is_paired_and_lists_flipped_pairs(
    base: Path, tmp_path: Path
) -> None:
    out = tmp_path / "strict"
    done = cli(
        "rejudge",
        str(base / "base"),
        "--judge-model",
        "judge-strict",
        "--out",
        str(out),
        "--events",
        "jsonl",
    )
    assert done.returncode == 0, done.stderr
    assert "judgeaudit compare" in done.stderr  # stdout holds the JSON lines alone
    assert set(calls_by_role(out)) == {"judge"}
    result = json.loads(cli("compare", str(base / "base"), str(out), "--format", "json").stdout)
    assert result["paired"] and "re-judges" in result["pairing"]["basis"]
    assert result["method"]["test"].startswith("exact task-level sign-flip")
    overall = result["overall"]["paired"]
    flipped = overall["flipped_to_misselected_ids"] + overall["flipped_to_correct_ids"]
    assert flipped, "a stricter judge changes some verdicts on these conversations"
    assert len(flipped) == overall["flipped_to_misselected"] + overall["flipped_to_correct"]
    for key in flipped:
        shown = cli("show", str(out), key)
        assert shown.returncode == 0, shown.stderr
    text = cli("compare", str(base / "base"), str(out)).stdout
    assert "paired:" in text and "decided by: exact task-level sign-flip" in text
    assert "models.judge.model: 'judge-default' -> 'judge-strict'" in text


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("trials = 2\n", "run.trials: 2 contradicts the source run"),
        ("max_turns = 3\n", "run.max_turns: 3 contradicts the source run"),
        ('tasks = "builtin:retail"\n', "run.tasks: 'builtin:retail' is not the task set"),
        ('pairs = [["ace", "pro"]]\n', "run.pairs: contradict"),
    ],
)
def test_specs_that_contradict_the_source_are_refused_and_write_nothing(
    base: Path, tmp_path: Path, body: str, expected: str
) -> None:
    spec = rejudge_spec(base, body, name="bad.toml")
    done = cli("run", str(spec), "--out", str(tmp_path / "out"))
    assert done.returncode == 2 and expected in done.stderr, done.stderr
    assert done.stderr.count("\n") == 1 and not (tmp_path / "out").exists()


def test_agents_or_user_simulator_that_differ_from_the_source_are_refused(
    base: Path, tmp_path: Path
) -> None:
    spec = rejudge_spec(base, name="agents.toml")
    spec.write_text(
        spec.read_text()
        + '[[agents]]\nname = "ace"\nmodel = "agent-ace"\nendpoint = "sim"\n'
        + '[[agents]]\nname = "weak"\nmodel = "agent-fair"\nendpoint = "sim"\n'
    )
    done = cli("run", str(spec), "--out", str(tmp_path / "out"))
    assert done.returncode == 2 and "agents: contradict the source run" in done.stderr
    spec = rejudge_spec(base, name="user.toml")
    spec.write_text(
        spec.read_text() + '[user_simulator]\nmodel = "user-skeptic"\nendpoint = "sim"\n'
    )
    done = cli("run", str(spec), "--out", str(tmp_path / "out"))
    assert done.returncode == 2 and "user_simulator.model: 'user-skeptic'" in done.stderr
    assert not (tmp_path / "out").exists()


def test_missing_unknown_or_unfinished_sources_are_refused(base: Path, tmp_path: Path) -> None:
    missing = cli("rejudge", str(tmp_path / "nowhere"), "--out", str(tmp_path / "o"))
    assert missing.returncode == 2 and "holds no audit.db" in missing.stderr
    unknown = cli("rejudge", str(base / "base"), "--run", "nope", "--out", str(tmp_path / "o"))
    assert unknown.returncode == 2 and "run 'nope' is not in" in unknown.stderr
    shutil.copytree(base / "base", tmp_path / "half")
    db = sqlite3.connect(tmp_path / "half" / "audit.db")
    with db:
        db.execute("UPDATE runs SET status = 'incomplete'")
    db.close()
    half = cli("rejudge", str(tmp_path / "half"), "--out", str(tmp_path / "o"))
    assert half.returncode == 2 and "is incomplete; finish it first" in half.stderr
    assert not (tmp_path / "o").exists()


def test_rejudge_with_a_success_check_labels_every_copied_trajectory(
    base: Path, tmp_path: Path
) -> None:
    spec = rejudge_spec(base, name="check.toml")
    spec.write_text(
        spec.read_text() + '[success_check]\nmodel = "judge-strict"\nendpoint = "sim"\n'
    )
    out = tmp_path / "check"
    assert cli("run", str(spec), "--out", str(out), "--events", "jsonl").returncode == 0
    roles = calls_by_role(out)
    db = sqlite3.connect(out / "audit.db")
    trajectories = db.execute("SELECT COUNT(*) FROM trajectories").fetchone()[0]
    labelled = db.execute(
        "SELECT COUNT(*) FROM trajectories WHERE llm_success IS NOT NULL"
    ).fetchone()[0]
    assert set(roles) == {"judge", "success_check"} and roles["success_check"] == trajectories
    assert labelled == trajectories
    flagged, disagreeing = db.execute(
        "SELECT SUM(needs_review), SUM(llm_success != success) FROM trajectories"
    ).fetchone()
    assert flagged == disagreeing, "a disagreeing candidate label is flagged for review"
    again = cli("run", str(spec), "--out", str(out), "--events", "jsonl")
    assert again.returncode == 0 and calls_by_role(out) == roles, "a rerun redoes nothing"


def test_rejudge_into_the_source_directory_adds_a_run_that_compares_paired(
    base: Path, tmp_path: Path
) -> None:
    shutil.copytree(base / "base", tmp_path / "both")
    out = tmp_path / "both"
    done = cli(
        "rejudge",
        str(out),
        "--judge-model",
        "judge-strict",
        "--out",
        str(out),
        "--events",
        "jsonl",
    )
    assert done.returncode == 0, done.stderr
    assert "audit_pairs.csv, judge_logs.jsonl and report.html now show" in done.stderr
    assert all(json.loads(line) for line in done.stdout.splitlines())  # JSON lines only
    runs = [
        r[0]
        for r in sqlite3.connect(out / "audit.db").execute(
            "SELECT run_id FROM runs ORDER BY created_at, run_id"
        )
    ]
    assert len(runs) == 2
    again = cli(
        "rejudge",
        str(out),
        "--judge-model",
        "judge-strict",
        "--out",
        str(out),
        "--events",
        "jsonl",
    )
    assert again.returncode == 0, again.stderr
    count = sqlite3.connect(out / "audit.db").execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    assert count == 2, "the same re-judge again resumes its run instead of adding a third"
    result = json.loads(
        cli("compare", str(out), "--run-a", runs[0], "--run-b", runs[1], "--format", "json").stdout
    )
    assert result["paired"]


def test_an_imported_judge_only_run_can_be_rejudged_too(tmp_path: Path) -> None:
    rows = [
        {
            "task_id": f"t{i}",
            "task": "Refund item SKU-101 in order O-1001.",
            "agent_a": "x",
            "agent_b": "y",
            "trajectory_a": "user: I'd like a refund for item SKU-101 in order O-1001.\n"
            "agent: The refund for item SKU-101 in order O-1001 has been issued: $12.00.",
            "trajectory_b": "user: I'd like a refund for item SKU-101 in order O-1001.\n"
            "agent: All done: your request has been processed!",
            "success_a": 1,
            "success_b": i % 2,
            "reward_a": 0.9,  # graded: an external gap on 0/1 rewards is refused
            "reward_b": 0.1 + 0.8 * (i % 2),
        }
        for i in range(6)
    ]
    (tmp_path / "pairs.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    (tmp_path / "spec.toml").write_text(
        '[run]\nname = "imp"\nimported = "pairs.jsonl"\n[gap]\nsource = "external"\n'
        '[endpoints.sim]\nbase_url = "embedded"\n[judge]\nmodel = "judge-default"\nendpoint = "sim"\n'
    )
    base = tmp_path / "base"
    assert (
        cli("run", str(tmp_path / "spec.toml"), "--out", str(base), "--events", "jsonl").returncode
        == 0
    )
    out = tmp_path / "strict"
    done = cli(
        "rejudge",
        str(base),
        "--judge-model",
        "judge-strict",
        "--out",
        str(out),
        "--events",
        "jsonl",
    )
    assert done.returncode == 0, done.stderr
    assert set(calls_by_role(out)) == {"judge"}
    result = json.loads(cli("compare", str(base), str(out), "--format", "json").stdout)
    assert result["paired"] and result["gap_source"] == "external"
    assert result["pairing"]["matched"] == 6 and result["pairing"]["decisive"] == 3
    report = json.loads(cli("report", str(out), "--format", "json").stdout)
    assert [b["pairs"] for b in report["buckets"]] == [3, 0, 0, 3], "rewards came along"


def test_a_recorded_verdict_run_is_rejudged_by_a_live_judge_and_compares_paired(
    tmp_path: Path,
) -> None:
    examples = Path(__file__).resolve().parents[2] / "examples" / "rollouts"
    pairs = tmp_path / "prod-pairs.jsonl"
    imported = cli(
        "import", "recorded-jsonl", str(examples / "recorded-verdicts.jsonl"), "--out", str(pairs)
    )
    assert imported.returncode == 0, imported.stderr
    (tmp_path / "prod.toml").write_text(
        '[run]\nname = "prod"\nimported = "prod-pairs.jsonl"\n[judge]\nsource = "recorded"\n'
    )
    prod = tmp_path / "prod"
    assert cli("run", str(tmp_path / "prod.toml"), "--out", str(prod)).returncode == 0
    out = tmp_path / "live"
    bare = cli("rejudge", str(prod), "--judge-model", "judge-strict", "--out", str(out))
    assert bare.returncode == 2 and "audited recorded verdicts" in bare.stderr
    assert "--judge-endpoint embedded" in bare.stderr and not out.exists()
    done = cli(
        "rejudge",
        str(prod),
        "--judge-model",
        "judge-strict",
        "--judge-endpoint",
        "embedded",
        "--out",
        str(out),
        "--events",
        "jsonl",
    )
    assert done.returncode == 0, done.stderr
    assert set(calls_by_role(out)) == {"judge"}
    assert calls_by_role(prod) == {}, "the recorded run itself made no call"
    result = json.loads(cli("compare", str(prod), str(out), "--format", "json").stdout)
    assert result["paired"] and result["pairing"]["matched"] == 40
    assert result["pairing"]["only_in_a"] == 0 and result["verdicts"]["failed"] == []
    # Each re-judged pair keeps its log's own id (audit_pairs.source_id), as the source has it.
    query = "SELECT task_id, trial, agent_a, agent_b, source_id FROM audit_pairs ORDER BY 1, 2, 3"
    kept = [_rows(run, query) for run in (prod, out)]
    assert kept[0] == kept[1] and all(row[-1] for row in kept[0]) and len(kept[0]) == 40


def test_recorded_pairs_without_trajectories_are_not_rejudged_on_empty_transcripts(
    tmp_path: Path,
) -> None:
    """Recorded verdicts logged without trajectories (as `demo --monitor` writes them) were
    re-judged on two empty transcripts: every verdict a tie, misselection 0%, and a paired
    compare against the recorded judge that looked like a real judge change."""
    examples = Path(__file__).resolve().parents[2] / "examples" / "rollouts"
    bare = tmp_path / "bare.jsonl"
    with bare.open("w", encoding="utf-8") as handle:
        for line in (examples / "recorded-verdicts.jsonl").read_text().splitlines():
            record = json.loads(line)
            record.pop("trajectory_a", None)
            record.pop("trajectory_b", None)
            handle.write(json.dumps(record) + "\n")
    pairs = tmp_path / "prod-pairs.jsonl"
    imported = cli("import", "recorded-jsonl", str(bare), "--out", str(pairs))
    assert imported.returncode == 0, imported.stderr
    (tmp_path / "prod.toml").write_text(
        '[run]\nname = "prod"\nimported = "prod-pairs.jsonl"\n[judge]\nsource = "recorded"\n'
    )
    prod = tmp_path / "prod"
    assert cli("run", str(tmp_path / "prod.toml"), "--out", str(prod)).returncode == 0
    out = tmp_path / "live"
    done = cli(
        "rejudge", str(prod), "--judge-endpoint", "embedded", "--judge-model", "judge-default",
        "--out", str(out),
    )  # fmt: skip
    assert done.returncode == 2 and done.stdout == ""
    (line,) = done.stderr.strip().splitlines()
    assert "stores no conversation" in line and "empty transcripts" in line
    assert str(prod) in line and not out.exists()


def test_the_suggested_compare_pastes_as_printed_with_a_space_and_unicode_in_paths(
    base: Path, tmp_path: Path
) -> None:
    """Found by a new user: with a space in a path the suggested `judgeaudit compare …` was
    printed unquoted and could not be pasted. Pasted as printed (split as a shell splits it), it
    runs the comparison of the two runs."""
    source = tmp_path / "my runs é" / "base"
    shutil.copytree(base / "base", source)
    out = tmp_path / "my runs é" / "strict"
    done = cli("rejudge", str(source), "--judge-model", "judge-strict", "--out", str(out))
    assert done.returncode == 0, done.stderr
    # piped, its events are JSON lines on stdout: every stdout line parses, the hint is on stderr
    assert all(json.loads(line) for line in done.stdout.splitlines())
    line = next(x for x in done.stderr.splitlines() if "compare them with: " in x)
    words = shlex.split(line.split("compare them with: ", 1)[1])
    assert words[:4] == ["judgeaudit", "compare", str(source), str(out)], line
    compared = cli(*words[1:], "--format", "json")
    assert compared.returncode == 0, compared.stderr
    assert json.loads(compared.stdout)["paired"]


def _rows(out: Path, query: str) -> list[tuple[object, ...]]:
    db = sqlite3.connect(out / "audit.db")
    try:
        return [tuple(r) for r in db.execute(query)]
    finally:
        db.close()

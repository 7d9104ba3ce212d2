"""A recorded-verdict run writes no ``judge_logs.jsonl`` and no ``audit_pairs.csv`` (its verdicts
are in the user's file and in ``audit.db``, its pairs in ``audit.db`` and the Parquet);
``judgeaudit export files OUT`` writes them on request, with the lines a live run writes,
atomically. Real CLI in child processes, real SQLite files."""

from __future__ import annotations

import csv
import json
import sqlite3
from pathlib import Path

import pytest

from tests.audit_helpers import write_spec, write_tasks
from tests.cli_helpers import cli

ROLLOUTS = Path(__file__).resolve().parents[2] / "examples" / "rollouts"
RECORDED_SPEC = '[run]\nname = "rec"\nimported = "pairs.jsonl"\n[judge]\nsource = "recorded"\n'
LOG_FIELDS = (
    "log_id", "pair_id", "role", "model", "prompt_hash", "raw_output", "created_at", "run_id",
    "order", "attempt", "parse_error",
)  # fmt: skip


def _recorded_run(tmp: Path, out: Path, log: Path = ROLLOUTS / "recorded-verdicts.jsonl") -> str:
    """A recorded run of ``log`` (imported once per ``tmp``) into ``out``; its stderr."""
    pairs = tmp / "pairs.jsonl"
    if not pairs.exists():
        done = cli("import", "recorded-jsonl", str(log), "--out", str(pairs))
        assert done.returncode == 0, done.stderr
        (tmp / "spec.toml").write_text(RECORDED_SPEC, encoding="utf-8")
    done = cli("run", str(tmp / "spec.toml"), "--out", str(out), "--events", "jsonl")
    assert done.returncode == 0, done.stderr
    return done.stderr


@pytest.fixture(scope="module")
def live_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small live audit on the embedded provider (it writes judge_logs.jsonl as it runs)."""
    tmp = tmp_path_factory.mktemp("live")
    tasks = write_tasks(tmp / "tasks.jsonl", 3)
    spec = write_spec(tmp / "spec.toml", tasks=tasks.name)
    done = cli("run", str(spec), "--out", str(tmp / "out"), "--events", "jsonl")
    assert done.returncode == 0, done.stderr
    return tmp / "out"


def test_a_recorded_run_writes_no_judge_log_and_says_which_command_does(tmp_path: Path) -> None:
    out = tmp_path / "out"
    stderr = _recorded_run(tmp_path, out)
    assert not (out / "judge_logs.jsonl").exists()
    assert not (out / "audit_pairs.csv").exists()
    for name in ("audit.db", "audit_pairs.parquet", "manifest.json", "report.html"):
        assert (out / name).is_file(), name
    assert (
        f"{out / 'audit_pairs.csv'}, {out / 'judge_logs.jsonl'}: not written for recorded "
        f"verdicts (audit.db holds them); `judgeaudit export files {out}` writes them"
    ) in stderr, stderr
    done = cli("export", "files", str(out))
    assert done.returncode == 0, done.stderr
    # the CSV: a header and one line per audit_pairs row of the run, in pair order
    with (out / "audit_pairs.csv").open(newline="", encoding="utf-8") as handle:
        table = list(csv.reader(handle))
    db = sqlite3.connect(out / "audit.db")
    stored = db.execute("SELECT * FROM audit_pairs ORDER BY pair_id").fetchall()
    names = [d[0] for d in db.execute("SELECT * FROM audit_pairs LIMIT 0").description]
    db.close()
    assert len(table) == len(stored) + 1 == 41
    assert set(table[0]) <= set(names)
    for cells, row in zip(table[1:], stored, strict=True):
        by_name = dict(zip(names, row, strict=True))
        assert cells == ["" if by_name[c] is None else str(by_name[c]) for c in table[0]]
    lines = (out / "judge_logs.jsonl").read_text(encoding="utf-8").splitlines()
    # Each line is its judge_logs row, read here straight from the database.
    db = sqlite3.connect(out / "audit.db")
    db.row_factory = sqlite3.Row
    rows = db.execute('SELECT * FROM judge_logs ORDER BY pair_id, "order", attempt').fetchall()
    assert len(lines) == len(rows) == 80
    for line, row in zip(lines, rows, strict=True):
        data = json.loads(line)
        assert {k: data[k] for k in LOG_FIELDS} == {k: row[k] for k in LOG_FIELDS}
        assert data["parsed_json"] == json.loads(row["parsed_json"])
    assert str(out / "judge_logs.jsonl") in done.stdout


def test_export_files_writes_what_a_live_run_wrote(live_out: Path) -> None:
    """The same lines; a live run's are in the order its calls finished, export's by pair."""
    written = (live_out / "judge_logs.jsonl").read_text(encoding="utf-8").splitlines()
    pairs = (live_out / "audit_pairs.csv").read_bytes()
    assert written
    (live_out / "judge_logs.jsonl").unlink()
    done = cli("export", "files", str(live_out))
    assert done.returncode == 0, done.stderr
    rebuilt = (live_out / "judge_logs.jsonl").read_text(encoding="utf-8").splitlines()
    assert sorted(rebuilt) == sorted(written)
    keys = [(r["pair_id"], r["order"], r["attempt"]) for r in map(json.loads, rebuilt)]
    assert keys == sorted(keys)
    assert (live_out / "audit_pairs.csv").read_bytes() == pairs


def test_a_recorded_run_after_a_live_one_leaves_no_judge_log_of_the_other_run(
    live_out: Path, tmp_path: Path
) -> None:
    """The derived files describe one run: a recorded run added to an OUT that held a live run's
    judge_logs.jsonl removes it rather than leave the other judge's calls beside its CSV."""
    out = tmp_path / "out"
    _recorded_run(tmp_path, out)
    (out / "judge_logs.jsonl").write_text(
        (live_out / "judge_logs.jsonl").read_text(encoding="utf-8"), encoding="utf-8"
    )
    done = cli("run", str(tmp_path / "spec.toml"), "--out", str(out), "--new-run")
    assert done.returncode == 0, done.stderr
    assert not (out / "judge_logs.jsonl").exists()


def test_a_failed_export_leaves_the_old_files_whole(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _recorded_run(tmp_path, out)
    assert cli("export", "files", str(out)).returncode == 0
    before = (out / "judge_logs.jsonl").read_bytes()
    db = sqlite3.connect(out / "audit.db")
    with db:  # a row the export cannot render, halfway through the file
        db.execute(
            "UPDATE judge_logs SET parsed_json = '{broken' WHERE log_id = (SELECT log_id FROM"
            ' judge_logs ORDER BY pair_id, "order" LIMIT 1 OFFSET 40)'
        )
    db.close()
    done = cli("export", "files", str(out), env={"JUDGEAUDIT_LOG_DIR": str(tmp_path / "logs")})
    assert done.returncode != 0
    assert (out / "judge_logs.jsonl").read_bytes() == before
    assert not [p.name for p in out.iterdir() if p.name.endswith(".tmp")]


def test_export_files_refuses_a_directory_without_an_audit(tmp_path: Path) -> None:
    done = cli("export", "files", str(tmp_path))
    assert done.returncode == 2
    assert "no audit database" in done.stderr and "judgeaudit run SPEC --out" in done.stderr
    assert list(tmp_path.iterdir()) == []  # no empty audit.db made
    out = tmp_path / "out"
    _recorded_run(tmp_path, out)
    done = cli("export", "files", str(out), "--run", "nope")
    assert done.returncode == 2 and "run 'nope' not found" in done.stderr, done.stderr
    assert not (out / "judge_logs.jsonl").exists()


def test_export_files_of_an_older_run_rewrites_every_derived_file_for_it(tmp_path: Path) -> None:
    """``export files --run OLD`` once left the latest run's report.html beside OLD's CSV (a new
    user's finding): every file it writes now shows the run exported."""
    out = tmp_path / "out"
    _recorded_run(tmp_path, out)
    first = json.loads((out / "manifest.json").read_text(encoding="utf-8"))["run_id"]
    done = cli("run", str(tmp_path / "spec.toml"), "--out", str(out), "--new-run")
    assert done.returncode == 0, done.stderr
    latest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))["run_id"]
    assert latest != first and latest in (out / "report.html").read_text(encoding="utf-8")
    done = cli("export", "files", str(out), "--run", first)
    assert done.returncode == 0, done.stderr
    for name in ("report.html", "misselection.svg", "manifest.json"):
        text = (out / name).read_text(encoding="utf-8")
        assert first in text and latest not in text, name
    with (out / "audit_pairs.csv").open(newline="", encoding="utf-8") as handle:
        assert {row["run_id"] for row in csv.DictReader(handle)} == {first}
    assert str(out / "report.html") in done.stdout


def test_files_export_wrote_for_a_run_stay_current_when_it_is_run_again(tmp_path: Path) -> None:
    """Running the same spec again removed the CSV and JSONL the user had asked for with
    ``export files`` (a new user's surprise): while the derived files show that same run they
    are written again; a new run's files still never show another run."""
    out = tmp_path / "out"
    _recorded_run(tmp_path, out)
    assert cli("export", "files", str(out)).returncode == 0
    pairs = (out / "audit_pairs.csv").read_bytes()
    logs = sorted((out / "judge_logs.jsonl").read_text(encoding="utf-8").splitlines())
    (out / "audit_pairs.csv").write_text("stale\n", encoding="utf-8")  # rewritten, not kept

    again = _recorded_run(tmp_path, out)
    assert "not written for recorded verdicts" not in again, again
    assert (out / "audit_pairs.csv").read_bytes() == pairs
    assert sorted((out / "judge_logs.jsonl").read_text(encoding="utf-8").splitlines()) == logs

    (out / "judge_logs.jsonl").unlink()  # one file asked for: only it is kept current
    _recorded_run(tmp_path, out)
    assert (out / "audit_pairs.csv").read_bytes() == pairs
    assert not (out / "judge_logs.jsonl").exists()

    done = cli("run", str(tmp_path / "spec.toml"), "--out", str(out), "--new-run")
    assert done.returncode == 0, done.stderr
    assert not (out / "audit_pairs.csv").exists()
    assert f"{out / 'audit_pairs.csv'}, {out / 'judge_logs.jsonl'}: not written" in done.stderr


def test_a_recorded_run_counts_its_tasks_in_the_manifest_and_the_data_card(
    tmp_path: Path,
) -> None:
    """A recorded run streams its pairs, so no task was known when its manifest was made: the
    manifest and every preference data card said "0 tasks" (a new user's trial)."""
    out = tmp_path / "out"
    _recorded_run(tmp_path, out)
    db = sqlite3.connect(out / "audit.db")
    (tasks,) = db.execute("SELECT COUNT(DISTINCT task_id) FROM audit_pairs").fetchone()
    db.close()
    assert tasks > 1
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["task_set"]["count"] == tasks
    done = cli("export", "preferences", str(out), "--out", str(tmp_path / "prefs.jsonl"))
    assert done.returncode == 0, done.stderr
    card = (tmp_path / "prefs.card.md").read_text(encoding="utf-8")
    assert f", {tasks} tasks." in card


def test_a_log_judged_in_one_order_says_why_position_bias_is_not_shown(tmp_path: Path) -> None:
    """Every pair judged only as AB: the report printed the position-bias heading and nothing
    under it (a new user's trial). The first position is then always the same agent, so its
    wins are not position bias: each format says so in a line."""
    lines = (ROLLOUTS / "recorded-verdicts.jsonl").read_text(encoding="utf-8").splitlines()
    one_order = [line for line in lines if json.loads(line).get("order") != "BA"]
    (tmp_path / "ab.jsonl").write_text("\n".join(one_order) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    _recorded_run(tmp_path, out, tmp_path / "ab.jsonl")
    said = "not identifiable: no pair was judged in both orders (AB and BA)"
    assert json.loads(cli("report", str(out), "--format", "json").stdout)["position_bias"] == []
    table = cli("report", str(out)).stdout
    assert f"position bias:\n  {said}" in table
    assert f"Position bias — {said}" in cli("report", str(out), "--format", "md").stdout
    assert said in cli("report", str(out), "--format", "html").stdout

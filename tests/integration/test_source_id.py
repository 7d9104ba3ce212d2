"""An imported pair keeps its own id from the user's log (``audit_pairs.source_id``), so a pair
the audit flags leads back to the production record: stored, exported, shown, opened by it, kept
by a re-judge; refused when it looks like a key; older Parquet shards without it still read.
Real CLI, real SQLite and DuckDB files; the expected ids come from the log itself."""

from __future__ import annotations

import csv
import json
import os
import re
import shlex
import sqlite3
from pathlib import Path

import duckdb
import pytest

from judgeaudit.sim.stream import write_stream
from tests.cli_helpers import cli

ROLLOUTS = Path(__file__).resolve().parents[2] / "examples" / "rollouts"
LOG = ROLLOUTS / "recorded-verdicts.jsonl"
SPEC = '[run]\nname = "{name}"\nimported = "pairs.jsonl"\n[judge]\nsource = "recorded"\n'


Key = tuple[str, str, str, int]  # (task_id, agent_a, agent_b, trial): one pair of the log


def log_ids() -> dict[Key, str]:
    """Each pair's key -> the log's pair_id, read straight from the log's pair lines."""
    found = {}
    for line in LOG.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row.get("type") == "pair":
            key = (row["task_id"], row["agent_a"], row["agent_b"], row.get("trial", 0))
            found[key] = row["pair_id"]
    return found


KEY_SQL = "SELECT task_id, agent_a, agent_b, trial, pair_id, source_id FROM audit_pairs"


def stored_ids(out: Path) -> dict[Key, tuple[str, str]]:
    """Each stored pair's key -> (the audit's pair_id, its source_id)."""
    db = sqlite3.connect(out / "audit.db")
    try:
        return {(t, a, b, n): (pid, src) for t, a, b, n, pid, src in db.execute(KEY_SQL)}
    finally:
        db.close()


def recorded_run(tmp: Path, name: str = "prod", new_run: bool = False) -> Path:
    pairs = tmp / "pairs.jsonl"
    if not pairs.exists():
        done = cli("import", "recorded-jsonl", str(LOG), "--out", str(pairs))
        assert done.returncode == 0, done.stderr
    (tmp / f"{name}.toml").write_text(SPEC.format(name=name), encoding="utf-8")
    more = ["--new-run"] if new_run else []
    done = cli("run", str(tmp / f"{name}.toml"), "--out", str(tmp / "out"), *more)
    assert done.returncode == 0, done.stderr
    return tmp / "out"


@pytest.fixture(scope="module")
def prod(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return recorded_run(tmp_path_factory.mktemp("source-id"))


def test_every_pair_keeps_its_log_id_in_audit_db_csv_parquet_and_preferences(
    prod: Path, tmp_path: Path
) -> None:
    expected = log_ids()
    kept = stored_ids(prod)
    # Every pair the run judged, with the id its log gave it (the log's pairs by their fields).
    assert len(kept) == 40 and {k: src for k, (_, src) in kept.items()} == {
        k: expected[k] for k in kept
    }
    stored = dict(kept.values())  # the audit's pair_id -> source_id
    assert len(set(stored.values())) == 40
    relation = duckdb.sql(
        f"SELECT pair_id, source_id FROM read_parquet('{prod / 'audit_pairs.parquet'}')"
    )
    assert relation is not None and dict(relation.fetchall()) == stored
    done = cli("export", "files", str(prod))
    assert done.returncode == 0, done.stderr
    with (prod / "audit_pairs.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert {r["pair_id"]: r["source_id"] for r in rows} == stored
    dest = tmp_path / "prefs.jsonl"
    done = cli("export", "preferences", str(prod), "--format", "jsonl", "--out", str(dest))
    assert done.returncode == 0, done.stderr
    prefs = [json.loads(line) for line in dest.read_text(encoding="utf-8").splitlines()]
    assert prefs and all(r["source_id"] == stored[r["pair_id"]] for r in prefs)


def test_show_opens_a_pair_by_its_log_id_and_names_it(prod: Path) -> None:
    (task, a, b, trial), log_id = sorted(log_ids().items())[7]
    done = cli("show", str(prod), log_id)
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.splitlines()[:2]
    assert first.startswith("pair ") and first.endswith(
        f"/{task}/t{trial}/{a}~{b} (in the log: {log_id})"
    )
    assert second.startswith(f"task {task} ")
    shown = json.loads(cli("show", str(prod), log_id, "--format", "json").stdout)
    assert shown["pair"]["source_id"] == log_id and shown["pair"]["task_id"] == task
    missing = cli("show", str(prod), "no-such-log-id")
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1
    assert "or the pair_id an imported log gave it" in missing.stderr


def test_two_runs_of_one_log_in_one_out_are_both_named(tmp_path: Path) -> None:
    out = recorded_run(tmp_path, "prod")
    recorded_run(tmp_path, "again", new_run=True)  # another spec into the same OUT
    log_id = log_ids()[("prod-3", "policy-v7", "policy-v8", 0)]
    done = cli("show", str(out), log_id)
    assert done.returncode == 2
    assert f"pair {log_id!r} matches 2 pairs (" in done.stderr
    assert "give the whole id (the run's id first)" in done.stderr
    assert "put the task and trial first" not in done.stderr  # a log id is no agent pair
    agents = cli("show", str(out), "policy-v7~policy-v8")  # in both runs: a task would not do
    assert agents.returncode == 2 and re.search(r"matches \d+ pairs", agents.stderr), agents.stderr
    assert "put the task and trial first" not in agents.stderr
    assert "give the whole id (the run's id first)" in agents.stderr
    tail = cli("show", str(out), "t0/policy-v7~policy-v8")  # nor a task, for a tail
    assert tail.returncode == 2 and "put the task first" not in tail.stderr, tail.stderr
    assert "give the whole id (the run's id first)" in tail.stderr
    db = sqlite3.connect(out / "audit.db")
    ids = [
        r[0] for r in db.execute("SELECT pair_id FROM audit_pairs WHERE source_id = ?", (log_id,))
    ]
    db.close()
    assert len(ids) == 2 and all(repr(i) in done.stderr for i in ids)
    for pair_id in ids:  # the whole id still opens each
        assert cli("show", str(out), pair_id).returncode == 0


KEY = "sk-proj-" + "Ab3" * 12  # key-shaped, not a real key
KEYED = "holds what looks like an API key (not shown); give the pair's id"


@pytest.mark.parametrize(
    ("log_id", "problem"),
    [
        (KEY, KEYED),
        ("batch-1/hf_" + "Ab3" * 8, KEYED),  # a key shape the content scrubber masks, inside
        ("run\x1b[2Jx", "holds the control character '\\x1b'; a pair's id must be printable"),
        ("a\x00b", "holds the control character '\\x00'; a pair's id must be printable"),
        ("x" * 501, "is 501 characters long; a pair's id may have 500"),
    ],
    ids=["sk", "hf-inside", "escape", "nul", "long"],
)
def test_a_bad_log_id_is_refused_at_its_line_and_nothing_is_written(
    tmp_path: Path, log_id: str, problem: str
) -> None:
    lines = LOG.read_text(encoding="utf-8").splitlines()
    first = next(i for i, line in enumerate(lines) if '"p003"' in line)
    bad = tmp_path / "bad.jsonl"
    quoted = json.dumps(log_id)
    bad.write_text("\n".join(lines).replace('"p003"', quoted) + "\n", encoding="utf-8")
    done = cli("import", "recorded-jsonl", str(bad), "--out", str(tmp_path / "pairs.jsonl"))
    assert done.returncode == 2 and not (tmp_path / "pairs.jsonl").exists()
    assert done.stderr.strip() == f"judgeaudit: {bad}:{first + 1}: pair_id: {problem}"
    assert log_id not in done.stderr
    # A pairs file written by hand, audited directly: refused at its line, no OUT made.
    good = tmp_path / "good.jsonl"
    assert cli("import", "recorded-jsonl", str(LOG), "--out", str(good)).returncode == 0
    rows = [json.loads(line) for line in good.read_text(encoding="utf-8").splitlines()]
    rows[2]["pair_id"] = log_id
    (tmp_path / "pairs.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8"
    )
    (tmp_path / "s.toml").write_text(SPEC.format(name="hand"), encoding="utf-8")
    done = cli("run", str(tmp_path / "s.toml"), "--out", str(tmp_path / "out"))
    assert done.returncode == 2 and not (tmp_path / "out").exists()
    assert f"pairs.jsonl:3: pair_id: {problem}" in done.stderr
    assert log_id not in done.stderr + done.stdout


def test_ids_that_only_look_random_are_kept(tmp_path: Path) -> None:
    """A ULID, a Mongo ObjectId, a hex digest and a UUID are ids, not keys (a first cut of the
    rule refused a ULID and stopped the whole import)."""
    ids = {
        "p000": "01ARZ3NDEKTSV4RRFFQ69G5FAV",
        "p001": "507f1f77bcf86cd799439011",
        "p002": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        "p003": "123e4567-e89b-12d3-a456-426614174000",
    }
    text = LOG.read_text(encoding="utf-8")
    for old, new in ids.items():
        text = text.replace(f'"{old}"', f'"{new}"')
    log = tmp_path / "log.jsonl"
    log.write_text(text, encoding="utf-8")
    pairs = tmp_path / "pairs.jsonl"
    done = cli("import", "recorded-jsonl", str(log), "--out", str(pairs))
    assert done.returncode == 0, done.stderr
    (tmp_path / "s.toml").write_text(SPEC.format(name="ids"), encoding="utf-8")
    assert cli("run", str(tmp_path / "s.toml"), "--out", str(tmp_path / "out")).returncode == 0
    kept = {src for _pid, src in stored_ids(tmp_path / "out").values()}
    assert set(ids.values()) <= kept


def test_a_history_mixing_shards_from_before_the_column_reads_as_before(tmp_path: Path) -> None:
    """Shards a history kept from before source_id (no such column) and newer ones (with it)
    are read together by DuckDB and Spark, with the figures they gave before."""
    logs = tmp_path / "logs"
    write_stream(logs, days=2, change_day=1, tasks=4)
    hist = tmp_path / "hist"
    for day in sorted(logs.glob("*.jsonl")):
        done = cli("import", "recorded-jsonl", str(day), "--parquet", str(hist))
        assert done.returncode == 0, done.stderr
    before = cli("trend", str(hist), "--format", "json")
    assert before.returncode == 0, before.stderr
    shard = next((hist / "period=2026-11-01").glob("*.parquet"))
    con = duckdb.connect()
    pairs, with_ids = con.execute(
        f"SELECT COUNT(*), COUNT(source_id) FROM read_parquet('{shard}')"
    ).fetchone() or (0, 0)
    assert pairs > 0 and with_ids == pairs  # the stream's log gives every pair an id
    kept = con.execute(f"SELECT key, value FROM parquet_kv_metadata('{shard}')").fetchall()
    older = shard.with_suffix(".old")
    metadata = ", ".join(f"'{k.decode()}': '{v.decode()}'" for k, v in kept)
    con.execute(
        "COPY (SELECT * EXCLUDE (source_id) FROM"
        f" read_parquet('{shard}', hive_partitioning = false))"
        f" TO '{older}'"
        f" (FORMAT parquet, KV_METADATA {{{metadata}}})"
    )
    older.replace(shard)
    described = con.execute(
        f"DESCRIBE SELECT * FROM read_parquet('{shard}', hive_partitioning = false)"
    ).fetchall()
    columns = [r[0] for r in described]
    assert "source_id" not in columns and "pair_id" in columns
    after = cli("trend", str(hist), "--format", "json")
    assert after.returncode == 0, after.stderr
    assert json.loads(after.stdout) == json.loads(before.stdout)
    run_id = json.loads(next(shard.parent.glob("*.run.json")).read_text())["run_id"]
    reports = {
        engine: cli("report", str(hist), "--run", run_id, "--engine", engine, "--format", "json")
        for engine in ("duckdb", "spark")
    }
    for engine, done in reports.items():
        assert done.returncode == 0, f"{engine}: {done.stderr}"
    duck, spark = (json.loads(reports[e].stdout) for e in ("duckdb", "spark"))
    assert duck["pairs"] == pairs and duck == spark
    # `show` on the history says what it is and gives a query that finds the row.
    logged = con.execute(
        f"SELECT source_id FROM read_parquet('{hist}/period=2026-11-02/*.parquet') LIMIT 1"
    ).fetchone()
    assert logged is not None
    done = cli("show", str(hist), logged[0])
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert f"{hist} is a Parquet history: it keeps each pair's row" in done.stderr
    # the command as a shell reads it (the id and path quoted for the shell and for SQL)
    command = shlex.split(done.stderr.split("the row: ", 1)[1])
    assert command[:2] == ["duckdb", "-c"] and len(command) == 3
    query = command[2]
    found = con.execute(query).fetchall()
    assert len(found) == 1


def test_a_recorded_run_is_listed_with_the_judges_its_log_names(prod: Path) -> None:
    """The Runs picker and compare's pickers list a recorded run by the judges in its log,
    not the spec's placeholder ``recorded`` that every recorded run shares."""
    from judgeaudit.analysis.compare_entry import list_runs

    named = set()
    for line in LOG.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row.get("type") == "verdict" and row.get("judge_model"):
            named.add(row["judge_model"])
    assert len(named) == 1
    (run,) = list_runs(prod)
    assert run.judge == f"recorded: {named.pop()}"


def test_the_report_says_no_user_simulator_ran_instead_of_0_of_0(prod: Path) -> None:
    """A recorded log without satisfied flags: no user simulator ran, so there is nothing to
    count; the text, Markdown and HTML reports say so (they printed 'n/a (0/0 conversations)'
    as if it were a finding)."""
    for fmt in ("table", "md", "html"):
        done = cli("report", str(prod), "--format", fmt)
        assert done.returncode == 0, done.stderr
        assert "no user simulator ran: imported pairs count here only with satisfied_a/_b" in (
            done.stdout
        ), fmt
        assert "0/0 conversations" not in done.stdout
    from judgeaudit.analysis.report import build_report
    from judgeaudit.tui.results_tables import satisfied_text

    shown = satisfied_text(build_report(prod))  # the app's Results screen
    assert shown.endswith(" · user simulator: none ran (imported pairs without satisfied_a/_b)")


def test_an_older_file_read_unmigrated_reads_without_source_ids(
    prod: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An audit.db of schema 4 in a directory that cannot be written is read as it is (not
    migrated): show, its misses, the Parquet export and the re-judge's pair list work, and the
    copy holds NULL where the file has no source_id (it held the word 'source_id' in every
    row: a quoted name that is no column is a string to SQLite)."""
    from judgeaudit.analysis.pair_detail import pair_detail, render_detail
    from judgeaudit.analysis.report import build_report
    from judgeaudit.audit.inputs.source_run import SourceRun
    from judgeaudit.audit.store import open_readonly
    from judgeaudit.audit.store.parquet_out import write_pairs
    from judgeaudit.errors import JudgeauditError

    old = tmp_path / "old"
    old.mkdir()
    raw = sqlite3.connect(prod / "audit.db")
    raw.execute(f"VACUUM INTO '{old / 'audit.db'}'")
    raw.close()
    raw = sqlite3.connect(old / "audit.db")
    raw.execute("ALTER TABLE audit_pairs DROP COLUMN source_id")
    raw.execute("PRAGMA user_version = 4")
    raw.commit()
    (run_id, pair_id), *_ = raw.execute("SELECT run_id, pair_id FROM audit_pairs ORDER BY 2")
    raw.close()
    monkeypatch.setattr(os, "access", lambda path, mode: False)  # as a read-only directory

    detail = pair_detail(old, pair_id)
    assert "source_id" not in detail["pair"]
    assert render_detail(detail).splitlines()[0] == f"pair {pair_id}"
    with pytest.raises(JudgeauditError) as missed:
        pair_detail(old, "p003")
    assert "or the pair_id an imported log gave it" not in str(missed.value)
    assert build_report(old)["pairs"] == 40
    db = open_readonly(old / "audit.db")
    try:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 4  # not migrated
        assert write_pairs(db, run_id, tmp_path / "copy.parquet") == 40
    finally:
        db.close()
    got = duckdb.connect().execute(
        f"SELECT COUNT(*), COUNT(source_id) FROM read_parquet('{tmp_path / 'copy.parquet'}')"
    )
    assert got.fetchone() == (40, 0)
    source = SourceRun(old, run_id, "h", "", {})
    assert {trials[-1] for trials in source.pair_trials()} == {None}
    # The Runs list reads a file from before the kept verdict counts too (schema 2, unmigrated):
    # the recorded run is listed by its spec's judge, as before the log's judges were kept.
    from judgeaudit.analysis.compare_entry import list_runs

    assert list_runs(old)[0].judge.startswith("recorded: ")
    raw = sqlite3.connect(old / "audit.db")
    raw.execute("DROP TABLE verdict_counts")
    raw.execute("PRAGMA user_version = 2")
    raw.commit()
    raw.close()
    assert [r.judge for r in list_runs(old)] == ["recorded"]


def test_a_log_id_that_is_also_a_tail_names_both_and_accents_match_either_form(
    tmp_path: Path,
) -> None:
    """A log id that happens to be the tail of another pair's audit id opened the log's pair in
    silence (a new user's finding): both are named now. A log id typed decomposed (NFD) opens
    the pair its log gave composed (NFC)."""
    import unicodedata

    tail = "prod-5/t0/policy-v7~policy-v8"
    accented = unicodedata.normalize("NFC", "zoë-4")
    text = LOG.read_text(encoding="utf-8").replace('"p003"', f'"{tail}"')
    text = text.replace('"p004"', json.dumps(accented, ensure_ascii=False))
    log = tmp_path / "log.jsonl"
    log.write_text(text, encoding="utf-8")
    done = cli("import", "recorded-jsonl", str(log), "--out", str(tmp_path / "pairs.jsonl"))
    assert done.returncode == 0, done.stderr
    out = recorded_run(tmp_path)
    kept = stored_ids(out)
    logs_pair = next(pid for pid, src in kept.values() if src == tail)
    tails_pair = next(pid for pid in (p for p, _ in kept.values()) if pid.endswith("/" + tail))
    assert logs_pair != tails_pair
    both = cli("show", str(out), tail)
    assert both.returncode == 2 and f"pair {tail!r} matches 2 pairs on 2 tasks (" in both.stderr
    assert repr(logs_pair) in both.stderr and repr(tails_pair) in both.stderr
    typed = unicodedata.normalize("NFD", accented)
    assert typed != accented
    opened = cli("show", str(out), typed)
    assert opened.returncode == 0, opened.stderr
    assert opened.stdout.splitlines()[0].endswith(f"(in the log: {accented})")


LIVE_SPEC = (
    '[run]\nname = "live"\nimported = "pairs.jsonl"\n[endpoints.sim]\nbase_url = "embedded"\n'
    '[judge]\nmodel = "judge-default"\nendpoint = "sim"\n'
)


def test_a_live_judged_import_keeps_log_ids_and_a_resume_fills_older_rows(
    tmp_path: Path,
) -> None:
    """A pairs file judged by a live judge (the embedded one) stores each pair's own id; a run
    stored before the column existed, resumed after the upgrade, gets the ids of the pairs it
    had stored (on the live path and the recorded one), and a resume that finds them all
    changes no pair (the count of edits that keeps Parquet copies honest moves only by the
    run's own capability fill)."""
    rows = [
        {
            "pair_id": f"req-{i:04d}",
            "task_id": f"t{i}",
            "task": "Refund item SKU-101 in order O-1001.",
            "agent_a": "x",
            "agent_b": "y",
            "trajectory_a": "user: refund please\nagent: The refund has been issued: $12.00.",
            "trajectory_b": "user: refund please\nagent: All done!",
            "success_a": 1,
            "success_b": i % 2,
        }
        for i in range(6)
    ]
    (tmp_path / "pairs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "live.toml").write_text(LIVE_SPEC)
    out = tmp_path / "out"
    assert cli("run", str(tmp_path / "live.toml"), "--out", str(out)).returncode == 0
    want = {f"t{i}": f"req-{i:04d}" for i in range(6)}

    def ids(where: Path) -> dict[str, str | None]:
        db = sqlite3.connect(where / "audit.db")
        try:
            return dict(db.execute("SELECT task_id, source_id FROM audit_pairs").fetchall())
        finally:
            db.close()

    assert ids(out) == want
    recorded = recorded_run(tmp_path / "rec")
    for where, spec in ((out, tmp_path / "live.toml"), (recorded, tmp_path / "rec/prod.toml")):
        before = ids(where)
        db = sqlite3.connect(where / "audit.db")
        db.execute("UPDATE audit_pairs SET source_id = NULL WHERE rowid % 2 = 0")
        db.execute("UPDATE runs SET status = 'running', finished_at = NULL")
        db.commit()
        db.close()
        assert sum(v is None for v in ids(where).values()) >= 3
        assert cli("run", str(spec), "--out", str(where)).returncode == 0
        assert ids(where) == before, where
        db = sqlite3.connect(where / "audit.db")
        (edits,) = db.execute("SELECT edits FROM pairs_edits").fetchone()
        db.execute("UPDATE runs SET status = 'running', finished_at = NULL")
        db.commit()
        db.close()
        assert cli("run", str(spec), "--out", str(where)).returncode == 0
        db = sqlite3.connect(where / "audit.db")
        assert db.execute("SELECT edits FROM pairs_edits").fetchone()[0] <= edits + 1
        db.close()


def test_digit_only_log_ids_survive_a_csv_read_with_the_documented_dtype(tmp_path: Path) -> None:
    """docs/data-contract.md: `pd.read_csv(..., dtype={"source_id": str})` keeps "00042" as
    written (without it pandas reads 42)."""
    import pandas as pd

    text = LOG.read_text(encoding="utf-8")
    for i in range(40):
        text = text.replace(f'"p{i:03d}"', f'"{i:05d}"')
    (tmp_path / "log.jsonl").write_text(text, encoding="utf-8")
    done = cli(
        "import",
        "recorded-jsonl",
        str(tmp_path / "log.jsonl"),
        "--out",
        str(tmp_path / "pairs.jsonl"),
    )
    assert done.returncode == 0, done.stderr
    out = recorded_run(tmp_path)
    assert cli("export", "files", str(out)).returncode == 0
    guessed = pd.read_csv(out / "audit_pairs.csv")
    assert guessed["source_id"].dtype.kind == "i"  # why the docs say so
    read = pd.read_csv(out / "audit_pairs.csv", dtype={"source_id": str})
    assert set(read["source_id"]) == {f"{i:05d}" for i in range(40)}


def test_a_rejudge_holds_the_source_runs_log_ids_to_the_import_rule(
    prod: Path, tmp_path: Path
) -> None:
    """A key put into a stored run's source_id by hand is refused by a re-judge (which would
    copy it into the new run), in one line naming the column, without echoing the key."""
    import shutil

    source = tmp_path / "source"
    shutil.copytree(prod, source)
    db = sqlite3.connect(source / "audit.db")
    db.execute("UPDATE audit_pairs SET source_id = ? WHERE source_id = 'p005'", (KEY,))
    db.commit()
    db.close()
    out = tmp_path / "live"
    done = cli(
        "rejudge", str(source), "--judge-model", "judge-strict", "--judge-endpoint", "embedded",
        "--out", str(out),
    )  # fmt: skip
    assert done.returncode == 2 and not out.exists()
    assert done.stderr.count("\n") == 1 and "audit_pairs.source_id of pair" in done.stderr
    assert "looks like an API key (not shown)" in done.stderr and KEY not in done.stderr

"""The report on DuckDB and on Spark (Parquet) gives every figure the SQLite report gives.

Four kinds of run (the demo, a re-judge of it, an imported tau-bench run, a recorded-verdict
run) plus the seeded fixture with NULLs in every nullable column, each for every gap source the
run accepts (a refused source is refused the same way on every engine). The Spark test runs in
local mode and is not skipped: pyspark is in the dev extra, Java is installed by scripts/test.sh.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import duckdb
import pytest

from judgeaudit.analysis.report import ReportOptions, build_report
from judgeaudit.cli import main
from judgeaudit.errors import InputError
from tests.cli_helpers import cli
from tests.report_fixture import build_audit_db

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("capability", "judge", "external")


def _run(tmp: Path, name: str, *args: str) -> Path:
    done = cli(*args)
    assert done.returncode == 0, f"{name}: {done.stderr}"
    return tmp / name


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("engines")
    demo = _run(tmp, "demo", "demo", "--no-tui", "--out", str(tmp / "demo"))
    rejudge = _run(
        tmp, "rejudge", "rejudge", str(demo), "--judge-model", "judge-strict",
        "--out", str(tmp / "rejudge"),
    )  # fmt: skip
    rollouts = ROOT / "examples" / "rollouts"
    tau = [rollouts / "tau-bench-gpt-4o.json", rollouts / "tau-bench-small-model.json"]
    agents = cli(
        "import", "tau-bench", *map(str, tau), "--agent", "gpt-4o", "--agent", "small-model",
        "--out", str(tmp / "tau.jsonl"),
    )  # fmt: skip
    assert agents.returncode == 0, agents.stderr
    (tmp / "tau.toml").write_text(
        '[run]\nname = "tau"\nimported = "tau.jsonl"\n[endpoints.sim]\nbase_url = "embedded"\n'
        '[judge]\nmodel = "judge-default"\nendpoint = "sim"\n'
    )
    imported = _run(tmp, "tau", "run", str(tmp / "tau.toml"), "--out", str(tmp / "tau"))
    got = cli(
        "import", "recorded-jsonl", str(rollouts / "recorded-verdicts.jsonl"),
        "--out", str(tmp / "prod.jsonl"),
    )  # fmt: skip
    assert got.returncode == 0, got.stderr
    (tmp / "prod.toml").write_text(
        '[run]\nname = "prod"\nimported = "prod.jsonl"\n[judge]\nsource = "recorded"\n'
    )
    recorded = _run(tmp, "prod", "run", str(tmp / "prod.toml"), "--out", str(tmp / "prod"))
    fixture = tmp / "fixture"
    build_audit_db(fixture)
    found = {"demo": demo, "rejudge": rejudge, "imported": imported, "recorded": recorded}
    found["fixture"] = fixture
    for out in found.values():
        assert main(["export", "parquet", str(out)]) == 0
    return found


def _report(out: Path, source: str, engine: str) -> dict[str, Any] | str:
    """The JSON report, or the refusal's one line."""
    try:
        report = build_report(out, ReportOptions(gap_source=source, engine=engine))
    except InputError as exc:
        return f"refused: {exc}"
    round_trip: dict[str, Any] = json.loads(json.dumps(report, default=str))
    return round_trip


def _same_on(engine: str, runs: dict[str, Path]) -> None:
    answered = 0
    for name, out in runs.items():
        for source in SOURCES:
            want = _report(out, source, "sqlite")
            got = _report(out, source, engine)
            assert got == want, f"{name} / {source}: {engine} differs from sqlite"
            answered += isinstance(want, dict)
    assert answered >= 10, "most run/source combinations give a report"


@pytest.mark.timeout(900)
def test_duckdb_gives_every_figure_the_sqlite_report_gives(runs: dict[str, Path]) -> None:
    _same_on("duckdb", runs)


@pytest.mark.timeout(2400)  # Spark starts a JVM and runs ~20 small jobs per report
def test_spark_in_local_mode_gives_every_figure_the_sqlite_report_gives(
    runs: dict[str, Path],
) -> None:
    _same_on("spark", runs)


def test_hive_partitioned_daily_shards_and_a_glob_read_as_one_run(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    fixture = runs["fixture"]
    shards = tmp_path / "shards"
    for run in ("r-wide", "r-other", "r-main"):
        assert main(["export", "parquet", str(fixture), "--run", run, "--to", str(shards),
                     "--partition", "period"]) == 0  # fmt: skip
    assert {p.name for p in shards.iterdir()} == {"period=2026-01-01"}
    want = _report(fixture, "judge", "sqlite")
    for target in (str(shards), str(shards / "*" / "r-main_*.parquet")):
        options = ReportOptions(gap_source="judge", engine="duckdb", parquet=target)
        got = json.loads(json.dumps(build_report(fixture, options), default=str))
        assert got == want, target


def test_a_shard_with_another_schema_is_refused_in_one_line(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    fixture = runs["fixture"]
    shards = tmp_path / "shards"
    (shards / "period=2026-01-02").mkdir(parents=True)
    shutil.copy(fixture / "audit_pairs.parquet", shards / "period=2026-01-02" / "a.parquet")
    odd = shards / "period=2026-01-03" / "b.parquet"
    odd.parent.mkdir()
    src = str(fixture / "audit_pairs.parquet")
    duckdb.sql(
        f"COPY (SELECT * REPLACE (CAST(success_a AS VARCHAR) AS success_a) FROM '{src}')"
        f" TO '{odd}' (FORMAT parquet)"
    )
    done = cli("report", str(fixture), "--engine", "duckdb", "--parquet", str(shards))
    assert done.returncode == 2
    assert done.stdout == ""
    line = done.stderr.strip()
    assert "\n" not in line and "b.parquet" in line and "success_a" in line, line


def test_a_glob_matching_nothing_is_refused_in_one_line(runs: dict[str, Path]) -> None:
    done = cli(
        "report", str(runs["fixture"]), "--engine", "duckdb", "--parquet", "/nonexistent/*.parquet"
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == (
        "judgeaudit: --parquet /nonexistent/*.parquet: no file matches this glob"
    )


def test_export_parquet_needs_no_pyarrow(runs: dict[str, Path], tmp_path: Path) -> None:
    """DuckDB writes the Parquet: with pyarrow unimportable the export still works, and DuckDB
    reads back every row and the row order."""
    code = (
        "import sys; sys.modules['pyarrow'] = None\n"
        "from judgeaudit.cli import main\n"
        f"raise SystemExit(main(['export', 'parquet', {str(runs['fixture'])!r},"
        f" '--run', 'r-other', '--to', {str(tmp_path)!r}]))"
    )
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "wrote 700 pairs of run r-other" in done.stdout
    relation = duckdb.sql(f"SELECT seq FROM '{tmp_path / 'audit_pairs.parquet'}'")
    assert relation is not None
    seq = relation.fetchall()
    assert len(seq) == 700 and [s[0] for s in seq] == sorted(s[0] for s in seq)

"""The regression gate must not lie: missing verdicts are counted and fail it, a directory's runs
are never compared with themselves, and unfinished, empty or unrelated runs are refused."""

from __future__ import annotations

import csv
import io
import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from statsmodels.stats.proportion import proportion_confint

from tests.audit_helpers import write_spec, write_tasks
from tests.cli_helpers import cli


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``base`` (the default judge), ``broken`` (a model the provider answers with chat filler,
    so no verdict parses) and ``strict`` (another working judge), all on the same trajectories."""
    folder = tmp_path_factory.mktemp("gate")
    write_tasks(folder / "tasks.jsonl", 6)
    spec = write_spec(folder / "spec.toml", tasks="tasks.jsonl")
    done = cli("run", str(spec), "--out", str(folder / "base"), "--events", "jsonl")
    assert done.returncode == 0, done.stderr
    for name, model in (("broken", "gpt-4o-mini"), ("strict", "judge-strict")):
        again = cli(
            "rejudge",
            str(folder / "base"),
            "--judge-model",
            model,
            "--out",
            str(folder / name),
            "--events",
            "jsonl",
        )
        # a re-judge whose judge gave no verdict at all failed (exit 1), its run kept
        assert again.returncode == (1 if name == "broken" else 0), again.stderr
    return folder


def test_the_report_counts_orders_without_a_verdict_in_every_format(runs: Path) -> None:
    broken = runs / "broken"
    report = json.loads(cli("report", str(broken), "--format", "json").stdout)
    health = report["verdicts"]
    assert health["orders"] == 2 * report["pairs"], "both orders of every pair were judged"
    assert health["no_verdict_orders"] == health["orders"]
    assert health["no_verdict_rate"] == 1.0
    assert health["parse_failures"] == health["judge_calls"] > health["orders"], "retried"
    assert [j["judge_model"] for j in health["by_judge"]] == ["gpt-4o-mini"]
    # the parse-failure share carries its interval and names it (statsmodels' Wilson)
    wanted = proportion_confint(health["parse_failures"], health["judge_calls"], method="wilson")
    assert health["parse_failure_rate_ci"] == pytest.approx(list(wanted))
    assert health["parse_failure_rate_interval"].startswith("Wilson score, 95%, over judge calls")
    table = cli("report", str(broken)).stdout
    assert "no verdict" in table and "100.0% of orders" in table and "WARNING" in table
    assert "gpt-4o-mini: no verdict 100.0%" in table, "per judge too"
    assert "100.0% of orders" in cli("report", str(broken), "--format", "md").stdout
    *rows, overall = csv.DictReader(
        io.StringIO(cli("report", str(broken), "--format", "csv").stdout)
    )
    decisive = sum(int(row["decisive"]) for row in rows)
    without = sum(int(row["no_verdict_decisive"]) for row in rows)
    assert without == decisive == report["decisive"]
    assert overall["label"] == "all" and int(overall["no_verdict_decisive"]) == without
    html = cli("report", str(broken), "--format", "html").stdout
    assert "class='warn'>no verdict" in html
    good = json.loads(cli("report", str(runs / "base"), "--format", "json").stdout)["verdicts"]
    assert good["no_verdict_orders"] == 0 and good["orders"] == health["orders"]
    assert "WARNING" not in cli("report", str(runs / "base")).stdout


def test_a_judge_without_verdicts_fails_the_gate_instead_of_passing_as_an_improvement(
    runs: Path,
) -> None:
    # a judge that gave no verdict at all measured nothing: refused as run B (exit 2, one line
    # naming the run), as it is as run A, not passed as an improvement
    for flags in (["--fail-on-rise"], ["--format", "json"]):
        done = cli("compare", str(runs / "base"), str(runs / "broken"), *flags)
        assert done.returncode == 2 and not done.stdout, done.stdout + done.stderr
        assert "run B (" in done.stderr and "measured nothing" in done.stderr
        assert "the judge gave no verdict on any order (36/36)" in done.stderr
        assert "check [judge] model" in done.stderr and "re-judge it" in done.stderr
    fine = cli("compare", str(runs / "base"), str(runs / "strict"), "--format", "json")
    assert json.loads(fine.stdout)["verdicts"]["failed"] == []


def test_compare_prints_each_runs_rate_with_its_interval_and_names_the_method(
    runs: Path,
) -> None:
    """The before and after rates of every row were printed bare: each has the run's interval
    (the JSON's ``ci_before``/``ci_after``, the report's rule) and the header names it."""
    args = ("compare", str(runs / "base"), str(runs / "strict"))
    result = json.loads(cli(*args, "--format", "json").stdout)
    text = cli(*args).stdout
    assert "each run's rate with its 95% CI (Wilson with a task design effect)" in text
    assert result["method"]["rates"].startswith("95% Wilson score interval with a design effect")
    for row in [*result["buckets"], result["overall"]]:
        if not row["n_before"]:
            continue
        for side in ("before", "after"):
            low, high = row[f"ci_{side}"]
            shown = f"{row[side] * 100:.1f}% [{low * 100:.1f}, {high * 100:.1f}] (n="
            assert shown in text, (shown, text)
    report = json.loads(cli("report", str(runs / "base"), "--format", "json").stdout)
    if result["overall"]["n_before"] == report["overall"]["decisive"]:
        assert result["overall"]["ci_before"] == pytest.approx(
            [report["overall"]["ci_low"], report["overall"]["ci_high"]]
        )


def test_compare_of_one_directory_compares_its_two_runs_or_refuses(
    runs: Path, tmp_path: Path
) -> None:
    single = cli("compare", str(runs / "base"), "--fail-on-rise")
    assert single.returncode == 2 and "holds 1 run(s)" in single.stderr
    assert "--run-a" in single.stderr and single.stdout == ""
    both = tmp_path / "both"
    shutil.copytree(runs / "base", both)
    added = cli(
        "rejudge",
        str(both),
        "--judge-model",
        "gpt-4o-mini",
        "--out",
        str(both),
        "--events",
        "jsonl",
    )
    assert added.returncode == 1, added.stderr  # it judged nothing: failed, its run kept
    ids = [r[0] for r in sqlite3.connect(both / "audit.db").execute(
        "SELECT run_id FROM runs ORDER BY created_at, run_id"
    )]  # fmt: skip
    gate = cli("compare", str(both), "--fail-on-rise")
    # the re-judge gave no verdict at all: refused as run B, the second run of the OUT
    assert gate.returncode == 2, "the broken re-judge in the same OUT does not pass the gate"
    assert f"run B ({both}#{ids[1]}) measured nothing" in gate.stderr, gate.stderr
    itself = cli("compare", str(both), "--run-a", ids[1], "--run-b", ids[1])
    assert itself.returncode == 2 and "with itself" in itself.stderr
    twice = cli("compare", str(runs / "base"), str(runs / "base"), "--fail-on-rise")
    assert twice.returncode == 2 and "with itself" in twice.stderr
    other = cli("compare", str(both), "--run-b", ids[0], "--format", "json")
    assert f"run A ({both}#{ids[1]})" in other.stderr, "the one not named is the other side"


def test_an_unfinished_run_b_is_refused_by_the_gate_and_flagged_without_it(
    runs: Path, tmp_path: Path
) -> None:
    partial = tmp_path / "partial"
    shutil.copytree(runs / "strict", partial)
    db = sqlite3.connect(partial / "audit.db")
    with db:  # what an interrupted run leaves: status running, some pairs not stored yet
        db.execute("UPDATE runs SET status = 'running', finished_at = NULL")
        db.execute("DELETE FROM audit_pairs WHERE rowid IN (SELECT rowid FROM audit_pairs LIMIT 5)")
    db.close()
    gate = cli("compare", str(runs / "base"), str(partial), "--fail-on-rise")
    assert gate.returncode == 4, gate.stdout + gate.stderr
    assert "is stopped, not finished" in gate.stderr  # marked running, no process writes it
    plain = cli("compare", str(runs / "base"), str(partial))
    assert plain.returncode == 0
    assert "WARNING: run B" in plain.stdout and "5 pairs only in A" in plain.stdout


def test_runs_without_decisive_pairs_or_shared_tasks_are_refused_by_the_gate(
    runs: Path, tmp_path: Path
) -> None:
    empty = tmp_path / "empty"
    shutil.copytree(runs / "strict", empty)
    db = sqlite3.connect(empty / "audit.db")
    with db:
        db.execute("DELETE FROM audit_pairs")
        db.execute("DELETE FROM judge_logs")
    db.close()
    gate = cli("compare", str(runs / "base"), str(empty), "--fail-on-rise")
    assert gate.returncode == 2, gate.stdout + gate.stderr
    assert "share no task" in gate.stderr or "no decisive pair" in gate.stderr
    write_tasks(tmp_path / "all.jsonl", 9)
    lines = (tmp_path / "all.jsonl").read_text().splitlines()[6:]
    (tmp_path / "other.jsonl").write_text("\n".join(lines) + "\n")
    spec = write_spec(tmp_path / "other.toml", tasks="other.jsonl")
    assert (
        cli("run", str(spec), "--out", str(tmp_path / "other"), "--events", "jsonl").returncode == 0
    )
    unrelated = cli("compare", str(runs / "base"), str(tmp_path / "other"), "--fail-on-rise")
    assert unrelated.returncode == 2 and "share no task" in unrelated.stderr
    shown = cli("compare", str(runs / "base"), str(tmp_path / "other")).stdout
    assert "the runs share no task" in shown
    assert "models.agents: None" not in shown


def test_review_labels_show_in_the_table_md_and_refreshed_report_html(
    runs: Path, tmp_path: Path
) -> None:
    out = tmp_path / "reviewed"
    shutil.copytree(runs / "base", out)
    sample = out / "sample.csv"
    assert (
        cli("review", "export", str(out), "--n", "6", "--file", str(sample), "--unblind").returncode
        == 0
    )
    rows = list(csv.DictReader(io.StringIO(sample.read_text(encoding="utf-8"))))
    for row in rows:  # a reviewer who agrees with the judge and the success labels
        row |= {
            "human_success_a": row["success_a"],
            "human_success_b": row["success_b"],
            "human_pref": row["judge_pref"],
        }
    with sample.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    assert "kappa" not in (out / "report.html").read_text(encoding="utf-8")
    stored = cli("review", "import", str(out), str(sample))
    assert stored.returncode == 0 and "report.html" in stored.stdout
    for fmt in ("table", "md"):
        text = cli("report", str(out), "--format", fmt).stdout
        assert f"human review: {len(rows)} labelled pairs" in text
        assert "judge vs human: n=" in text and "agreement 100.0%" in text
        assert "judge \\ human" in text, "the confusion matrix too"
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "Cohen&#x27;s kappa" in html and "judge \\ human" in html


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["review", "export", "{out}", "--file", "{tmp}/s.jsonl"], "name a .csv file"),
        (["review", "export", "{out}", "--n", "0"], "--n 0"),
        (["review", "export", "{out}", "--n", "-5"], "--n -5"),
        (["report", "{out}", "--threshold", "-1"], "0-5 score range"),
        (["report", "{out}", "--threshold", "6"], "0-5 score range"),
        (["run", "{spec}", "--out", "/proc/judgeaudit-forbidden"], "cannot write there"),
        (["run", "{spec}", "--dry-run", "--out", "{tmp}/afile"], "--out is a file"),
    ],
)
def test_out_of_range_or_unwritable_options_are_refused_in_one_line(
    runs: Path, tmp_path: Path, args: list[str], says: str
) -> None:
    (tmp_path / "afile").write_text("x")
    values = {"out": str(runs / "base"), "tmp": str(tmp_path), "spec": str(runs / "spec.toml")}
    done = cli(*(a.format(**values) for a in args))
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("judgeaudit: ") and says in lines[0]
    assert not (tmp_path / "s.jsonl").exists()


def test_dry_run_counts_tasks_once_and_no_call_for_recorded_verdicts(tmp_path: Path) -> None:
    examples = Path(__file__).resolve().parents[2] / "examples" / "rollouts"
    pairs = tmp_path / "prod-pairs.jsonl"
    assert (
        cli(
            "import",
            "recorded-jsonl",
            str(examples / "recorded-verdicts.jsonl"),
            "--out",
            str(pairs),
        ).returncode
        == 0
    )
    spec = tmp_path / "prod.toml"
    spec.write_text(
        '[run]\nname = "prod"\nimported = "prod-pairs.jsonl"\n[judge]\nsource = "recorded"\n'
    )
    plan = json.loads(cli("run", str(spec), "--dry-run", "--events", "jsonl").stdout)
    distinct = {json.loads(line)["task_id"] for line in pairs.read_text().splitlines()}
    assert plan["tasks"] == len(distinct) < plan["pairs"]
    assert plan["roles"] == [], "a recorded run makes no call"
    text = cli("run", str(spec), "--dry-run").stdout
    assert "no model call" in text and f"{len(distinct)} tasks" in text


def test_a_finished_run_keeps_its_verdict_counts_and_the_report_equals_a_fresh_count(
    runs: Path, tmp_path: Path
) -> None:
    """The counts kept at the end of a run (so a 5M-pair report does not read judge_logs again)
    give the same report as counting judge_logs afresh, for a working and a broken judge."""
    for name in ("base", "broken"):
        copy = tmp_path / name
        shutil.copytree(runs / name, copy)
        with sqlite3.connect(copy / "audit.db") as db:
            kept = db.execute("SELECT COUNT(*), SUM(orders) FROM verdict_counts").fetchone()
        assert kept[0] >= 1 and kept[1] > 0, f"{name}: no counts kept when the run finished"
        with_kept = cli("report", str(copy), "--format", "json")
        assert with_kept.returncode == 0, with_kept.stderr
        with sqlite3.connect(copy / "audit.db") as db:
            db.execute("DROP TABLE verdict_counts")
        fresh = cli("report", str(copy), "--format", "json")
        assert fresh.returncode == 0, fresh.stderr
        assert json.loads(with_kept.stdout) == json.loads(fresh.stdout), name


def test_compare_does_not_fit_the_style_model_it_never_shows(
    runs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The style model was most of compare's time on a large run (about 60 s a side at 504
    tasks) and compare shows none of it: the gate's result is the same without the fit."""
    from judgeaudit.analysis import report
    from judgeaudit.analysis.compare_entry import compare_runs

    cli_result = json.loads(
        cli("compare", str(runs / "base"), str(runs / "strict"), "--format", "json").stdout
    )
    assert "style" in report.build_report(runs / "base"), "the report itself still has it"

    def no_fit(*_args: object) -> None:
        raise AssertionError("compare fitted the style model")

    monkeypatch.setattr(report, "style_section", no_fit)
    result = compare_runs(runs / "base", runs / "strict").result  # the CLI's entry
    assert result["gate"] == cli_result["gate"]
    assert result["overall"]["change"] == cli_result["overall"]["change"]

"""`judgeaudit trend` and `demo --monitor` end to end: a 30-day recorded series with the judge
changed on day 20 (0-based) alerts on that day and never before; each period's figures are the
report's own; the formats; the period on recorded imports; the refusals (one line, exit 2)."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from tests.cli_helpers import cli

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def monitor(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("monitor") / "m"
    done = cli("demo", "--monitor", "--no-tui", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "ALERT 2026-11-21" in done.stdout and (out / "trend.html").is_file()
    return out


def _trend(monitor: Path, *extra: str) -> tuple[int, str, str]:
    done = cli("trend", str(monitor / "logs"), "--work", str(monitor / "runs"), *extra)
    return done.returncode, done.stdout, done.stderr


def test_the_rise_on_day_20_alerts_that_day_and_none_before(monitor: Path) -> None:
    code, out, err = _trend(monitor, "--format", "json", "--fail-on-alert")
    assert code == 3, err  # --fail-on-alert: a drift gate tripped
    trend = json.loads(out)
    periods = [p["period"] for p in trend["periods"]]
    assert len(periods) == 30 and periods == sorted(periods)
    change = periods[20]
    assert change == "2026-11-21"
    alerts = trend["alerts"]
    assert alerts and all(a["period"] >= change for a in alerts), "an alert before the change"
    first = {a["bucket"]: a for a in alerts if a["first"]}
    assert first["all"]["period"] == change  # overall misselection: the day it happened
    near = trend["labels"][0]
    # the near bucket (a third of the pairs) within the stated delay of one period
    assert first[near]["period"] in periods[20:22]
    for a in alerts:
        assert {"period", "metric", "bucket", "rise", "rise_ci", "changes", "action"} <= set(a)
        low, high = a["rise_ci"]
        assert low > 0 and low < a["rise"] < high
        assert a["changes"]["judge_models"]["now"] == [
            "judge-default:diligence=0,evidence=0.3,style=0.7"
        ]
        assert a["changes"]["prompt_hashes"] == {"baseline": ["prompt-v1"], "now": ["prompt-v2"]}
        assert "lower the judge's weight" in a["action"]
    # without --fail-on-alert the same trend exits 0
    assert _trend(monitor, "--format", "json")[0] == 0


def test_a_recorded_alert_recommends_what_works_without_conversations(
    tmp_path: Path, monitor: Path
) -> None:
    """The action said `judgeaudit rejudge OUT ...`, which refuses a log without conversations
    (the demo's): it now names the way that works for such a period too."""
    trend = json.loads(_trend(monitor, "--format", "json")[1])
    alert = trend["alerts"][0]
    rejudge = cli("rejudge", alert["out"], "--judge-model", "judge-default",
                  "--out", str(tmp_path / "rj"))  # fmt: skip
    assert rejudge.returncode == 2 and "stores no conversation" in rejudge.stderr
    assert "same pair_ids" in alert["action"] and "compare DIR OUT" in alert["action"]
    assert "judgeaudit review export OUT" in alert["action"]
    sample = tmp_path / "sample.csv"
    done = cli("review", "export", alert["out"], "--file", str(sample), "--n", "10")
    assert done.returncode == 0 and sample.is_file(), done.stderr


def test_each_period_is_its_reports_figures(monitor: Path) -> None:
    trend = json.loads(_trend(monitor, "--format", "json")[1])
    for point in (trend["periods"][3], trend["periods"][25]):
        report = json.loads(
            cli("report", point["out"], "--run", point["run_id"], "--format", "json").stdout
        )
        overall = report["overall"]
        for key in ("rate", "ci_low", "ci_high", "wrong", "tie", "right", "tie_aware_rate"):
            assert point["misselection"][key] == overall[key], key
        assert point["buckets"][0]["rate"] == report["buckets"][0]["rate"]
        assert point["buckets"][0]["ci_high"] == report["buckets"][0]["ci_high"]
        sbf = report["satisfied_but_failed"]["judge"]
        assert point["judge_satisfied_but_failed"]["ci_low"] == sbf["ci_low"]
        assert point["no_verdict"]["orders"] == report["verdicts"]["orders"]
        nv = point["no_verdict"]
        assert [nv["ci_low"], nv["ci_high"]] == report["verdicts"]["no_verdict_rate_ci"]
        with sqlite3.connect(Path(point["out"]) / "audit.db") as db:
            consistent, judged = db.execute(
                "SELECT SUM(consistent), COUNT(consistent) FROM audit_pairs WHERE run_id = ?",
                (point["run_id"],),
            ).fetchone()
        assert point["position_consistency"]["rate"] == pytest.approx(consistent / judged)
        manifest = report["manifest"]
        assert manifest["period"] == point["period"]  # the import's period, kept in the manifest


def test_table_csv_and_html(monitor: Path) -> None:
    code, table, _ = _trend(monitor)
    assert code == 0
    assert "2026-11-21 !" in table and "ALERT 2026-11-21: misselection (all)" in table
    assert "Holm" in table and "design effect" in table
    csv_text = _trend(monitor, "--format", "csv")[1]
    for text in (csv_text, _trend(monitor, "--format", "html")[1]):  # no blank line after
        assert text.endswith("\n") and not text.endswith("\n\n"), text[-80:]
    rows = list(csv.DictReader(io.StringIO(csv_text)))
    metrics = {r["metric"] for r in rows}
    # every interval names its method, in the JSON's words (a new user's report: none did)
    intervals = json.loads(_trend(monitor, "--format", "json")[1])["intervals"]
    wilson = intervals["misselection, buckets, satisfied-but-failed, position consistency"]
    assert all(r["ci_method"] for r in rows if r["ci_low"]) and any(r["ci_low"] for r in rows)
    assert all(not r["ci_method"] for r in rows if not r["ci_low"])
    for r in rows:
        if r["ci_low"] and r["metric"] in ("misselection", "position consistency"):
            assert r["ci_method"] == wilson and "design effect" in wilson
        if r["ci_low"] and r["metric"] == "no verdict":
            assert r["ci_method"].startswith(wilson) and "over judged orders" in r["ci_method"]
    assert "pairs without verdict" not in metrics  # a row only for a day that left pairs out
    assert {"misselection", "no verdict", "position consistency"} <= metrics
    flagged = {r["period"] for r in rows if r["alert"] == "1" and r["metric"] == "misselection"}
    assert min(flagged) == "2026-11-21"
    html = (monitor / "trend.html").read_text()
    assert html.count("<svg") >= len(metrics) and "<script" not in html
    # an alert's "+N pts, 95% CI [...]" names its method beside it (a new user: only JSON did)
    rise = "rise interval: Newcombe hybrid score interval (method 10) on the effective counts"
    assert rise in table and rise in html
    assert 'r="5" fill="#d00"' in html  # an alert marker on the chart


def test_a_period_on_recorded_imports(tmp_path: Path, monitor: Path) -> None:
    day = monitor / "logs" / "2026-11-02.jsonl"
    bad = cli("import", "recorded-jsonl", str(day), "--out", str(tmp_path / "p.jsonl"),
              "--period", "last tuesday")  # fmt: skip
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
    assert "--period" in bad.stderr and "2026-11-03" in bad.stderr
    assert not (tmp_path / "p.jsonl").exists()
    # two periods in one file: refused at the import, naming the user's own line
    mixed = tmp_path / "mixed.jsonl"
    lines = day.read_text().splitlines()
    first_pair = next(i for i, line in enumerate(lines) if '"order"' not in line)
    lines[first_pair] = lines[first_pair].replace('"2026-11-02"', '"2026-11-05"')
    mixed.write_text("\n".join(lines) + "\n")
    refused = cli("import", "recorded-jsonl", str(mixed), "--out", str(tmp_path / "m.jsonl"))
    assert refused.returncode == 2 and len(refused.stderr.strip().splitlines()) == 1
    second_pair = next(
        i for i, line in enumerate(lines) if '"order"' not in line and i > first_pair
    )
    assert f"{mixed}:{second_pair + 1}: period:" in refused.stderr, refused.stderr
    assert not (tmp_path / "m.jsonl").exists()
    # a pairs file that mixes two (edited by hand after its import): refused at the audit
    assert (
        cli("import", "recorded-jsonl", str(day), "--out", str(tmp_path / "m.jsonl")).returncode
        == 0
    )
    pairs = (tmp_path / "m.jsonl").read_text().splitlines()
    pairs[0] = pairs[0].replace('"2026-11-02"', '"2026-11-05"')
    (tmp_path / "m.jsonl").write_text("\n".join(pairs) + "\n")
    spec = tmp_path / "s.toml"
    spec.write_text('[run]\nname = "x"\nimported = "m.jsonl"\n[judge]\nsource = "recorded"\n')
    done = cli("run", str(spec), "--out", str(tmp_path / "out"))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "period" in done.stderr and "one run holds one period" in done.stderr
    assert not (tmp_path / "out" / "audit.db").exists()


def _one_line(done: subprocess.CompletedProcess[str], *says: str) -> None:
    assert done.returncode == 2, done.stderr
    err = done.stderr.strip().splitlines()
    assert len(err) == 1, err
    for text in says:
        assert text in err[0], err[0]


def test_bad_input_one_line_exit_2(tmp_path: Path, monitor: Path) -> None:
    _one_line(cli("trend", str(tmp_path / "nothing-*")), "matches nothing")
    # a shard with another schema: a day whose lines carry an unknown field
    logs = tmp_path / "logs"
    logs.mkdir()
    shutil.copy(monitor / "logs" / "2026-11-01.jsonl", logs)
    (logs / "2026-11-02.jsonl").write_text('{"pair_id": "p", "order": "AB", "winner": "A", '
                                           '"verdict_v2": 1}\n')  # fmt: skip
    # ... is left out of the series, named in one line, and the trend exits 6 (a partial series)
    partial = cli("trend", str(logs))
    assert partial.returncode == 6 and "2026-11-01" in partial.stdout, partial.stderr
    (line,) = partial.stderr.strip().splitlines()
    for text in (f"{logs / '2026-11-02.jsonl'}:1", "verdict_v2", "unknown field"):
        assert text in line, line
    assert not (logs / ".judgeaudit-trend" / "2026-11-02").exists()
    assert [p.name for p in (logs / ".judgeaudit-trend").iterdir()] == ["2026-11-01"]
    # two gap sources in one series: refused (give --gap-source to put them on one)
    runs = sorted(p for p in (monitor / "runs").iterdir() if p.is_dir())  # not .judgeaudit-source
    other = tmp_path / "judge-gap"
    shutil.copytree(runs[1], other)
    spec = other / "spec.toml"
    spec.write_text(spec.read_text() + '[gap]\nsource = "judge"\n')
    assert cli("run", str(spec), "--out", str(other), "--new-run").returncode == 0
    _one_line(cli("trend", str(runs[0]), str(other)), "gap sources", "--gap-source")
    # simulated runs over different task sets: refused; a simulated run among recorded ones too
    from tests.audit_helpers import write_spec, write_tasks

    sims = []
    for count in (3, 4):
        write_tasks(tmp_path / f"t{count}.jsonl", count)
        spec = write_spec(tmp_path / f"s{count}.toml", tasks=f"t{count}.jsonl", name=f"s{count}")
        assert cli("run", str(spec), "--out", str(tmp_path / f"sim{count}")).returncode == 0
        sims.append(str(tmp_path / f"sim{count}"))
    _one_line(cli("trend", *sims), "different task sets", "trend them apart")
    _one_line(cli("trend", str(runs[0]), sims[0]), "one kind of run")


def test_fail_on_alert_does_not_pass_a_series_it_could_not_test(
    tmp_path: Path, monitor: Path
) -> None:
    """Three days under a 7-period baseline printed "no alert" and `--fail-on-alert` exited 0:
    a cron job read an untested series as healthy (a new user's trial). Untested is exit 5
    (compare's inconclusive) with one line why; a tested quiet series still exits 0."""
    logs = tmp_path / "logs"
    logs.mkdir()
    for day in sorted((monitor / "logs").iterdir())[:3]:
        shutil.copy(day, logs / day.name)
    work = ("--work", str(tmp_path / "runs"))
    done = cli("trend", str(logs), *work, "--fail-on-alert")
    assert done.returncode == 5, done.stderr
    assert done.stdout.rstrip().endswith("no alert tested")
    assert done.stderr.strip() == (
        "trend: --fail-on-alert: nothing was tested (needs more than 7 periods), so no alert is"
        " no finding: exit 5"
    )
    assert cli("trend", str(logs), *work).returncode == 0  # without the gate: a report
    tested = cli("trend", str(logs), *work, "--baseline", "2", "--fail-on-alert")
    assert tested.returncode == 0, tested.stderr
    assert tested.stdout.rstrip().endswith("no alert") and tested.stderr == ""


def test_days_whose_verdicts_all_turn_tie_alert_on_the_tie_aware_rate(
    tmp_path: Path, monitor: Path
) -> None:
    """A new user's trial: days 1-7 of the monitor, days 8-10 rewritten so every winner is
    "tie". Misselection reads 0.0% on those days and raised no alert (exit 0); the tie-aware
    rate (a tie counts half a loss) rises to 50% and alerts (exit 3)."""
    logs = tmp_path / "logs"
    logs.mkdir()
    for day in range(1, 11):
        name = f"2026-11-{day:02d}.jsonl"
        lines = (monitor / "logs" / name).read_text(encoding="utf-8").splitlines()
        if day >= 8:
            records = [json.loads(line) for line in lines if line.strip()]
            lines = [json.dumps({**r, "winner": "tie"} if "winner" in r else r) for r in records]
        (logs / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = cli("trend", str(logs), "--work", str(tmp_path / "runs"), "--fail-on-alert")
    assert done.returncode == 3, done.stdout + done.stderr
    assert "ALERT 2026-11-08: tie-aware rate (all; a tie counts half a loss)" in done.stdout
    assert "also alerted: 2026-11-09 (all tie-aware), 2026-11-10 (all tie-aware)" in done.stdout
    # the ties column says of what: the day's decisive pairs, counted in the log by hand (a
    # bare "56" read as nothing); on an all-tie day every decisive pair is a tie
    for day in (7, 8):
        path = logs / f"2026-11-{day:02d}.jsonl"
        records = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]
        decisive = sum(1 for r in records if "success_a" in r and r["success_a"] != r["success_b"])
        row = next(line for line in done.stdout.splitlines() if line.startswith(path.stem))
        cells = row.split("  ")
        tied = next(c.strip() for c in cells if c.strip().endswith(f"/{decisive}"))
        assert day == 7 or tied == f"{decisive}/{decisive}", row
    assert "ties/decisive" in done.stdout.splitlines()[0]
    # the page marks a tie-aware alert on the tie-aware chart, not on misselection's (0.0%)
    page = cli("trend", str(logs), "--work", str(tmp_path / "runs"), "--format", "html").stdout
    charts = {
        re.search(r'font-weight="bold">(.*?)</text>', chart).group(1): chart  # type: ignore[union-attr]
        for chart in page.split("<svg")[1:]
    }
    assert charts["tie-aware misselection"].count('r="5" fill="#d00"') == 3
    assert 'r="5" fill="#d00"' not in charts["misselection"]
    # and the CSV's alert column: on the tie-aware row, not misselection's (1 there before)
    rows = list(csv.DictReader(io.StringIO(cli("trend", str(logs), "--work", str(tmp_path / "runs"),
                                               "--format", "csv").stdout)))  # fmt: skip
    flagged = {(r["period"], r["metric"]) for r in rows if r["alert"] == "1"}
    assert flagged == {(f"2026-11-{d:02d}", "tie-aware misselection") for d in (8, 9, 10)}
    trend = json.loads(cli("trend", str(logs), "--work", str(tmp_path / "runs"), "--format",
                           "json").stdout)  # fmt: skip
    assert {(a["period"], a["metric"]) for a in trend["alerts"]} == {
        (f"2026-11-{d:02d}", "tie-aware rate") for d in (8, 9, 10)
    }
    assert all(p["misselection"]["rate"] == 0.0 for p in trend["periods"][7:])

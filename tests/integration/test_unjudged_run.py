"""A judge that never gives a verdict (``[judge] model = "user-default"``: a customer, who
replies without one) on the embedded provider: the run still exits 0, but its close and the
report's headline say that nothing was judged, where they said "complete" and "0 misselected"
as if it were a finding (a new user's trial)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.audit_helpers import write_spec, write_tasks
from tests.cli_helpers import cli


def test_a_run_whose_judge_never_answers_says_nothing_was_judged(tmp_path: Path) -> None:
    write_tasks(tmp_path / "tasks.jsonl", 3)
    spec = write_spec(tmp_path / "spec.toml", tasks="tasks.jsonl", judge="user-default")
    out = tmp_path / "out"
    done = cli("run", str(spec), "--out", str(out), "--events", "progress")
    assert done.returncode == 0, done.stderr
    warned = [line.strip() for line in done.stderr.splitlines() if "no verdict" in line]
    assert len(warned) == 1, done.stderr
    assert warned[0].startswith("warning: the judge gave no verdict on any order (")
    assert "nothing was judged" in warned[0] and f"judgeaudit report {out}" in warned[0]
    report = cli("report", str(out))
    assert report.returncode == 0, report.stderr
    headline = report.stdout.splitlines()[0]
    assert "misselected" not in headline, headline
    assert "misselection not measured (the judge gave no verdict on any of" in headline
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "0 misselected" not in html and "misselection not measured" in html


def test_a_run_mostly_without_verdicts_counts_the_judged_orders_only(tmp_path: Path) -> None:
    """A judge whose every first reply is broken JSON, with no re-ask: about 60% of its orders
    get no verdict (a real run of the embedded provider, not a constructed store)."""
    write_tasks(tmp_path / "tasks.jsonl", 12)
    spec = write_spec(
        tmp_path / "spec.toml", tasks="tasks.jsonl", judge="judge-default:malformed=1"
    )
    spec.write_text(spec.read_text().replace("judge_retries = 2", "judge_retries = 0"))
    out = tmp_path / "out"
    done = cli("run", str(spec), "--out", str(out), "--events", "progress")
    assert done.returncode == 0, done.stderr
    warned = [line.strip() for line in done.stderr.splitlines() if "no verdict" in line]
    assert len(warned) == 1, done.stderr
    found = re.fullmatch(
        r"warning: the judge gave no verdict on (\d+\.\d)% of orders \((\d+)/(\d+); 95% CI "
        r"\[\d+\.\d, \d+\.\d\], Wilson with a task design effect\): the misselection figures "
        r"describe only the judged orders",
        warned[0],
    )
    assert found is not None, warned[0]
    share, missing, orders = float(found[1]), int(found[2]), int(found[3])
    assert 50 <= share < 100 and missing < orders
    headline = cli("report", str(out)).stdout.splitlines()[0]
    assert re.search(
        rf", \d+ misselected in the judged orders only \(no verdict on {missing} of {orders} "
        r"orders\)$",
        headline,
    ), headline

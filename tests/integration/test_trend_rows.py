"""What `judgeaudit trend` says per row of a folder of recorded logs, as a spreadsheet user
reads the CSV: every rate with the count it is over (``n``), and a metric the logs cannot
measure (the user's satisfaction, never logged) said so, not left an empty row."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest

from judgeaudit.sim.stream import write_stream
from tests.cli_helpers import cli


def _decisive_in_log(path: Path) -> int:
    """The log's pairs whose two sides differ in success: misselection's denominator."""
    pairs = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]
    return sum(1 for r in pairs if "success_a" in r and r["success_a"] != r["success_b"])


def test_every_rate_row_has_its_n_and_the_user_note_says_it_is_not_measured(
    tmp_path: Path,
) -> None:
    """The tie-aware rows (and satisfied-but-failed, consistency) left ``n`` empty, and the
    "user satisfied but failed" rows were blank, as if a rate were lost."""
    logs = tmp_path / "logs"
    write_stream(logs, days=2, change_day=5, tasks=20)
    done = cli("trend", str(logs), "--format", "csv")
    assert done.returncode == 0, done.stderr
    rows = {(r["period"], r["metric"]): r for r in csv.DictReader(io.StringIO(done.stdout))}
    trend = json.loads(cli("trend", str(logs), "--format", "json").stdout)
    for period in trend["periods"]:
        day = period["period"]
        decisive = _decisive_in_log(logs / f"{day}.jsonl")
        tie_aware = rows[(day, "tie-aware misselection")]
        assert int(tie_aware["n"]) == decisive == int(rows[(day, "misselection")]["n"])
        m = period["misselection"]  # (wrong + tie/2) / n
        assert float(tie_aware["rate"]) * decisive == pytest.approx(m["wrong"] + m["tie"] / 2)
        consistency = rows[(day, "position consistency")]  # over the pairs judged both ways
        assert int(consistency["n"]) * 2 == int(rows[(day, "no verdict")]["n"])
        judge = rows[(day, "judge satisfied but failed")]
        assert int(judge["n"]) == period["judge_satisfied_but_failed"]["satisfied"] > 0
        user = rows[(day, "user satisfied but failed")]
        assert user["rate"] == "" and user["n"] == ""  # not measured: no count (0 read "none")
        assert user["no_interval"].startswith("not measured: the log holds no user satisfaction")
        assert period["user_satisfied_but_failed"]["not_measured"] == user["no_interval"]
    table = cli("trend", str(logs)).stdout  # said once under the table, for every period
    assert (
        "user sbf: every period: not measured: the log holds no user satisfaction note "
        "(satisfied_a/_b on a pair line) and no user simulator ran"
    ) in table.splitlines()
    # a rate with nothing to count (a bucket no decisive pair fell into that day) says so,
    # where its row was blank beside n = 0 (a new user)
    empty = [r for r in rows.values() if r["rate"] == "" and r["n"] == "0"]
    assert empty, "the stream has a bucket with no decisive pair on some day"
    for row in empty:
        assert row["no_interval"] == "no rate: nothing to count this period (n = 0)", row
    # the JSON says the same of the same bucket, where it had `rate: null` and no reason
    buckets = {
        (p["period"], f"misselection {b['label']}"): b
        for p in trend["periods"]
        for b in p["buckets"]
    }
    empty_buckets = [
        buckets[r["period"], r["metric"]] for r in empty if (r["period"], r["metric"]) in buckets
    ]
    assert empty_buckets
    for bucket in empty_buckets:
        assert bucket["rate"] is None and bucket["decisive"] == 0
        assert bucket["no_interval"] == "no rate: nothing to count this period (n = 0)"
    assert all(b["no_interval"] is None for b in buckets.values() if b["decisive"])


def test_the_html_chart_of_a_metric_never_measured_says_why_whole(tmp_path: Path) -> None:
    """The trend page's "user satisfied but failed" chart (recorded logs: no satisfaction
    note) said why in its middle cut at 85 characters, `... (satisfied_a/_b on a pair line) …`;
    the page holds the whole reason, in lines."""
    logs = tmp_path / "logs"
    write_stream(logs, days=2, change_day=5, tasks=6)
    page = tmp_path / "trend.html"
    done = cli("trend", str(logs), "--format", "html", "--output", str(page))
    assert done.returncode == 0, done.stderr
    html = page.read_text("utf-8")
    chart = next(svg for svg in re.findall(r"<svg.*?</svg>", html, re.S)
                 if ">user satisfied but failed</text>" in svg)  # fmt: skip
    middle = re.search(r'<text [^>]*text-anchor="middle" fill="#555">(.*?)</text>', chart)
    assert middle is not None
    lines = re.findall(r"<tspan [^>]*>([^<]*)</tspan>", middle.group(1))
    assert len(lines) > 1 and "…" not in middle.group(1)
    assert " ".join(lines) == (
        "not measured: the log holds no user satisfaction note (satisfied_a/_b on a pair line) "
        "and no user simulator ran"
    )

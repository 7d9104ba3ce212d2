"""The text report's wording (issue 22 polish): it says when the provider was simulated, as the
app and the HTML report do, and `--labels en` names each bucket once (not "near near")."""

from __future__ import annotations

import asyncio
import re
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from judgeaudit.audit.inputs import load_spec
from judgeaudit.audit.runner import AuditRunner
from tests.audit_helpers import write_spec
from tests.cli_helpers import cli

WARNING = "Simulated provider: these figures come from the embedded simulation"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("wording")
    asyncio.run(AuditRunner(load_spec(write_spec(base / "spec.toml")), base / "out").run())
    return base / "out"


def test_text_and_markdown_reports_say_the_provider_was_simulated(run: Path) -> None:
    text = cli("report", str(run)).stdout.splitlines()
    assert text[1].startswith(WARNING)
    assert WARNING in cli("report", str(run), "--format", "md").stdout
    with closing(sqlite3.connect(run / "audit.db")) as db, db:  # as if a real judge ran
        db.execute(
            "UPDATE runs SET manifest = json_set(manifest, '$.models.judge.base_url', "
            "'https://api.example.test/v1')"
        )
    assert "Simulated provider" not in cli("report", str(run)).stdout


def test_english_labels_name_each_bucket_once(run: Path) -> None:
    text = cli("report", str(run), "--labels", "en").stdout
    assert not re.search(r"\b(near|small|medium|large) \1\b", text), text
    lines = [x for x in text.splitlines() if x.startswith(("  near ", "  large "))]
    assert len(lines) == 2
    md = cli("report", str(run), "--labels", "en", "--format", "md").stdout
    assert "near (near)" not in md and "| near |" in md


def test_custom_bins_without_labels_name_each_bucket_once(run: Path) -> None:
    """Found by a new user: `--bins` without `--labels` printed each bucket as its interval
    twice, `(0, 0.1]     (0, 0.1]`, in the name column and again in the gap column."""
    text = cli("report", str(run), "--bins", "0,0.1,0.5,1").stdout
    rows = [x for x in text.splitlines() if x.startswith("  (") and " n=" in x]
    assert [x.split()[:2] for x in rows] == [["(0,", "0.1]"], ["(0.1,", "0.5]"], ["(0.5,", "1]"]]
    assert all(x.count("(") == 1 for x in rows), rows
    md = cli("report", str(run), "--bins", "0,0.1,0.5,1", "--format", "md").stdout
    assert "| (0, 0.1] |  |" in md and md.count("(0, 0.1]") == 1, md
    named = cli("report", str(run), "--bins", "0,0.1,0.5,1", "--labels", "a,b,c").stdout
    assert re.search(r"^  a +\(0, 0\.1\] ", named, re.M), named  # a label keeps its interval


def test_a_label_given_twice_is_refused_in_one_line(run: Path) -> None:
    done = cli("report", str(run), "--bins", "0,0.1,0.5,1,5", "--labels", "a,a,c,d")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [
        'judgeaudit: --labels[1]: "a" appears twice; list each once'
    ], done.stderr


def test_the_markdown_table_has_what_the_other_formats_have(run: Path) -> None:
    """A new user's trial: the Markdown report dropped each bucket's pair count and its
    task-clustered (bootstrap) interval, which the text, HTML, CSV and JSON reports have, and
    named no method for it. Each bucket's row holds the JSON's figures."""
    import json

    report = json.loads(cli("report", str(run), "--format", "json").stdout)
    md = cli("report", str(run), "--format", "md").stdout
    header = next(line for line in md.splitlines() if line.startswith("| bucket |"))
    columns = [c.strip() for c in header.strip("|").split("|")]
    assert columns[2:4] == ["pairs", "decisive"] and columns[9] == "task-clustered"
    lines = md.splitlines()
    start = lines.index(header) + 2
    rows = lines[start : start + len(report["buckets"])]
    for bucket, line in zip(report["buckets"], rows, strict=True):
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert int(cells[2]) == bucket["pairs"] and int(cells[3]) == bucket["decisive"]
        low, high = bucket["boot_low"], bucket["boot_high"]
        assert cells[9] == ("—" if low is None else f"[{low * 100:.1f}, {high * 100:.1f}]")
    assert any(b["boot_low"] is not None for b in report["buckets"])
    resamples = report["bootstrap"]["resamples"]
    assert f"Task-clustered: percentile bootstrap, {resamples} resamples of whole tasks" in md

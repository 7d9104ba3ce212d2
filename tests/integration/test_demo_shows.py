"""What the demo shows survives making it fast (fewer units, cheaper calls): a real `judgeaudit
demo` run whose report keeps near-equal agents misselected more often than far-apart ones
(the rate and the gap model's whole interval; see test_demo_seeds.py for more seeds) and has
every section populated. Not timed: the time is
the benchmark's business (README, "Benchmarks")."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

#: ``python -m judgeaudit`` as `make demo`'s runtime-only install runs it: without DuckDB (an
#: optional extra), so the run prints that it wrote no Parquet, as a new user's demo does.
AS_MAKE_DEMO = (
    "import importlib.util, sys; real = importlib.util.find_spec; "
    "importlib.util.find_spec = lambda name, *a, **k: None if name == 'duckdb' "
    "else real(name, *a, **k); sys.modules['duckdb'] = None; "
    "from judgeaudit.cli import main; raise SystemExit(main())"
)
MAKE_DEMO_ARGS = ("demo", "--no-tui", "--events", "progress", "--out")


@pytest.fixture(scope="module")
def demo_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("demo-shows") / "out"
    done = subprocess.run(  # the README's command (`make demo`'s), in a runtime-only world
        [*(sys.executable, "-c", AS_MAKE_DEMO), *MAKE_DEMO_ARGS, str(out)],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    (out.parent / "printed.txt").write_text(done.stdout, encoding="utf-8")
    (out.parent / "progress.txt").write_text(done.stderr, encoding="utf-8")
    report = subprocess.run(
        [sys.executable, "-m", "judgeaudit", "report", str(out), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return out, json.loads(report.stdout)


def test_near_equal_agents_are_misselected_more_than_far_apart_ones(
    demo_report: tuple[Path, dict[str, Any]],
) -> None:
    """The claims that hold in all of seeds 1..10 (test_demo_seeds.py runs several seeds); the
    non-overlap of the near and large intervals holds for this seed (7) but only in 5 of 10."""
    _, report = demo_report
    buckets = {b["alias"]: b for b in report["buckets"]}
    near, large = buckets["near"], buckets["large"]
    assert near["decisive"] > 0 and large["decisive"] > 0
    assert near["rate"] > large["rate"], (near, large)
    assert report["gap_model"]["ci"][1] < 1


def test_every_report_section_is_populated(demo_report: tuple[Path, dict[str, Any]]) -> None:
    out, report = demo_report
    assert report["status"] == "finished"
    assert [b["alias"] for b in report["buckets"]] == ["near", "small", "medium", "large"]
    assert all(b["decisive"] > 0 and b["rate"] is not None for b in report["buckets"])
    assert len(report["agent_pairs"]) == 15
    # the demo's opposite rankings are one-conversation differences: suggestive, not flagged
    assert any(p["ranking"] == "suggestive" for p in report["agent_pairs"])
    assert report["gap_model"]["odds_ratio_per_0_1"] < 1
    for who in ("judge", "user_simulator"):
        part = report["satisfied_but_failed"][who]
        assert part["satisfied"] > 0 and 0 < part["rate"] < 1
    bias = report["position_bias"]
    assert bias and 0 < bias[0]["consistency_rate"] < 1
    assert {t["task_type"] for t in report["by_task_type"]} >= {"refund", "info_only"}
    assert len(report["by_task_type"]) == 5 and report["by_models"]
    assert report["manifest"]["seed"] == 7
    for name in ("audit_pairs.csv", "judge_logs.jsonl", "manifest.json", "report.html"):
        assert (out / name).stat().st_size > 0, name


def test_the_readme_says_what_the_demo_report_flags(
    demo_report: tuple[Path, dict[str, Any]],
) -> None:
    """The README (and docs/index.md, until a new user read it) said the demo report flags two
    near-equal pairs `RANKING MISSELECTED`; since the ranking test needs both differences
    significant it marks them suggestive, flags none."""
    _, report = demo_report
    rankings = [p["ranking"] for p in report["agent_pairs"]]
    assert rankings.count("misselected") == 0 and rankings.count("suggestive") == 2
    root = Path(__file__).resolve().parents[2]
    for page in (root / "README.md", root / "docs" / "index.md"):
        text = page.read_text(encoding="utf-8")
        claim = " ".join(text.split("`judgeaudit report out/demo`", 1)[1].split()[:20])
        assert claim.startswith("marks two near-equal agent pairs"), (page.name, claim)
        assert "`ranking opposite (suggestive)`" in claim, (page.name, claim)


@pytest.mark.parametrize("source", ["capability", "judge"])
def test_the_tuis_pairs_lists_hold_exactly_the_reports_bucket_counts(
    demo_report: tuple[Path, dict[str, Any]], source: str
) -> None:
    """What Results counts per bucket, its Pairs drill-down lists (no Pilot: the same query)."""
    from judgeaudit.analysis.queries import pairs_in_range, pairs_outside
    from judgeaudit.analysis.report import ReportOptions, build_report

    out, _ = demo_report
    report = build_report(out, ReportOptions(gap_source=source))
    listed = [
        pairs_in_range(out, report["run_id"], source, b["lo"], b["hi"]).total
        for b in report["buckets"]
    ]
    assert listed == [b["pairs"] for b in report["buckets"]]
    outside = pairs_outside(out, report["run_id"], source, report["bins"]).total
    assert outside == report["no_gap"] + report["outside_bins"]


def test_the_demo_output_in_the_readme_and_docs_is_what_the_demo_prints(
    demo_report: tuple[Path, dict[str, Any]],
) -> None:
    """The figures the README and docs/index.md quote as "what make demo printed" are printed
    today, line for line (only the output directory differs)."""
    out, _ = demo_report
    printed = (out.parent / "printed.txt").read_text(encoding="utf-8").replace(str(out), "out/demo")
    root = Path(__file__).resolve().parents[2]
    for page in (root / "README.md", root / "docs" / "index.md"):
        text = page.read_text(encoding="utf-8")
        start = text.index("misselection by capability gap")
        quoted = text[start : text.index("```", start)].rstrip().splitlines()
        assert len(quoted) >= 10
        for line in quoted:
            assert line.rstrip() in printed, f"{page.name}: not printed any more: {line!r}"


_BAR = re.compile(r"^\S+\s+\[[#.]+\] (\d+)/(\d+) ")
_VARYING = ((re.compile(r" +\d+ calls/s"), " N calls/s"), (re.compile(r"in \d+\.\d+s"), "in Ns"))


def _steady(line: str) -> str:
    """A printed line without what changes from run to run (call rates, the elapsed time)."""
    for pattern, replacement in _VARYING:
        line = pattern.sub(replacement, line)
    return line.rstrip()


def test_the_readmes_demo_block_is_every_line_the_demo_prints(
    demo_report: tuple[Path, dict[str, Any]],
) -> None:
    """README, "What the demo prints": the command, then every line it prints, in order (the
    progress bars at their last state), the Parquet line `make demo`'s install prints included;
    a new user found that line missing from the block."""
    out, _ = demo_report
    printed = []
    for name in ("progress.txt", "printed.txt"):  # stderr's lines come first, then stdout's
        text = (out.parent / name).read_text(encoding="utf-8").replace(str(out), "out/demo")
        for line in re.split(r"[\r\n]", text):
            bar = _BAR.match(line)
            if line.strip() and (bar is None or bar.group(1) == bar.group(2)):
                printed.append(_steady(line))
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    command = ".venv/bin/judgeaudit demo --no-tui --events progress --out out/demo\n"
    block = readme.split("### What the demo prints", 1)[1].split("```\n" + command, 1)[1]
    shown = [_steady(line) for line in block.split("```", 1)[0].splitlines()]
    assert any("audit_pairs.parquet: not written" in line for line in printed)
    assert shown == printed

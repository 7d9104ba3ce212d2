"""Results as the analysis says (issue 13, item 4): the declared gap source, pairs outside the
bins counted and shown, any number of bins with distinct labels, the agent-pair table with
ranking misselection, and compare listing every manifest change."""

from __future__ import annotations

import asyncio
import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len
from textual.containers import VerticalScroll
from textual.widgets import Input, Select, Static

from judgeaudit.analysis.report import ReportOptions, build_report
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.app import JudgeAuditApp
from judgeaudit.tui.screens.pair import PairDetailScreen
from judgeaudit.tui.screens.pairs import PairsScreen
from judgeaudit.tui.screens.results import ResultsScreen
from judgeaudit.tui.widgets.bars import BucketBars
from judgeaudit.tui.widgets.fit_table import FitTable
from tests.audit_helpers import write_spec
from tests.tui.helpers import SIZE, compare_in_runs, make_app, press, settle, wait_until
from tests.tui.test_navigation import run_screen


def edit_manifest(out: Path, change: Any) -> None:
    """Change the stored manifest the way a different spec would have written it."""
    db = sqlite3.connect(out / "audit.db")
    with db:
        (raw,) = db.execute("SELECT manifest FROM runs").fetchone()
        manifest = json.loads(raw)
        change(manifest)
        db.execute("UPDATE runs SET manifest = ?", (json.dumps(manifest),))
    db.close()


def results(app: JudgeAuditApp) -> ResultsScreen:
    screen = app.get_screen("results")
    assert isinstance(screen, ResultsScreen)
    return screen


def bucket_rows(app: JudgeAuditApp) -> list[tuple[str, dict[str, Any]]]:
    return [
        (k, {c: str(v) for c, v in row.items()})
        for k, row in results(app).query_one("#buckets", FitTable).rows_data
    ]


async def type_bins(pilot: Any, app: JudgeAuditApp, text: str) -> None:
    field = results(app).query_one("#bins", Input)
    field.value = text
    field.focus()
    await press(pilot, "enter")


def test_opens_with_the_gap_source_the_run_declares(isolated: ProfileStore, run_copy: Path) -> None:
    def declare_judge(manifest: dict[str, Any]) -> None:
        manifest["settings"]["gap_source"] = "judge"

    edit_manifest(run_copy, declare_judge)

    async def go() -> tuple[object, list[Any]]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "f4")
            screen = results(app)
            assert screen.report is not None
            return screen.query_one("#gap-source", Select).value, screen.report["bins"]

    source, bins = asyncio.run(go())
    assert source == "judge" and bins == [-0.01, 0.2, 0.5, 1.0, 5.0]


def test_pairs_outside_the_bins_are_counted_and_open(
    isolated: ProfileStore, run_copy: Path
) -> None:
    expected = build_report(run_copy, ReportOptions(bins=[0.3, 0.6]))
    outside = expected["pairs"] - sum(b["pairs"] for b in expected["buckets"])
    assert outside > 0  # the small run has gaps below 0.3 and above 0.6

    async def go() -> tuple[list[tuple[str, dict[str, Any]]], str, int, str]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "f4")
            await type_bins(pilot, app, "0.3, 0.6")
            rows = bucket_rows(app)
            note = str(results(app).query_one("#outside", Static).render())
            table = results(app).query_one("#buckets", FitTable)
            table.focus()
            table.put_cursor("outside")
            await press(pilot, "enter")
            assert isinstance(app.screen, PairsScreen)
            listed = app.screen.query_one(FitTable).row_count
            title = str(app.screen.query_one("#pairs-title", Static).render())
        return rows, note, listed, title

    rows, note, listed, title = asyncio.run(go())
    assert rows[-1][0] == "outside" and rows[-1][1]["pairs"] == str(outside)
    assert f"{outside} pairs outside the bins" in note
    assert listed == outside and f"{outside} pairs" in title


def test_five_bins_have_distinct_labels_and_aligned_bars(
    isolated: ProfileStore, run_copy: Path
) -> None:
    async def go() -> tuple[list[str], str]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "f4")
            await type_bins(pilot, app, "-0.01,0.1,0.2,0.3,0.5,1")
            shown = results(app).report
            assert shown is not None
            labels = [b["label"] for b in shown["buckets"]]
            chart = str(results(app).query_one(BucketBars).render())
        return labels, chart

    labels, chart = asyncio.run(go())
    assert len(labels) == 5 and len(set(labels)) == 5
    lines = [line for line in chart.splitlines() if line.strip()]
    assert len(lines) == 5 and all(
        line.startswith(label) for line, label in zip(lines, labels, strict=True)
    )
    # labels padded by terminal cells and bars of one width: the rates line up in one column
    rate_columns = {cell_len(line[: line.index("%")]) for line in lines if "%" in line}
    assert len(rate_columns) == 1, chart


def test_agent_pair_table_flags_ranking_misselection(
    isolated: ProfileStore, run_copy: Path
) -> None:
    # the judge now prefers the weaker agent of one pair every time: its ranking is inverted
    db = sqlite3.connect(run_copy / "audit.db")
    with db:
        db.execute(
            "UPDATE audit_pairs SET judge_pref = 'B',"  # misselected follows (the column check)
            " misselected = CAST(success_a = 1 AND success_b = 0 AS INTEGER)"
            " WHERE agent_a = 'ace' AND agent_b = 'weak'"
        )
    db.close()
    report = build_report(run_copy)
    flagged = {
        f"{p['agent_a']}~{p['agent_b']}" for p in report["agent_pairs"] if p["ranking_misselected"]
    }
    assert "ace~weak" in flagged

    async def go() -> dict[str, str]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=(80, 24)) as pilot:
            await press(pilot, "f4", "a")
            table = results(app).query_one("#agent-pairs-table", FitTable)
            kept = [c.key.value for c in table.columns.values()]
            # the flag and misselection with its interval and n are kept at 80 columns; the
            # shares, each with its interval, have no room (the line under the table has them)
            assert {"flag", "rate", "decisive"} <= set(kept), kept
            return {key: str(row["flag"]) for key, row in table.rows_data}

    flags = asyncio.run(go())
    assert {k for k, v in flags.items() if v == "RANKING MISSELECTED"} == flagged
    assert len(flags) == len(report["agent_pairs"])


def test_compare_lists_every_manifest_change(
    isolated: ProfileStore, run_copy: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    shutil.copytree(run_copy, other)
    changed = [f"settings.extra_{i:02d}" for i in range(14)]

    def drift(manifest: dict[str, Any]) -> None:
        manifest["run_uid"] = "another-run"  # another run of a changed spec, not a copy
        for key in changed:
            manifest["settings"][key.split(".")[1]] = 1
        manifest["models"]["judge"]["model"] = "judge-strict"

    edit_manifest(other, drift)

    async def go() -> str:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SIZE) as pilot:
            await compare_in_runs(pilot, app, other)
            return str(app.screen.query_one("#changes", Static).render())

    text = asyncio.run(go())
    assert "manifest changes: 15" in text
    for key in [*changed, "models.judge.model"]:
        assert f"  {key}: " in text
    assert "'judge-strict'" in text


def test_results_are_not_rebuilt_when_nothing_changed(
    isolated: ProfileStore, run_copy: Path
) -> None:

    async def go() -> int:
        app = make_app(isolated, run_copy)
        builds = 0
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            screen = results(app)
            original = screen.build

            def counting(*args: Any) -> Any:
                nonlocal builds
                builds += 1
                return original(*args)

            screen.build = counting  # type: ignore[method-assign]
            await press(pilot, "f4", "f1", "f4")
        return builds

    assert asyncio.run(go()) == 1


def test_paired_compare_shows_flips_and_opens_them(
    isolated: ProfileStore, run_copy: Path, rejudged_copy: Path
) -> None:
    """A re-judge of the same conversations with another judge: the view is paired, names its
    test, counts the flips per row, and a flipped pair opens as run B judged it."""
    rejudged = rejudged_copy

    async def go() -> tuple[str, dict[str, dict[str, str]], str, str, PairDetailScreen, list[str]]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SIZE) as pilot:
            await compare_in_runs(pilot, app, rejudged)
            text = str(app.screen.query_one("#changes", Static).render())
            table = app.screen.query_one("#drift", FitTable)
            rows = {k: {c: str(v) for c, v in r.items()} for k, r in table.rows_data}
            flipped = next(k for k, r in rows.items() if r["flips"] not in ("", "+0/−0"))
            table.focus()
            table.put_cursor(flipped)
            await press(pilot, "enter")
            listing = str(app.screen.query_one(".title", Static).render())
            await press(pilot, "enter")  # both runs' verdicts side by side
            flip = app.screen
            both = [str(flip.query_one(f"#flip-{s}", Static).render()) for s in ("a", "b")]
            await press(pilot, "enter")  # the whole pair, as run B has it
            detail = str(app.screen.query_one("#pair-title", Static).render())
            opened = app.screen
            assert isinstance(opened, PairDetailScreen)
        return text, rows, listing, detail, opened, both

    text, rows, listing, detail, opened, both = asyncio.run(go())
    assert "paired: " in text and "McNemar" in text and "decided by: " in text
    assert "overall" in rows and rows.pop("tie-aware")["flips"] == ""  # no flips: half-steps
    assert all(r["flips"].startswith("+") for r in rows.values())  # each misselection row's
    assert "pairs flipped to misselected" in listing
    assert opened.out == rejudged  # the pair as run B judged it, and its verdict flipped
    verdicts = [
        sqlite3.connect(out / "audit.db")
        .execute("SELECT judge_pref, misselected, agent_a, agent_b FROM audit_pairs"
                 " WHERE pair_id LIKE ?",
                 ("%/" + opened.pair_id.split("/", 1)[1],))
        .fetchone()
        for out in (run_copy, rejudged)
    ]  # fmt: skip
    pref, _, agent_a, agent_b = verdicts[1]
    named = {"A": agent_a, "B": agent_b}.get(pref, pref)  # the agent, not its position
    assert f"judge prefers {named} " in detail and verdicts[0][1] != verdicts[1][1]
    assert both[0].startswith("run A: ") and both[1].startswith("run B: ")
    assert "judge judge-default\n" in both[0] and "judge judge-default:" in both[1]
    assert all("judge prefers " in side and "Judge calls" in side for side in both)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
@pytest.mark.parametrize("first", ["f4", "run then r"])
def test_results_open_at_the_top(
    isolated: ProfileStore, run_copy: Path, tmp_path: Path, first: str, size: tuple[int, int]
) -> None:
    """Focusing the bucket table once the report is in must not scroll the bar chart away,
    also when Results is first shown by `r` at the end of a run."""
    spec, out = write_spec(tmp_path / "spec.toml"), tmp_path / "fresh"

    async def go() -> float:
        app = make_app(isolated, run_copy if first == "f4" else out, demo_spec=spec)
        async with app.run_test(size=size) as pilot:
            if first == "f4":
                await press(pilot, "f4")
            else:
                app.start_run(spec, out)
                await wait_until(pilot, lambda: run_screen(app).finished, "the run to finish")
                await press(pilot, "r")
            assert results(app).loaded
            return results(app).query_one("#results-body", VerticalScroll).scroll_y

    assert asyncio.run(go()) == 0


def test_compare_chart_shows_each_rate_with_the_interval_report_gives_it(
    isolated: ProfileStore, run_copy: Path, rejudged_copy: Path
) -> None:
    """The Runs chart drew plain Wilson intervals of its own (13.8% [8.9-20.8]) where `report`
    and Results give the same rate the task-clustered one ([8.4-22.0]): one rule, the report's."""

    async def go() -> tuple[str, dict[str, Any]]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SIZE) as pilot:
            await compare_in_runs(pilot, app, rejudged_copy)
            app.screen.query_one("#run-picker").focus()
            await press(pilot, "g")
            chart = str(app.screen.query_one("#drift-chart", Static).render())
            shown = app.screen.query_one("#drift-chart-pane").display
            table = app.screen.query_one("#drift").display
            screen = app.screen
            assert shown and not table
            return chart, screen.compared.result  # type: ignore[attr-defined]

    chart, result = asyncio.run(go())
    # each run's own report, as `report --format json` and the Results screen give it
    reports = {"before": build_report(run_copy), "after": build_report(rejudged_copy)}
    assert result["paired"]  # a re-judge: the same decisive pairs on both sides
    lines = chart.splitlines()
    compared = 0
    for index, row in enumerate([*result["buckets"], result["overall"]]):
        for side, n_key in (("before", "n_before"), ("after", "n_after")):
            n = row[n_key]
            line = next(x for x in lines if f"{row['label']}" in x and f" {side} " in x)
            if not n:
                assert "no decisive pairs" in line
                continue
            own = reports[side]
            found = own["overall"] if row["label"] == "overall" else own["buckets"][index]
            assert found["decisive"] == n  # the same pairs, so the same interval
            low, high = found["ci_low"], found["ci_high"]
            assert low is not None and high is not None
            assert f"[{low * 100:.1f}, {high * 100:.1f}] n={n}" in line, line
            compared += 1
    assert compared >= 4
    assert "task-clustering design effect" in chart


def test_an_added_agent_is_one_change_not_a_shift_of_every_index(
    isolated: ProfileStore, run_copy: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    shutil.copytree(run_copy, other)

    def add_agent(manifest: dict[str, Any]) -> None:
        manifest["run_uid"] = "another-run"  # another run, not a copy
        first = dict(manifest["models"]["agents"][0], name="aaa", model="agent-keen")
        manifest["models"]["agents"].insert(0, first)

    edit_manifest(other, add_agent)

    async def go() -> str:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SIZE) as pilot:
            await compare_in_runs(pilot, app, other)
            return str(app.screen.query_one("#changes", Static).render())

    text = asyncio.run(go())
    changed = [line.strip().split(":")[0] for line in text.splitlines() if "agents[" in line]
    assert changed and all(key.startswith("models.agents[aaa].") for key in changed), changed


def test_ctrl_e_replaces_the_bins_and_escape_gives_the_keys_back(
    isolated: ProfileStore, run_copy: Path
) -> None:
    """A new user's ctrl+e then typing appended to the old edges, and Esc did not leave the
    field (the next `g` was typed into it)."""

    async def go() -> tuple[str, bool, object]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "f4")
            assert results(app).report is not None
            await press(pilot, "ctrl+e")
            for key in "0,0.5,1":
                await press(pilot, {",": "comma", ".": "full_stop"}.get(key, key))
            field = results(app).query_one("#bins", Input)
            typed = field.value
            await press(pilot, "escape")
            left = not field.has_focus
            await press(pilot, "g")
            return typed, left, app.focused

    typed, left, focused = asyncio.run(go())
    assert typed == "0,0.5,1"
    assert left and isinstance(focused, Select) and focused.id == "gap-source"


def results_line_of_a_run(
    isolated: ProfileStore, tmp_path: Path, judge: str, widget_id: str
) -> str:
    """Run three tasks with ``judge`` from the CLI, open Results (F4) and read one line."""
    from tests.audit_helpers import write_tasks
    from tests.cli_helpers import cli

    write_tasks(tmp_path / "tasks.jsonl", 3)
    spec = write_spec(tmp_path / "spec.toml", tasks="tasks.jsonl", judge=judge)
    out = tmp_path / "out"
    assert cli("run", str(spec), "--out", str(out)).returncode == 0

    async def go() -> str:
        app = make_app(isolated, out)
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "f4")
            assert results(app).report is not None
            return str(results(app).query_one(f"#{widget_id}", Static).render())

    return asyncio.run(go())


def test_results_say_when_the_judge_gave_no_verdict(isolated: ProfileStore, tmp_path: Path) -> None:
    """`report` heads such a run "misselection not measured"; Results showed the bucket table
    of zeros with only the no-verdict share beside it."""
    shown = results_line_of_a_run(isolated, tmp_path, "user-default", "health")
    assert shown.startswith("misselection not measured (the judge gave no verdict on any of")


def test_results_say_an_always_tie_judges_consistency_is_all_tie_tie(
    isolated: ProfileStore, tmp_path: Path
) -> None:
    """A judge answering "tie" to everything read "swap-consistent 100.0%" on Results, which a
    reader takes for no position bias; it now says all of it is tie/tie and that consistency
    where an order named a side was not measured."""
    judge = "judge-default:evidence=0,style=0,noise=0,position=0"
    shown = " ".join(results_line_of_a_run(isolated, tmp_path, judge, "bias").split())
    assert "swap-consistent 100.0%" in shown
    assert "(all of it tie/tie: " in shown
    assert "where an order named a side, consistent not measured, 0 pairs)" in shown

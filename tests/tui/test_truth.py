"""The app tells what the CLI tells: the Runs screen compares through `compare`'s own entry
(same runs chosen, same refusals, same warnings), a cancelled run says so everywhere, and the
live judge log names the agent the judge preferred."""

from __future__ import annotations

import asyncio
import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from textual.widgets import Static

from judgeaudit.audit.store.out_lock import writing
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.judge_log import JudgeLog
from judgeaudit.tui.screens.results import ResultsScreen
from judgeaudit.tui.screens.run import RunScreen
from judgeaudit.tui.screens.runs import RunsScreen
from judgeaudit.tui.widgets.run_picker import RunPicker
from tests.audit_helpers import write_spec
from tests.cli_helpers import cli
from tests.tui.conftest import REJUDGE_MODEL
from tests.tui.helpers import (
    SIZE,
    SMALL,
    compare_in_runs,
    make_app,
    painted,
    press,
    settle,
    wait_until,
)


@pytest.fixture(scope="module")
def both_runs(small_run: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The README's workflow: a re-judge written into the same output directory."""
    out = tmp_path_factory.mktemp("both") / "run"
    shutil.copytree(small_run, out)
    done = cli("rejudge", str(out), "--out", str(out), "--judge-model", REJUDGE_MODEL)
    assert done.returncode == 0, done.stderr
    return out


def run_ids(out: Path) -> list[str]:
    db = sqlite3.connect(out / "audit.db")
    ids = [r[0] for r in db.execute("SELECT run_id FROM runs ORDER BY created_at, run_id")]
    db.close()
    return ids


def changes(app: object) -> str:
    screen = app.get_screen("runs")  # type: ignore[attr-defined]
    return str(screen.query_one("#changes", Static).render())


def status(app: object) -> str:
    screen = app.get_screen("runs")  # type: ignore[attr-defined]
    return str(screen.query_one("#runs-status", Static).render())


def test_runs_compares_a_same_directory_rejudge_as_the_cli_does(
    isolated: ProfileStore, both_runs: Path
) -> None:
    ids = run_ids(both_runs)
    cli_result = json.loads(cli("compare", str(both_runs), "--format", "json").stdout)

    async def go() -> tuple[list[dict[str, str]], str, str, list[str]]:
        app = make_app(isolated, both_runs)
        async with app.run_test(size=SMALL) as pilot:
            await press(pilot, "f6")
            screen = app.screen
            assert isinstance(screen, RunsScreen)
            picker = screen.query_one(RunPicker)
            await wait_until(pilot, lambda: picker.row_count == 2, "both runs listed")
            rows = [{c: str(v) for c, v in r.items()} for _, r in picker.rows_data]
            await press(pilot, "ctrl+t")  # B blank: the other run of A's directory
            compared = changes(app)
            picker.focus()
            picker.move_cursor(row=1)
            await press(pilot, "a", "b", "ctrl+t")  # the same run as A and as B
            sides = [str(r["side"]) for _, r in picker.rows_data]
            return rows, compared, status(app), sides

    rows, compared, refused, sides = asyncio.run(go())
    assert [r["run"] for r in rows] == ids
    assert [r["status"] for r in rows] == ["finished", "finished"]
    assert rows[1]["judge"] == REJUDGE_MODEL and rows[0]["judge"] == "judge-default"
    assert sides == ["", "A B"]
    assert compared.startswith(f"{cli_result['run_a']} → {cli_result['run_b']}")
    assert (cli_result["run_a"], cli_result["run_b"]) == (ids[0], ids[1])
    assert "paired: " in compared and "gate (--fail-on-rise): " in compared
    assert "refused: " in refused and "itself" in refused


def test_runs_shows_the_clis_warnings_and_gate_refusal(
    isolated: ProfileStore, run_copy: Path, rejudged_copy: Path, tmp_path: Path
) -> None:
    partial = tmp_path / "partial"  # a re-judge of run_copy (a copy of it is refused as itself)
    shutil.copytree(rejudged_copy, partial)
    db = sqlite3.connect(partial / "audit.db")
    with db:  # what a cancelled run leaves: some pairs not stored
        db.execute("UPDATE runs SET status = 'cancelled', finished_at = NULL")
        db.execute("DELETE FROM audit_pairs WHERE rowid IN (SELECT rowid FROM audit_pairs LIMIT 5)")
    db.close()
    printed = cli("compare", str(run_copy), str(partial)).stdout
    warnings = [line for line in printed.splitlines() if line.startswith("WARNING")]
    refusal = cli("compare", str(run_copy), str(partial), "--fail-on-rise").stderr.strip()

    async def go() -> str:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SIZE) as pilot:
            await compare_in_runs(pilot, app, partial)
            return changes(app)

    shown = asyncio.run(go())
    assert any("is cancelled, not finished" in w for w in warnings)
    for line in warnings:
        assert line in shown
    assert "gate (--fail-on-rise): REFUSED" in shown
    assert refusal.removeprefix("judgeaudit: ") in shown.replace("\n", "")


def slow_spec(path: Path) -> Path:
    return write_spec(
        path,
        ace="agent-ace:latency_ms=30",
        weak="agent-weak:latency_ms=30",
        pro="agent-pro:latency_ms=30",
        judge="judge-default:latency_ms=600000",  # judging never ends before the cancel
    )


def test_a_cancelled_run_is_cancelled_in_the_db_results_and_report(
    isolated: ProfileStore, tmp_path: Path
) -> None:
    spec = slow_spec(tmp_path / "spec.toml")
    out = tmp_path / "out"

    async def go() -> str:
        app = make_app(isolated, out, demo_spec=spec)
        async with app.run_test(size=SIZE) as pilot:
            app.start_run(spec, out)
            screen = app.get_screen("run")
            assert isinstance(screen, RunScreen)
            await wait_until(pilot, lambda: bool(screen.run_id), "the run to start")
            await press(pilot, "c", "y")
            await wait_until(pilot, lambda: screen.finished, "the cancelled run to end")
            await press(pilot, "r")
            assert isinstance(app.screen, ResultsScreen)
            await settle(pilot)
            return str(app.screen.query_one("#results-title", Static).render())

    title = asyncio.run(go())
    db = sqlite3.connect(out / "audit.db")
    assert db.execute("SELECT status FROM runs").fetchone()[0] == "cancelled"
    db.close()
    assert "(cancelled)" in title
    assert "(cancelled)" in cli("report", str(out)).stdout


def test_the_judge_log_names_the_preferred_agent(isolated: ProfileStore, tmp_path: Path) -> None:
    spec = write_spec(tmp_path / "spec.toml")
    out = tmp_path / "out"

    async def go() -> tuple[list[str], list[str], list[str], list[str]]:
        app = make_app(isolated, out, demo_spec=spec)
        async with app.run_test(size=SIZE) as pilot:
            app.start_run(spec, out)
            screen = app.get_screen("run")
            assert isinstance(screen, RunScreen)
            await wait_until(pilot, lambda: screen.finished, "the run to end")
            log = screen.query_one(JudgeLog)
            lines = log.shown_text()
            await press(pilot, "m")
            missel = log.shown_text()
            await press(pilot, "m", "slash")  # misselected off; filter by an agent
            await pilot.press(*"weak")
            await press(pilot, "enter")
            weak = log.shown_text()
            await press(pilot, "e")
            errors = log.shown_text()
            return lines, missel, weak, errors

    lines, missel, weak, errors = asyncio.run(go())
    assert weak and len(weak) < len(lines) and all("weak" in line for line in weak)
    assert all("PARSE ERROR" in line for line in errors)
    calls = [line for line in lines if " → " in line]
    assert calls
    for line in calls:
        pair, rest = line.split(" → ", 1)
        a, b = pair.split(" ")[-3], pair.split(" ")[-1]
        winner = rest.split(" ", 1)[0]
        assert winner in (a, b, "tie"), line  # an agent, never the letter of a position
        assert "[AB: A=" in rest or "[BA: A=" in rest, "the reason says which order it is for"
    db = sqlite3.connect(out / "audit.db")
    wrong = db.execute("SELECT COUNT(*) FROM audit_pairs WHERE misselected = 1").fetchone()[0]
    db.close()
    assert sum("MISSELECTED" in line for line in missel) == wrong
    assert all(" → " in line or "MISSELECTED" in line for line in missel)


def test_a_run_no_process_writes_is_headed_and_listed_as_stopped(
    isolated: ProfileStore, run_copy: Path
) -> None:
    """audit.db says running, but nothing holds OUT (the run was killed): Results' header and the
    Runs list say stopped, as `report`'s line does; while a run holds OUT they say running."""
    db = sqlite3.connect(run_copy / "audit.db")
    with db:
        db.execute("UPDATE runs SET status = 'running'")
    db.close()

    async def go() -> tuple[str, list[str]]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "f4")
            await settle(pilot)
            title = str(app.screen.query_one("#results-title", Static).render())
            await press(pilot, "f6")
            await settle(pilot)
            picker = app.screen.query_one(RunPicker)
            return title, [run.status for run in picker.runs]

    title, statuses = asyncio.run(go())
    assert "(stopped)" in title and statuses == ["stopped"]
    with writing(run_copy):
        title, statuses = asyncio.run(go())
    assert "(running)" in title and statuses == ["running"]


def test_the_gate_verdict_is_on_screen_after_a_compare_at_80x24_and_120x40(
    isolated: ProfileStore, both_runs: Path
) -> None:
    """At 80x24 the gate's verdict sat below the fold of the compare pane (under the pairing,
    the no-verdict lines and the method): it is the pane's second line, as the CLI decides."""
    cli_result = json.loads(cli("compare", str(both_runs), "--format", "json").stdout)
    verdict = cli_result["gate"]["verdict"].upper()

    async def go(size: tuple[int, int]) -> list[str]:
        app = make_app(isolated, both_runs)
        async with app.run_test(size=size) as pilot:
            await press(pilot, "f6")
            picker = app.screen.query_one(RunPicker)
            await wait_until(pilot, lambda: picker.row_count == 2, "both runs listed")
            await press(pilot, "ctrl+t")
            await settle(pilot)
            return painted(app)

    for size in (SMALL, (120, 40)):
        shown = " ".join(line.strip(" │\n") for line in asyncio.run(go(size)))
        assert f"gate (--fail-on-rise): {verdict}" in shown, (size, shown)

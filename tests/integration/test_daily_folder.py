"""`judgeaudit trend FOLDER` over daily recorded-verdict files as a daily cron job meets it: a
late correction to an audited day, a judge-outage day, an empty file, a badly named file, an
output path under a file; and `import --out` over a file it did not write."""

from __future__ import annotations

import csv
import io
import json
import os
import shlex
import shutil
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from html import escape
from pathlib import Path
from typing import Any

import pytest

from judgeaudit.sim.stream import write_stream
from tests.cli_helpers import cli

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def stream(tmp_path_factory: pytest.TempPathFactory) -> Path:
    logs = tmp_path_factory.mktemp("stream") / "logs"
    write_stream(logs, days=4, change_day=3, tasks=6)
    return logs


@pytest.fixture
def logs(tmp_path: Path, stream: Path) -> Path:
    return Path(shutil.copytree(stream, tmp_path / "logs"))


def _json(logs: Path, *extra: str) -> tuple[int, dict[str, Any], list[str]]:
    done = cli("trend", str(logs), "--format", "json", *extra)
    trend = json.loads(done.stdout) if done.stdout.strip() else {}
    return done.returncode, trend, done.stderr.strip().splitlines()


def _runs(out: Path) -> list[str]:
    with sqlite3.connect(out / "audit.db") as db:
        return [row[0] for row in db.execute("SELECT status FROM runs")]


def _periods(trend: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {p["period"]: p for p in trend["periods"]}


def test_a_corrected_day_replaces_its_audit(logs: Path) -> None:
    code, before, _ = _json(logs)
    assert code == 0
    day2, day3 = logs / "2026-11-02.jsonl", logs / "2026-11-03.jsonl"
    day2.write_text(day2.read_text().replace('"winner": "A"', '"winner": "B"'))  # corrections
    day3.write_text(day3.read_text() + "\n\n")  # two blank lines: the same verdicts
    code, after, err = _json(logs)
    assert code == 0, err  # was exit 2: "period 2026-11-02 has two runs", for good
    work = logs / ".judgeaudit-trend"
    assert _runs(work / "2026-11-02") == ["finished"] and _runs(work / "2026-11-03") == ["finished"]
    assert after["daily"]["reaudited"] == [str(day2), str(day3)]
    old, new = _periods(before)["2026-11-02"], _periods(after)["2026-11-02"]
    assert old["misselection"] != new["misselection"]  # the corrected verdicts, not the old ones
    assert (
        _periods(before)["2026-11-03"]["misselection"]
        == _periods(after)["2026-11-03"]["misselection"]
    )
    assert sorted(p.name for p in work.iterdir()) == [
        ".replaced",
        *(f.stem for f in sorted(logs.glob("*.jsonl"))),
    ]
    assert _runs(work / ".replaced" / "2026-11-02") == ["finished"]  # the earlier audit, kept
    # a replaced day's folder is made with the umask, as readable as the others (not 0700)
    umask = os.umask(0)
    os.umask(umask)
    modes = {(work / f.stem).stat().st_mode & 0o777 for f in logs.glob("*.jsonl")}
    assert modes == {0o777 & ~umask}
    table = cli("trend", str(logs))
    assert table.returncode == 0 and "re-audited" not in table.stdout  # unchanged since: reused


def test_a_day_an_earlier_version_audited_twice_is_repaired(logs: Path) -> None:
    """The earlier version added a second run to a changed day's folder; the series stayed
    refused even once the file was back as it was. Such a day is audited again."""
    assert _json(logs)[0] == 0
    day = logs / ".judgeaudit-trend" / "2026-11-02"
    again = cli("run", str(day / "spec.toml"), "--out", str(day), "--new-run")
    assert again.returncode == 0 and _runs(day) == ["finished", "finished"], again.stderr
    code, trend, err = _json(logs)
    assert code == 0, err
    assert _runs(day) == ["finished"] and len(trend["periods"]) == 4


def test_a_correction_that_does_not_read_keeps_the_earlier_audit(logs: Path) -> None:
    assert _json(logs)[0] == 0
    day = logs / "2026-11-02.jsonl"
    day.write_text(day.read_text() + '{"pair_id": "p", "order": "AB", "winner": "C"}\n')
    code, trend, err = _json(logs)
    assert code == 6 and len(err) == 1, err
    assert f"{day}:" in err[0] and "winner" in err[0] and "earlier audit is kept" in err[0]
    assert "2026-11-02" not in _periods(trend) and len(trend["periods"]) == 3
    work = logs / ".judgeaudit-trend"
    assert _runs(work / "2026-11-02") == ["finished"]
    assert sorted(p.name for p in work.iterdir()) == [f.stem for f in sorted(logs.glob("*.jsonl"))]


def test_a_bad_day_is_marked_and_the_rest_shown(logs: Path) -> None:
    outage = logs / "2026-11-02.jsonl"  # the judge was down: pair lines only
    outage.write_text("".join(x for x in outage.read_text().splitlines(True) if '"order"' not in x))
    (logs / "2026-11-03.jsonl").write_text("")
    (logs / "2026-11-31.jsonl").write_text((logs / "2026-11-04.jsonl").read_text())
    (logs / "2026-11-05.json").write_text("{}\n")
    code, trend, err = _json(logs)
    assert code == 6, err  # a partial series: cron notices
    assert list(_periods(trend)) == ["2026-11-01", "2026-11-04"]
    refused = {r["period"]: r["reason"] for r in trend["daily"]["refused"]}
    assert set(refused) == {"2026-11-02", "2026-11-03", "2026-11-31"}
    assert refused["2026-11-02"].startswith(f"{outage}: no pair has a recorded verdict")
    # the file and what is wrong with it, as the docs say: it is empty ("no recorded line in
    # file" before, as if lines were there and none recorded)
    assert refused["2026-11-03"].startswith(f"{logs / '2026-11-03.jsonl'}: the file is empty:")
    assert "not a period" in refused["2026-11-31"] and "rename" in refused["2026-11-31"]
    assert not any(".judgeaudit-trend" in r for r in refused.values())
    assert len(err) == 4 and any("ignored" in e and "2026-11-05.json" in e for e in err)
    # nothing is left behind for a refused day
    assert sorted(p.name for p in (logs / ".judgeaudit-trend").iterdir()) == [
        "2026-11-01",
        "2026-11-04",
    ]
    # on a terminal (stdout and stderr together) each refused day and ignored file shows once
    done = cli("trend", str(logs))
    shown = (done.stdout + done.stderr).splitlines()
    for day in ("2026-11-02", "2026-11-03", "2026-11-31"):
        told = [x for x in shown if f"day {day} refused" in x or f"REFUSED {day}" in x]
        assert len(told) == 1, (day, shown)
    assert len([x for x in shown if "ignored" in x and "2026-11-05.json" in x]) == 1, shown
    assert done.returncode == 6 and "day 2026-11-02 refused, not in the series" in done.stderr
    saved = logs.parent / "trend.txt"  # a table written to a file keeps them, as a record
    done = cli("trend", str(logs), "--output", str(saved))
    assert done.returncode == 6 and "day 2026-11-02 refused" in done.stderr
    assert "REFUSED 2026-11-02 (not in the series)" in saved.read_text()
    as_csv = cli("trend", str(logs), "--format", "csv").stdout
    csv_refused = {
        row["period"]: row["reason"]
        for row in csv.DictReader(io.StringIO(as_csv))
        if row["metric"] == "refused"
    }
    assert csv_refused == refused  # each with its reason (a new user: the CSV gave none)
    # the HTML page lists each refused day once (its own section, not again under the table)
    page = cli("trend", str(logs), "--format", "html", "--output", str(logs.parent / "t.html"))
    assert page.returncode == 6, page.stderr
    html = (logs.parent / "t.html").read_text()
    assert "Days refused, not in the series" in html
    assert html.count("not in the series") == 1  # the section's heading, no REFUSED line
    for reason in refused.values():
        assert html.count(escape(reason)) == 1, reason
    assert html.count("2026-11-05.json") == 1  # the ignored file stays under the table
    # every day refused: one line, exit 2, nothing written
    for day in ("2026-11-01", "2026-11-04"):
        (logs / f"{day}.jsonl").write_text("")
    shutil.rmtree(logs / ".judgeaudit-trend")
    done = cli("trend", str(logs))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "more daily files refused" in done.stderr and not (logs / ".judgeaudit-trend").exists()


def test_pairs_without_a_verdict_are_counted_per_period(logs: Path) -> None:
    day = logs / "2026-11-02.jsonl"
    lines = day.read_text().splitlines(True)
    pair = json.loads(next(x for x in lines if '"order"' not in x))
    extra = {**pair, "pair_id": "late-1", "task_id": "late-task"}
    day.write_text("".join(lines) + json.dumps(extra) + "\n")
    code, trend, err = _json(logs)
    assert code == 0, err
    counts = {k: v["pairs_without_verdict"] for k, v in _periods(trend).items()}
    assert counts == {"2026-11-01": 0, "2026-11-02": 1, "2026-11-03": 0, "2026-11-04": 0}
    assert "2026-11-02: 1 pair(s) without a recorded verdict" in cli("trend", str(logs)).stdout
    csv = cli("trend", str(logs), "--format", "csv").stdout
    assert (
        "2026-11-02,pairs without verdict,,,,1,0,,," in csv.splitlines()
    )  # the reason column last


def test_a_daily_folder_breaks_its_chart_line_at_a_missing_day_output_dirs_do_not(
    logs: Path,
) -> None:
    """A daily folder expects a day each day, its output dirs on the same dates do not: the
    page's key says which gaps the line has. Days audited before their import record kept its
    counts still make a daily trend (``daily`` was absent then, and the line ran on)."""
    assert _json(logs)[0] == 0
    work = logs / ".judgeaudit-trend"
    for record in work.glob("*/import.json"):
        kept = json.loads(record.read_text())
        del kept["pairs_without_verdict"], kept["verdicts_contradicting"]
        record.write_text(json.dumps(kept))
    code, trend, err = _json(logs)
    assert code == 0 and trend["daily"]["refused"] == [], err
    page = cli("trend", str(logs), "--format", "html").stdout
    assert "a gap: a day missing or not measured" in page
    page = cli("trend", str(work / "2026-11-0*"), "--format", "html").stdout
    assert "a gap: a period not measured" in page and "a day missing" not in page


def _contradicting(day: Path) -> int:
    """By hand: the day's verdict lines whose winner is the side they scored lower."""
    found = 0
    for line in day.read_text().splitlines():
        v = json.loads(line)
        a, b, winner = v.get("score_a"), v.get("score_b"), v.get("winner")
        if "order" in v and a is not None and b is not None:
            found += (winner == "A" and a < b) or (winner == "B" and b < a)
    return found


def test_a_days_contradicting_verdicts_are_kept_and_shown_per_period(logs: Path) -> None:
    """The day's import record keeps how many verdicts contradict their own scores (the import
    printed them and the count was gone), so the trend shows it per period."""
    day = logs / "2026-11-03.jsonl"
    lines = [json.loads(x) for x in day.read_text().splitlines()]
    flipped = 0
    for v in lines:  # two decided verdicts made to pick the side they scored lower
        if flipped < 2 and v.get("winner") in ("A", "B") and v.get("score_a") != v.get("score_b"):
            v["winner"] = "A" if v["score_a"] < v["score_b"] else "B"
            flipped += 1
    day.write_text("".join(json.dumps(v) + "\n" for v in lines))
    want = {f.stem: _contradicting(f) for f in sorted(logs.glob("*.jsonl"))}
    assert flipped == 2 and want["2026-11-03"] >= 2
    code, trend, err = _json(logs)
    assert code == 0, err
    assert {k: v["verdicts_contradicting"] for k, v in _periods(trend).items()} == want
    record = json.loads((logs / ".judgeaudit-trend" / "2026-11-03" / "import.json").read_text())
    assert record["verdicts_contradicting"] == want["2026-11-03"]
    table = cli("trend", str(logs)).stdout
    assert (
        f"2026-11-03: {want['2026-11-03']} recorded verdict(s) whose winner contradicts its own "
        "scores, kept as recorded" in table
    )
    csv = cli("trend", str(logs), "--format", "csv").stdout.splitlines()
    assert f"2026-11-03,verdicts contradicting their scores,,,,{want['2026-11-03']},0,,," in csv


def test_an_output_under_a_file_or_a_directory_is_one_line(logs: Path, tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("keep\n")
    for args in (
        ("trend", str(logs), "--output", str(logs), "--format", "html"),
        ("trend", str(logs), "--output", str(afile / "x.csv"), "--format", "csv"),
        ("import", "recorded-jsonl", str(logs / "2026-11-01.jsonl"), "--out", str(afile / "x")),
        ("trend", str(logs), "--work", str(afile)),  # was a crash (exit 70)
        ("trend", str(logs), "--work", str(afile / "w")),
    ):
        done = cli(*args)
        assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert "bug" not in done.stderr and (
            "is a directory" in done.stderr or "afile is a file" in done.stderr
        )
    assert afile.read_text() == "keep\n"


def test_import_out_replaces_only_its_own_file(logs: Path, tmp_path: Path) -> None:
    raw = tmp_path / "raw.jsonl"
    shutil.copy(logs / "2026-11-01.jsonl", raw)
    kept = raw.read_bytes()
    day = str(logs / "2026-11-02.jsonl")
    done = cli("import", "recorded-jsonl", day, "--out", str(raw))
    assert done.returncode == 2 and "--force" in done.stderr and raw.read_bytes() == kept
    # says why a τ-bench or openai-jsonl import's own file is not recognised either (a review)
    assert "only recorded-jsonl imports keep that record" in done.stderr
    pairs = tmp_path / "pairs.jsonl"
    assert cli("import", "recorded-jsonl", day, "--out", str(pairs)).returncode == 0
    record = pairs.with_name("pairs.jsonl.checked.json").read_text()
    # an import's own file is replaced; a failed import leaves file and record as they were
    assert cli("import", "recorded-jsonl", day, "--out", str(pairs)).returncode == 0
    written = pairs.read_bytes()
    (tmp_path / "empty.jsonl").write_text("")
    assert (
        cli(
            "import", "recorded-jsonl", str(tmp_path / "empty.jsonl"), "--out", str(pairs)
        ).returncode
        == 2
    )
    assert pairs.read_bytes() == written
    assert pairs.with_name("pairs.jsonl.checked.json").read_text() == record
    forced = cli("import", "recorded-jsonl", day, "--out", str(raw), "--force")
    assert forced.returncode == 0 and raw.read_bytes() != kept


def test_import_errors_name_the_users_file_and_line(logs: Path, tmp_path: Path) -> None:
    day = logs / "2026-11-02.jsonl"
    lines = day.read_text().splitlines()
    pair_lines = [i for i, line in enumerate(lines) if '"order"' not in line]
    at = pair_lines[3]
    lines[at] = lines[at].replace('"period": "2026-11-02"', '"period": "2026-11-09"')
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text("\n".join(lines) + "\n")
    for args in (("--out", str(tmp_path / "m.jsonl")), ("--parquet", str(tmp_path / "hist"))):
        done = cli("import", "recorded-jsonl", str(mixed), *args)
        assert done.returncode == 2, done.stderr
        assert f"{mixed}:{at + 1}: period:" in done.stderr, done.stderr
        assert "pairs.jsonl" not in done.stderr and ".import-" not in done.stderr


def test_a_folder_of_yours_named_like_a_day_is_never_moved(logs: Path) -> None:
    """A review: a folder in the work folder named like a day that trend did not make was moved
    to .replaced/ and, at the day's next change, deleted. It is refused, named, untouched."""
    mine = logs / ".judgeaudit-trend" / "2026-11-02"
    mine.mkdir(parents=True)
    (mine / "notes.txt").write_text("mine\n")
    code, trend, err = _json(logs)
    assert code == 6, err
    assert any(f"{mine} exists and holds no source.sha256" in line for line in err), err
    assert [p.name for p in mine.iterdir()] == ["notes.txt"]
    assert not (logs / ".judgeaudit-trend" / ".replaced").exists()
    assert "2026-11-02" not in _periods(trend)


def test_a_replaced_day_holding_human_labels_is_never_deleted(logs: Path) -> None:
    """A review: the second correction of a day deleted the first replaced audit, with the human
    labels imported into it; every replaced audit that holds labels is kept, numbered."""
    work, day2 = logs / ".judgeaudit-trend", logs / "2026-11-02.jsonl"
    assert _json(logs)[0] == 0
    with sqlite3.connect(work / "2026-11-02" / "audit.db") as db:
        (pair,) = db.execute("SELECT pair_id FROM audit_pairs LIMIT 1").fetchone()
        db.execute("INSERT INTO human_labels (pair_id, human_pref) VALUES (?, 'A')", (pair,))
    for _ in range(3):  # three corrections of the same day (the label carried into each)
        day2.write_text(day2.read_text() + "\n")
        assert _json(logs)[0] == 0
    shelf = work / ".replaced"
    assert sorted(p.name for p in shelf.iterdir()) == [f"2026-11-02.{n}" for n in (1, 2, 3)]
    with sqlite3.connect(shelf / "2026-11-02.1" / "audit.db") as db:
        assert db.execute("SELECT pair_id, human_pref FROM human_labels").fetchall() == [
            (pair, "A")
        ]


def _labels(out: Path) -> dict[str, tuple[object, ...]]:
    """A day's human labels by the log's own pair id (its audit's pair ids change with it)."""
    with sqlite3.connect(out / "audit.db") as db:
        rows = db.execute(
            "SELECT p.source_id, h.human_success_a, h.human_success_b, h.human_pref, h.note"
            " FROM human_labels h JOIN audit_pairs p USING (pair_id)"
        ).fetchall()
    return {row[0]: row[1:] for row in rows}


def _edit(day: Path, pair: str, edit: Callable[[dict[str, Any]], dict[str, Any] | None]) -> None:
    """Rewrite ``day``'s lines of ``pair`` (pair line and verdicts) through ``edit``; None drops."""
    kept = []
    for line in day.read_text().splitlines():
        row = json.loads(line)
        new = edit(row) if row["pair_id"] == pair else row
        if new is not None:
            kept.append(json.dumps(new) + "\n")
    day.write_text("".join(kept))


def test_human_labels_follow_a_corrected_day_where_the_pair_is_unchanged(
    logs: Path, tmp_path: Path
) -> None:
    """A corrected day's re-audit starts without the labels a reviewer imported into the day;
    they are carried over for the pairs still in the file with the same content (a verdict
    corrected is the same content: a reviewer labels the conversations, not the judge), and
    every one not carried is named with why."""
    assert _json(logs)[0] == 0
    work, day2 = logs / ".judgeaudit-trend", logs / "2026-11-02.jsonl"
    out, sample = work / "2026-11-02", tmp_path / "sample.csv"
    assert cli("review", "export", str(out), "--n", "8", "--file", str(sample)).returncode == 0
    rows = list(csv.DictReader(sample.open()))
    for i, row in enumerate(rows):
        # a preference and a note (success marks made up per row would give one conversation
        # two marks across its pairs, which review import refuses)
        row |= {"human_pref": "A", "note": f"looked at {i}"}
    with sample.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    done = cli("review", "import", str(out), str(sample))
    assert done.returncode == 0, done.stderr
    before = _labels(out)
    assert len(before) == 8
    changed, gone, rejudged, *same = sorted(before)
    _edit(day2, changed, lambda r: r if "order" in r else r | {"trial": 7})  # other conversations
    _edit(day2, gone, lambda r: None)
    _edit(day2, rejudged, lambda r: r | {"winner": "A" if r["winner"] == "B" else "B"}
          if "order" in r else r)  # fmt: skip
    code, trend, err = _json(logs)
    assert code == 0, err
    after = _labels(out)
    assert after == {k: before[k] for k in (rejudged, *same)}  # labels, notes, as imported
    kept = work / ".replaced" / "2026-11-02.1"
    assert _labels(kept) == before  # the earlier audit keeps every label
    assert trend["daily"]["labels"] == [{
        "period": "2026-11-02", "carried": 6, "kept_in": str(kept), "dropped": [
            {"pair_id": changed, "reason": "its pair's content changed (task, conversations,"
             " agents or logged outcomes)"},
            {"pair_id": gone, "reason": "its pair is no longer in the file"},
        ],
    }]  # fmt: skip
    assert any(gone in line and "not carried" in line for line in err), err
    report = json.loads(cli("report", str(out), "--format", "json").stdout)
    assert report["human_review"]["labelled"] == 6  # the re-audit's report counts them


def test_labels_marking_one_conversation_both_ways_are_not_carried(logs: Path) -> None:
    """A review: labels were carried into a corrected day's re-audit without `review import`'s
    one-mark-per-conversation check, so two labels stored before it (one conversation marked 1
    and 0) went on into the re-audit. They are dropped, named with why; the others carried."""
    assert _json(logs)[0] == 0
    out, day2 = logs / ".judgeaudit-trend" / "2026-11-02", logs / "2026-11-02.jsonl"
    with sqlite3.connect(out / "audit.db") as db:
        rows = db.execute(
            "SELECT p.pair_id, q.pair_id, p.source_id, q.source_id FROM audit_pairs p"
            " JOIN audit_pairs q ON q.run_id = p.run_id AND q.task_id = p.task_id"
            " AND q.trial = p.trial AND q.agent_a = p.agent_a AND q.pair_id > p.pair_id"
            " ORDER BY p.pair_id, q.pair_id LIMIT 1"
        ).fetchone()
        one, two, log_one, log_two = rows
        (other, log_other) = db.execute(
            "SELECT pair_id, source_id FROM audit_pairs WHERE pair_id NOT IN (?, ?)"
            " AND task_id != (SELECT task_id FROM audit_pairs WHERE pair_id = ?) LIMIT 1",
            (one, two, one),
        ).fetchone()
        db.executemany(  # as stored before the check: side A's conversation marked 1 and 0
            "INSERT INTO human_labels (pair_id, human_success_a, human_pref) VALUES (?, ?, ?)",
            [(one, 1, None), (two, 0, None), (other, None, "A")],
        )
    day2.write_text(day2.read_text() + "\n")  # a correction: the day is audited again
    code, trend, err = _json(logs)
    assert code == 0, err
    assert _labels(out) == {log_other: (None, None, "A", None)}
    (labels,) = trend["daily"]["labels"]
    why = (
        "its success mark and another label's disagree on one conversation (stored before "
        "`review import` checked); label it again in the re-audit"
    )
    assert labels["carried"] == 1
    assert sorted(labels["dropped"], key=str) == sorted(
        [{"pair_id": log_one, "reason": why}, {"pair_id": log_two, "reason": why}], key=str
    )


def test_a_staging_folder_a_killed_trend_left_is_not_a_second_run(logs: Path) -> None:
    """A review: a trend killed mid-replace leaves ``WORK/.DAY.new-*``; ``trend WORK`` counted it
    as a second run of the day and refused the series on every run after."""
    assert _json(logs)[0] == 0
    work = logs / ".judgeaudit-trend"
    shutil.copytree(work / "2026-11-03", work / ".2026-11-03.new-x1y2")
    done = cli("trend", str(work), "--format", "json")
    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout)["periods"]) == 4


def test_a_days_run_id_is_typed_without_quotes(logs: Path) -> None:
    """A review: a day's run id was ``daily 2026-11-02-…``; typed as shown, ``report --run`` and
    ``show`` took its second half for another argument (exit 2). It holds no space now."""
    code, trend, err = _json(logs)
    assert code == 0, err
    period = _periods(trend)["2026-11-02"]
    run_id, out = period["run_id"], period["out"]
    assert run_id.startswith("daily-2026-11-02-"), run_id
    typed = cli(*shlex.split(f"report {out} --run {run_id}"))
    assert typed.returncode == 0 and f"run {run_id} (finished)" in typed.stdout, typed.stderr
    with sqlite3.connect(Path(out) / "audit.db") as db:
        (pair,) = db.execute("SELECT pair_id FROM audit_pairs LIMIT 1").fetchone()
    shown = cli(*shlex.split(f"show {out} {pair}"))
    assert shown.returncode == 0 and pair in shown.stdout, shown.stderr


#: ``judgeaudit ARGS`` with recorded batches of 2 pairs committed every 4, that sends itself the
#: signal in argv[1] after its 4th batch, as its second commit ends (SIGTERM stops at a later
#: batch): part of the day stored, as ``test_recorded_resume`` stops ``run``.
STOPPED = """
import os, signal, sys
sent = getattr(signal, sys.argv.pop(1))
import judgeaudit.audit.inputs.recorded_verdicts as rv
from judgeaudit.audit.store import prepared
rv.BATCH, rv.COMMIT_PAIRS = 2, 4
add, calls = prepared.Grouped.add, []
def stopping_add(self, write, units, tag):
    add(self, write, units, tag)
    calls.append(tag)
    if len(calls) == 4:
        os.kill(os.getpid(), sent)
prepared.Grouped.add = stopping_add
from judgeaudit.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _stopped_trend(logs: Path, sent: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-c", STOPPED, sent, "trend", str(logs), "--format", "json"]
    return subprocess.run(argv, capture_output=True, text=True, timeout=300)


def _run_rows(out: Path) -> tuple[list[tuple[object, ...]], int]:
    with sqlite3.connect(out / "audit.db") as db:
        runs = db.execute("SELECT run_id, created_at, status FROM runs").fetchall()
        return runs, int(db.execute("SELECT COUNT(*) FROM audit_pairs").fetchone()[0])


@pytest.mark.parametrize("sent", ["SIGKILL", "SIGTERM"])
def test_a_day_audit_a_stopped_trend_left_is_resumed_and_no_staging_stays(
    logs: Path, tmp_path: Path, sent: str
) -> None:
    """A review: a trend killed mid-day left ``WORK/.DAY.new-*`` for ever, and the next trend
    audited that day again from its first pair. The next trend resumes that audit (the runner's
    resume: the same run, its committed pairs kept) and removes a staging folder it made for
    content the file no longer has; a folder it did not make is never touched."""
    work = logs / ".judgeaudit-trend"
    stopped = _stopped_trend(logs, sent)
    assert stopped.returncode == {"SIGKILL": -signal.SIGKILL, "SIGTERM": 143}[sent], stopped.stderr
    (stage,) = work.glob(".2026-11-01.new-*")
    (run,), stored = _run_rows(stage)
    assert 0 < stored < 36  # stopped mid-day (SIGKILL: 8; SIGTERM at the next batch or so)
    with sqlite3.connect(stage / "audit.db") as db:  # what only a resumed run can still say
        db.execute("UPDATE runs SET created_at = '2000-01-01 00:00:00'")
    mine = work / ".2026-11-01.new-0badc0de"  # named as trend names one, not made by it
    mine.mkdir()
    (mine / "notes.txt").write_text("mine\n")
    (work / ".2026-11-03.new-00c0ffee").mkdir()  # killed between its mkdir and its mark
    code, trend, err = _json(logs)
    assert code == 0, err
    resumed = (run[0], "2000-01-01 00:00:00", "finished")
    assert _run_rows(work / "2026-11-01") == ([resumed], 36)  # resumed, not audited anew
    assert sorted(p.name for p in work.iterdir() if p.name[0] == ".") == [mine.name]
    assert (mine / "notes.txt").read_text() == "mine\n"
    whole = cli("trend", str(logs), "--work", str(tmp_path / "whole"), "--format", "json")
    uninterrupted = json.loads(whole.stdout)["periods"]
    for got, want in zip(trend["periods"], uninterrupted, strict=True):
        where = ("out", "created_at")  # where and when the run was made, not what it measured
        assert {k: v for k, v in got.items() if k not in where} == {
            k: v for k, v in want.items() if k not in where
        }
    # stopped again while a corrected day is audited, then the file changed once more: the
    # staging folder for the content the file no longer has is removed, the day audited anew
    day2 = logs / "2026-11-02.jsonl"
    day2.write_text(day2.read_text() + "\n")
    assert _stopped_trend(logs, sent).returncode != 0
    (stale,) = work.glob(".2026-11-02.new-*")
    day2.write_text(day2.read_text() + "\n")
    code, trend, err = _json(logs)
    assert code == 0 and trend["daily"]["reaudited"] == [str(day2)], err
    assert not stale.exists() and _run_rows(work / "2026-11-02")[1] == 36
    hidden = sorted(p.name for p in work.iterdir() if p.name[0] == ".")
    assert hidden == sorted([".replaced", mine.name])


def test_a_second_trend_in_the_same_work_folder_is_refused(logs: Path) -> None:
    """A trend now removes the staging folders it left: a second one at once must not remove
    the one the first is writing. It is refused in one line, and nothing is written."""
    import fcntl

    work = logs / ".judgeaudit-trend"
    work.mkdir()
    fd = os.open(work, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # as the first trend holds it
        done = cli("trend", str(logs))
    finally:
        os.close(fd)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "another trend is writing to it" in done.stderr and not any(work.iterdir())


def test_two_folders_of_daily_files_never_share_one_work_folder(logs: Path, tmp_path: Path) -> None:
    """A review: `trend dA dB --work W` with both holding the same day replaced dA's audit by
    dB's, said "re-audited (the file changed)" and showed one period, re-auditing both on every
    run; one folder's staging was cleaned away by the other's."""
    other = Path(shutil.copytree(logs, tmp_path / "other"))
    work = tmp_path / "work"
    done = cli("trend", str(logs), str(other), "--work", str(work))
    assert done.returncode == 2, done.stderr
    line = done.stderr.strip()
    assert len(line.splitlines()) == 1 and f"--work {work}" in line, line
    assert str(logs) in line and str(other) in line and "own trend and --work" in line
    assert not work.exists() or not any(work.iterdir())  # nothing audited


def test_one_work_folder_keeps_one_folder_of_daily_files_across_calls(
    logs: Path, tmp_path: Path
) -> None:
    """A review: `trend A --work W`, then `trend B --work W`, then `trend A --work W` each exited
    0 saying "re-audited (the file changed)": the day's audit flipped between the folders and
    its human labels were set aside each time. The second folder is refused in one line."""
    other = Path(shutil.copytree(logs, tmp_path / "other"))
    work = tmp_path / "work"
    assert cli("trend", str(logs), "--work", str(work)).returncode == 0
    days = sorted(p.name for p in work.iterdir() if p.is_dir())
    before = {p: (work / p / "audit.db").stat().st_mtime_ns for p in days}
    done = cli("trend", str(other), "--work", str(work))
    assert done.returncode == 2, done.stderr
    line = done.stderr.strip()
    assert len(line.splitlines()) == 1 and f"holds the days of {logs.resolve()}" in line, line
    assert f"give {other} its own --work" in line and "nothing was audited" in line
    assert {p: (work / p / "audit.db").stat().st_mtime_ns for p in days} == before
    again = cli("trend", str(logs), "--work", str(work))
    assert again.returncode == 0 and "re-audited" not in again.stdout + again.stderr


def test_a_day_whose_file_never_arrived_is_said(logs: Path) -> None:
    """A new user deleted one day's file: the trend exited 0 with nothing on stderr, no CSV
    row, no JSON field; only the HTML line broke. The day is now named on stderr, in the JSON
    (``daily.missing``) and below the table; the exit code stays 0 (it is not a refused day)."""
    days = sorted(p.name for p in logs.glob("*.jsonl"))
    gone = days[1]  # a day between the first and the last
    (logs / gone).unlink()
    code, trend, err = _json(logs)
    day = gone.removesuffix(".jsonl")
    line = f"no file for day {day} in {logs}: a gap in the series"
    assert code == 0
    assert trend["daily"]["missing"] == [{"period": day, "folder": str(logs)}]
    assert f"judgeaudit: trend: {line}" in err
    table = cli("trend", str(logs), "--output", str(logs.parent / "t.txt"))
    assert table.returncode == 0 and line in (logs.parent / "t.txt").read_text()
    (logs / days[-1]).unlink()  # the last day gone: nothing between first and last is missing
    (logs / gone).write_text("")  # an empty file is a refused day, not a missing one
    code, trend, err = _json(logs)
    assert "missing" not in trend["daily"] and code == 6


def test_a_folder_named_as_a_daily_file_is_named_not_dropped(logs: Path) -> None:
    """A new user made `2026-11-05.jsonl/` a folder beside the days: trend dropped it with no
    word (not refused, not ignored, not missing). It is named as ignored, as other files are."""
    odd = logs / "2026-11-05.jsonl"
    odd.mkdir()
    (logs / "archive").mkdir()  # another folder: a user's own, not taken for a day
    code, trend, err = _json(logs)
    assert code == 0, err
    ignored = trend["daily"]["ignored"]
    assert ignored == [
        {"file": str(odd), "reason": "a folder, not a file; a daily file is named DAY.jsonl"}
    ]
    assert err == [f"judgeaudit: trend: ignored {odd}: a folder, not a file; a daily file is named DAY.jsonl"]  # fmt: skip

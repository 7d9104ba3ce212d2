"""A report kept for files written moments ago (analysis/report_memo.py; issue 23, goal 5): the
report a run computes as it finishes answers the ``report OUT`` typed right after it, for the
same bytes only; a same-tick edit that keeps every field of the files' state is computed again,
and so is a file written to while its report was computed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from judgeaudit.analysis import report
from judgeaudit.analysis.report_memo import FOLDER, SWITCH
from judgeaudit.audit.store import check_memo
from judgeaudit.cli import main
from tests.audit_helpers import write_spec, write_tasks
from tests.integration.test_report_memo import FLIP, _edit, _fresh, _report, memo_on

# the fixture: a run's files and its Parquet
from tests.integration.test_report_memo import out as out


@pytest.fixture
def computed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[list[Path]]:
    """:func:`memo_on` on the real clock (every file here is racy: written less than 2 s ago)."""
    yield memo_on(monkeypatch, tmp_path / "cache")


def _kept(cache: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted((cache / FOLDER).glob("*.json"))]


def _same_state_whatever_is_written(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every later state of audit.db reads as the one seen now: the same-tick edit a coarse
    filesystem clock cannot tell apart (device, inode, size, times and header all kept)."""
    seen: dict[Path, tuple[tuple[object, ...], int]] = {}
    real = check_memo.file_state

    def frozen(path: Path) -> tuple[tuple[object, ...], int]:
        return seen.setdefault(path, real(path))

    monkeypatch.setattr(check_memo, "file_state", frozen)


def test_a_report_of_files_written_moments_ago_answers_for_their_bytes(
    out: Path, computed: list[Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    first, err = _report(out, capsys)
    assert "DuckDB" in err
    (entry,) = _kept(tmp_path / "cache")
    assert len(entry["content"]) == 64  # kept with the SHA-256 of the files' bytes
    again, err_again = _report(out, capsys)
    assert len(computed) == 1
    assert again == first == _fresh(out, capsys)
    assert "remembered from an earlier report of the same files" in err_again


def test_a_same_tick_edit_that_keeps_the_state_is_computed_again(
    out: Path,
    computed: list[Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _same_state_whatever_is_written(monkeypatch)
    sqlite = ("--engine", "sqlite")
    before, _ = _report(out, capsys, *sqlite)
    _edit(out / "audit.db", FLIP)
    after, err = _report(out, capsys, *sqlite)
    assert len(computed) == 2 and "remembered" not in err
    assert json.loads(after)["misselected"] == json.loads(before)["misselected"] + 40
    assert after == _fresh(out, capsys, *sqlite)


def test_a_file_written_to_while_its_report_is_computed_is_not_kept(
    out: Path,
    computed: list[Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    _same_state_whatever_is_written(monkeypatch)
    real = report._build_report

    def edited_meanwhile(where: Path, options: report.ReportOptions) -> Any:
        done = real(where, options)
        if len(computed) == 1:
            _edit(out / "audit.db", FLIP)
        return done

    monkeypatch.setattr(report, "_build_report", edited_meanwhile)
    _report(out, capsys, "--engine", "sqlite")
    assert _kept(tmp_path / "cache") == []
    after, _ = _report(out, capsys, "--engine", "sqlite")
    assert len(computed) == 2
    assert after == _fresh(out, capsys, "--engine", "sqlite")


def test_once_settled_a_kept_report_answers_by_its_state_alone(
    out: Path,
    computed: list[Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    first, _ = _report(out, capsys)
    later = check_memo.now_ns() + 10 * 10**9
    monkeypatch.setattr(check_memo, "now_ns", lambda: later)
    assert _report(out, capsys)[0] == first  # the bytes hashed once more, the digest dropped
    (entry,) = _kept(tmp_path / "cache")
    assert "content" not in entry
    _no_more_hashing(monkeypatch)
    assert _report(out, capsys)[0] == first
    assert len(computed) == 1


def _no_more_hashing(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(paths: list[Path]) -> str | None:
        raise AssertionError(f"hashed {paths} again")

    monkeypatch.setattr(check_memo, "content_digest", refuse)


def test_a_report_computed_past_the_racy_window_is_kept_by_its_state_alone(
    out: Path,
    computed: list[Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """A large run's closing report outlasts the 2 s in which a same-tick write could hide: its
    files' bytes are hashed once more when it ends, and once they held, the entry answers by
    the files' state alone, so the first ``report`` after the run reads no GB again."""
    clock = iter([check_memo.now_ns()])
    real_now = check_memo.now_ns
    # the lookup sees the files as written moments ago; every later reading is 10 s on
    monkeypatch.setattr(check_memo, "now_ns", lambda: next(clock, real_now() + 10 * 10**9))
    hashed: list[list[Path]] = []
    real_digest = check_memo.content_digest

    def counted(paths: list[Path]) -> str | None:
        hashed.append(paths)
        return real_digest(paths)

    monkeypatch.setattr(check_memo, "content_digest", counted)
    first, _ = _report(out, capsys)
    assert len(hashed) == 2  # before and after the computation
    (entry,) = _kept(tmp_path / "cache")
    assert "content" not in entry
    _no_more_hashing(monkeypatch)
    again, err = _report(out, capsys)
    assert again == first and "remembered" in err
    assert len(computed) == 1


def test_a_report_whose_after_hash_starts_racy_keeps_its_digest(
    out: Path,
    computed: list[Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """The same, with the hash after the computation begun while the files were still racy
    (a write then could still hide in their tick): the digest is kept, even when the files have
    settled by the time that hash ends (the clock must be read before it, not after)."""
    now = [check_memo.now_ns()]
    monkeypatch.setattr(check_memo, "now_ns", lambda: now[0])
    real_digest = check_memo.content_digest
    hashes = 0

    def slow(paths: list[Path]) -> str | None:
        nonlocal hashes
        hashes += 1
        found = real_digest(paths)
        if hashes == 2:  # the hash after the computation takes 10 s: settled when it ends
            now[0] += 10 * 10**9
        return found

    monkeypatch.setattr(check_memo, "content_digest", slow)
    _report(out, capsys)
    assert hashes == 2
    (entry,) = _kept(tmp_path / "cache")
    assert len(entry["content"]) == 64


def test_the_report_a_run_computes_answers_report_out_right_after_it(
    computed: list[Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    write_tasks(tmp_path / "tasks.jsonl", 3)
    spec = write_spec(tmp_path / "spec.toml", tasks="tasks.jsonl")
    out = tmp_path / "run"
    assert main(["run", str(spec), "--out", str(out)]) == 0
    assert len(computed) == 1  # the run's report files and its closing summary: one report
    capsys.readouterr()
    assert main(["report", str(out), "--format", "json"]) == 0
    shown = capsys.readouterr().out
    assert len(computed) == 1
    monkeypatch.setenv(SWITCH, "0")
    assert main(["report", str(out), "--format", "json"]) == 0
    assert capsys.readouterr().out == shown
    assert len(computed) == 2

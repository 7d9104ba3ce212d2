"""A sample as a spreadsheet saves it (found by a new user): Excel where the comma is the
decimal mark saves a CSV with ';' between columns, and `review import` said "missing columns
human_pref, human_success_a, …" of a file that has them all; it reads such a file (and a
tab-separated one) as it reads the comma. `human_pref` took `tie` but refused `a`: A, B and tie
are taken in either case, and stored as A, B, tie."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.audit_helpers import write_spec, write_tasks
from tests.cli_helpers import cli, cli_ok


@pytest.fixture(scope="module")
def audit(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    tmp = tmp_path_factory.mktemp("spreadsheet")
    write_tasks(tmp / "tasks.jsonl", 2)
    spec = write_spec(tmp / "spec.toml", tasks="tasks.jsonl")
    out = tmp / "out"
    cli_ok("run", str(spec), "--out", str(out), "--events", "jsonl")
    db = sqlite3.connect(out / "audit.db")
    pairs = [p for (p,) in db.execute("SELECT pair_id FROM audit_pairs ORDER BY pair_id")]
    db.close()
    return out, pairs


def stored(out: Path) -> dict[str, tuple[object, ...]]:
    db = sqlite3.connect(out / "audit.db")
    try:
        rows = db.execute(
            "SELECT pair_id, human_success_a, human_success_b, human_pref, note FROM human_labels"
        )
        return {str(r[0]): tuple(r[1:]) for r in rows}
    finally:
        db.close()


@pytest.mark.parametrize("sep", [";", "\t"])
def test_a_sample_saved_with_semicolons_or_tabs_is_read_as_the_comma(
    audit: tuple[Path, list[str]], tmp_path: Path, sep: str
) -> None:
    out, pairs = audit
    path = tmp_path / "saved.csv"
    header = ["pair_id", "task_id", "human_success_a", "human_success_b", "human_pref", "note"]
    rows = [  # a note holding commas stays one cell
        [pairs[0], "t", "1", "0", "A", "checked, twice"],
        [pairs[1], "t", "", "", "tie", ""],
    ]
    path.write_text("\r\n".join(sep.join(r) for r in [header, *rows]) + "\r\n")
    done = cli("review", "import", str(out), str(path))
    assert done.returncode == 0, done.stderr
    assert "stored 2 labelled pairs" in done.stdout
    found = stored(out)
    assert found[pairs[0]] == (1, 0, "A", "checked, twice")
    assert found[pairs[1]] == (None, None, "tie", None)


def test_missing_columns_are_named_whatever_separates_them(
    audit: tuple[Path, list[str]], tmp_path: Path
) -> None:
    out, pairs = audit
    path = tmp_path / "other.csv"
    path.write_text(f"pair|human_pref\n{pairs[0]}|A\n")
    done = cli("review", "import", str(out), str(path))
    assert done.returncode == 2
    assert done.stderr == (
        f"judgeaudit: {path}: missing columns human_pref, human_success_a, human_success_b, "
        "pair_id; export with `judgeaudit review export`\n"
    )
    short = tmp_path / "short.csv"  # separated by ';', one column deleted: that one is named
    short.write_text(f"pair_id;human_success_a;human_success_b;note\n{pairs[0]};1;0;x\n")
    done = cli("review", "import", str(out), str(short))
    assert (done.returncode, done.stderr) == (
        2,
        f"judgeaudit: {short}: missing columns human_pref; export with `judgeaudit review export`\n",
    )


def test_human_pref_is_taken_in_either_case(audit: tuple[Path, list[str]], tmp_path: Path) -> None:
    out, pairs = audit
    path = tmp_path / "case.csv"
    header = "pair_id,human_success_a,human_success_b,human_pref,note\n"
    path.write_text(header + f"{pairs[0]},,,a,\n{pairs[1]},,,TIE,\n{pairs[2]},,,b,\n")
    cli_ok("review", "import", str(out), str(path))
    found = stored(out)
    assert [found[p][2] for p in pairs[:3]] == ["A", "tie", "B"]

    bad = tmp_path / "bad.csv"
    bad.write_text(header + f"{pairs[0]},,,x,\n")
    done = cli("review", "import", str(out), str(bad))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"judgeaudit: {bad}:2: human_pref: 'x' must be A, B or tie (in either case), or empty\n"
    )


def test_export_over_a_filled_semicolon_sample_counts_its_rows(
    audit: tuple[Path, list[str]], tmp_path: Path
) -> None:
    """The guard of `review export` reads the file as `review import` does: a reviewer's
    semicolon-saved work is counted as theirs, not called "no review sample"."""
    out, pairs = audit
    path = tmp_path / "work.csv"
    path.write_text(
        "pair_id;agent_a;agent_b;human_success_a;human_success_b;human_pref;note\n"
        f"{pairs[3]};x;y;;;A;unsaved\n"
    )
    done = cli("review", "export", str(out), "--out", str(path))
    assert done.returncode == 2
    assert "holds 1 row with labels or notes" in done.stderr


def test_export_over_a_sample_just_imported_in_lowercase_replaces_it(
    audit: tuple[Path, list[str]], tmp_path: Path
) -> None:
    """A sample imported with `a`/`b`/`Tie` is stored as A/B/tie; `review export --out` over it
    said it held unsaved rows (those whose case differed), where every label was stored."""
    out, pairs = audit
    path = tmp_path / "done.csv"
    path.write_text(
        "pair_id;human_success_a;human_success_b;human_pref;note\r\n"
        f"{pairs[-3]};;;a;\r\n{pairs[-2]};;;Tie;\r\n{pairs[-1]};;;b;ok\r\n",
        encoding="utf-8-sig",
    )
    cli_ok("review", "import", str(out), str(path))
    done = cli("review", "export", str(out), "--out", str(path))
    assert done.returncode == 0, done.stderr
    path.write_text(  # one row unlike its stored label: that one is counted, alone
        "pair_id,human_success_a,human_success_b,human_pref,note\n"
        f"{pairs[-3]},,,a,\n{pairs[-2]},,,tie,\n{pairs[-1]},,,a,ok\n"
    )
    held = cli("review", "export", str(out), "--out", str(path))
    assert held.returncode == 2 and "holds 1 row with labels or notes" in held.stderr


def test_rows_without_a_label_are_counted_in_the_summary(
    audit: tuple[Path, list[str]], tmp_path: Path
) -> None:
    """`review import` of a sample with 1 pair labelled said "stored 1 labelled pairs" and
    nothing of the rows it skipped: the pairs left blank, a spreadsheet's empty rows
    (`,,,,,`, refused before as "pair_id: '' is not in this audit") and a row with a note but
    no label, whose note was dropped without a word."""
    out, pairs = audit
    assert len(pairs) >= 4
    path = tmp_path / "partly.csv"
    header = "pair_id,task_id,human_success_a,human_success_b,human_pref,note"
    rows = [
        f"{pairs[0]},t,1,0,A,",  # labelled
        f"{pairs[1]},t,,,,",  # not reviewed
        f"{pairs[2]},t,,,,",  # not reviewed
        f"{pairs[3]},t,,,,looked; unsure",  # a note, no label
        ",,,,,",  # a spreadsheet's empty row
    ]
    path.write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    before = stored(out).get(pairs[3])  # the module's other tests may have labelled it
    done = cli("review", "import", str(out), str(path))
    assert done.returncode == 0, done.stderr
    line = done.stdout.strip()
    assert line.startswith("stored 1 labelled pairs (re-importing the same file changes nothing)")
    assert "; 3 blank rows skipped; 1 row with a note but no label skipped" in line
    assert "(a note is stored with a label only)" in line
    assert stored(out).get(pairs[3]) == before  # its note was not stored

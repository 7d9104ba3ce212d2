"""`review import` says how many rows replaced a different stored label (a note added alone
replaces none: the review of the change found it counted) and how many removed a stored note
(an empty note cell erased a reviewer's note silently: a new user); a label's time moves only
when the label changes."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from judgeaudit.audit.store import AuditStore
from judgeaudit.audit.store.labels import Stored, save_human_labels

LABEL = {"pair_id": "p1", "human_success_a": 1, "human_success_b": 0, "human_pref": "A",
         "note": None}  # fmt: skip


def test_only_a_changed_label_counts_as_replaced(tmp_path: Path) -> None:
    db = tmp_path / "audit.db"
    AuditStore(db).close()
    assert save_human_labels(db, [LABEL]) == Stored(1, 0, 0)  # new: nothing replaced
    assert save_human_labels(db, [LABEL]) == Stored(1, 0, 0)  # the same again
    with_note = {**LABEL, "note": "looked twice"}
    assert save_human_labels(db, [with_note]) == Stored(1, 0, 0)  # a note alone
    assert save_human_labels(db, [{**with_note, "human_pref": "B"}]) == Stored(1, 1, 0)
    assert save_human_labels(db, [{**LABEL, "human_pref": "B"}]) == Stored(1, 0, 1)  # note gone


def labelled_at(db: Path) -> str:
    with sqlite3.connect(db) as conn:
        row = conn.execute("SELECT labelled_at FROM human_labels WHERE pair_id = 'p1'").fetchone()
    return str(row[0])


def test_a_label_s_time_moves_only_when_the_label_changes(tmp_path: Path) -> None:
    db = tmp_path / "audit.db"
    AuditStore(db).close()
    save_human_labels(db, [LABEL])
    first = labelled_at(db)
    time.sleep(1.1)  # CURRENT_TIMESTAMP counts seconds
    save_human_labels(db, [{**LABEL, "note": "a note alone"}])
    assert labelled_at(db) == first
    save_human_labels(db, [{**LABEL, "human_pref": "tie"}])
    assert labelled_at(db) > first


def stored_note(db: Path) -> str | None:
    with sqlite3.connect(db) as conn:
        row = conn.execute("SELECT note FROM human_labels WHERE pair_id = 'p1'").fetchone()
    return None if row[0] is None else str(row[0])


def test_a_sheet_without_a_note_column_keeps_the_stored_notes(tmp_path: Path) -> None:
    """`note` is not a required column: a sheet without it erased every stored note, and then
    said an empty note cell had removed it (reviewer). Without the column the note stays."""
    from judgeaudit.analysis.review_labels import read_sample

    db = tmp_path / "audit.db"
    AuditStore(db).close()
    save_human_labels(db, [{**LABEL, "note": "checked the tool call"}])
    sheet = tmp_path / "sheet.csv"
    sheet.write_text(
        "pair_id,human_success_a,human_success_b,human_pref\np1,0,1,B\n", encoding="utf-8"
    )
    labels = [label for _, label in read_sample(sheet, {"p1"}).numbered]
    assert save_human_labels(db, labels) == Stored(1, 1, 0)
    assert stored_note(db) == "checked the tool call"

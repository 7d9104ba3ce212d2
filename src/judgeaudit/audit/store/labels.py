"""Human review labels in ``human_labels``: the one writer (the CLI's ``review import`` and the
app's Review screen both reach it through :func:`judgeaudit.analysis.label_import.import_labels`).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, NamedTuple

from judgeaudit.audit.store.damage import refusing_damage
from judgeaudit.audit.store.readonly import check_regular
from judgeaudit.audit.store.schema import migrate
from judgeaudit.credentials import scrub_content

#: What a label is (a note beside it is not): what "replaced a different label" compares
LABEL_FIELDS = ("human_success_a", "human_success_b", "human_pref")


class Stored(NamedTuple):
    """What a label import did: rows written, and of them how many replaced a different label
    stored before (a reviewer labelling a pair again, unaware, is told so) and how many
    removed a note stored before (a sheet whose note cell is empty: told, not silent)."""

    written: int
    replaced: int
    notes_cleared: int = 0


def save_human_labels(db_path: Path, labels: list[dict[str, Any]]) -> Stored:
    """Upsert labels (re-importing the same file changes nothing)."""
    check_regular(db_path)
    db = sqlite3.connect(db_path, isolation_level=None)
    # a label without a "note" key (a sheet without the column) keeps the stored note
    rows = [
        {**label, "note": _note(label.get("note")), "keeps_note": "note" not in label}
        for label in labels
    ]
    try:
        with refusing_damage(db_path):  # a damaged file: one line, nothing written
            migrate(db, db_path)
            db.execute("BEGIN IMMEDIATE")
            try:
                replaced, notes_cleared = _replaced(db, rows)
                db.executemany(
                    "INSERT INTO human_labels"
                    " (pair_id, human_success_a, human_success_b, human_pref, note) VALUES (:pair_id, :human_success_a, :human_success_b, :human_pref, :note)"
                    " ON CONFLICT(pair_id) DO UPDATE SET human_success_a = excluded.human_success_a,"
                    " human_success_b = excluded.human_success_b, human_pref = excluded.human_pref,"
                    " note = CASE WHEN :keeps_note THEN human_labels.note ELSE excluded.note END,"
                    " labelled_at = CASE WHEN "
                    + " OR ".join(f"human_labels.{f} IS NOT excluded.{f}" for f in LABEL_FIELDS)
                    + " THEN CURRENT_TIMESTAMP ELSE human_labels.labelled_at END",
                    rows,
                )
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:  # SQLite may have rolled back already (a damaged page)
                    db.execute("ROLLBACK")
                raise
    finally:
        db.close()
    return Stored(len(labels), replaced, notes_cleared)


def _replaced(db: sqlite3.Connection, rows: list[dict[str, Any]]) -> tuple[int, int]:
    """How many of ``rows`` hold a pair whose stored labels differ from theirs (a note added
    or changed alone replaces no label), and how many hold no note where one was stored."""
    fields = ", ".join(LABEL_FIELDS)
    replaced = cleared = 0
    for row in rows:
        before = db.execute(
            f"SELECT {fields}, note FROM human_labels WHERE pair_id = ?", (row["pair_id"],)
        ).fetchone()
        if before is None:
            continue
        replaced += tuple(before[:-1]) != tuple(row.get(f) for f in LABEL_FIELDS)
        cleared += bool(before[-1]) and not row["keeps_note"] and not row.get("note")
    return replaced, cleared


def _note(note: Any) -> Any:
    """A reviewer's note is content like any other: key shapes in it are masked."""
    return scrub_content(note) if isinstance(note, str) else note


def clear_human_labels(db_path: Path, pair_id: str) -> None:
    """Forget one pair's labels (the app's "clear"): the pair counts as unlabelled again."""
    check_regular(db_path)
    db = sqlite3.connect(db_path, isolation_level=None)
    try:
        with refusing_damage(db_path):
            migrate(db, db_path)
            db.execute("DELETE FROM human_labels WHERE pair_id = ?", (pair_id,))
    finally:
        db.close()

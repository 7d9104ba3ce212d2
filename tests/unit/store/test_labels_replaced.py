"""`review import` says how many rows replaced a different stored label: a note added alone
replaces none (the review of the change found it counted)."""

from __future__ import annotations

from pathlib import Path

from judgeaudit.audit.store import AuditStore
from judgeaudit.audit.store.labels import save_human_labels

LABEL = {"pair_id": "p1", "human_success_a": 1, "human_success_b": 0, "human_pref": "A",
         "note": None}  # fmt: skip


def test_only_a_changed_label_counts_as_replaced(tmp_path: Path) -> None:
    db = tmp_path / "audit.db"
    AuditStore(db).close()
    assert save_human_labels(db, [LABEL]) == (1, 0)  # new: nothing replaced
    assert save_human_labels(db, [LABEL]) == (1, 0)  # the same again
    assert save_human_labels(db, [{**LABEL, "note": "looked twice"}]) == (1, 0)  # a note alone
    assert save_human_labels(db, [{**LABEL, "human_pref": "B"}]) == (1, 1)

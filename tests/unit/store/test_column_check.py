"""The column check behind every read-only open of ``audit.db`` (issue 27): the schema is its only
source, a file is checked again once it changed, and the message names what to do."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import get_args

import pytest

from judgeaudit.audit.store import AuditStore, open_readonly
from judgeaudit.audit.store.column_check import ColumnTypeError, rules
from judgeaudit.audit.store.schema import PAIR_COLUMNS, PREFS
from judgeaudit.audit.units.verdict_parse import Pref


def one_pair(path: Path) -> None:
    store = AuditStore(path)
    store.create_run("r1", "hash", {"settings": {}})
    store.close()
    db = sqlite3.connect(path)
    db.execute(
        "INSERT INTO audit_pairs (pair_id, task_id, agent_a, agent_b, success_a, success_b,"
        " judge_pref, run_id, judge_score_a) VALUES ('r1/t/0/a~b', 't', 'a', 'b', 1, 0, 'A',"
        " 'r1', 4.5)"
    )
    db.commit()
    db.close()


def test_the_stored_preferences_are_the_judges_literal() -> None:
    assert get_args(Pref) == PREFS


def test_every_pair_column_has_a_rule_from_the_schema() -> None:
    # a rule per column, in the schema's order, then the rule across the row (test_row_rules.py)
    assert [r.column for r in rules()["audit_pairs"]] == [*PAIR_COLUMNS, "misselected"]
    by_column = {r.column: r.expected for r in rules()["audit_pairs"]}
    assert by_column["success_a"] == "0 or 1" and by_column["judge_pref"] == "A, B or tie"
    assert by_column["trial"] == "an integer" and by_column["reward_a"] == "a number"


def test_a_file_edited_after_a_clean_open_is_checked_again(tmp_path: Path) -> None:
    """The check is remembered per state of the file (a report opens it several times), so an
    edit made while the app stays open is still caught on the next open."""
    path = tmp_path / "audit.db"
    one_pair(path)
    open_readonly(path).close()
    db = sqlite3.connect(path)
    db.execute("UPDATE audit_pairs SET judge_score_a = 'n/a'")
    db.commit()
    db.close()
    with pytest.raises(ColumnTypeError) as refused:
        open_readonly(path)
    message = str(refused.value)
    assert message.startswith(f"{path}: audit_pairs.judge_score_a of pair 'r1/t/0/a~b' holds")
    assert "the text 'n/a' where a number is expected" in message
    assert "re-run the audit (or the import) into a fresh --out" in message


def test_a_huge_or_keylike_value_is_cut_and_masked(tmp_path: Path) -> None:
    path = tmp_path / "audit.db"
    one_pair(path)
    db = sqlite3.connect(path)
    db.execute("UPDATE audit_pairs SET judge_pref = ?", ("sk-" + "q1" * 50_000,))
    db.commit()
    db.close()
    with pytest.raises(ColumnTypeError) as refused:
        open_readonly(path)
    assert len(str(refused.value)) < 400 and "q1q1q1q1q1q1" not in str(refused.value)

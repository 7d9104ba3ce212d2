"""The store's SQL for ``misselected`` says what the outcome's Python rule says, on every
combination a pair can hold (the store sits below the rule's owner, so it keeps SQL of its own)."""

from __future__ import annotations

import itertools
import sqlite3

from judgeaudit.audit.store.schema import DECISIVE_SQL, MISSELECTED_SQL, ROW_RULES, is_decisive
from judgeaudit.audit.units.outcome import decisive, is_misselected


def test_the_sql_agrees_with_is_misselected_on_every_combination() -> None:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE audit_pairs (success_a INTEGER, success_b INTEGER, judge_pref TEXT)")
    combos = list(itertools.product((0, 1), (0, 1), ("A", "B", "tie")))
    db.executemany("INSERT INTO audit_pairs VALUES (?, ?, ?)", combos)
    got = db.execute(f"SELECT success_a, success_b, judge_pref, {MISSELECTED_SQL} FROM audit_pairs")
    by_sql = {(a, b, p): m for a, b, p, m in got}
    assert by_sql == {(a, b, p): int(is_misselected(bool(a), bool(b), p)) for a, b, p in combos}
    # by hand: only a decisive pair whose failed side the judge preferred
    assert sorted(k for k, v in by_sql.items() if v) == [(0, 1, "A"), (1, 0, "B")]


def test_the_decisive_sql_agrees_with_decisive() -> None:
    db = sqlite3.connect(":memory:")
    got = {
        (a, b): db.execute(f"SELECT {DECISIVE_SQL} FROM (SELECT ? AS success_a, ? AS success_b)",
                           (a, b)).fetchone()[0]
        for a, b in itertools.product((0, 1), (0, 1))
    }  # fmt: skip
    assert got == {(a, b): int(decisive(bool(a), bool(b))) for a, b in got}
    assert got == {(0, 0): 0, (0, 1): 1, (1, 0): 1, (1, 1): 0}  # by hand: exactly one succeeded
    # The condition as the joins spell it (a table alias), in a WHERE clause, says the same.
    db.execute("CREATE TABLE audit_pairs (success_a INTEGER, success_b INTEGER)")
    db.executemany("INSERT INTO audit_pairs VALUES (?, ?)", list(got))
    where = db.execute(f"SELECT success_a, success_b FROM audit_pairs p WHERE {is_decisive('p')}")
    assert sorted(where.fetchall()) == [(0, 1), (1, 0)]


def test_the_row_rule_flags_exactly_the_rows_that_disagree() -> None:
    ((column, bad, _expected),) = ROW_RULES["audit_pairs"]
    assert column == "misselected"
    db = sqlite3.connect(":memory:")
    db.execute(
        "CREATE TABLE audit_pairs (success_a INTEGER, success_b INTEGER, judge_pref TEXT,"
        " misselected INTEGER)"
    )
    rows = [(1, 0, "B", 1), (1, 0, "B", 0), (1, 1, "A", 1), (0, 1, "tie", 0), (0, 1, "A", None)]
    db.executemany("INSERT INTO audit_pairs VALUES (?, ?, ?, ?)", rows)
    flagged = db.execute(f"SELECT rowid FROM audit_pairs WHERE {bad} ORDER BY rowid").fetchall()
    assert flagged == [(2,), (3,)]

"""A Parquet's pairs held to the values audit.db's columns may hold, before any figure.

audit.db is checked column by column when it is opened (:mod:`judgeaudit.audit.store.column_check`);
a Parquet given to DuckDB (``--parquet``, a history, the run's own copy) was not, so a copy
edited by another tool (``misselected`` turned round, a preference ``C``, text in a flag) crashed
the report (exit 70: more misselected than decisive pairs) or was counted. The rules are the
column check's own for ``audit_pairs``: the flags' and preferences' domains and the rules across
a row (:data:`~judgeaudit.audit.store.schema.ROW_RULES`), whose SQL DuckDB reads as SQLite does;
the types come with the Parquet's schema. One scan of the few columns they name.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from judgeaudit.analysis.engines.paths import EngineError
from judgeaudit.audit.store.column_check import ColumnRule, quoted, rules
from judgeaudit.audit.store.parquet_out import duck_type
from judgeaudit.audit.store.schema import DOMAINS, PAIR_COLUMNS, ROW_RULES

WHAT_TO_DO = (
    "it was edited or damaged; write it again from audit.db with `judgeaudit export parquet OUT`"
    " (or read audit.db with --engine sqlite)"
)


@cache
def value_rules() -> tuple[ColumnRule, ...]:
    """The column check's ``audit_pairs`` rules that are about values, not SQLite's types."""
    across = {bad for _column, bad, _expected in ROW_RULES["audit_pairs"]}
    domain = DOMAINS["audit_pairs"]
    return tuple(r for r in rules()["audit_pairs"] if r.column in domain or r.bad in across)


#: DuckDB's types each kind of pairs column may have (parquet_out.duck_type names the kind).
ACCEPTED = {
    "BIGINT": frozenset({"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT",
                         "UINTEGER", "UBIGINT", "HUGEINT"}),
    "VARCHAR": frozenset({"VARCHAR"}),
}  # fmt: skip
ACCEPTED["DOUBLE"] = ACCEPTED["BIGINT"] | {"FLOAT", "DOUBLE"}
SHOWN = {"BIGINT": "an integer", "DOUBLE": "a number", "VARCHAR": "text"}


def check_types(con: Any, label: str) -> None:
    """Refuse a pairs column of another type than audit.db's (text where a flag goes: the
    report compared strings with numbers, exit 70)."""
    for name, kind, *_ in con.execute("DESCRIBE audit_pairs").fetchall():
        if name not in PAIR_COLUMNS or str(kind) == "NULL":  # a column of NULLs only
            continue
        wanted = duck_type(name)
        if str(kind) not in ACCEPTED[wanted] and not str(kind).startswith("DECIMAL"):
            raise EngineError(
                f"{label}: column {name} is {kind} where {SHOWN[wanted]} is expected; {WHAT_TO_DO}"
            )


def check_values(con: Any, label: str) -> None:
    """Refuse, in one line naming ``label``, the column and the pair, pairs (the relation
    ``audit_pairs`` on DuckDB connection ``con``) of another type or that break a value rule."""
    from judgeaudit.validate import short, shown_name

    check_types(con, label)
    checked = value_rules()
    where = " OR ".join(f"({r.bad})" for r in checked)
    flags = ", ".join(f"COALESCE(({r.bad}), false)" for r in checked)
    try:
        found = con.execute(
            f"SELECT pair_id, {flags} FROM audit_pairs WHERE {where} LIMIT 1"
        ).fetchone()
    except Exception as exc:  # duckdb.Error: a column of another type (text in a flag)
        first = str(exc).splitlines()[0][:160]
        raise EngineError(
            f"{label}: a pairs column holds another type ({first}); {WHAT_TO_DO}"
        ) from None
    if found is None:
        return
    pair_id, *bad = found
    rule = next(r for r, hit in zip(checked, bad, strict=True) if hit)
    (value,) = con.execute(
        f"SELECT {quoted(rule.column)} FROM audit_pairs WHERE pair_id = ? LIMIT 1", [pair_id]
    ).fetchone()
    raise EngineError(
        f"{label}: audit_pairs.{rule.column} of pair {shown_name(str(pair_id))} holds"
        f" {short(value)} where {rule.expected} is expected; {WHAT_TO_DO}"
    )

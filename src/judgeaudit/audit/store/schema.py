"""``OUT/audit.db``'s schema, its version and the numbered migrations that lead to it.

The one place a table, column or index of ``audit.db`` is defined. ``PRAGMA user_version``
holds the version; :func:`migrate` brings an older file (an unversioned one from before wave 3
included) up to :data:`SCHEMA_VERSION` in one transaction, and refuses a newer one. Add a
change as the next numbered migration, never by editing an earlier one; ``docs/schema.md`` is
generated from this module (``scripts/gen_schema_docs.py``).

``audit_pairs`` and ``judge_logs`` keep the seed's column names and meanings; everything after
``created_at`` is an addition.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from judgeaudit.errors import InputError

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
  run_id TEXT PRIMARY KEY, spec_hash TEXT NOT NULL, manifest TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'running', created_at TEXT DEFAULT CURRENT_TIMESTAMP,
  finished_at TEXT
);
CREATE TABLE IF NOT EXISTS trajectories (
  traj_id TEXT PRIMARY KEY, run_id TEXT NOT NULL, task_id TEXT NOT NULL, task_type TEXT,
  agent TEXT NOT NULL, trial INTEGER NOT NULL, events TEXT NOT NULL, ending TEXT,
  satisfied INTEGER, success INTEGER NOT NULL, success_source TEXT NOT NULL,
  success_detail TEXT, llm_success INTEGER, needs_review INTEGER NOT NULL DEFAULT 0,
  external_reward REAL, created_at TEXT DEFAULT CURRENT_TIMESTAMP, context TEXT
);
CREATE TABLE IF NOT EXISTS audit_pairs (
  pair_id TEXT PRIMARY KEY, task_id TEXT NOT NULL, agent_a TEXT NOT NULL, agent_b TEXT NOT NULL,
  success_a INTEGER NOT NULL, success_b INTEGER NOT NULL, judge_pref TEXT NOT NULL,
  judge_score_a REAL, judge_score_b REAL, reward_gap REAL, misselected INTEGER,
  created_at TEXT DEFAULT CURRENT_TIMESTAMP,
  run_id TEXT NOT NULL, task_type TEXT, trial INTEGER, pref_ab TEXT, pref_ba TEXT,
  consistent INTEGER, gap_source TEXT, satisfied_a INTEGER, satisfied_b INTEGER,
  success_source TEXT, capability_a REAL, capability_b REAL, reward_a REAL, reward_b REAL,
  judge_model TEXT, trial_b INTEGER
);
CREATE TABLE IF NOT EXISTS judge_logs (
  log_id TEXT PRIMARY KEY, pair_id TEXT NOT NULL, role TEXT NOT NULL, model TEXT NOT NULL,
  prompt_hash TEXT, raw_output TEXT, parsed_json TEXT, created_at TEXT DEFAULT CURRENT_TIMESTAMP,
  run_id TEXT NOT NULL, "order" TEXT, attempt INTEGER, latency_ms REAL, prompt_tokens INTEGER,
  completion_tokens INTEGER, parse_error TEXT, prompt_template_hash TEXT
);
CREATE TABLE IF NOT EXISTS tasks (
  run_id TEXT NOT NULL, task_id TEXT NOT NULL, task_json TEXT NOT NULL,
  PRIMARY KEY (run_id, task_id)
);
CREATE TABLE IF NOT EXISTS prompts (
  prompt_hash TEXT PRIMARY KEY, messages_json TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS calls (
  call_id INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL, scope TEXT NOT NULL,
  role TEXT NOT NULL, model TEXT NOT NULL, endpoint TEXT, prompt_tokens INTEGER,
  completion_tokens INTEGER, latency_ms REAL, attempts INTEGER, cost_usd REAL
);
CREATE TABLE IF NOT EXISTS human_labels (
  pair_id TEXT PRIMARY KEY, human_success_a INTEGER, human_success_b INTEGER,
  human_pref TEXT, note TEXT, labelled_at TEXT DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX IF NOT EXISTS pairs_by_run ON audit_pairs(run_id);
CREATE INDEX IF NOT EXISTS logs_by_run ON judge_logs(run_id);
CREATE INDEX IF NOT EXISTS traj_by_run ON trajectories(run_id);
"""

#: The report's index, built once a run has finished (not kept up while a run inserts): its key
#: is the report's grouping, so the report reads the pairs in group order with no sort, and it
#: covers every column the report aggregates, so the report never visits the table's rows.
REPORT_INDEX = (
    "CREATE INDEX IF NOT EXISTS pairs_for_report ON audit_pairs(run_id, judge_model, agent_a,"
    " agent_b, task_type, success_a, success_b, misselected, consistent, judge_pref, pref_ab,"
    " pref_ba, satisfied_a, satisfied_b, judge_score_a, judge_score_b, capability_a,"
    " capability_b, reward_a, reward_b, task_id)"
)

PAIR_COLUMNS = (
    "pair_id",
    "task_id",
    "agent_a",
    "agent_b",
    "success_a",
    "success_b",
    "judge_pref",
    "judge_score_a",
    "judge_score_b",
    "reward_gap",
    "misselected",
    "created_at",
    "run_id",
    "task_type",
    "trial",
    "pref_ab",
    "pref_ba",
    "consistent",
    "gap_source",
    "satisfied_a",
    "satisfied_b",
    "success_source",
    "capability_a",
    "capability_b",
    "reward_a",
    "reward_b",
    "judge_model",
    "trial_b",
    "source_id",
)
#: Columns added by migration 5. ``audit_pairs.source_id``: the pair's own id in the log or
#: pairs file it was imported from, so a pair the audit flags can be traced back to its
#: production record; NULL for simulated pairs.
LATER_COLUMNS = {"audit_pairs": {"source_id": "TEXT"}}
#: Pairs columns a Parquet copy may lack: copies written before the column was added (engines
#: read them as NULL); every other column of :data:`PAIR_COLUMNS` each copy must hold.
LATER_PAIR_COLUMNS = tuple(LATER_COLUMNS["audit_pairs"])
COPY_PAIR_COLUMNS = tuple(c for c in PAIR_COLUMNS if c not in LATER_PAIR_COLUMNS)
LOG_COLUMNS = (
    "log_id",
    "pair_id",
    "role",
    "model",
    "prompt_hash",
    "raw_output",
    "parsed_json",
    "created_at",
    "run_id",
    "order",
    "attempt",
    "latency_ms",
    "prompt_tokens",
    "completion_tokens",
    "parse_error",
    "prompt_template_hash",
)


def column_list(columns: Iterable[str]) -> str:
    """``columns`` as an SQL column list, each name quoted (``"order"`` is a keyword)."""
    return ", ".join(f'"{c}"' for c in columns)


def tables_of(db: sqlite3.Connection) -> list[str]:
    """The tables this file has, in the order they were made, SQLite's own (``sqlite_sequence``)
    left out; a TEMP table on the connection is not in the file and is not listed."""
    rows = db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
    )
    return [str(r[0]) for r in rows]


def has_table(db: sqlite3.Connection, name: str) -> bool:
    """Whether this file has ``name`` (an older file, or a history's records, lacks some): the
    one place that asks, so a TEMP table of that name never answers for the file."""
    row = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
    ).fetchone()
    return row is not None


def columns_of(db: sqlite3.Connection, table: str) -> set[str]:
    """The columns this file's ``table`` has (an older file read unmigrated lacks later ones)."""
    return {str(r[1]) for r in db.execute(f"PRAGMA table_info({table})")}


def has_source_ids(db: sqlite3.Connection) -> bool:
    """Whether this file's ``audit_pairs`` has ``source_id`` (a read-only file of schema 4 or
    older is read unmigrated and has not)."""
    return "source_id" in columns_of(db, "audit_pairs")


def pair_select(db: sqlite3.Connection, columns: Iterable[str] = PAIR_COLUMNS) -> str:
    """``columns`` of ``audit_pairs`` as a select list over this file: a column a read-only
    older file lacks (it is read unmigrated) reads as NULL. A quoted name that is no column is
    a string to SQLite: every row of such a copy said ``source_id = 'source_id'``."""
    have = columns_of(db, "audit_pairs")
    return ", ".join(f'"{c}"' if c in have else f'NULL AS "{c}"' for c in columns)


#: The columns that hold content (conversations, tool results, judge replies, errors, notes):
#: every write passes them through :func:`judgeaudit.credentials.scrub_content`, so a key quoted
#: in a conversation or a provider's error never reaches ``audit.db`` or anything derived from it.
CONTENT_COLUMNS = {
    "runs": frozenset({"manifest"}),
    "trajectories": frozenset({"events", "success_detail", "context"}),
    "judge_logs": frozenset({"raw_output", "parsed_json", "parse_error"}),
    "tasks": frozenset({"task_json"}),
    "prompts": frozenset({"messages_json"}),
    "human_labels": frozenset({"note"}),
}
#: A judge's (and a reviewer's) preference, as stored; ``verdict_parse.Pref`` is the same three.
PREFS = ("A", "B", "tie")
#: The values a column may hold beyond its declared type: flags are 0 or 1 (readers sum them),
#: preferences are :data:`PREFS`, an order is AB or BA. Checked with the declared types and NOT
#: NULLs by :mod:`judgeaudit.audit.store.column_check` before anything reads ``audit.db``.
FLAG = (0, 1)
DOMAINS: dict[str, dict[str, tuple[object, ...]]] = {
    "audit_pairs": {
        **dict.fromkeys(
            ("success_a", "success_b", "misselected", "consistent", "satisfied_a", "satisfied_b"),
            FLAG,
        ),
        **dict.fromkeys(("judge_pref", "pref_ab", "pref_ba"), PREFS),
    },
    "trajectories": dict.fromkeys(("satisfied", "success", "llm_success", "needs_review"), FLAG),
    "judge_logs": {"order": ("AB", "BA")},
    "human_labels": {"human_success_a": FLAG, "human_success_b": FLAG, "human_pref": PREFS},
}
#: What ``misselected`` must say, given its pair's other columns (the data contract): 1 exactly
#: where the pair is decisive and the judge preferred the side that failed
#: (:func:`judgeaudit.audit.units.outcome.is_misselected`, held to this SQL by
#: ``tests/unit/store/test_row_rules.py``), else 0; NULL is left to readers as before. A hand
#: edit that breaks it made the report's rates impossible (more misselected than decisive
#: pairs: exit 70) or silently wrong.
MISSELECTED_SQL = (
    "CASE WHEN (success_a = 1 AND success_b = 0 AND judge_pref = 'B')"
    " OR (success_a = 0 AND success_b = 1 AND judge_pref = 'A') THEN 1 ELSE 0 END"
)


def is_decisive(alias: str = "") -> str:
    """:func:`judgeaudit.audit.units.outcome.decisive` as an SQL condition over ``audit_pairs``
    (``alias``: the table's name in a join), in every engine's dialect; the one spelling of it
    in SQL (held to ``decisive`` by ``tests/unit/store/test_row_rules.py``)."""
    side = f"{alias}." if alias else ""
    return f"({side}success_a != {side}success_b)"


#: :func:`is_decisive` as a 0/1 count: the report's and the store's counts.
DECISIVE_SQL = f"CAST({is_decisive()} AS INTEGER)"
#: A pair's ``misselected`` flag as a count in SQL (NULL, a pair not judged, counts 0).
MISSELECTED_COUNT_SQL = "COALESCE(misselected, 0)"
#: Rules across a row's columns, checked with the column rules (same message): per table,
#: (the column the message names, SQL true for a row that breaks it, what is expected).
ROW_RULES: dict[str, tuple[tuple[str, str, str], ...]] = {
    "audit_pairs": (
        (
            "misselected",
            f"misselected IS NOT NULL AND misselected <> ({MISSELECTED_SQL})",  # DuckDB too
            "what success_a, success_b and judge_pref say (1 exactly where the judge preferred"
            " the side that failed on a decisive pair)",
        ),
    ),
}
#: Columns added after the first release (migration 2 adds them to an older audit.db).
ADDED_COLUMNS = {
    "judge_logs": {"prompt_template_hash": "TEXT"},
    "trajectories": {"copied_from": "TEXT", "context": "TEXT"},
    "audit_pairs": {"trial_b": "INTEGER"},
}


#: A finished run's verdict counts (see :mod:`judgeaudit.audit.store.verdict_counts`).
COUNTS_TABLE = (
    "CREATE TABLE IF NOT EXISTS verdict_counts (run_id TEXT NOT NULL, judge_model TEXT,"
    " orders INTEGER, missing INTEGER, calls INTEGER, failed INTEGER, pairs INTEGER,"
    " without INTEGER, decisive_without INTEGER)"
)
#: A finished run's judged orders and orders without a verdict per (judge model, task): the
#: no-verdict share's interval is clustered by task as every other rate's, without reading
#: ``judge_logs`` again (see :mod:`judgeaudit.audit.store.verdict_counts`).
TASK_COUNTS_TABLE = (
    "CREATE TABLE IF NOT EXISTS verdict_tasks (run_id TEXT NOT NULL, judge_model TEXT,"
    " task_id TEXT, orders INTEGER, missing INTEGER)"
)


class SchemaError(InputError):
    """An ``audit.db`` this version cannot read (written by a newer judgeaudit)."""


@dataclass(frozen=True)
class Migration:
    version: int
    title: str
    apply: Callable[[sqlite3.Connection], None]


def _base(db: sqlite3.Connection) -> None:
    for statement in SCHEMA.split(";"):
        if statement.strip():
            db.execute(statement)


def _add_columns(db: sqlite3.Connection, added: dict[str, dict[str, str]]) -> None:
    """Each (table, column, type) of ``added`` that the file lacks (idempotent)."""
    for table, columns in added.items():
        have = columns_of(db, table)
        for name, kind in columns.items():
            if name not in have:
                db.execute(f"ALTER TABLE {table} ADD COLUMN {name} {kind}")


def _added_columns(db: sqlite3.Connection) -> None:
    _add_columns(db, ADDED_COLUMNS)


def _verdict_counts(db: sqlite3.Connection) -> None:
    db.execute(COUNTS_TABLE)


def _verdict_tasks(db: sqlite3.Connection) -> None:
    db.execute(TASK_COUNTS_TABLE)


#: How many times a row of ``audit_pairs`` was changed or deleted since the file was made (one
#: row): SQLite bumps it through :data:`EDIT_TRIGGERS`, whoever writes, so a Parquet copy of
#: the pairs records the count it was written at and ``--engine auto`` reads it only while the
#: count is the same (an ``UPDATE`` by hand after the copy sends the report back to audit.db).
#: Inserts are not counted: a copy also holds as many pairs as audit.db. The run's own
#: capability fill drops the triggers inside its transaction and counts once
#: (:func:`judgeaudit.audit.store.bulk.fill_capability`: two per-row triggers cost 0.7 s of
#: CPU per 1M pairs).
EDITS_TABLE = "pairs_edits"
EDIT_TRIGGERS = {
    f"audit_pairs_{verb}d": f"CREATE TRIGGER IF NOT EXISTS audit_pairs_{verb}d AFTER {verb.upper()}"
    f" ON audit_pairs BEGIN UPDATE {EDITS_TABLE} SET edits = edits + 1; END"
    for verb in ("update", "delete")
}


def _later_columns(db: sqlite3.Connection) -> None:
    _add_columns(db, LATER_COLUMNS)


def _pairs_edits(db: sqlite3.Connection) -> None:
    db.execute(f"CREATE TABLE IF NOT EXISTS {EDITS_TABLE} (edits INTEGER NOT NULL)")
    db.execute(f"INSERT INTO {EDITS_TABLE} SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM {EDITS_TABLE})")
    for trigger in EDIT_TRIGGERS.values():
        db.execute(trigger)


#: Numbered, in order; each is idempotent, so an unversioned file of any earlier release
#: (which may hold some of these already) is brought up by running all of them.
MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "the wave-1 tables and their indexes", _base),
    Migration(
        2,
        "columns added in wave 2: "
        + ", ".join(f"{t}.{c}" for t, cols in ADDED_COLUMNS.items() for c in cols),
        _added_columns,
    ),
    Migration(3, "verdict_counts: a finished run's verdict counts", _verdict_counts),
    Migration(
        4, "pairs_edits: audit_pairs' rows changed or deleted, counted by triggers", _pairs_edits
    ),
    Migration(
        5,
        "audit_pairs.source_id: an imported pair's own id in the log it came from",
        _later_columns,
    ),
    Migration(
        6,
        "verdict_tasks: a finished run's verdict counts per judge model and task",
        _verdict_tasks,
    ),
)
SCHEMA_VERSION = MIGRATIONS[-1].version


def version(db: sqlite3.Connection) -> int:
    return int(db.execute("PRAGMA user_version").fetchone()[0])


def check_readable(db: sqlite3.Connection, path: Path) -> int:
    """The file's schema version; a newer one than this release knows is refused in one line."""
    found = version(db)
    if found > SCHEMA_VERSION:
        raise SchemaError(
            f"{path}: written by a newer judgeaudit (audit.db schema {found}; this one reads up "
            f"to {SCHEMA_VERSION}); upgrade judgeaudit to read it"
        )
    return found


def migrate(db: sqlite3.Connection, path: Path) -> int:
    """Bring ``db`` (autocommit connection) to :data:`SCHEMA_VERSION`; returns the old version."""
    found = check_readable(db, path)
    if found == SCHEMA_VERSION:
        return found
    db.execute("BEGIN IMMEDIATE")
    try:
        found = check_readable(db, path)  # another process may have migrated it meanwhile
        for migration in MIGRATIONS:
            if migration.version > found:
                migration.apply(db)
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    return found

"""Cross-row checks over one pairs file (:class:`ImportedSet`), streaming: a (task, agent, trial)
seen twice must carry the same trajectory and labels, a task id the same task, and a pair
appears once. Used by the run's validation pass and by the importers that write pairs files
(``import``), so both refuse the same file with the same line.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from typing import Any

from judgeaudit.audit.tasks.errors import TaskError
from judgeaudit.audit.units.work import ImportedPair

DEFERRED_BATCH = 50_000  # deferred keys held in memory before they are stored
SORT_CACHE_KIB = -8192  # the page cache (8 MiB, SQLite's negative-KiB form) while keys are grouped


class ImportedSet:
    """Cross-row checks over one pairs file, streaming: duplicates and conflicting content.

    Keeps one digest per trajectory, task and pair (not the rows), and a running hash of the
    content, so the task-set hash covers trajectories and labels and a changed file is a new spec.
    """

    def __init__(
        self, db: sqlite3.Connection | None = None, *, hashed: bool = True, deferred: bool = False
    ) -> None:
        """``hashed=False``: checks only, no content hash (``import`` hashes what it writes).

        ``deferred=True`` (with ``db``): nothing is looked up per row; every (key, digest) is
        kept and :meth:`clash` asks in one grouped query whether any key has two digests. It
        says *whether* the file clashes, not where: a caller that finds one runs the streaming
        checks again to name the first clashing line."""
        self.db = db  # a scratch database for files too large to remember in memory
        self.hashed = hashed
        self.seen: dict[int, tuple[int, str]] = {}
        self.pending: list[tuple[int, int]] | None = [] if deferred and db is not None else None
        if db is not None and self.pending is not None:
            db.execute("CREATE TABLE IF NOT EXISTS seen_all (key INTEGER, digest INTEGER)")
        elif db is not None:
            db.execute("PRAGMA cache_size = -65536")  # 64 MiB of pages: bounded, and fewer reads
            # Integer keys: a rowid table, the cheapest random insert.
            db.execute(
                "CREATE TABLE IF NOT EXISTS seen (key INTEGER PRIMARY KEY, digest INTEGER, at TEXT)"
            )
        self.content = ContentHash()
        self.count = 0

    def _remember(self, key: int, digest: int, where: str) -> tuple[int, str]:
        """The (digest, where) first stored under ``key``; stores this one if it is new
        (deferred: kept for :meth:`clash`, and this one returned)."""
        if self.pending is not None:
            self.pending.append((key, digest))
            if len(self.pending) >= DEFERRED_BATCH:
                self.flush()
            return digest, where
        if self.db is None:
            return self.seen.setdefault(key, (digest, where))
        inserted = self.db.execute(
            "INSERT OR IGNORE INTO seen VALUES (?, ?, ?)", (key, digest, where)
        ).rowcount
        if inserted:
            return digest, where
        found = self.db.execute("SELECT digest, at FROM seen WHERE key = ?", (key,)).fetchone()
        return int(found[0]), str(found[1])

    def add(self, pair: ImportedPair, row: dict[str, Any]) -> None:
        where = pair.where
        task = pair.task
        task_digest = _task_digest(task.task_type, task.instruction, pair.context)
        seen_task = self._remember(_key("task", task.task_id), task_digest, where)
        if seen_task[0] != task_digest:
            raise TaskError(
                f"{where}: task: task_id {task.task_id!r} has a different task, task_type or "
                f"context than on {seen_task[1]}; give each task id one task"
            )
        key = (task.task_id, pair.agent_a, pair.trial_a, pair.agent_b, pair.trial_b)
        mirror = (task.task_id, pair.agent_b, pair.trial_b, pair.agent_a, pair.trial_a)
        # The digest is the row's number: a pair key seen twice is a clash in deferred mode.
        first = self._remember(_key("pair", *sorted([key, mirror])), self.count, where)
        if first[1] != where:
            raise TaskError(
                f"{where}: agent_b: the pair {pair.agent_a!r}/{pair.agent_b!r} on task "
                f"{task.task_id!r} trial {pair.trial_a} is already on {first[1]}; "
                "list each pair once"
            )
        for side, agent, trial, events, success, reward, satisfied in (
            (
                "a",
                pair.agent_a,
                pair.trial_a,
                pair.events_a,
                pair.success_a,
                pair.reward_a,
                pair.satisfied_a,
            ),
            (
                "b",
                pair.agent_b,
                pair.trial_b,
                pair.events_b,
                pair.success_b,
                pair.reward_b,
                pair.satisfied_b,
            ),
        ):
            digest = _side_digest(events, success, reward, satisfied)
            seen = self._remember(_key("side", task.task_id, agent, trial), digest, where)
            if seen[0] != digest:
                raise TaskError(
                    f"{where}: trajectory_{side}: agent {agent!r} on task {task.task_id!r} trial "
                    f"{trial} has a different trajectory or label than on {seen[1]}; give "
                    f"each (task, agent, trial) one trajectory, or set trial_{side}"
                )
        if self.hashed:
            self.content.add(row)
        self.count += 1

    def hash(self) -> str:
        return self.content.hash()

    def flush(self) -> None:
        """Store the deferred keys held in memory (one ``executemany``)."""
        if self.pending and self.db is not None:
            self.db.executemany("INSERT INTO seen_all VALUES (?, ?)", self.pending)
            self.pending.clear()

    def clash(self) -> bool:
        """Deferred mode: whether any key was seen with two digests (a task with two texts, a
        side with two trajectories, a pair listed twice), in one grouped query."""
        if self.db is None or self.pending is None:
            return False
        self.flush()
        # The grouping sorts every key (4M at 1M pairs). With the import's 64 MiB page cache
        # SQLite sorted them in memory: +64 MiB peak RSS, 3.9 s CPU for 4M keys; an 8 MiB
        # cache makes it merge runs spilled to a temp file: no growth, 2.7 s
        # (docs/benchmarks.md, goal 4).
        (cache,) = self.db.execute("PRAGMA cache_size").fetchone()
        self.db.execute(f"PRAGMA cache_size = {SORT_CACHE_KIB}")
        try:
            found = self.db.execute(
                "SELECT 1 FROM seen_all GROUP BY key HAVING MIN(digest) <> MAX(digest) LIMIT 1"
            ).fetchone()
        finally:
            self.db.execute(f"PRAGMA cache_size = {int(cache)}")
        return found is not None


class ContentHash:
    """The hash of what a pairs file holds, row by row (keys in any order): the one rule, fed by
    the run's validation and by ``import`` as it writes a file (its record, see
    :mod:`judgeaudit.audit.inputs.checked`)."""

    def __init__(self) -> None:
        self.sha = hashlib.sha256()

    def add(self, row: dict[str, Any]) -> None:
        self.add_canonical(canonical(row))

    def add_canonical(self, text: str) -> None:
        """:meth:`add` of the row whose :func:`canonical` text is ``text`` (``import`` builds it
        from texts it already has, :mod:`judgeaudit.rollouts.recorded_text`)."""
        # 128 bits of each row's SHA-256: short keys, no collisions.
        self.sha.update(hashlib.sha256(text.encode()).hexdigest()[:32].encode())

    def hash(self) -> str:
        return self.sha.hexdigest()[:16]


def _key(*parts: Any) -> int:
    """A key over ids and numbers (strings, ints and tuples of them), for this process only:
    Python's 64-bit hash (a false clash is as unlikely as with 63 bits of SHA-256, which this
    replaced; nothing keyed by it outlives the check)."""
    return hash(parts)


#: ``json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))``, without
#: building an encoder per call (millions of calls on a large file): the text a row's content
#: hash is taken of.
canonical = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode


def _same(value: Any) -> int:
    """A digest that two equal JSON values share (keys in any order), for this process only."""
    return hash(canonical(value))


#: JSON scalars: among these, a value's ``repr`` fixes its JSON text and the reverse (a float's
#: JSON text is its ``repr``; True is "true", 1 is "1", "1" is a string).
_SCALARS = frozenset((str, bool, int, float, type(None)))


def _task_digest(task_type: Any, instruction: Any, context: Any) -> int:
    """:func:`_same` of ``[task_type, instruction, context]``, without encoding it for a text task
    type, an instruction of texts by language (``{"en": goal}``, as
    :func:`~judgeaudit.audit.inputs.imported.parse_pair` builds it) and a scalar context: equal
    lists share the digest, unequal ones differ but for a 64-bit collision, as with ``_same``
    (a dict's JSON sorts its keys: so do its sorted items)."""
    if (
        type(task_type) is str
        and type(instruction) is dict
        and type(context) in _SCALARS
        and all(type(k) is str and type(v) is str for k, v in instruction.items())
    ):
        return hash((1, task_type, tuple(sorted(instruction.items())), repr(context)))
    return _same([task_type, instruction, context])


def _side_digest(events: Any, success: Any, reward: Any, satisfied: Any) -> int:
    """:func:`_same` of ``[events, success, reward, satisfied]``, without encoding it for a side
    without events (every side of a production log): the ``repr`` of each scalar fixes its JSON
    text. The path depends on the values' types alone, so two sides with equal JSON always take
    the same one (about 0.5 s of CPU per 100,000 pairs saved, docs/benchmarks.md)."""
    if (
        type(events) is list
        and not events
        and type(success) in _SCALARS
        and type(reward) in _SCALARS
        and type(satisfied) in _SCALARS
    ):
        return hash((0, repr(success), repr(reward), repr(satisfied)))
    return _same([events, success, reward, satisfied])


__all__ = ["ContentHash", "ImportedSet", "canonical"]

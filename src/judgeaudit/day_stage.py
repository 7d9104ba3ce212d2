"""Where ``judgeaudit trend`` audits one daily file before the audit becomes the day's folder.

A day is audited in a staging folder beside its folder, ``WORK/.DAY.new-<hex>``, that replaces
``WORK/DAY/`` only once its audit finished. Each staging folder holds :data:`MARK`, which says
that trend made it and for which content (the file's SHA-256 and the audit's spec). So a trend
killed (``kill -9``, the machine down) or stopped short (exit 4, Ctrl-C, SIGTERM) leaves a
folder the next trend knows as its own: it resumes the audit there when the file and the spec
are still the same (the runner's own resume, as ``judgeaudit run`` resumes), and removes it
when they are not. A folder without the mark is never touched (a user's), bar an empty one of
trend's exact name (a kill between its ``mkdir`` and its mark: nothing in it to lose). Only
one trend works in a work folder at a time (:func:`holding`), so no trend removes a staging
folder another is writing. Sits beside :mod:`judgeaudit.daily`, which it serves.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from judgeaudit.analysis.frame import open_db
from judgeaudit.audit.store.out_lock import writing
from judgeaudit.audit.store.schema import has_table
from judgeaudit.errors import JudgeauditError
from judgeaudit.fsutil import atomic_write_text

#: The file in a staging folder that says trend made it, for which file content and spec.
MARK = "trend-stage.json"
#: Where a re-audited day's earlier audit is kept (the last one), under the work folder.
REPLACED = ".replaced"
#: A staging folder's name: ``.DAY.new-`` and 8 hex digits (:func:`fresh_dir`).
_STAGE_NAME = re.compile(r"^\.(?P<day>.+)\.new-[0-9a-f]{8}$")
_MADE_BY = "judgeaudit trend"


@contextmanager
def holding(work: Path) -> Iterator[None]:
    """One trend at a time in ``work`` (an existing folder): a second is refused in one line
    (exit 2) rather than remove or replace what the first is writing."""
    with writing(work, ("another trend", "wait for it to end")):
        yield


def stages(work: Path, digests: dict[str, str], spec: dict[str, str]) -> dict[str, Path]:
    """The staging folders trend left in ``work`` that the next audit of their day resumes
    (same file content, same spec), by day; every other one trend made is removed, with the
    day gone from the folder or its file changed since. ``digests``: each day's file SHA-256;
    ``spec``: each day's audit spec as it would be written now."""
    resumable: dict[str, Path] = {}
    for folder in sorted(work.iterdir()) if work.is_dir() else []:
        named = _STAGE_NAME.match(folder.name)
        if named is None or not folder.is_dir() or folder.is_symlink():
            continue
        mark = _mark(folder)
        if mark is None:
            _remove_if_empty(folder)  # a user's folder is never touched; an empty one is ours
            continue
        day = named["day"]
        if (
            day not in resumable
            and mark.get("sha256") == digests.get(day)
            and mark.get("spec") == spec.get(day)
        ):
            resumable[day] = folder
        else:
            shutil.rmtree(folder)
    return resumable


def new_stage(work: Path, day: str, source: Path, digest: str, spec: str) -> Path:
    """A new staging folder for ``day``'s audit of ``source`` (its content ``digest``), marked."""
    folder = fresh_dir(work, f".{day}.new-")
    mark = {"made_by": _MADE_BY, "source": str(source), "sha256": digest, "spec": spec}
    atomic_write_text(folder / MARK, json.dumps(mark, indent=1) + "\n")
    return folder


def _mark(folder: Path) -> dict[str, Any] | None:
    path = folder / MARK
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > 1 << 16:
            return None
        mark = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return mark if isinstance(mark, dict) and mark.get("made_by") == _MADE_BY else None


def _remove_if_empty(folder: Path) -> None:
    with contextlib.suppress(OSError):  # not empty (or not ours to remove): left as it is
        folder.rmdir()


def replace(stage: Path, out: Path) -> Path | None:
    """``stage`` becomes ``out``; where the earlier ``out`` is kept, if there was one. It is
    moved aside first and kept under ``WORK/.replaced/``: as ``<day>`` (the last one, replacing
    the one before), or, when it holds human labels, as ``<day>.1``, ``<day>.2``, never renamed
    or deleted after (labels are never deleted, and the path a trend named stays true). Two
    levels down, so a trend of ``WORK`` itself does not count it as a second run of the day."""
    if not out.exists():
        os.rename(stage, out)
        (out / MARK).unlink(missing_ok=True)
        return None
    shelf = out.parent / REPLACED
    shelf.mkdir(exist_ok=True)
    aside = fresh_dir(shelf, f".{out.name}-")
    os.rename(out, aside / "run")
    try:
        os.rename(stage, out)
    except BaseException:
        os.rename(aside / "run", out)  # the earlier audit back in its place
        aside.rmdir()
        raise
    (out / MARK).unlink(missing_ok=True)
    earlier = shelf / out.name
    if holds_labels(earlier):  # a human's labels are never deleted: that copy keeps a number
        earlier.rename(_numbered(shelf, out.name))
    shutil.rmtree(earlier, ignore_errors=True)
    kept = _numbered(shelf, out.name) if holds_labels(aside / "run") else earlier
    os.rename(aside / "run", kept)
    aside.rmdir()
    return kept


def _numbered(shelf: Path, day: str) -> Path:
    """The next free ``<day>.N`` on the shelf: a copy with labels keeps its name for good."""
    return next(shelf / f"{day}.{n}" for n in range(1, 10**6)
                if not (shelf / f"{day}.{n}").exists())  # fmt: skip


def fresh_dir(parent: Path, prefix: str) -> Path:
    """A new folder under ``parent``, made with the user's umask (a day folder is as readable as
    any other output; ``mkdtemp`` would make it 0700)."""
    while True:
        folder = parent / f"{prefix}{secrets.token_hex(4)}"
        try:
            folder.mkdir()
            return folder
        except FileExistsError:
            continue


def holds_labels(folder: Path) -> bool:
    """Whether ``folder``'s audit holds human labels (imported into a day's audit by hand)."""
    if not (folder / "audit.db").is_file():
        return False
    try:
        db = open_db(folder)
    except JudgeauditError:
        return True  # unreadable: kept, not judged
    try:
        return has_table(db, "human_labels") and bool(
            db.execute("SELECT 1 FROM human_labels LIMIT 1").fetchone()
        )
    finally:
        db.close()

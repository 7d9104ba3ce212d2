"""Where a command may write the file a user names (``report``/``judges``/``trend --output``,
``export preferences``/``review export``/``import --out``): the one guard each calls before it
writes anything.

Why one owner: a user's ``--output out/demo/audit.db`` replaced the database with the text
report (the human labels with it), and ``--output out/demo/review_sample.csv`` a reviewer's
filled-in sample, each with exit 0. So no output may land on a file the command reads, nor on
a file a run directory owns (its database and SQLite's files beside it, the manifest, the
derived files, the Parquet, the review sample), with or without ``--force``: the names come from
their owners, and paths are compared resolved (symlinks, ``./``) and by inode (hard links). Any
other existing file keeps its command's rule (replaced, or refused without ``--force``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from judgeaudit.analysis.report_render import CHART_SVG, REPORT_HTML
from judgeaudit.analysis.review import SAMPLE_FILE
from judgeaudit.audit.export import LOGS_JSONL, MANIFEST, PAIRS_CSV
from judgeaudit.audit.store.parquet_out import PARQUET
from judgeaudit.audit.store.readonly import DB_FILE, DB_SIDECARS
from judgeaudit.errors import InputError


class OutputRefused(InputError):
    """An output path that would replace a file the command reads or a run owns (exit 2)."""


#: The files an output directory's run owns: never replaced by a command's output.
RUN_FILES = (
    DB_FILE,
    *(DB_FILE + suffix for suffix in DB_SIDECARS),
    MANIFEST,
    PAIRS_CSV,
    LOGS_JSONL,
    PARQUET,
    SAMPLE_FILE,
    REPORT_HTML,
    CHART_SVG,
)


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))


def _inode(path: Path) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def _run_dir(path: Path) -> Path | None:
    """The run directory ``path`` names (a folder, or its ``audit.db``), or None."""
    if path.is_dir():
        return path
    return path.parent if path.name == DB_FILE else None


def _read_files(reads: Iterable[Path], kept: frozenset[str]) -> list[tuple[Path, str]]:
    """Every file the command reads, with how to say so: a run directory's own files (but the
    ``kept`` names), or the file itself."""
    files: list[tuple[Path, str]] = []
    for read in reads:
        folder = _run_dir(read)
        if folder is None:
            files.append((read, "which this command reads"))
            continue
        role = f"a file of the run in {folder}, which this command reads"
        files += [(folder / name, role) for name in RUN_FILES if name not in kept]
    return files


def check_output(
    path: Path, flag: str, reads: Iterable[Path] = (), may_replace: Iterable[str] = ()
) -> None:
    """Refuse ``path`` in one line (exit 2, before anything is written) when it is, or links
    to, a file in ``reads`` (files, or run directories meaning all their files), or when it is
    one of :data:`RUN_FILES` in a folder holding an ``audit.db``. ``may_replace`` names the run
    files the command itself writes in the run directory it reads (``review export``'s sample,
    ``export parquet``'s Parquet), never in another run's."""
    kept, reads = frozenset(may_replace), list(reads)
    real, inode = _real(path), _inode(path)
    for read, role in _read_files(reads, kept):
        if _real(read) == real or (inode is not None and _inode(read) == inode):
            shown = "" if _real(read) == real else " (the same file by a hard link)"
            raise OutputRefused(
                f"{flag} {path}: is {read}{shown}, {role}; write the output to another file "
                "(nothing was written; --force does not change this)"
            )
    folder = real.parent
    ours = any(_real(f) == folder for f in map(_run_dir, reads) if f is not None)
    # a case-insensitive disk (macOS) takes AUDIT.DB for audit.db: names compared casefolded
    name = next((n for n in RUN_FILES if n.casefold() == real.name.casefold()), None)
    if name and not (ours and name in kept) and (folder / DB_FILE).exists():
        raise OutputRefused(
            f"{flag} {path}: is {name}, a file of the run in {folder}; write the output "
            "outside the run's files, e.g. under a new file name (nothing was written; --force "
            "does not change this)"
        )

"""Where a run may write: an output directory is refused before anything is created in it
(a file, an unwritable place, our report files without their ``audit.db``, an ``audit.db``
that is not SQLite), for ``run``, ``rejudge``, ``demo`` and a dry run alike."""

from __future__ import annotations

import os
from pathlib import Path

from judgeaudit import safeio
from judgeaudit.runfiles import CHART_SVG, LOGS_JSONL, MANIFEST, PAIRS_CSV, REPORT_HTML
from judgeaudit.validate import SQLITE_HEADER, ValidationError

#: Files an audit writes into OUT besides audit.db; never overwritten in a directory we did not make.
DERIVED = (PAIRS_CSV, LOGS_JSONL, MANIFEST, REPORT_HTML, CHART_SVG)


def check_out_dir(out: Path, flag_name: str = "--out") -> None:
    """Refuse an output directory before anything is created in it.

    A file, a path under a file, a directory we cannot write, a directory holding our report
    files but no ``audit.db`` (they would be overwritten), or an ``audit.db`` that is not SQLite.
    """
    if out.exists() and not out.is_dir():
        raise ValidationError(
            f"{out}: {flag_name} is a file; give a directory (it will hold audit.db and reports)"
        )
    existing = out
    while not existing.exists():
        if existing.parent == existing:
            break
        existing = existing.parent
    if existing.exists() and not existing.is_dir():
        raise ValidationError(f"{existing}: is a file, so {out} cannot be created; fix {flag_name}")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise ValidationError(f"{existing}: not writable; choose another {flag_name}")
    safeio.check_writable(existing, flag_name, ValidationError)  # root, immutable directories
    if not out.is_dir():
        return
    db = out / "audit.db"
    if db.exists() or db.is_symlink():
        try:
            handle = safeio.open_regular(db, "audit database", ValidationError)
        except ValidationError:
            raise ValidationError(
                f"{db}: is not a regular file; move it aside or choose another {flag_name}"
            ) from None
        with handle:
            head = handle.read(len(SQLITE_HEADER))
        if head and head != SQLITE_HEADER:
            raise ValidationError(
                f"{db}: is not an audit database (not SQLite); move it aside or choose another "
                f"{flag_name}"
            )
        return
    ours = [name for name in DERIVED if (out / name).exists()]
    if ours:
        raise ValidationError(
            f"{out}: holds {ours[0]} but no audit.db, so it was not written by judgeaudit run; "
            f"choose an empty or new {flag_name} directory (nothing was written)"
        )

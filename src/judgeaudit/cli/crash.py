"""The CLI's safety net: an unexpected exception becomes one line naming a log file.

Deliberate errors are :class:`~judgeaudit.errors.JudgeauditError` and never get here. Anything
else is a bug or an environment failure: the user sees one line (never a traceback) and the
traceback goes to a file they can attach to a report. A full disk is not a bug: it gets its own
line and exit 4, since rerunning the same command after freeing space finishes the work.
"""

from __future__ import annotations

import os
import sys
import time
import traceback
from pathlib import Path

from judgeaudit.cli.scrubbed import shown
from judgeaudit.errors import IncompleteRun
from judgeaudit.fsutil import atomic_write_text, is_disk_full

LOG_DIR_ENV = "JUDGEAUDIT_LOG_DIR"
EXIT_BUG = 70  # EX_SOFTWARE: an internal error


def log_dir() -> Path:
    override = os.environ.get(LOG_DIR_ENV)
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_log_dir("judgeaudit"))


def handle(exc: BaseException, argv: list[str]) -> int:
    """Print one line for ``exc`` and return the exit code; the traceback goes to a log file."""
    if is_disk_full(exc):
        where = getattr(exc, "filename", None)
        place = f" writing {where}" if where else ""
        print(
            f"judgeaudit: the disk is full{place}; free some space and rerun the same command "
            "(finished work is kept, nothing half-written is)",
            file=sys.stderr,
        )
        return IncompleteRun.exit_code
    command = argv[0] if argv else "tui"
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = log_dir() / f"crash-{stamp}-{os.getpid()}.log"
    text = f"judgeaudit {command} failed unexpectedly\n" + "".join(
        traceback.format_exception(type(exc), exc, exc.__traceback__)
    )
    try:
        atomic_write_text(path, shown(text), mode=0o600)  # an exception may quote a key
    except OSError as log_exc:
        print(
            f"judgeaudit: unexpected error ({type(exc).__name__}); could not write a crash log "
            f"({log_exc.strerror})",
            file=sys.stderr,
        )
        return EXIT_BUG
    # Only the type on screen: an unexpected message is not vetted for secrets; the file is 0600.
    print(
        f"judgeaudit: unexpected error ({type(exc).__name__}); this is a bug, the traceback "
        f"is in {path}",
        file=sys.stderr,
    )
    return EXIT_BUG

"""The crash log: an unexpected error ends the app with a traceback in a file the user is told of.

The traceback is written without local variables (Textual's own would show them, and a local may
hold a key the user just typed); the log directory is `JUDGEAUDIT_LOG_DIR` or the platform's.
"""

from __future__ import annotations

import os
import tempfile
import time
import traceback
from pathlib import Path

import platformdirs

from judgeaudit import __version__
from judgeaudit.fsutil import atomic_write_text


def log_dir() -> Path:
    return Path(os.environ.get("JUDGEAUDIT_LOG_DIR") or platformdirs.user_log_dir("judgeaudit"))


def write_crash_log(error: BaseException) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    name = f"tui-crash-{stamp}-{os.getpid()}.log"
    lines = [f"judgeaudit {__version__} terminal app: unexpected error at {stamp}\n"]
    inner = getattr(error, "error", None)  # a failed worker wraps what it raised
    if isinstance(inner, BaseException):
        lines += ["in a worker:\n", *traceback.format_exception(inner)]
    lines += traceback.format_exception(error)
    text = "".join(lines)
    for folder in (log_dir(), Path(tempfile.gettempdir())):  # a log dir we cannot write: /tmp
        try:
            atomic_write_text(folder / name, text)
            return folder / name
        except OSError:
            continue
    raise error


def crash_message(error: BaseException, path: Path) -> str:
    inner = getattr(error, "error", None)
    shown = inner if isinstance(inner, BaseException) else error
    return (
        f"judgeaudit: unexpected error ({type(shown).__name__}: {shown}); the traceback is in "
        f"{path} — please attach it to a bug report"
    )

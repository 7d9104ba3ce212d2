"""Helpers shared by the command modules."""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from judgeaudit.errors import JudgeauditError

if TYPE_CHECKING:
    Sub = argparse._SubParsersAction[argparse.ArgumentParser]


#: The help of every command's ``--gap-source`` (report, trend): what each gap measures.
GAP_SOURCE_HELP = (
    "what a pair's gap measures, which buckets it: capability (|success rate A - B|, the "
    "default unless the spec's gap.source says otherwise), judge (|judge score A - B|) or "
    "external (|reward_a - reward_b| of imported pairs)"
)
#: The help of an output directory argument that is read (OUT: what ``run --out`` wrote).
OUT_HELP = "an audit's output directory (what `run --out` or `demo --out` wrote)"
#: The help of a profile's name argument (profile, env, exec).
PROFILE_NAME_HELP = "the profile's name (`judgeaudit profile list` shows them)"
#: The help of ``--run`` where the latest run is the default.
RUN_HELP = "the run id (default: the latest run in OUT)"


class UserError(JudgeauditError):
    """Bad input or a refused action: printed as one line, exit code ``code``."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code
        self.exit_code = code


def print_output(text: str) -> None:
    """A command's output on stdout, ending in exactly one newline: CSV and HTML end their
    own last line, and ``print`` would add a blank one after it."""
    print(text, end="" if text.endswith("\n") else "\n")


def write_output(
    path: Path,
    text: str,
    flag: str,
    reads: Iterable[Path] = (),
    may_replace: Iterable[str] = (),
) -> None:
    """Write a command's output file atomically; a path that cannot take it (a directory, a FIFO
    or device, a missing or read-only directory) is one line, exit 2, and nothing is written.
    Neither is a file the command reads (``reads``) or a run directory's own file
    (:func:`judgeaudit.analysis.outputs.check_output`)."""
    from judgeaudit.analysis.outputs import check_output
    from judgeaudit.errors import InputError
    from judgeaudit.fsutil import atomic_write_text, is_disk_full, refuse_special
    from judgeaudit.safeio import file_in_path

    check_output(path, flag, reads, may_replace)
    if path.is_dir():
        raise UserError(f"{flag} {path}: is a directory; give a file path")
    if (blocker := file_in_path(path)) is not None:
        raise UserError(
            f"{flag} {path}: {blocker} is a file, not a directory; choose another path "
            "(nothing was written)"
        )
    try:
        refuse_special(path)  # its own line: "is a device", "is a FIFO (named pipe)"
    except InputError as exc:
        raise UserError(f"{flag} {exc}") from None
    try:
        atomic_write_text(path, text)
    except OSError as exc:
        if is_disk_full(exc):
            raise  # the crash handler's own line for a full disk (exit 75)
        why = exc.strerror or type(exc).__name__
        raise UserError(f"{flag} {path}: cannot write ({why}); nothing was written") from None

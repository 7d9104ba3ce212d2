"""One run writes an output directory at a time: an OS lock on OUT, held for the run's life.

Two ``judgeaudit run SPEC --out D`` started a second apart both chose the same run to resume and
the second died on ``UNIQUE constraint failed: trajectories.traj_id`` (exit 70). Now the second
is refused at once in one line naming OUT and the process that holds it, before it opens
``audit.db``. The lock is ``flock`` on the directory itself: nothing is added to OUT, and the
kernel releases it when the holding process ends however it ends (``kill -9`` included), so a
crashed run never blocks its own resume. The app's run holds it in its child process
(:mod:`judgeaudit.run_pipe`); the descriptor is not inherited by the processes a run starts (the
embedded provider). ``export files`` and ``export parquet`` into OUT take the same lock for the
files they rewrite, so they never race a live run (readers take none); a label import leaves
``report.html`` to a live run (:mod:`judgeaudit.analysis.label_import`). Where ``fcntl`` does not
exist (Windows) runs are not locked.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from judgeaudit.errors import InputError

LOCKS = Path("/proc/locks")
#: Whether runs hold OUT's lock here (``fcntl``; not on Windows): only then is a second run
#: marked running in the same OUT known not to be live.
LOCKED = sys.platform != "win32"


class OutBusy(InputError):
    """Another process is running an audit into this output directory."""


#: What a second run is told to do; an export (which rewrites files a run writes) says its own.
RUN_ADVICE = "another run", "wait for it to end, or choose another output directory"
EXPORT_ADVICE = "a run", "wait for it to end, then export again"


@contextmanager
def writing(out: Path, advice: tuple[str, str] = RUN_ADVICE) -> Iterator[None]:
    """Hold ``out`` (an existing directory) for one run, or one export that writes into it;
    :class:`OutBusy` if another process has it, worded by ``advice`` (who holds it, what to
    do)."""
    try:
        import fcntl
    except ImportError:  # Windows: no flock; two runs into one OUT are the user's to avoid
        yield
        return
    fd = os.open(out, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = holder_of(fd)
            who = f" (process {holder})" if holder else ""
            holder_is, then = advice
            raise OutBusy(
                f"{out}: {holder_is} is writing to it{who}; {then} (nothing was written)"
            ) from None
        yield
    finally:
        os.close(fd)  # releases the lock


def holder_of(fd: int) -> int | None:
    """The process holding the flock on ``fd``'s file, from Linux's ``/proc/locks``; None
    where that is not known."""
    held = _flocks_on(os.fstat(fd))
    if not held:
        return None
    return int(held[0]) if held[0].isdigit() else None


#: A run marked ``running`` that no process writes: killed (``kill -9``), crashed, or its
#: machine went down; rerunning its command resumes it (``report`` says so in a line).
STOPPED = "stopped"


def shown_status(out: Path, status: str) -> str:
    """A run's status as the app lists and heads it: :data:`STOPPED` for one marked running
    that no process holds ``out`` for, else audit.db's."""
    return STOPPED if status == "running" and nobody_writes(out) else status


def nobody_writes(out: Path) -> bool:
    """True when Linux's ``/proc/locks`` shows no run holding ``out``: a run still marked
    ``running`` there was stopped without closing (killed, or its machine went down). False
    when one holds it, or where that cannot be told (no ``/proc/locks``, no such directory)."""
    try:
        held = _flocks_on(os.stat(out))
    except OSError:
        return False
    return held is not None and not held


def _flocks_on(stat: os.stat_result) -> list[str] | None:
    """The pids (as written) of the flocks held on the file ``stat`` describes; None where
    ``/proc/locks`` cannot be read."""
    device = f"{os.major(stat.st_dev):02x}:{os.minor(stat.st_dev):02x}:{stat.st_ino}"
    try:
        lines = LOCKS.read_text(encoding="ascii", errors="replace").splitlines()
    except OSError:
        return None
    held = []
    for line in lines:
        fields = line.split()
        # "1: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF"; a waiter's line has "->" first
        if len(fields) >= 6 and fields[1] == "FLOCK" and fields[5] == device:
            held.append(fields[4])
    return held

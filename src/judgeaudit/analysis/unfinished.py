"""An unfinished run (live, killed, cancelled): its figures decide nothing yet. One wording of
why, and how to go on, for ``compare --fail-on-rise``'s refusal, the runs ``judges`` leaves out
and the runs ``trend`` leaves out of its series (both ranked or dropped them silently before);
and the one word for a run's status, a killed one's "stopped" included, that ``report``, those
lines and the app all show (``report`` said "(running)" where the app said "stopped")."""

from __future__ import annotations

from pathlib import Path

from judgeaudit.analysis.frame import open_db
from judgeaudit.audit.store.out_lock import STOPPED, shown_status


def run_status(out: Path, status: str, *, holding: bool = False) -> str:
    """A run's status as every front end shows it: audit.db's, but ``stopped`` for one marked
    running that no process writes (killed, a crash; :func:`shown_status` tells). ``out`` is the
    output directory or its audit.db. Applied when shown, never kept: the report memo's key is
    audit.db's state, which a kill does not change. ``holding``: the caller holds OUT's lock,
    which no live run would have let it take (its own hold would read as a writer)."""
    if holding:
        return STOPPED if status == "running" else status
    return shown_status(out if out.is_dir() else out.parent, status)


def not_finished(status: str) -> str:
    """Why a run's figures decide nothing yet (the gate's refusal, a leaderboard's left-out
    run, a trend's dropped input): its status, and how to go on."""
    return f"{status}, not finished; finish it (rerun the command that made it)"


def unfinished(outs: list[Path]) -> list[dict[str, str]]:
    """The runs a trend leaves out as unfinished (live, killed, cancelled), with the gate's
    reason: said, never dropped silently (a new user got 2 periods from 3 inputs)."""
    left = []
    for out in outs:
        db = open_db(out)
        try:
            rows = db.execute("SELECT run_id, status FROM runs WHERE status != 'finished'")
            left += [
                {"out": str(out), "run_id": str(r), "because": not_finished(run_status(out, st))}
                for r, st in rows
            ]
        finally:
            db.close()
    return left

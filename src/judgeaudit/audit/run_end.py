"""What a run that did not finish leaves in OUT: a stopped one keeps its units and says so in
its status and files, a refused one it created is undone (the runner decides which)."""

from __future__ import annotations

from pathlib import Path

from judgeaudit.audit.export import export_all
from judgeaudit.audit.spec import RunSpec
from judgeaudit.audit.store import AuditStore
from judgeaudit.audit.store.bulk import stored_any


def stopped_files(store: AuditStore, run_id: str | None, out: Path, status: str) -> bool:
    """Mark a stopped run (no longer 'running') and export what it stored; False if the
    run is gone (undone) or never began."""
    if run_id is None or store.run(run_id) is None:
        return False
    store.set_status(run_id, status)
    export_all(store, run_id, out)
    return True


def discard_empty_run(
    store: AuditStore, created: str | None, spec: RunSpec, out: Path, whole: bool = False
) -> bool:
    """Undo the run ``created`` by this call if it stored no unit (``whole``: whatever it
    stored); True if OUT now holds no run."""
    # A re-judge or an import only copies trajectories: until it judged a pair it did nothing.
    copies_only = spec.trajectories_from is not None or spec.imported is not None
    if created is None or (not whole and stored_any(store, created, pairs_only=copies_only)):
        return False
    store.flush()  # rows still buffered (pairs of a stopped re-judge) are removed too
    store.discard_run(created)
    runs = store.runs()
    if runs:
        export_all(store, runs[-1]["run_id"], out)  # the files show the previous run
    return not runs

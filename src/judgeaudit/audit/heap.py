"""A run's full garbage collections scan the run's objects, not every module's.

A full (oldest-generation) collection walks every container the process tracks: in a process
that has imported the llm layer, DuckDB, pandas or the SDKs, ~145,000 of them, 50-60 ms a
collection on this project's machine, and an audit of a few thousand imported pairs triggers
about one (docs/benchmarks.md, goal 6). :func:`frozen_heap` moves what exists when the run starts
(the modules, their tables and caches) to the permanent generation for the run, so a full
collection during it walks only what the run made, and moves them back when it ends. A process
that froze objects itself (a pre-fork server) is left as it is.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def frozen_heap() -> Iterator[None]:
    if gc.get_freeze_count():  # someone else's freeze: theirs to undo, not ours
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()

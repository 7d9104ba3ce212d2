"""A long event line from the run's process reaches the app in one pass.

The reader joined what it had with each 64 KiB read (quadratic in the line's length) and paused
25 ms between reads, also within one line: a resumed run's 63 MB start line took the app 120 s,
with the child blocked writing it (a reviewer's measure; that line is now capped, see
``STORED_GROUPS_MAX``, but any long line paid it). 20 MB is over 300 reads: at least 8 s of
pauses alone before, well under a second now.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

from judgeaudit.audit import events as ev
from judgeaudit.tui.run_process import ProcessRunBridge

WARNINGS = 200_000  # a start line of about 21 MB


def test_a_20_mb_line_is_read_in_one_pass(tmp_path: Path) -> None:
    warned = [f"warning {i:06d}: " + "x" * 90 for i in range(WARNINGS)]
    started = ev.RunStarted("r-1", str(tmp_path), True, 0, 0, 20, 10, warned)
    line = (json.dumps(ev.event_json(started)) + "\n").encode()
    end = b'{"event": "end"}\n'
    assert len(line) > 20_000_000
    read_fd, write_fd = os.pipe()

    def child() -> None:  # as the run's process writes: one line, then the end line
        with os.fdopen(write_fd, "wb") as pipe:
            pipe.write(line + end)

    bridge = ProcessRunBridge(tmp_path / "spec.toml", tmp_path)
    writer = threading.Thread(target=child)
    writer.start()
    began = time.perf_counter()
    with os.fdopen(read_fd, "rb") as stream:
        end_line = bridge._read(stream)
    took = time.perf_counter() - began
    writer.join()
    assert end_line == {"event": "end"}
    batch = bridge.drain()
    assert batch.started is not None and batch.started.warnings == warned
    assert took < 4.0, f"{took:.1f} s to read a {len(line) / 1e6:.0f} MB line"

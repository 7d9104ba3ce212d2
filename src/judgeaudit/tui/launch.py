"""Entry point used by the CLI: run the app and return its exit code.

0 after a normal quit, 4 when a quit stopped a run (resumable), 1 after an unexpected error (the
traceback is in the log file the app named). A run thread that did not wind down in time does
not keep the process alive: the process ends anyway (SQLite keeps what was committed, the
embedded provider stops when its stdin closes)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from judgeaudit.tui.app import JudgeAuditApp


def run_app(
    out_dir: Path, demo_spec: Path, start_demo: bool = False, trend: dict[str, Any] | None = None
) -> int:
    app = JudgeAuditApp(demo_spec=demo_spec, out_dir=out_dir, start_demo=start_demo, trend=trend)
    app.run()
    code = app.return_code or 0
    if app.bridge is not None and not app.bridge.done:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)  # the interpreter would otherwise wait for the run thread
    return code

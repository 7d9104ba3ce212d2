"""Entry points used by the CLI."""

from __future__ import annotations

from pathlib import Path

from judgeaudit.tui.app import JudgeAuditApp


def run_app(out_dir: Path, demo_spec: Path, start_demo: bool = False) -> int:
    JudgeAuditApp(demo_spec=demo_spec, out_dir=out_dir, start_demo=start_demo).run()
    return 0

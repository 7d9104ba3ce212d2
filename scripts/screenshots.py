"""Drive the real app through a real demo run and write an SVG of every screen to screenshots/.

Uses a throwaway config dir and keyring-free presets, so nothing of yours shows up.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SIZE = (110, 34)


async def main() -> None:
    scratch = Path(tempfile.mkdtemp(prefix="judgeaudit-shots-"))
    for name in ("cfg", "claude", "codex"):
        (scratch / name).mkdir()
    os.environ.update(
        {
            "JUDGEAUDIT_CONFIG_DIR": str(scratch / "cfg"),
            "CLAUDE_CONFIG_DIR": str(scratch / "claude"),
            "CODEX_HOME": str(scratch / "codex"),
            "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
        }
    )
    os.chdir(scratch)
    shutil.copytree(REPO / "examples", scratch / "examples")
    from judgeaudit.tui.app import JudgeAuditApp

    out_dir = REPO / "screenshots"
    out_dir.mkdir(exist_ok=True)
    app = JudgeAuditApp(demo_spec=Path("examples/demo.toml"), out_dir=Path("out/demo"), steady=True)

    async with app.run_test(size=SIZE) as pilot:

        def shot(name: str) -> None:
            app.save_screenshot(f"{name}.svg", str(out_dir))
            print(f"wrote screenshots/{name}.svg", file=sys.stderr)

        await pilot.pause()
        shot("profiles")
        await pilot.press("f2")
        await pilot.pause()
        shot("launch")
        await pilot.press("ctrl+g")
        started = time.monotonic()
        while True:
            await pilot.pause(0.3)
            screen = app.screen
            if getattr(screen, "finished", False):
                break
            if time.monotonic() - started > 4 and not hasattr(app, "_live_shot"):
                app._live_shot = True  # type: ignore[attr-defined]
                shot("run-live")
        shot("run")
        await pilot.press("r")
        await pilot.pause()
        shot("results")
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("m")
        await pilot.pause()
        shot("pairs")
        await pilot.press("enter")
        await pilot.pause()
        shot("pair")
        await pilot.press("escape", "escape", "v")
        await pilot.pause()
        shot("review")
        await pilot.press("f6", "ctrl+t")
        await pilot.pause()
        shot("runs")
    shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    asyncio.run(main())

"""The audit in a process of its own, for the terminal app: events out, commands in.

``python -m judgeaudit.run_pipe SPEC OUT [CONCURRENCY]`` runs (or resumes) the audit as
:func:`judgeaudit.engine.run_audit` does and writes one JSON object per event on stdout
(:func:`judgeaudit.audit.events.event_json`), then one ``{"event": "end", ...}`` line. It reads
``pause``, ``resume`` and ``cancel`` lines on stdin; the end of stdin (the app quit or died)
cancels the run, so a stopped app never leaves an audit running: the stored units are kept and
the next start resumes. The app's UI thread then shares its GIL with nothing CPU-dense
(key-to-paint during a run was 2.8-5.4x idle with the run in a thread; docs/benchmarks.md).
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from pathlib import Path
from typing import IO, Any

from judgeaudit.audit import events as ev

#: the child's first line after starting the runner (the app shows "simulated provider")
RUNNER = "runner"
#: its last line: how the run ended
END = "end"


class Pipe:
    """Writes events as JSON lines; a closed pipe (the app is gone) cancels the run."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self.broken = False
        self.on_broken: Any = None

    def send(self, message: dict[str, Any]) -> None:
        if self.broken:
            return
        try:
            self.stream.write(json.dumps(message, ensure_ascii=False, default=str) + "\n")
            self.stream.flush()
        except (BrokenPipeError, ValueError, OSError):
            self.broken = True
            if self.on_broken is not None:
                self.on_broken()

    def event(self, event: ev.Event) -> None:
        self.send(ev.event_json(event))


def _commands(loop: asyncio.AbstractEventLoop, act: Any) -> None:
    """stdin's lines (a thread: a blocking read); its end is a cancel."""
    for line in sys.stdin:
        word = line.strip()
        if word in ("pause", "resume", "cancel"):
            loop.call_soon_threadsafe(act, word)
    loop.call_soon_threadsafe(act, "cancel")


async def _run(spec: Path, out: Path, concurrency: int | None, pipe: Pipe) -> dict[str, Any]:
    from judgeaudit.audit.runner import AuditRunner
    from judgeaudit.engine import RunIncomplete, run_audit
    from judgeaudit.errors import JudgeauditError

    loop = asyncio.get_running_loop()
    runner: AuditRunner | None = None

    def attach(r: AuditRunner) -> None:
        nonlocal runner
        runner = r
        pipe.send(
            {"event": RUNNER, "simulated": any(e.embedded for e in r.spec.endpoints.values())}
        )

    task = asyncio.ensure_future(
        run_audit(spec, out, on_event=pipe.event, concurrency=concurrency, on_runner=attach)
    )

    def act(word: str) -> None:
        if word == "cancel":
            if runner is not None:
                runner.resume()  # a paused run must wake to see the cancel
            task.cancel()
        elif runner is not None:
            (runner.pause if word == "pause" else runner.resume)()

    pipe.on_broken = lambda: act("cancel")
    threading.Thread(target=_commands, args=(loop, act), daemon=True).start()
    try:
        await task
    except asyncio.CancelledError:
        return {"cancelled": True}
    except RunIncomplete:
        return {}
    except JudgeauditError as exc:
        return {"error": exc.in_app()}
    except Exception as exc:  # shown in the app, never swallowed
        return {"error": f"{type(exc).__name__}: {exc}"}
    return {}


def main(argv: list[str]) -> int:
    spec, out = Path(argv[0]), Path(argv[1])
    concurrency = int(argv[2]) if len(argv) > 2 else None
    pipe = Pipe(sys.stdout)
    sys.stdout = sys.stderr  # stdout carries only the event lines, whatever a library prints
    ended = asyncio.run(_run(spec, out, concurrency, pipe))
    pipe.send({"event": END, **ended})
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

"""The app's run in a child process (:mod:`judgeaudit.run_pipe`): events come over a pipe into
the same :class:`RunBridge` state the UI drains, and pause, resume and cancel go back as lines.

With the audit in the app's own process its CPU shared the UI's GIL and a key took 2.8-5.4x as
long to show as on an idle app; in its own process the UI thread only parses the event lines.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any

from judgeaudit.audit import events as ev
from judgeaudit.run_pipe import END, RUNNER
from judgeaudit.tui.bridge import RunBridge

#: how much nicer than the app the run's process is: when both want a core, a key press wins it
#: (CFS gives a niceness-5 process about a third of a niceness-0 one's share). Alone on a core the
#: run goes as fast as before. ``JUDGEAUDIT_RUN_NICE=0`` runs it at the app's priority.
RUN_NICE = 5
#: the app's GIL switch interval while it reads a run's events: the reading thread parses lines
#: as they come, and a key press waited up to Python's default 5 ms for the GIL it held
#: (key-to-paint p50 during a run was about 5 ms above idle; issue 23, goal 2)
READING_SWITCH_S = 0.001
#: the reading thread reads what the pipe holds, then waits this long before it reads again: the
#: child writes one line per event (about 1,500 a second at concurrency 64), and a thread woken
#: per line took the GIL from the UI as often; woken per batch it takes it ~40 times a second.
#: The Run screen drains every 0.2 s, so a batch is never shown later for it.
GATHER_S = 0.025
#: the most one read takes from the pipe (the pipe itself holds 64 KiB on Linux)
READ_BYTES = 1 << 16


def run_nice() -> int:
    try:
        return max(0, int(os.environ.get("JUDGEAUDIT_RUN_NICE", RUN_NICE)))
    except ValueError:
        return RUN_NICE


class ProcessRunBridge(RunBridge):
    """:class:`RunBridge` with the audit in ``python -m judgeaudit.run_pipe``."""

    def __init__(self, spec_path: Path, out_dir: Path, concurrency: int | None = None) -> None:
        super().__init__(spec_path, out_dir, concurrency)
        self._proc: subprocess.Popen[bytes] | None = None
        self._ready = False  # the child has its runner: pause and resume reach it

    def command(self) -> list[str]:
        extra = [str(self.concurrency)] if self.concurrency is not None else []
        return [
            sys.executable,
            "-m",
            "judgeaudit.run_pipe",
            str(self.spec_path),
            str(self.out_dir),
            *extra,
        ]

    def run_blocking(self) -> None:
        """The worker body: start the child, turn its lines into events until it ends."""
        error: str | None = None
        cancelled = False
        try:
            with tempfile.TemporaryFile("w+", encoding="utf-8") as stderr:
                with self._lock:
                    if self._cancel_requested:  # cancelled before the worker got here
                        raise _Cancelled
                    self._proc = subprocess.Popen(
                        self.command(),
                        stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE,
                        stderr=stderr,
                    )
                    lower_priority(self._proc.pid, run_nice())
                assert self._proc.stdout is not None
                before = sys.getswitchinterval()
                sys.setswitchinterval(min(before, READING_SWITCH_S))
                try:
                    end = self._read(self._proc.stdout)
                finally:
                    sys.setswitchinterval(before)
                code = self._proc.wait()
                if end is None:
                    error = _died(code, stderr)
                else:
                    said = end.get("error")
                    error = None if said is None else str(said)
                    cancelled = bool(end.get("cancelled"))
        except _Cancelled:
            cancelled = True
        except OSError as exc:
            error = f"could not start the run's process: {exc}"
        finally:
            with self._lock:
                self._ready = False
            self._settle(error, cancelled)

    def _read(self, stream: IO[bytes]) -> dict[str, Any] | None:
        """Turn the child's lines into events, a batch per read (see ``GATHER_S``), until its
        end line; None if the pipe closed without one (the child died)."""
        pending: list[bytes] = []  # the start of a line still arriving
        while chunk := _read_some(stream):
            if b"\n" not in chunk:  # a long line (a resumed run's start): no join, no pause
                pending.append(chunk)
                continue
            *lines, tail = chunk.split(b"\n")
            if pending:  # joined once, not once per read (quadratic in the line's length)
                lines[0] = b"".join([*pending, lines[0]])
            pending = [tail] if tail else []
            events: list[ev.Event] = []
            end = self._parse(lines, events)
            self.on_events(events)
            if end is not None:
                return end
            time.sleep(GATHER_S)
        return None

    def _parse(self, lines: list[bytes], events: list[ev.Event]) -> dict[str, Any] | None:
        for line in lines:
            try:
                message = json.loads(line)
                kind = message.get("event")
            except (ValueError, AttributeError):
                continue  # not one of ours (a library printing): the child sends only objects
            if kind == END:
                return dict(message)
            if kind == RUNNER:
                with self._lock:
                    self.simulated = bool(message.get("simulated"))
                    self._ready = True
                continue
            events.append(ev.event_from_json(message))
        return None

    def _send(self, word: str) -> None:
        proc = self._proc
        if proc is None or proc.stdin is None:
            return
        try:
            proc.stdin.write(word.encode() + b"\n")
            proc.stdin.flush()
        except (OSError, ValueError):
            pass  # the child has ended: its end line says how

    # --- called from the UI thread -----------------------------------------------------------
    def toggle_pause(self) -> bool:
        with self._lock:
            if not self._ready or self._cancel_requested or self._done:
                return self.paused
            self.paused = not self.paused
            word = "pause" if self.paused else "resume"
        self._send(word)
        return self.paused

    def cancel(self) -> None:
        with self._lock:
            self._cancel_requested = True
            self.paused = False
            started = self._proc is not None and not self._done
        if started:
            self._send("cancel")  # the child resumes a paused run, then stops it


def lower_priority(pid: int, nice: int) -> None:
    """Make the run's process ``nice`` steps nicer than the app (never raised: not allowed)."""
    if nice <= 0:
        return
    # gone already, or a platform without priorities: the run goes on as it is
    with contextlib.suppress(OSError):
        os.setpriority(os.PRIO_PROCESS, pid, os.getpriority(os.PRIO_PROCESS, 0) + nice)


class _Cancelled(Exception):
    pass


def _read_some(stream: IO[bytes]) -> bytes:
    """What the pipe holds (up to ``READ_BYTES``), waiting only while it holds nothing; b"" at
    its end."""
    read1 = getattr(stream, "read1", None)  # a buffered reader returns what it has at once
    return bytes(read1(READ_BYTES) if read1 is not None else stream.read(READ_BYTES))


def _died(code: int, stderr: IO[str]) -> str:
    """Why the child ended without its end line (killed, out of memory, a crash)."""
    stderr.seek(0)
    last = [ln for ln in stderr.read().splitlines() if ln.strip()][-1:]
    said = f": {last[0]}" if last else ""
    return (
        f"the run's process ended with exit code {code}{said}; the units stored so far are "
        "kept: start the run again to resume"
    )


def bridge_for(spec_path: Path, out_dir: Path, concurrency: int | None = None) -> RunBridge:
    """The app's run: in a child process, or in a thread of the app when
    ``JUDGEAUDIT_RUN_IN=thread`` (the earlier way, kept to compare and to debug the engine)."""
    if os.environ.get("JUDGEAUDIT_RUN_IN", "process") == "thread":
        return RunBridge(spec_path, out_dir, concurrency)
    return ProcessRunBridge(spec_path, out_dir, concurrency)

"""Start-up time of the commands users wait on, as ratios to the keyring floor, in one run.

The floor is ``python -c "import keyring; keyring.get_keyring()"``: no key helper can start faster
than the keyring it reads. Measured side by side, round-robin (so machine noise hits every
command alike), median of --rounds runs each:

- ``key print NAME`` exactly as the Claude Code ``apiKeyHelper`` / Codex ``auth`` command that
  ``profile use`` writes (target: <= 1.3x the floor), against a real Secret Service holding a key;
- ``judgeaudit --version`` (target: <= 0.5x) and ``judgeaudit --help``;
- ``judgeaudit env NAME`` (shell exports of an SDK profile);
- the terminal app's first painted screen in a 120x40 pseudo-terminal (target: <= 1.5 s wall),
  next to its floor, a minimal Textual app (Header, one Static, Footer) painted in the same
  pseudo-terminal, alternating with it (goal: <= 2x the floor).

It runs itself inside ``scripts/with-keyring.sh`` (a private D-Bus session with gnome-keyring),
so it never touches your own keyring. Usage: python bench/startup.py [--rounds 15]
"""

from __future__ import annotations

import argparse
import os
import pty
import re
import select
import shlex
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
KEY_NAME = "bench-startup"
FAKE_KEY = "bench-not-a-real-key-0000"
TUI_MARKER = re.compile(rb"marks\s+the\s+active\s+profile")
ANSI = re.compile(rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>]|\x1b\][^\x07]*\x07")


def console_script() -> str:
    return str(Path(sys.executable).with_name("judgeaudit"))


def wall(cmd: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{shlex.join(cmd)} failed: {done.stderr.decode(errors='replace')}")
    return elapsed


MINIMAL_APP = """
from textual.app import App
from textual.widgets import Footer, Header, Static

class Minimal(App):
    def compose(self):
        yield Header()
        yield Static("a minimal app marks the active profile")
        yield Footer()

Minimal().run()
"""


def tui_first_paint(
    env: dict[str, str], out: Path, timeout_s: float = 30.0, argv: list[str] | None = None
) -> float:
    """Spawn the app (or ``argv``) in a 120x40 pty; time until the Profiles screen's title (or
    the minimal app's text, the same words) is on screen."""
    argv = argv or [console_script(), "tui", "--out", str(out)]
    pid, fd = pty.fork()
    if pid == 0:  # child: becomes the app
        os.execve(argv[0], argv, env)
    started = time.perf_counter()
    import fcntl
    import termios

    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    seen = b""
    try:
        while time.perf_counter() - started < timeout_s:
            ready, _, _ = select.select([fd], [], [], 0.05)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
            if TUI_MARKER.search(ANSI.sub(b"", seen)):
                return time.perf_counter() - started
        raise SystemExit("the terminal app did not paint its first screen in time")
    finally:
        os.kill(pid, signal.SIGTERM)
        os.waitpid(pid, 0)
        os.close(fd)


def setup(env: dict[str, str]) -> None:
    """A key in the private keyring and an SDK profile that uses it."""
    subprocess.run(
        [console_script(), "key", "set", KEY_NAME], input=FAKE_KEY.encode(), env=env, check=True
    )
    subprocess.run(
        [
            console_script(),
            *("profile", "add", "bench-sdk", "--app", "sdk"),
            *("--base-url", "http://127.0.0.1:8765/v1", "--key", KEY_NAME),
        ],
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    if not os.environ.get("JUDGEAUDIT_SECRET_SERVICE"):
        wrapper = REPO / "scripts" / "with-keyring.sh"
        os.execv(str(wrapper), [str(wrapper), sys.executable, *sys.argv])

    from judgeaudit.profiles.targets.claude import helper_command

    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "JUDGEAUDIT_CONFIG_DIR": str(Path(tmp) / "cfg"), "TERM": "xterm"}
        setup(env)
        helper = shlex.split(helper_command(KEY_NAME))
        commands = {
            "floor (import keyring; get_keyring())": [
                sys.executable,
                "-c",
                "import keyring; keyring.get_keyring()",
            ],
            "key print (the apiKeyHelper command)": helper,
            "judgeaudit --version": [console_script(), "--version"],
            "judgeaudit --help": [console_script(), "--help"],
            "judgeaudit env bench-sdk": [console_script(), "env", "bench-sdk"],
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        tui: list[float] = []
        floor_tui: list[float] = []
        minimal = [sys.executable, "-c", MINIMAL_APP]
        for _ in range(args.rounds):
            for name, cmd in commands.items():
                times[name].append(wall(cmd, env))
        for _ in range(max(3, args.rounds // 3)):  # side by side: the floor, then the app
            floor_tui.append(tui_first_paint(env, Path(tmp) / "out", argv=minimal))
            tui.append(tui_first_paint(env, Path(tmp) / "out"))
    medians = {name: statistics.median(values) for name, values in times.items()}
    floor = medians[next(iter(commands))]
    targets = {"key print (the apiKeyHelper command)": 1.3, "judgeaudit --version": 0.5}
    print(f"start-up, median of {args.rounds} round-robin runs (load {os.getloadavg()[0]:.1f})")
    for name, value in medians.items():
        target = f"  (target <= {targets[name]}x)" if name in targets else ""
        print(f"  {name:<40} {value * 1000:6.0f} ms  {value / floor:4.2f}x floor{target}")
    app_s, floor_s = statistics.median(tui), statistics.median(floor_tui)
    print(
        f"  terminal app, first painted screen     {app_s:6.2f} s wall "
        f"(median of {len(tui)}; target <= 1.5 s)"
    )
    print(
        f"  floor: a minimal Textual app's first paint {floor_s:6.2f} s; the app "
        f"{app_s / floor_s:4.2f}x floor (goal <= 2x)"
    )


if __name__ == "__main__":
    main()

"""The judgeaudit app: screens by name, global function-key navigation, the command palette."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual.app import App
from textual.binding import Binding, BindingType
from textual.notifications import SeverityLevel

from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.bridge import RunBridge
from judgeaudit.tui.commands import MainCommands
from judgeaudit.tui.messages import OpenResults, StartRun
from judgeaudit.tui.screens.launch import LaunchScreen
from judgeaudit.tui.screens.profiles import ProfilesScreen
from judgeaudit.tui.screens.results import ResultsScreen
from judgeaudit.tui.screens.review import ReviewScreen
from judgeaudit.tui.screens.run import RunScreen
from judgeaudit.tui.screens.runs import RunsScreen

STEADY_TOAST_S = 3600.0


class JudgeAuditApp(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "judgeaudit"
    COMMANDS = App.COMMANDS | {MainCommands}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f1", "goto('profiles')", "Profiles"),
        Binding("f2", "goto('launch')", "Launch"),
        Binding("f3", "goto('run')", "Run"),
        Binding("f4", "goto('results')", "Results"),
        Binding("f5", "goto('review')", "Review"),
        Binding("f6", "goto('runs')", "Runs"),
        Binding("ctrl+q", "quit", "Quit"),
    ]

    def __init__(
        self,
        *,
        store: ProfileStore | None = None,
        demo_spec: Path | None = None,
        out_dir: Path = Path("out/tui"),
        start_demo: bool = False,
        steady: bool = False,
    ) -> None:
        super().__init__()
        # steady: a steady cursor, no animations, toasts that stay, so tests and screenshots see
        # the same picture however busy the machine is (and for users who dislike blinking).
        self.steady = steady
        if steady:
            self.animation_level = "none"
        self.store = store or ProfileStore.default()
        self.demo_spec = demo_spec or Path("examples/demo.toml")
        self.out_dir = out_dir
        self.start_demo = start_demo
        self.bridge: RunBridge | None = None

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        if timeout is None and self.steady:
            timeout = STEADY_TOAST_S
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def on_mount(self) -> None:
        self.install_screen(ProfilesScreen(self.store), "profiles")
        self.install_screen(LaunchScreen(self.demo_spec, self.out_dir), "launch")
        self.install_screen(RunsScreen(self.out_dir), "runs")
        self.push_screen("profiles")
        if self.start_demo:
            self.start_run(self.demo_spec, self.out_dir)

    def action_goto(self, name: str) -> None:
        if name == "run":
            if self.bridge is None:
                self.notify("no run yet: F2 Launch, then ctrl+g for the demo")
                return
        elif name == "results":
            self.open_results(self.out_dir)
            return
        elif name == "review":
            if self._has_results(self.out_dir):
                self.push_screen(ReviewScreen(self.out_dir))
            return
        self.switch_screen(name)

    def action_run_demo(self) -> None:
        self.start_run(self.demo_spec, self.out_dir)

    def start_run(self, spec: Path, out: Path) -> None:
        if self.bridge is not None and self.is_screen_installed("run"):
            running = self.get_screen("run")
            if isinstance(running, RunScreen) and not running.finished:
                self.notify(
                    "a run is in progress; cancel it first (c on the Run screen)",
                    severity="warning",
                )
                self.switch_screen("run")
                return
        self.out_dir = out
        self.bridge = RunBridge(spec, out)
        if self.is_screen_installed("run"):
            # One Run screen for the app's life: a new run is attached to it, never stacked.
            run_screen = self.get_screen("run")
            assert isinstance(run_screen, RunScreen)
            run_screen.attach(self.bridge)
        else:
            self.install_screen(RunScreen(self.bridge), "run")
        self.switch_screen("run")
        self.run_worker(
            self.bridge.run_blocking,
            thread=True,
            exclusive=True,
            exit_on_error=False,
            group="audit",
            name="audit run",
        )

    def on_start_run(self, message: StartRun) -> None:
        self.start_run(message.spec, message.out)

    def on_open_results(self, message: OpenResults) -> None:
        self.open_results(message.out)

    def _has_results(self, out: Path) -> bool:
        if not (out / "audit.db").exists():
            self.notify(f"{out}: no audit here yet", severity="warning")
            return False
        return True

    def open_results(self, out: Path) -> None:
        if self._has_results(out):
            self.out_dir = out
            self.push_screen(ResultsScreen(out))

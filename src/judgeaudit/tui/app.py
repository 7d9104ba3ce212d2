"""The judgeaudit app: one instance of each screen (a mode each), global keys, the run, quitting.

Each screen in `places.PLACES` is a Textual mode with its own stack: a function key switches to
it and closes what was opened on top of it (pairs, a pair, a dialog), so nothing ever stacks up
and no screen is uninstalled while in use. The audit runs in one thread worker at a time; a quit
during a run asks first, then stops it cleanly and exits non-zero (the run stays resumable).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, overload

from textual import work
from textual.app import App, ScreenType
from textual.binding import Binding, BindingType
from textual.notifications import SeverityLevel
from textual.widget import AwaitMount

from judgeaudit.errors import IncompleteRun, JudgeauditError
from judgeaudit.profiles.model import Profile
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.suggest import command
from judgeaudit.tui.commands import MainCommands
from judgeaudit.tui.crash import crash_message, write_crash_log
from judgeaudit.tui.messages import OpenResults, StartRun, WrittenSpec
from judgeaudit.tui.places import PLACES
from judgeaudit.tui.recent import remember
from judgeaudit.tui.screens.dialogs import ConfirmStop, HelpScreen
from judgeaudit.tui.screens.profiles import ProfilesScreen

if TYPE_CHECKING:  # the run, the analysis and the screens the first one does not show load
    # when first used, not before the first paint (screens.py builds them)
    from textual.screen import Screen

    from judgeaudit.tui.bridge import RunBridge
    from judgeaudit.tui.screens.results import ResultsScreen
    from judgeaudit.tui.screens.review import ReviewScreen
    from judgeaudit.tui.screens.run import RunScreen

STEADY_TOAST_S = 3600.0
#: how long a quit waits for a cancelled run to wind down before it exits anyway
STOP_WAIT_S = 1.5


class JudgeAuditApp(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "judgeaudit"
    DEFAULT_MODE = "profiles"
    COMMANDS = App.COMMANDS | {MainCommands}
    BINDINGS: ClassVar[list[BindingType]] = [
        *(Binding(p.key, f"goto('{p.name}')", p.title, show=False) for p in PLACES),
        Binding("question_mark,f10", "help", "Help"),  # F10 while typing in a field
        # in the help and the palette; the footer's room goes to the screen's own keys
        Binding("ctrl+q", "quit", "Quit", priority=True, show=False),
    ]

    def __init__(
        self,
        *,
        store: ProfileStore | None = None,
        demo_spec: Path | None = None,
        out_dir: Path = Path("out/tui"),
        start_demo: bool = False,
        steady: bool = False,
        trend: dict[str, Any] | None = None,
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
        self.run_id: str | None = None  # the run Results shows (None: out_dir's latest)
        self.start_demo = start_demo
        self.bridge: RunBridge | None = None
        self.crash_log: Path | None = None
        self.trend = trend  # a series to show on Trends (demo --monitor), else computed there
        self.start_out = out_dir  # the output dir Launch, Runs and Trends open with
        # Profiles is the mode the app starts in (DEFAULT_MODE): no default screen to compose
        # and switch away from, which parsed the whole stylesheet once more before the paint
        self.install_screen(ProfilesScreen(self.store), "profiles")
        for place in PLACES:
            self.add_mode(place.name, place.name)

    # --- the screens, each built (and its module imported) when first asked for ---------------
    @overload
    def get_screen(self, screen: ScreenType) -> ScreenType: ...

    @overload
    def get_screen(self, screen: str) -> Screen[Any]: ...

    @overload
    def get_screen(
        self, screen: str, screen_class: type[ScreenType] | None = None
    ) -> ScreenType: ...

    @overload
    def get_screen(
        self, screen: ScreenType, screen_class: type[ScreenType] | None = None
    ) -> ScreenType: ...

    def get_screen(
        self, screen: Screen[Any] | str, screen_class: type[Screen[Any]] | None = None
    ) -> Screen[Any]:
        """Textual's lookup, installing a place's screen the first time it is named: the five
        screens the first paint does not show cost ~70 ms of imports (docs/benchmarks.md)."""
        if isinstance(screen, str) and not self.is_screen_installed(screen):
            from judgeaudit.tui.screens.lazy import build_screen

            built = build_screen(self, screen)
            if built is not None:
                self.install_screen(built, screen)
        return super().get_screen(screen, screen_class)

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every toast is plain text (``markup`` is ignored): its messages carry names, ids and
        paths from users' files, and a ``[/b]`` in an agent name raised MarkupError."""
        if timeout is None and self.steady:
            timeout = STEADY_TOAST_S
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=False)

    def on_mount(self) -> None:
        if self.trend is not None:
            self.switch_mode("trends")
        if self.start_demo:
            self.start_run(self.demo_spec, self.out_dir)

    # --- navigation ----------------------------------------------------------------------------
    def action_goto(self, name: str) -> None:
        if name == "results":
            self.open_results(self.out_dir, self.run_id)
            return
        if name == "review":
            self.get_results_like("review").show_output(self.out_dir, self.run_id)
        self.show_place(name)

    def show_place(self, name: str) -> AwaitMount | None:
        """Switch to a screen's mode and close whatever was opened on top of it; await the
        result to act on a screen that is shown for the first time (composed only then)."""
        mounted = self.switch_mode(name) if self.current_mode != name else None
        while len(self.screen_stack) > 1:
            self.pop_screen()
        return mounted

    def get_results_like(self, name: str) -> ResultsScreen | ReviewScreen:
        from judgeaudit.tui.screens.results import ResultsScreen
        from judgeaudit.tui.screens.review import ReviewScreen

        screen = self.get_screen(name)
        assert isinstance(screen, ResultsScreen | ReviewScreen)
        return screen

    def results_screen(self) -> ResultsScreen:
        from judgeaudit.tui.screens.results import ResultsScreen

        return self.get_screen("results", ResultsScreen)

    def run_screen(self) -> RunScreen:
        from judgeaudit.tui.screens.run import RunScreen

        return self.get_screen("run", RunScreen)

    def open_results(self, out: Path, run_id: str | None = None) -> None:
        self.out_dir, self.run_id = out, run_id
        remember(self.store.root, out)
        self.results_screen().show_output(out, run_id)
        self.show_place("results")

    def on_open_results(self, message: OpenResults) -> None:
        self.open_results(message.out, message.run_id)

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))

    # --- palette actions that reach into a screen ---------------------------------------------
    def profiles_screen(self) -> ProfilesScreen:
        screen = self.get_screen("profiles")
        assert isinstance(screen, ProfilesScreen)
        return screen

    def known_profiles(self) -> list[Profile]:
        return list(self.profiles_screen().profiles.values())

    def profile_action(self, action: str, name: str) -> None:
        """Switch / set key / test / edit one profile by name, from anywhere."""
        self.show_place("profiles")
        screen = self.profiles_screen()
        if screen.select_profile(name):
            getattr(screen, f"action_{action}")()
        else:
            self.notify(f"no profile named {name!r}", severity="warning")

    def action_profiles_do(self, action: str) -> None:
        self.show_place("profiles")
        getattr(self.profiles_screen(), f"action_{action}")()

    async def action_place_do(self, place: str, action: str) -> None:
        """A screen's own key, run from the palette: show that screen, then act on it."""
        if place == "results":
            self.results_screen().show_output(self.out_dir, self.run_id)
        mounted = self.show_place(place)
        if mounted is not None:
            await mounted
        getattr(self.get_screen(place), f"action_{action}")()

    def action_profiles_off(self, app_name: str) -> None:
        self.show_place("profiles")
        self.profiles_screen().plan_off(app_name)

    def action_focus_field(self, place: str, field: str) -> None:
        from judgeaudit.tui.screens.launch import LaunchScreen
        from judgeaudit.tui.screens.runs import RunsScreen

        self.show_place(place)
        screen = self.get_screen(place)
        assert isinstance(screen, LaunchScreen | RunsScreen)
        screen.focus_field(field)

    def action_launch_form(self) -> None:
        from judgeaudit.tui.screens.launch import LaunchScreen

        self.show_place("launch")
        self.get_screen("launch", LaunchScreen).action_run_form()

    def action_export_review(self) -> None:
        self.export_review(self.out_dir, self.run_id)

    @work(thread=True, exclusive=True, group="export")
    def export_review(self, out: Path, run_id: str | None) -> None:
        """A sample of the run Results shows and Review labels (``run_id``; None: the latest)."""
        from judgeaudit.analysis.queries import export_review
        from judgeaudit.analysis.review import SAMPLE_FILE, SAMPLE_N

        path = out / SAMPLE_FILE
        try:
            done = export_review(out, SAMPLE_N, 0, path, run_id)
        except JudgeauditError as exc:  # in the app's words: it has no --force
            self.call_from_thread(self.notify, exc.in_app(), severity="error")
            return
        self.call_from_thread(
            self.notify,
            f"wrote {done.count} pairs of run {done.run_id} to {path}; fill human_success_a/_b and human_pref, then "
            f"`{command('review', 'import', out, path)}` (or label them here: F5 Review)",
        )

    # --- the run -------------------------------------------------------------------------------
    @property
    def run_active(self) -> bool:
        return self.bridge is not None and not self.bridge.done

    def on_start_run(self, message: StartRun) -> None:
        self.start_run(message.spec, message.out, message.written)

    def action_run_demo(self) -> None:
        self.start_run(self.demo_spec, self.out_dir)

    def start_run(self, spec: Path, out: Path, written: WrittenSpec | None = None) -> None:
        if self.run_active:
            self.notify(
                "a run is in progress; cancel it first (c on the Run screen)", severity="warning"
            )
            self.show_place("run")
            return
        self.out_dir, self.run_id = out, None
        from judgeaudit.tui.run_process import bridge_for

        self.bridge = bridge_for(spec, out)
        self.bridge.written = written  # put back if the run is refused before it begins
        self.run_screen().attach(self.bridge)  # the one Run screen shows the new run
        self.show_place("run")
        self.run_worker(
            self.bridge.run_blocking,
            thread=True,
            exit_on_error=False,
            group="audit",
            name="audit run",
        )

    def action_pause_run(self) -> None:
        self.run_screen().action_pause()

    def action_cancel_run(self) -> None:
        self.run_screen().action_cancel()

    # --- quitting ------------------------------------------------------------------------------
    async def action_quit(self) -> None:
        if not self.run_active:
            self.exit()
            return
        if not isinstance(self.screen, ConfirmStop):
            self.push_screen(ConfirmStop(), self._stop_answered)

    def _stop_answered(self, stop: bool | None) -> None:
        if stop:
            self.run_worker(self._stop_run_and_exit(), group="quit", exclusive=True)

    async def _stop_run_and_exit(self) -> None:
        bridge = self.bridge
        assert bridge is not None
        bridge.cancel()
        await asyncio.to_thread(bridge.wait_done, STOP_WAIT_S)
        self.exit(
            return_code=IncompleteRun.exit_code,
            message=(
                f"judgeaudit: run stopped; it resumes where it stopped when you start "
                f"{bridge.spec_path} on {bridge.out_dir} again (F2 Launch, or "
                f"`{command('run', bridge.spec_path, '--out', bridge.out_dir)}`)"
            ),
        )

    def _handle_exception(self, error: Exception) -> None:
        """Textual's hook for an unhandled error (it has no public one): the run is stopped, the
        traceback goes to a log file without local variables, and the app exits 1 naming it."""
        if self.bridge is not None:
            self.bridge.cancel()
        self.crash_log = write_crash_log(error)
        self.exit(return_code=1, message=crash_message(error, self.crash_log))

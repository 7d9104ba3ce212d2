"""Command palette: the main actions of every screen, by name.

Searching finds the screens, the run actions and, per profile, switch / set key / test (so
"switch taotoken" goes straight to that profile's switch dialog)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import TYPE_CHECKING

from textual.command import DiscoveryHit, Hit, Hits, Provider

from judgeaudit.profiles.model import APPS
from judgeaudit.tui.places import PLACES

if TYPE_CHECKING:
    from judgeaudit.tui.app import JudgeAuditApp

# (name, help, app action)
ACTIONS: tuple[tuple[str, str, str], ...] = (
    *((p.title, f"{p.key.upper()}: {p.summary}", f"goto('{p.name}')") for p in PLACES),
    ("Run demo", "Run the demo audit on the embedded simulated provider", "run_demo"),
    (
        "Run spec…",
        "Launch: run a spec file (type its path, then ctrl+r)",
        "focus_field('launch', 'spec')",
    ),
    ("Run form", "Launch: build a spec from the form and run it", "launch_form"),
    ("Pause/resume run", "Pause the live run, or resume it", "pause_run"),
    ("Cancel run", "Stop the live run; rerunning the same spec resumes it", "cancel_run"),
    ("Open results", "Results of the current output dir", "goto('results')"),
    (
        "Gap source…",
        "Results: bucket by the capability, judge or external gap",
        "place_do('results', 'focus_gap')",
    ),
    ("Bins…", "Results: type bucket edges, then Enter", "place_do('results', 'focus_bins')"),
    (
        "Agent pairs",
        "Results: the agent-pair table with RANKING MISSELECTED",
        "place_do('results', 'agent_pairs')",
    ),
    (
        "Judge log on/off",
        "Run: show or hide the streaming judge log",
        "place_do('run', 'toggle_log')",
    ),
    (
        "Open run…",
        "Runs: open another output dir (type it, then ctrl+o)",
        "focus_field('runs', 'a')",
    ),
    ("Compare…", "Runs: compare two output dirs (type B, then ctrl+t)", "focus_field('runs', 'b')"),
    (
        "Export preferences…",
        "Results: the run's pairs as TRL / OpenAI / JSONL preference data with a data card",
        "place_do('results', 'export_preferences')",
    ),
    (
        "Export review…",
        "Write a stratified sample to label: OUT/review_sample.csv",
        "export_review",
    ),
    ("Add profile", "Profiles: a new profile from a validated form", "profiles_do('add')"),
    (
        "Backups and restore",
        "Profiles: list backups of tool files, restore one",
        "profiles_do('backups')",
    ),
    *(
        (
            f"Turn off {app}",
            f"Profiles: undo judgeaudit in {app}'s files, your own settings back (diff first)",
            f"profiles_off('{app}')",
        )
        for app in APPS
    ),
    (
        "Import from CC Switch",
        "Profiles: import CC Switch's providers (keys to the keyring)",
        "profiles_do('import_ccswitch')",
    ),
    ("Doctor", "Profiles: what Claude Code and Codex will actually use", "profiles_do('doctor')"),
    ("Help", "Every screen and its keys", "help"),
    ("Quit", "Quit (during a run: asks first)", "quit"),
)
PER_PROFILE = (
    ("Switch profile", "switch", "Switch {app} to {name} (shows the diff first)"),
    ("Set key", "set_key", "Store the key {key} for {name} in the keyring"),
    ("Test profile", "test", "List models and send one request with {name}"),
    ("Edit profile", "edit", "Edit {name} in a validated form"),
    ("Remove profile", "remove", "Delete {name}'s file (asks first; its key stays)"),
    ("Delete key", "delete_key", "Delete the key {key} from the keyring (asks first)"),
)


class MainCommands(Provider):
    @property
    def judgeaudit(self) -> JudgeAuditApp:
        from judgeaudit.tui.app import JudgeAuditApp

        assert isinstance(self.app, JudgeAuditApp)
        return self.app

    def commands(self) -> Iterator[tuple[str, str, Callable[[], object]]]:
        app = self.judgeaudit
        for name, help_text, action in ACTIONS:
            yield name, help_text, partial(app.run_action, action)
        for profile in app.known_profiles():
            for label, action, help_text in PER_PROFILE:
                if action in ("set_key", "delete_key") and not profile.key:
                    continue
                text = help_text.format(app=profile.app, name=profile.name, key=profile.key)
                yield (
                    f"{label} {profile.name}",
                    text,
                    partial(app.profile_action, action, profile.name),
                )

    async def discover(self) -> Hits:
        for name, help_text, action in ACTIONS:
            yield DiscoveryHit(name, partial(self.app.run_action, action), help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_text, run in self.commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), run, help=help_text)

"""Command-palette provider with the main actions."""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

ACTIONS = (
    ("Profiles", "Switch tool profiles, keys, backups", "goto('profiles')"),
    ("Launch", "Start an audit from a spec or a form", "goto('launch')"),
    ("Run demo", "Run the demo audit on the embedded simulated provider", "run_demo"),
    ("Run (live)", "Back to the live run", "goto('run')"),
    ("Results", "Misselection by bucket for the current output dir", "goto('results')"),
    ("Review", "Label a stratified sample with single keys", "goto('review')"),
    ("Runs", "Open a past output dir or compare two runs", "goto('runs')"),
)


class MainCommands(Provider):
    async def discover(self) -> Hits:
        for name, help_text, action in ACTIONS:
            yield DiscoveryHit(name, partial(self.app.run_action, action), help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_text, action in ACTIONS:
            score = matcher.match(name)
            if score > 0:
                yield Hit(
                    score,
                    matcher.highlight(name),
                    partial(self.app.run_action, action),
                    help=help_text,
                )

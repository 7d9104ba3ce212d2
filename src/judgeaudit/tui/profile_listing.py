"""The Profiles screen's listing: profiles by app, the active one marked, each key's masked
status read once per refresh, the speed-test cell, and the problem lines above the table (the
keyring, broken files, the doctor's warnings). Read in the screen's worker."""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.text import Text

from judgeaudit.profiles.model import APPS, Profile
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.terminal import printable
from judgeaudit.tui.widgets.fit_table import Col, Row

#: The gateway a row points at is its host and port, so the base URL narrows no further than
#: its host:port (scheme and path go first) and is never dropped; the name (how a profile is
#: picked) and the key narrow only after the URL and model are at their narrowest, a name cut
#: where the names part (``ccsw…kimi-chat``), a key's name before its status (``ccswitch… …1234``).
#: The speed test goes first, then the model, then the key; no header is cut (a column narrows
#: no further than its label).
COLUMNS = (
    Col("app", "app", min=3, whole=True),
    Col("active", " ", min=1),
    Col("name", "name", min=12, late=True, apart=True),
    Col("base_url", "base URL", min=8, url=True),
    Col("model", "model", min=6, drop=2),
    Col("key", "key", min=12, drop=1, late=True, figure=True),
    # the last `profile test --all`: time to first token, "p50/p95 ms" (docs/tui.md)
    Col("ttft", "TTFT", min=4, drop=4, whole=True),
)
#: problem lines shown above the table before the rest is left to `judgeaudit profile doctor`
PROBLEMS_SHOWN = 4


@dataclass(frozen=True)
class Listing:
    profiles: list[Profile]
    active: dict[str, str]
    keys: dict[str, str]  # key name -> masked status
    keyring_ok: bool
    keyring_note: str
    problems: list[str]  # profile files that do not load (the others are listed anyway)
    warnings: list[str]  # what `judgeaudit profile doctor` warns of (settings that shadow ours)
    ttft: dict[str, str] = field(default_factory=dict)  # profile -> its speed-test cell
    #: app -> why its active profile's live file is not what it would write (``active.drift``)
    drift: dict[str, str] = field(default_factory=dict)
    #: where a key set here goes, as `key set` says it (:func:`secrets.storage_label`)
    keyring_label: str = "the keyring"


def read_listing(store: ProfileStore) -> Listing:
    """Profiles, active ones and key status, reading each keyring entry once."""
    from judgeaudit.profiles import active as active_here
    from judgeaudit.profiles import drift, latency, secrets, shadowing  # the keyring: in the worker

    listed, problems = store.scan()
    active = active_here.here(store.state())
    drifted = {app: why for app, name in active.items() if (why := drift.drift(store, app, name))}
    usable, note = secrets.backend_usable()
    names = sorted({p.key for p in listed if p.key})
    stored = secrets.get_keys(sorted(names)) if usable else {}
    keys = {n: secrets.mask(stored[n]) if usable else "n/a" for n in names}
    # the active Claude profile's: whose key a token displaces (a key_mode env profile's is the
    # terminal's token), said as `profile use` and doctor say it
    claude = next((p for p in listed if p.app == "claude" and p.name == active.get("claude")), None)
    warnings = shadowing.claude_warnings(claude) + shadowing.codex_warnings(None)
    ttft = {name: t.cell() for name, t in latency.load(store.root).items()}
    label = secrets.storage_label() if usable else "the keyring"
    return Listing(listed, active, keys, usable, note, problems, warnings, ttft, drifted, label)


def problem_lines(listing: Listing) -> list[str]:
    """Keyring first (it blocks every key), then broken files, then the doctor's warnings."""
    lines = [] if listing.keyring_ok else [f"keyring: {listing.keyring_note}"]
    lines += [f"{listing.active[app]} (*!): {why}" for app, why in listing.drift.items()]
    lines += listing.problems + [f"doctor: {w}" for w in listing.warnings]
    if len(lines) > PROBLEMS_SHOWN:
        rest = len(lines) - PROBLEMS_SHOWN + 1
        lines = [*lines[: PROBLEMS_SHOWN - 1], f"… {rest} more: run `judgeaudit profile doctor`"]
    return lines


def listing_rows(listing: Listing) -> list[Row]:
    """One table row per profile, grouped by app in APPS order; the key column is the key's
    name and masked status (or the variable it is read from)."""
    rows: list[Row] = []
    for app in APPS:
        for p in (p for p in listing.profiles if p.app == app):
            if p.key:
                key = f"{p.key} {listing.keys[p.key]}"
            else:
                key = f"env {p.key_env}" if p.key_env else "-"
            marker: Text | str = ""
            if listing.active.get(app) == p.name:  # *!: changed since use (problem_lines says)
                marker = Text("*!" if app in listing.drift else "*", style="bold")
            rows.append(
                (
                    p.name,
                    {
                        "app": app,
                        "active": marker,
                        "name": p.name,
                        "base_url": printable(p.shown_url),
                        "model": p.model or "-",
                        "key": key,
                        "ttft": listing.ttft.get(p.name, "-"),
                    },
                )
            )
    return rows

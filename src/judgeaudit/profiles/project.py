"""Per-project binding: ``profile use NAME --project [DIR]`` writes the project's own settings
layer with the same transaction, ledger and backups as a global switch.

Claude Code reads ``<cwd>/.claude/settings.local.json`` above the user file (from the current
directory only, as observed with 2.1.332; see :mod:`.shadowing`), so the profile applies to
every ``claude`` started in DIR, and ``settings.local.json`` is the file Claude Code keeps out
of git. Codex cannot be bound this way: 0.171 ignores ``model_provider`` and
``model_providers`` in a project's ``.codex/config.toml`` ("Ignored unsupported project-local
config keys"), so a Codex binding is refused with what works instead.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from judgeaudit import safeio
from judgeaudit.profiles import shadowing
from judgeaudit.profiles.model import Profile, ProfileError
from judgeaudit.profiles.store import SwitchState
from judgeaudit.profiles.targets import FilePlan, claude, registry

STATE_KEY: Final = "projects"  # state.json: {project dir: {app: profile}}


def directory(given: Path) -> Path:
    """The project directory, absolute, or one line saying why it cannot be one."""
    path = given.expanduser().resolve()
    if not path.is_dir():
        why = "is not a directory" if path.exists() else "does not exist"
        raise ProfileError(f"--project {given}: {why}; nothing was changed")
    return path


def settings_file(app: str, project: Path) -> Path:
    """The file a project binding of ``app`` writes (the target says, or refuses)."""
    return registry.for_app(app).project_file(project)


def check_folder(project: Path) -> None:
    """A binding is recorded by its folder's path in state.json (UTF-8 text): a folder whose
    name is not UTF-8 was bound, and every profile command then refused the state file until
    it was edited by hand (a new user). Refused before anything is written."""
    if safeio.not_utf8(str(project)):
        shown = str(project).encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        raise ProfileError(
            f"{shown}: the folder's name is not valid UTF-8, and a project binding records it "
            "as UTF-8 text; rename the folder (or switch globally); nothing was changed"
        )


def check(profile: Profile, project: Path) -> Path:
    """The file a project switch of ``profile`` writes, or a refusal."""
    target = settings_file(profile.app, project)
    # how the tool gets its key (a bridged profile's runs the helper whatever key_mode says)
    mode = claude.tool_key_mode(profile) if profile.app == "claude" else None
    if mode == "inline":
        raise ProfileError(
            f"profile {profile.name!r}: key_mode inline would put the key in {target}, inside a "
            "project that may be shared or committed; use key_mode helper (the default) for a "
            "project binding; nothing was changed"
        )
    if mode == "env":
        _refuse_outranked_shell_token(profile, project)
    return target


def _refuse_outranked_shell_token(profile: Profile, project: Path) -> None:
    """A ``key_mode = "env"`` binding leaves the token variables alone (its key is the
    shell's), so a token in a settings file would outrank the shell's and go to the bound
    gateway (seen with the real Claude Code): refused, the file and variable named, no value."""
    found = shadowing.tokens_under_binding(project)
    if found:
        raise ProfileError(
            f"profile {profile.name!r} (key_mode env) cannot be bound to {project}: "
            f"{found[0]} is set, and Claude Code would send that key to this profile's gateway "
            f"({profile.base_url}) instead of, or beside, this terminal's token; "
            "remove it from that file, or bind a profile with key_mode helper (the default), whose "
            "binding hides it; nothing was changed"
        )


def record(state: SwitchState, project: Path, app: str, name: str | None) -> None:
    projects: dict[str, dict[str, str]] = state.setdefault(STATE_KEY, {})
    apps = projects.setdefault(str(project), {})
    if name is None:
        apps.pop(app, None)
    else:
        apps[app] = name
    if not apps:
        projects.pop(str(project), None)


def settle_dirs(state: SwitchState, plans: list[FilePlan], made: list[Path]) -> None:
    """Remember the settings directories a binding created; remove one again once the files in
    it are gone and nothing else was put there (a directory the user made, or filled, stays)."""
    created = state.setdefault("created_dirs", [])
    created += [str(d) for d in made if str(d) not in created]
    for plan in plans:
        folder = plan.path.parent
        if plan.after is None and str(folder) in created:
            if folder.is_dir() and not any(folder.iterdir()):
                folder.rmdir()
            if not folder.exists():
                created.remove(str(folder))
    if not created:
        state.pop("created_dirs", None)


def bound(state: SwitchState, cwd: Path) -> dict[str, str]:
    """The apps bound in ``cwd`` (the directory Claude Code reads project settings from)."""
    projects = state.get(STATE_KEY)
    if not isinstance(projects, dict):
        return {}
    apps = projects.get(str(cwd.resolve()))
    return dict(apps) if isinstance(apps, dict) else {}

"""Switching a profile is a transaction.

read live files (regular files only) -> refuse if they do not parse -> plan + diff -> lock ->
clean temp files an interrupted switch left -> re-read (re-plan if changed) -> keep replaced
secrets in the keyring -> back up (keys swapped for keyring markers, with the ownership ledger
and the file's mode; one transaction id for every file) -> temp file, fsync, rename (through
symlinks; 0600 while an inline key is in it, the user's own mode back after) -> read back and
validate -> record ledger and active profile. Any failure leaves the old files byte-for-byte.
``profile off`` is the same transaction with no profile: every key judgeaudit wrote removed,
every user value it replaced put back. ``profile restore`` lives in :mod:`.restore`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from judgeaudit.profiles import active as active_here
from judgeaudit.profiles import backupkeys, backups, bridgeopt, bridgeports, project, secrets
from judgeaudit.profiles.diffview import render_diff
from judgeaudit.profiles.ledger import FILE_FACTS
from judgeaudit.profiles.livefile import (
    mode_of,
    read_live,
    read_only_line,
    real_path,
    refuse_read_only,
    switch_lock,
    write_live,
)
from judgeaudit.profiles.model import Profile, ProfileError
from judgeaudit.profiles.store import ProfileStore, SwitchState
from judgeaudit.profiles.targets import FileKind, FilePlan, registry


@dataclass
class SwitchResult:
    profile: str
    app: str
    plans: list[FilePlan]
    diff: str
    applied: bool
    backups: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: (a dry run) files the switch would change that their owner made read-only: the switch
    #: itself refuses (:func:`livefile.read_only_line`)
    read_only: list[Path] = field(default_factory=list)
    #: (a dry run) why the switch itself refuses what this preview shows (a tool that reads
    #: its key from a keyring that cannot answer); the app's preview then applies nothing
    refusal: str | None = None
    #: the bridged profile's local token was not in the keyring: the switch makes it (a dry
    #: run: will make it; the tool's key helper prints it), so a switch with no file to change
    #: still does something
    makes_token: bool = False

    @property
    def remakes_token(self) -> bool:
        """The bridged profile's files are in place but its local token was gone (a ``key
        delete``, a keyring reset): the switch makes it again. A first switch makes one too,
        which is what a switch always does, so it is not said (it would read as gone wrong)."""
        return self.makes_token and bool(self.plans) and not any(p.changes for p in self.plans)

    def token_line(self) -> str | None:
        """The line after an applied switch that made the token again (the CLI prints it
        under ``active APP profile``, the app's status says it): the preview's note, done."""
        if not (self.applied and self.remakes_token):
            return None
        return (
            f"new local bridge token for {self.profile} (it was not in the keyring): "
            f"{self.app}'s key command prints it, a running bridge takes it within a second"
        )

    def nothing_to_write(self, marked: str | None) -> bool:
        """A switch (the app's preview) with nothing to do: no file changing, no bridge token
        to make, and the profile ``marked`` active here is this one already."""
        return (
            marked == self.profile
            and not self.makes_token
            and not any(p.changes for p in self.plans)
        )

    @property
    def held(self) -> bool:
        """``off`` keeps some of the user's values out (:mod:`.targets.heldback`; a note in
        the diff says which)."""
        return any(plan.held for plan in self.plans)

    def nothing_to_undo(self, marked: str | None) -> bool:
        """An ``off`` (the CLI's and the app's) with nothing to do: no profile ``marked`` active
        here, no warning, no file changing and nothing held back."""
        return not marked and not self.warnings and not any(p.changes or p.held for p in self.plans)

    def off_line(self, project_dir: Path | None = None, *, note: str = "note above") -> str:
        """The line after an applied ``off`` (the CLI's last line, the app's status): what came
        back, and whether some of the user's values were held back (``note``: where it says
        which)."""
        scope = f" in {project_dir}" if project_dir else ""
        back = "your values back" + (f" but those held back ({note})" if self.held else "")
        return f"judgeaudit is off for {self.app}{scope}: its keys removed, {back}"


def _load_secret(ref: str) -> str | None:
    return secrets.get_key(ref)


def _files(
    app: str, profile: Profile | None, state: SwitchState, project_dir: Path | None = None
) -> list[tuple[Path, FileKind]]:
    target = registry.for_app(app)
    if project_dir is not None:  # per-project binding (profiles.project)
        return [(target.project_file(project_dir), target.kinds[0])]
    return target.files(profile, state["owned"])


def plan_app(
    store: ProfileStore,
    app: str,
    profile: Profile | None,
    *,
    keep_conflicts: bool = False,
    project_dir: Path | None = None,
    load_secret: registry.SecretLoader = _load_secret,
) -> list[FilePlan]:
    """Plans for every file of ``app`` (``profile`` None: judgeaudit off); ``load_secret``
    reads keyring entries (drift's answers an inline profile's gone key from its file)."""
    state = store.state()
    created = set(state["created"])
    plans = []
    for path, kind in _files(app, profile, state, project_dir):
        raw = read_live(path)
        ledger = state["owned"].get(str(path), {})
        if profile is None and raw is None:
            _refuse_gone(path, app, ledger)
        plan = registry.for_kind(kind).plan(
            path,
            raw,
            kind,
            profile,
            ledger,
            load_secret,
            keep_conflicts=keep_conflicts,
            created=str(path) in created,
        )
        _settle_mode(plan, profile is None)
        if profile is None and raw is None and ledger:  # gone, and nothing of the user's in it
            plan.notes.append("is gone: nothing of yours was in it, nothing to put back")
        plans.append(plan)
    if profile is not None and bridgeopt.uses_bridge(profile) and plans:
        plans[0].notes.append(bridgeopt.use_note(profile))  # shown in the diff preview
    return plans


def _refuse_gone(path: Path, app: str, ledger: dict[str, dict[str, object]]) -> None:
    """``off`` of a file that is gone while judgeaudit keeps values of the user's taken out of
    it: nothing to put them back into, so nothing is changed and they stay kept."""
    kept = [d for d, e in ledger.items() if e.get("had") and d != FILE_FACTS]
    if kept:
        raise ProfileError(
            f"{path}: is gone, so judgeaudit cannot put back your {', '.join(kept)} (still "
            "kept; nothing was changed); put the file back (if it was a link, the file it "
            f"pointed to may still hold judgeaudit's keys) and run `judgeaudit profile off {app}` "
            "again, or `judgeaudit profile restore ID` (`judgeaudit profile backups` lists them)"
        )


def _apply(
    store: ProfileStore,
    app: str,
    plans: list[FilePlan],
    label: str,
    active: str | None,
    result: SwitchResult,
    project_dir: Path | None = None,
    made_dirs: list[Path] | None = None,
) -> None:
    """Write ``plans`` as one transaction (the caller holds the switch lock). ``made_dirs``: the
    project settings directories this switch created, removed again by the ``off`` that leaves
    them empty (the project is given back as it was)."""
    state = store.state()
    for ref, raw in {r: v for p in plans for r, v in p.save_secrets.items()}.items():
        secrets.set_saved(ref, raw)  # the user's replaced secrets, before any file changes
        if ref not in state.setdefault("saved", []):
            state["saved"].append(ref)
    txn = backups.new_transaction(app)
    written: list[tuple[FilePlan, int | None]] = []
    try:
        for plan in plans:
            if not plan.changes:
                continue
            mode_before = mode_of(plan.path)
            backup_id = backupkeys.take(
                store, state, app, plan.path, plan.before, label, txn, project_dir
            )
            if plan.before is not None:
                result.backups.append(backup_id)
            write_live(plan.path, plan.after, mode=plan.mode)
            written.append((plan, mode_before))
            if plan.after is not None:
                _validate(plan)
    except BaseException:
        for plan, mode_before in written:  # put every file back exactly as it was
            write_live(plan.path, plan.before, mode=mode_before)
        raise
    for plan in plans:
        key = str(plan.path)
        if plan.ledger:
            state["owned"][key] = plan.ledger
        else:
            state["owned"].pop(key, None)
        if plan.before is None and plan.after is not None and key not in state["created"]:
            state["created"].append(key)
        if plan.after is None and key in state["created"]:
            state["created"].remove(key)
    if project_dir is not None:
        project.record(state, project_dir, app, active)
        project.settle_dirs(state, plans, made_dirs or [])
    else:
        active_here.record(state, app, active)
    store.save_state(state)
    backups.prune(store, app)
    backupkeys.forget_unreferenced_secrets(store, state)


def _settle_mode(plan: FilePlan, turning_off: bool) -> None:
    """0600 while the file holds an inline key; the user's own mode back once it does not."""
    facts = dict(plan.ledger.get(FILE_FACTS, {}))
    now = mode_of(plan.path)
    if plan.secret:
        plan.mode = 0o600
        if now is not None and now != 0o600 and "mode" not in facts:
            facts["mode"] = now
    elif "mode" in facts:
        plan.mode = int(facts.pop("mode"))
    if facts and not turning_off:
        plan.ledger[FILE_FACTS] = facts
    else:
        plan.ledger.pop(FILE_FACTS, None)  # off: nothing of judgeaudit's stays behind


def _changing(plans: list[FilePlan]) -> list[Path]:
    return [plan.path for plan in plans if plan.changes]


def _validate(plan: FilePlan) -> None:
    registry.for_kind(plan.kind).validate(plan, real_path(plan.path).read_bytes())


def _transaction(
    store: ProfileStore,
    app: str,
    profile: Profile | None,
    *,
    dry_run: bool,
    keep_conflicts: bool,
    before_write: Callable[[], None] | None,
    project_dir: Path | None = None,
) -> SwitchResult:
    if profile is not None and project_dir is not None:
        project.check(profile, project_dir)
    plans = plan_app(store, app, profile, keep_conflicts=keep_conflicts, project_dir=project_dir)
    name = profile.name if profile else "off"
    warnings = [w for p in plans for w in p.warnings]
    if profile is not None:
        warnings += registry.for_app(app).warnings(profile, project_dir)
    result = SwitchResult(name, app, plans, render_diff(plans), False, warnings=warnings)
    if dry_run:  # the diff, and the read-only files the switch itself will refuse
        result.read_only = [p for p in _changing(plans) if read_only_line(p) is not None]
        return result
    refuse_read_only(_changing(plans))
    if before_write:
        before_write()
    with switch_lock(store.root):
        for plan in plans:
            backups.remove_leftover_temps(real_path(plan.path).parent, real_path(plan.path).name)
        backups.remove_leftover_temps(backups.backup_dir(store), app)
        backups.remove_leftover_temps(store.root, "state.json")
        # Plan again under the lock: the files or the ledger may have changed since the preview.
        plans = plan_app(
            store, app, profile, keep_conflicts=keep_conflicts, project_dir=project_dir
        )
        refuse_read_only(_changing(plans))
        result.plans, result.diff = plans, render_diff(plans)
        label = profile.name if profile else backups.OFF_LABEL
        made: list[Path] = []
        if project_dir is not None:
            label = f"{label} (project {project_dir})"
            for plan in plans:
                if plan.after is not None and not plan.path.parent.exists():
                    plan.path.parent.mkdir()  # <project>/.claude
                    made.append(plan.path.parent)
        active = profile.name if profile else None
        _apply(store, app, plans, label, active, result, project_dir, made)
    result.applied = True
    return result


def use_profile(
    store: ProfileStore,
    name: str,
    *,
    dry_run: bool = False,
    keep_conflicts: bool = False,
    before_write: Callable[[], None] | None = None,
    project_dir: Path | None = None,
) -> SwitchResult:
    """Switch ``name`` in (in ``project_dir``'s own settings when given); ``before_write`` is a
    test hook that runs after planning."""
    profile = store.get(name)
    if project_dir is not None:  # before a bridge token is made: "nothing was changed" holds
        project.check_folder(project_dir)
    gone = False  # a bridged profile's local token, not in the keyring (a preview only looks)
    if bridgeopt.uses_bridge(profile):
        refusal = bridgeports.port_clash(store, profile, project_dir is not None)
        refusal = refusal or bridgeopt.foreign_listener(
            profile
        )  # the token would go to that listener
        if refusal:
            raise ProfileError(refusal)
        try:  # the tool's key: made now (a preview only looks), so no keyring writes nothing
            gone = secrets.bridge_token(profile.name, create=False) is None
            if gone and not dry_run:
                secrets.bridge_token(profile.name)
        except secrets.SecretError as exc:
            refusal = (
                f"{exc}; nothing was changed (`judgeaudit exec {profile.name} -- CMD` needs "
                "no stored token: it makes a fresh one per command)"
            )
            if not dry_run:  # the preview says it as the keyring refusal below (a review)
                raise ProfileError(refusal) from None
    else:
        refusal = registry.keyring_refusal(profile)
        if refusal and not dry_run:  # the preview (--dry-run, diff) shows it as a warning
            raise ProfileError(refusal)
    result = _transaction(
        store,
        profile.app,
        profile,
        dry_run=dry_run,
        keep_conflicts=keep_conflicts,
        before_write=before_write,
        project_dir=project_dir,
    )
    result.refusal = refusal if dry_run else None
    result.makes_token = bridgeopt.uses_bridge(profile) and not refusal and gone
    if dry_run and result.remakes_token:  # after the switch: result.token_line
        result.plans[0].notes.append(token_note(profile.name, profile.app))
        result.diff = render_diff(result.plans)  # the CLI's --dry-run and diff print it
    return result


def token_note(name: str, app: str) -> str:
    """A switch of a bridged profile whose files are in place but whose local token is not in
    the keyring (a ``key delete``, a keyring reset): the tool's key command finds none."""
    return (
        f"the local bridge token of {name} is not in the keyring ({app}'s key command, "
        f"`judgeaudit key bridge-token {name}`, finds none): the switch makes a new one"
    )


def turn_off(
    store: ProfileStore, app: str, *, dry_run: bool = False, project_dir: Path | None = None
) -> SwitchResult:
    """Undo judgeaudit in ``app``'s files (or ``project_dir``'s): the user's own settings back."""
    registry.for_app(app)  # refuses an unknown app in one line
    if project_dir is not None:
        project.check_folder(project_dir)
    return _transaction(
        store,
        app,
        None,
        dry_run=dry_run,
        keep_conflicts=False,
        before_write=None,
        project_dir=project_dir,
    )

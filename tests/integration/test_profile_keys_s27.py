"""What a twenty-seventh-session review of profile switching (keys, drift, a broken file) found wrong, as a user meets it:
the real CLI in a fresh world, with the real Secret Service keyring where a key is stored."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.new_user_helpers import add, cli, home, one_line, unique

__all__ = ["home"]  # the fixture, shared

LONG = "sk-ant-" + "long" * 6 + "WXYZ"


@pytest.mark.usefixtures("secret_service")
def test_an_inline_profile_without_its_key_still_shows_an_edit_since_use(home: Path) -> None:
    """`profile use` of an inline profile, `key delete --force`, then an edit of its base URL:
    doctor and list said nothing of the edit (the check needed the key), and doctor said the
    app's requests fail, while settings.json holds the key and Claude Code goes on working."""
    name = unique("s27-inline")
    add(home, "inl", "claude", "http://127.0.0.1:9/v1", "--model", "m", "--key", name,
        "--option", "key_mode=inline")  # fmt: skip
    assert cli(home, "key", "set", name, stdin=LONG).returncode == 0
    assert cli(home, "profile", "use", "inl").returncode == 0
    assert cli(home, "key", "delete", name, "--force").returncode == 0
    clean = cli(home, "profile", "doctor", "claude")  # the key gone, nothing else changed
    assert (
        cli(home, "profile", "edit", "inl", "--base-url", "http://127.0.0.1:8/v1").returncode == 0
    )
    doctor = cli(home, "profile", "doctor", "claude")
    listed = cli(home, "profile", "list")
    assert doctor.returncode == 0 == listed.returncode, doctor.stderr + listed.stderr
    assert "edited since `profile use`" not in clean.stdout and name in clean.stdout, clean.stdout
    assert "no longer holds what inl writes (edited since `profile use`)" in doctor.stdout
    assert "(changed since use: run profile use)" in listed.stdout, listed.stdout
    said = f"warning: key {name} (profile inl's) is missing from the keyring: "
    assert said in doctor.stdout and "Claude Code goes on working" in doctor.stdout
    assert "the app's requests fail" not in doctor.stdout
    assert LONG not in doctor.stdout + doctor.stderr + listed.stdout + listed.stderr


@pytest.mark.usefixtures("secret_service")
@pytest.mark.parametrize(
    ("app", "bound", "file"),
    [
        ("claude", False, "claude/settings.json"),
        ("claude", True, "work/api/.claude/settings.local.json"),
        ("codex", False, "codex/config.toml"),
    ],
)
def test_key_delete_refuses_a_key_a_live_file_still_reads(
    home: Path, app: str, bound: bool, file: str
) -> None:
    """`profile use ed`, then `profile edit ed --key NEW`: `key delete OLD` asked the profiles
    only, found none naming OLD and deleted it, while the file `use` wrote still ran `key print
    OLD` on every request (the tool failed). Refused naming the file; --force deletes it."""
    old, new = unique("s27-old"), unique("s27-new")
    add(home, "ed", app, "http://127.0.0.1:9/v1", "--model", "m", "--key", old)
    for name in (old, new):
        assert cli(home, "key", "set", name, stdin=LONG).returncode == 0
    try:
        (home / "work" / "api").mkdir(parents=True, exist_ok=True)
        where = ["--project", "api"] if bound else []
        assert cli(home, "profile", "use", "ed", *where).returncode == 0
        assert cli(home, "profile", "edit", "ed", "--key", new).returncode == 0
        refused = cli(home, "key", "delete", old)
        kept = cli(home, "key", "status", old)
        forced = cli(home, "key", "delete", old, "--force")
    finally:
        for name in (old, new):
            cli(home, "key", "delete", name, "--force")
    live = next(p for p in home.rglob(Path(file).name) if str(p).endswith(file))
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert f"key delete {old}: {live}, written when ed was switched on for {app}" in refused.stderr
    assert f"still reads key {old} on every request" in refused.stderr
    assert "nothing was deleted" in refused.stderr and "stored" in kept.stdout, kept.stdout
    assert forced.returncode == 0 and f"deleted key {old}" in forced.stdout, forced.stderr
    assert f"warning: {live}, written when ed" in forced.stderr


@pytest.mark.parametrize("verb", ["exec", "env"])
def test_scrub_refuses_when_a_profile_file_does_not_load(home: Path, verb: str) -> None:
    """`exec NAME --scrub-other-providers -- cmd` with a broken profile file beside it ran the
    command with that profile's variables (its env_prefix unknown) left in, unsaid: the user
    asked for the scrub. Refused before anything runs, one line naming the file and the fix."""
    add(home, "s", "sdk", "https://gw.example.com/v1", "--key-env", "S_KEY")
    broken = home / "cfg" / "profiles" / "other.toml"
    broken.write_text('name = "other"\napp = "sdk"\nbase_url = 3\n[options]\nenv_prefix = "GW"\n')
    ran = home / "work" / "ran"
    tail = ["--", sys.executable, "-c", f"open({str(ran)!r}, 'w')"] if verb == "exec" else []
    env = {"S_KEY": "tk-abcdefghij12", "GW_API_KEY": "gw-key-of-another-one"}
    done = cli(home, verb, "s", "--scrub-other-providers", *tail, env=env)
    assert done.returncode == 2, done.stdout + done.stderr
    line = one_line(done)
    assert line.startswith(f"judgeaudit: {verb} --scrub-other-providers: a profile file does not")
    assert f"{broken}: base_url" in line and "(fix or remove that file)" in line, line
    assert line.endswith("nothing was run" if verb == "exec" else "nothing was printed"), line
    assert not ran.exists() and done.stdout == ""
    assert "gw-key" not in done.stdout + done.stderr


@pytest.mark.usefixtures("secret_service")
@pytest.mark.parametrize("case", ["codex-p", "removed", "broken"])
def test_key_delete_reads_every_file_judgeaudit_wrote(home: Path, case: str) -> None:
    """`key delete OLD` read only the files state.json marks active, for profiles that load: it
    deleted OLD silently while Codex's p.config.toml (left after `profile use q`; `codex -p p`)
    or the live file of a removed or broken profile still ran `key print OLD`. Refused naming
    the file and its profile; --force deletes with that line as a warning."""
    old, new = unique("s27-old"), unique("s27-new")
    for name in (old, new):
        assert cli(home, "key", "set", name, stdin=LONG).returncode == 0
    app = "codex" if case == "codex-p" else "claude"
    add(home, "p", app, "http://127.0.0.1:9/v1", "--model", "m", "--key", old)
    add(home, "q", app, "http://127.0.0.1:9/v1", "--model", "m", "--key", new)
    try:
        assert cli(home, "profile", "use", "p").returncode == 0
        if case == "codex-p":
            assert cli(home, "profile", "edit", "p", "--key", new).returncode == 0
            assert cli(home, "profile", "use", "q").returncode == 0
        elif case == "removed":
            assert cli(home, "profile", "remove", "p").returncode == 0
        else:
            with (home / "cfg" / "profiles" / "p.toml").open("a") as f:
                f.write("junk = = 1\n")
        refused = cli(home, "key", "delete", old)
        kept = cli(home, "key", "status", old)
        forced = cli(home, "key", "delete", old, "--force")
    finally:
        for name in (old, new):
            cli(home, "key", "delete", name, "--force")
    file = "p.config.toml" if case == "codex-p" else "settings.json"
    live = next(home.rglob(file))
    assert refused.returncode == 2 and "Traceback" not in refused.stderr, refused.stderr
    assert f"key delete {old}: {live}, written when p was switched on for {app}" in refused.stderr
    said = {"codex-p": "edited since", "removed": "removed since", "broken": "does not load now"}
    assert said[case] in refused.stderr and f"still reads key {old}" in refused.stderr
    assert "nothing was deleted" in refused.stderr and "stored" in kept.stdout, kept.stdout
    # key status agrees: no "delete it" hint for a key a file still reads
    assert f"used by no profile; still read by {live}" in kept.stdout, kept.stdout
    assert forced.returncode == 0 and f"warning: {live}, written when p" in forced.stderr
    assert LONG not in refused.stdout + refused.stderr + forced.stdout + forced.stderr


@pytest.mark.usefixtures("secret_service")
def test_doctor_reads_the_file_not_the_profile_for_a_missing_key(home: Path) -> None:
    """`profile use c` (helper), `profile edit c --option key_mode=inline`, `key delete --force`:
    doctor said settings.json holds the key so Claude Code goes on working (it read the
    profile), while the file holds only `apiKeyHelper ... key print KEY`: every request fails."""
    name = unique("s27-helper")
    add(home, "c", "claude", "http://127.0.0.1:9/v1", "--model", "m", "--key", name)
    assert cli(home, "key", "set", name, stdin=LONG).returncode == 0
    try:
        assert cli(home, "profile", "use", "c").returncode == 0
        edited = cli(home, "profile", "edit", "c", "--option", "key_mode=inline")
        assert edited.returncode == 0, edited.stderr
    finally:
        assert cli(home, "key", "delete", name, "--force").returncode == 0
    doctor = cli(home, "profile", "doctor", "claude")
    live = next(home.rglob("settings.json"))
    assert f"key print {name}" in live.read_text() and LONG not in live.read_text()
    said = f"{live} runs `judgeaudit key print {name}` on every request, so Claude Code's requests"
    assert said in doctor.stdout, doctor.stdout
    assert "goes on working" not in doctor.stdout
    assert LONG not in doctor.stdout + doctor.stderr


def test_the_azure_hint_keeps_a_proxys_scheme_and_port(home: Path) -> None:
    """The Azure deployment hint said https://HOST/openai/v1 for http://127.0.0.1:8443/...:
    the scheme and port of a local proxy were dropped, so the suggested URL called nothing."""
    url = "http://127.0.0.1:8443/openai/deployments/gpt-4o"
    done = cli(home, "profile", "add", "az", "--app", "codex", "--base-url", url, "--key-env",
               "AZ_KEY", "--option", "bridge=chat")  # fmt: skip
    assert done.returncode == 2 and "http://127.0.0.1:8443/openai/v1," in one_line(done)


def test_scrub_refuses_an_old_bridged_azure_profile_file(home: Path) -> None:
    """docs/bridge.md: a profile file written before with an Azure deployment URL and bridge=chat
    fails to load now, so exec --scrub-other-providers refuses, naming the file."""
    add(home, "s", "sdk", "https://gw.example.com/v1", "--key-env", "S_KEY")
    old = home / "cfg" / "profiles" / "az.toml"
    old.write_text('name = "az"\napp = "codex"\nbase_url = "https://acme.openai.azure.com/openai/'
                   'deployments/gpt-4o"\nkey_env = "AZ_KEY"\n[options]\nbridge = "chat"\n')  # fmt: skip
    done = cli(home, "exec", "s", "--scrub-other-providers", "--", sys.executable, "-c", "0",
               env={"S_KEY": "tk-abcdefghij12"})  # fmt: skip
    line = one_line(done)
    assert done.returncode == 2 and f"{old}: base_url" in line and "api-version" in line, line


@pytest.mark.usefixtures("secret_service")
def test_an_active_profile_moved_to_another_app_points_at_profile_off(home: Path) -> None:
    """`profile use c1` (claude), `profile edit c1 --app codex ...`: the note said `profile use
    c1` applies the change (it switches codex now), doctor claude said so again after that, and
    `key delete` called settings.json codex's (a new user's finding). Each says `profile off
    claude` gives the user's own values back."""
    name = unique("s27-moved")
    assert cli(home, "key", "set", name, stdin=LONG).returncode == 0
    try:
        add(home, "c1", "claude", "http://127.0.0.1:9/v1", "--model", "m", "--key", name)
        assert cli(home, "profile", "use", "c1").returncode == 0
        moved = cli(home, "profile", "edit", "c1", "--app", "codex",
                    "--base-url", "https://gw.example.com/v1")  # fmt: skip
        assert cli(home, "profile", "use", "c1").returncode == 0  # switches codex now
        doctor = cli(home, "profile", "doctor", "claude")
        refused = cli(home, "key", "delete", name)
    finally:
        cli(home, "key", "delete", name, "--force")
    settings = next(home.rglob("settings.json"))
    assert moved.returncode == 0, moved.stderr
    assert f"c1 was active for claude ({settings}) and is a codex profile now: `judgeaudit " in (
        moved.stdout + moved.stderr
    )
    assert "`judgeaudit profile off claude` gives you your own values back there" in (
        moved.stdout + moved.stderr
    )
    assert "c1 is a codex profile now; `judgeaudit profile off claude`" in doctor.stdout, (
        doctor.stdout
    )
    assert "`judgeaudit profile use c1` applies" not in doctor.stdout
    assert refused.returncode == 2
    assert f"{settings}, written when c1 was switched on for claude (a codex profile since)" in (
        refused.stderr
    )
    assert "`judgeaudit profile off claude` removes it" in refused.stderr
    assert f"is active for codex ({settings})" not in refused.stderr
    assert LONG not in moved.stdout + moved.stderr + doctor.stdout + refused.stderr

"""What a twenty-eighth-session review of the profile, key and exec CLI found wrong, as a user
meets it: the real CLI in a fresh world, with the real Secret Service keyring where a key is
stored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.new_user_helpers import add, cli, home, one_line, unique

__all__ = ["home"]  # the fixture, shared


@pytest.mark.parametrize(
    ("extra", "hint"),
    [
        ((), "e.g. https://taotoken.net/api (Claude Code appends /v1/messages itself)"),
        (
            ("--option", "bridge=chat"),
            "e.g. https://taotoken.net/api/v1 (the OpenAI-compatible base, ending in /v1)",
        ),
    ],
)
def test_a_bridged_claude_profiles_url_hint_asks_for_v1(
    home: Path, extra: tuple[str, ...], hint: str
) -> None:
    """A refused base URL of a bridged Claude profile said "Claude Code appends /v1/messages
    itself": its bridge talks to an OpenAI-compatible gateway, whose base ends in /v1."""
    done = cli(home, "profile", "add", "bc", "--app", "claude", "--base-url", "gw.example/v1",
               "--key-env", "GW_KEY", *extra)  # fmt: skip
    assert done.returncode == 2
    assert one_line(done) == (
        f"judgeaudit: profile add: base_url: must start with http:// or https:// ({hint}); "
        "nothing was saved"
    )


def _key() -> str:
    return "sk-" + "s28key" * 5  # built here: no key-like literal in the file


@pytest.mark.usefixtures("secret_service")
def test_key_delete_counts_only_the_codex_table_codex_selects(home: Path) -> None:
    """`profile use ca`, a hand edit of its provider table in config.toml (so the switch keeps
    it), `profile use cb`: config.toml holds ca's table (`key print KA`) beside cb's, but its
    `model_provider` selects cb's, so Codex never runs ca's command. `key delete KA` and
    `key status KA` called config.toml, "written when cb was switched on", a reader of KA;
    only ca.config.toml (`codex -p ca`) is."""
    ka, kb = unique("s28-ka"), unique("s28-kb")
    for name in (ka, kb):
        assert cli(home, "key", "set", name, stdin=_key()).returncode == 0
    add(home, "ca", "codex", "http://127.0.0.1:9/v1", "--model", "m", "--key", ka)
    add(home, "cb", "codex", "http://127.0.0.1:19/v1", "--model", "m", "--key", kb)
    try:
        assert cli(home, "profile", "use", "ca").returncode == 0
        config = next(home.rglob("config.toml"))
        edited = config.read_text().replace("\nauth = ", "\nrequest_max_retries = 4\nauth = ")
        config.write_text(edited)
        assert cli(home, "profile", "use", "cb").returncode == 0
        assert f'"print", "{ka}"' in config.read_text()  # ca's table kept, unselected
        refused = cli(home, "key", "delete", ka)
        status = cli(home, "key", "status", ka)
        other = cli(home, "key", "delete", kb)
    finally:
        for name in (ka, kb):
            cli(home, "key", "delete", name, "--force")
    assert refused.returncode == 2, refused.stderr
    assert f"{config.parent / 'ca.config.toml'}, written when ca" in refused.stderr
    assert f"{config}," not in refused.stderr and "cb" not in refused.stderr, refused.stderr
    assert "used by: ca" in status.stdout, status.stdout
    # cb's own table, which config.toml selects, still counts
    assert other.returncode == 2 and f"cb is active for codex ({config})" in other.stderr


@pytest.mark.usefixtures("secret_service")
def test_key_delete_of_an_active_sdk_profiles_key_says_what_breaks(home: Path) -> None:
    """`key delete` of an active sdk profile's key said the profile "reads key K on every
    request: sdk fails until another profile is switched in" and told to run `judgeaudit
    profile off APP`: no file reads it; `exec P` and `env P` do, and `profile off sdk` is the
    command. A name with no stored key was `no stored key K` on stdout, without the
    `judgeaudit:` prefix every other refusal has."""
    key = unique("s28-sdk")
    add(home, "s1", "sdk", "https://gw.example.com/v1", "--key", key)
    assert cli(home, "key", "set", key, stdin=_key()).returncode == 0
    try:
        assert cli(home, "profile", "use", "s1").returncode == 0
        refused = cli(home, "key", "delete", key)
        off = cli(home, "profile", "off", "sdk")
        deleted = cli(home, "key", "delete", key)
        again = cli(home, "key", "delete", key)
    finally:
        cli(home, "key", "delete", key, "--force")
    assert refused.returncode == 2 and one_line(refused) == (
        f"judgeaudit: key delete {key}: s1 is the active sdk profile, whose key {key} "
        "`judgeaudit exec s1` and `judgeaudit env s1` read: both fail until the key is set again "
        "(a shell that loaded `judgeaudit env s1` keeps its copy); switch another profile in (or "
        "`judgeaudit profile off sdk`) first, or give --force; nothing was deleted"
    )
    assert off.returncode == 0 and deleted.returncode == 0, off.stderr + deleted.stderr
    assert (again.returncode, again.stdout) == (1, "") and one_line(again) == (
        f"judgeaudit: key delete {key}: no stored key {key}; nothing was deleted "
        "(`judgeaudit key status` lists the stored keys)"
    )


@pytest.mark.usefixtures("secret_service")
def test_doctor_on_an_env_mode_claude_profiles_missing_key_says_what_needs_it(home: Path) -> None:
    """A Claude profile with key_mode env writes no apiKeyHelper: Claude Code sends the token of
    the shell it starts in. With its keyring entry gone, doctor said "the app's requests fail
    until `judgeaudit key set K`": Claude Code's do not; exec and env of the profile do (unless
    its key_env is exported), and exec's own refusal names both fixes."""
    key = unique("s28-env")
    add(home, "ce", "claude", "https://gw.example.com/api", "--key", key, "--key-env", "GW_TOKEN",
        "--option", "key_mode=env")  # fmt: skip
    assert cli(home, "profile", "use", "ce").returncode == 0
    doctor = cli(home, "profile", "doctor", "claude")
    ran = cli(home, "exec", "ce", "--", "true")
    said = (
        f"key {key} (profile ce's) is missing from the keyring: Claude Code does not read the "
        "keyring with key_mode env (it takes the key from the environment it starts in), so only "
        f"`judgeaudit exec ce` and `judgeaudit env ce` need it: run `judgeaudit key set {key}`, "
        "or export GW_TOKEN"
    )
    assert said in doctor.stdout, doctor.stdout
    assert "the app's requests fail" not in doctor.stdout
    assert ran.returncode == 2 and one_line(ran) == (
        f"judgeaudit: profile 'ce': no key found (run `judgeaudit key set {key}`, or export "
        "GW_TOKEN)"
    )
    worked = cli(home, "exec", "ce", "--", "true", env={"GW_TOKEN": _key()})
    assert worked.returncode == 0, worked.stderr


def test_profile_import_never_folds_two_entries_into_one_name(home: Path) -> None:
    """`profile import FILE` stored "gw-网" as `gw` and then skipped the file's "gw" as "a
    profile with this name exists", naming only the changed name: one entry was silently lost.
    Each entry gets its own profile (a name the file gives exactly is kept; a changed one takes
    the next free `-2`), and every changed name is said beside the file's; a re-import skips
    each, naming both."""
    entries = [("gw-网", "A_KEY"), ("gw", "B_KEY"), ("gw", "C_KEY")]
    listing = {
        "profiles": [
            {"name": n, "app": "sdk", "base_url": "https://gw.example.com/v1", "api_key_env": v}
            for n, v in entries
        ]
    }
    file = home / "work" / "list.json"
    file.write_text(json.dumps(listing, ensure_ascii=False), encoding="utf-8")
    first = cli(home, "profile", "import", str(file))
    again = cli(home, "profile", "import", str(file))
    assert first.returncode == 0, first.stderr
    assert first.stdout.splitlines() == [
        'imported gw-2 ("gw-网" in the file)',
        "imported gw",
        'imported gw-3 ("gw" in the file)',
        "3 imported, 0 skipped",
    ]
    shown = {name: cli(home, "profile", "show", name).stdout for name in ("gw", "gw-2", "gw-3")}
    assert [v for _, v in entries] == [
        next(k for k in ("A_KEY", "B_KEY", "C_KEY") if k in shown[n])
        for n in ("gw-2", "gw", "gw-3")
    ]
    assert again.returncode == 2
    assert again.stdout.splitlines()[:3] == [
        'skipped gw-2 ("gw-网" in the file): a profile with this name exists (remove it to '
        "re-import)",
        "skipped gw: a profile with this name exists (remove it to re-import)",
        'skipped gw-3 ("gw" in the file): a profile with this name exists (remove it to re-import)',
    ]


def test_profile_import_skips_an_entry_without_a_key_as_add_refuses_it(home: Path) -> None:
    """`profile add` refuses a profile without a key; `profile import FILE` imported an entry
    without `api_key_env`, and `profile use` of it then switched a tool to a provider it had no
    key for (a twenty-eighth-session review). The entry is skipped with a line naming it and
    what to give; the others are imported."""
    listing = {
        "profiles": [
            {"name": "ok", "app": "sdk", "base_url": "https://gw.example.com/v1",
             "api_key_env": "OK_KEY"},
            {"name": "nokey", "app": "sdk", "base_url": "https://gw.example.com/v1"},
        ]
    }  # fmt: skip
    file = home / "work" / "list.json"
    file.write_text(json.dumps(listing), encoding="utf-8")
    done = cli(home, "profile", "import", str(file))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "imported ok",
        f"skipped nokey: {file}: profiles[1]: no api_key_env; a profile without a key cannot be "
        'used: give the entry "api_key_env": "VAR" (the variable holding its key) and import it '
        "again, or `judgeaudit profile add nokey --key NAME ...`; not imported",
        "1 imported, 1 skipped",
    ]
    assert cli(home, "profile", "use", "nokey").returncode == 2


def test_profile_import_keeps_every_name_the_file_gives_exactly(home: Path) -> None:
    """A file with entries "gw", "gw", "GW", "gw-2" imported the last as `gw-2-2`: the second
    "gw" had taken `gw-2` first, while the docs say a name the file gives exactly is kept (a
    reviewer). An exact name is its first entry's; a duplicate or changed name takes a suffix
    no entry of the file gives exactly."""
    entries = [("gw", "A_KEY"), ("gw", "B_KEY"), ("GW", "C_KEY"), ("gw-2", "D_KEY")]
    listing = {
        "profiles": [
            {"name": n, "app": "sdk", "base_url": "https://gw.example.com/v1", "api_key_env": v}
            for n, v in entries
        ]
    }
    file = home / "work" / "list.json"
    file.write_text(json.dumps(listing), encoding="utf-8")
    done = cli(home, "profile", "import", str(file))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "imported gw",
        'imported gw-3 ("gw" in the file)',
        'imported gw-4 ("GW" in the file)',
        "imported gw-2",
        "4 imported, 0 skipped",
    ]
    for name, (_, var) in zip(("gw", "gw-3", "gw-4", "gw-2"), entries, strict=True):
        assert var in cli(home, "profile", "show", name).stdout, name

"""A new user of the switching half: `profile use` warned that a stale `ANTHROPIC_AUTH_TOKEN` in
the shell would be sent "instead of the profile's key", without the host it goes to or which
token it is, while `profile doctor` showed its masked last four beside the base URL. Both now
say it in one sentence from one owner (`profiles/tokenwarn.py`): where it is set, its last four
masked, the host, whose key it displaces. Never the key itself."""

from __future__ import annotations

import json
import secrets as pysecrets
from pathlib import Path

import pytest

from tests.new_user_helpers import add, cli, home, unique

pytestmark = pytest.mark.usefixtures("secret_service")
__all__ = ["home"]  # the fixture, shared


@pytest.mark.parametrize("variable", ["ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_API_KEY"])
def test_a_stale_shell_token_is_named_by_host_and_last_four_never_by_value(
    home: Path, variable: str
) -> None:
    key = unique("gw")
    add(home, "gwc", "claude", "https://gw.example.com/api", "--key", key)
    assert cli(home, "key", "set", key, stdin="sk-gw-" + pysecrets.token_hex(12)).returncode == 0
    stale = "sk-old-provider-" + pysecrets.token_hex(12) + "QRST"
    shell = {variable: stale}
    preview = cli(home, "profile", "use", "gwc", "--dry-run", env=shell)
    used = cli(home, "profile", "use", "gwc", env=shell)
    doctor = cli(home, "profile", "doctor", "claude", env=shell)
    assert used.returncode == 0 and doctor.returncode == 0, used.stderr + doctor.stderr
    start = f"in this terminal's environment, {variable} is set (…QRST): Claude Code sends it to "
    lines = []
    for done in (preview, used, doctor):
        found = [x for x in (done.stdout + done.stderr).splitlines() if start in x]
        assert len(found) == 1, done.stdout + done.stderr
        lines.append(found[0].split("warning: ", 1)[1])
        everything = done.stdout + done.stderr
        assert stale not in everything and stale[:-4] not in everything  # only the last four
    assert lines[0] == lines[1] == lines[2]  # one sentence, one owner
    assert f"{start}gw.example.com as " in lines[0]
    assert "profile gwc's key" in lines[0] and lines[0].endswith("(unset it)")
    settings = (home / "claude" / "settings.json").read_text()
    assert stale not in settings


def test_a_base_url_s_password_is_never_printed_by_the_warning_or_doctor(home: Path) -> None:
    """The sentence named the host as the URL's netloc, so a project's
    `ANTHROPIC_BASE_URL=https://bob:PASSWORD@proxy…` printed its password in `profile use`, its
    preview, `profile doctor` (whose base URL line printed it before too) and the app. Only the
    host and port are named now, and doctor's base URL line masks the credentials."""
    key = unique("gw")
    add(home, "gwc", "claude", "https://gw.example.com/api", "--key", key)
    assert cli(home, "key", "set", key, stdin="sk-gw-" + pysecrets.token_hex(12)).returncode == 0
    password = "Tr0ub4dor" + pysecrets.token_hex(6)  # not key-shaped: no key mask catches it
    project = home / "work" / ".claude"
    project.mkdir(parents=True, exist_ok=True)
    (project / "settings.local.json").write_text(
        json.dumps(
            {"env": {"ANTHROPIC_AUTH_TOKEN": "sk-ant-proj-" + pysecrets.token_hex(10) + "WXYZ",
                     "ANTHROPIC_BASE_URL": f"https://bob:{password}@proxy.example.org:8443/v1"}}
        )
    )  # fmt: skip
    said = {}
    for args in (("profile", "use", "gwc", "--dry-run"), ("profile", "doctor", "claude")):
        done = cli(home, *args)
        said[args[1]] = everything = done.stdout + done.stderr
        assert done.returncode == 0, everything
        assert password not in everything and "bob:" not in everything, everything
    sentence = "Claude Code sends it to proxy.example.org:8443 as the bearer token instead of"
    assert sentence in said["use"], said["use"]
    assert (
        "  base URL  https://***@proxy.example.org:8443/v1   from project-local" in said["doctor"]
    )

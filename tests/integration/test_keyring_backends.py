"""Only encrypted keyring backends hold keys: the real keyrings.alt PlaintextKeyring (the usual
headless "fix") is refused with one line naming the fix, accepted only with the explicit opt-in
and then loudly; beside the real Secret Service it is never written to."""

from __future__ import annotations

import os
import secrets as pysecrets
import subprocess
import sys
from pathlib import Path

import pytest

PLAINTEXT = "keyrings.alt.file.PlaintextKeyring"


def run(
    env: dict[str, str], *args: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "judgeaudit", *args],
        input=stdin, capture_output=True, text=True, timeout=120, env=env,
    )  # fmt: skip


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if k != "JUDGEAUDIT_ALLOW_PLAINTEXT_KEYRING"}
    return {
        **base,
        "JUDGEAUDIT_CONFIG_DIR": str(tmp_path / "cfg"),
        "XDG_DATA_HOME": str(tmp_path / "data"),  # where PlaintextKeyring writes its file
        "HOME": str(tmp_path / "home"),
    }


def _files_text(root: Path) -> str:
    return "".join(p.read_text(errors="replace") for p in root.rglob("*") if p.is_file())


def test_a_plaintext_keyring_is_refused_with_the_fix_named(
    env: dict[str, str], tmp_path: Path
) -> None:
    env = {**env, "PYTHON_KEYRING_BACKEND": PLAINTEXT}
    secret = "sk-plain-" + pysecrets.token_hex(6)
    done = run(env, "key", "set", "plain", stdin=secret)
    assert done.returncode != 0 and "stored" not in done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert PLAINTEXT in lines[0] and "not an encrypted one" in lines[0]
    assert "JUDGEAUDIT_ALLOW_PLAINTEXT_KEYRING=1" in lines[0] and "Secret Service" in lines[0]
    assert not (tmp_path / "data").exists() or secret not in _files_text(tmp_path / "data")
    assert run(env, "key", "status").returncode != 0


def test_the_opt_in_is_loud_and_never_called_the_os_keyring(
    env: dict[str, str], tmp_path: Path
) -> None:
    env = {**env, "PYTHON_KEYRING_BACKEND": PLAINTEXT, "JUDGEAUDIT_ALLOW_PLAINTEXT_KEYRING": "1"}
    secret = "sk-plain-" + pysecrets.token_hex(6)
    done = run(env, "key", "set", "plain", stdin=secret)
    assert done.returncode == 0, done.stderr
    assert "OS keyring" not in done.stdout and "NOT ENCRYPTED" in done.stdout
    assert done.stderr.startswith("WARNING: ") and "does not encrypt" in done.stderr
    assert secret not in done.stdout + done.stderr
    assert run(env, "key", "print", "plain").stdout == secret + "\n"
    assert (tmp_path / "data" / "python_keyring").exists()  # where it really went


@pytest.mark.usefixtures("secret_service")
def test_beside_secret_service_the_plaintext_file_is_never_written(
    env: dict[str, str], tmp_path: Path
) -> None:
    name = "beside-" + pysecrets.token_hex(4)
    secret = "sk-ss-" + pysecrets.token_hex(6)
    # keyrings.alt installed: keyring chains Secret Service and PlaintextKeyring.
    probe = "import keyring; print(type(keyring.get_keyring()).__name__)"
    chained = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True)
    assert chained.stdout.strip() == "ChainerBackend", chained.stderr
    done = run(env, "key", "set", name, stdin=secret)
    try:
        assert done.returncode == 0, done.stderr
        assert "in the OS keyring (Secret Service)" in done.stdout and not done.stderr
        assert run(env, "key", "print", name).stdout == secret + "\n"
        data = tmp_path / "data"
        assert not data.exists() or secret not in _files_text(data)
    finally:
        run(env, "key", "delete", name)


def test_key_set_refuses_two_lines_and_stores_nothing(env: dict[str, str]) -> None:
    """`printf 'k1\\nk2\\n' | key set X` stored the first line silently (a new user's trial):
    which key went in was a guess. Two lines are refused in one line; one line (a trailing
    newline, blank lines around it) is stored as it was."""
    env = {**env, "PYTHON_KEYRING_BACKEND": PLAINTEXT, "JUDGEAUDIT_ALLOW_PLAINTEXT_KEYRING": "1"}
    first, second = "sk-one-" + pysecrets.token_hex(6), "sk-two-" + pysecrets.token_hex(6)
    done = run(env, "key", "set", "two", stdin=f"{first}\n{second}\n")
    assert done.returncode == 2
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert lines == [
        "judgeaudit: key set two: the standard input holds 2 lines and a key is one; pipe the one line "
        "(e.g. `head -n 1 FILE |` or `sed -n 2p FILE |`); nothing stored"
    ]
    assert first not in done.stdout + done.stderr and second not in done.stdout + done.stderr
    assert run(env, "key", "print", "two").returncode != 0  # nothing stored
    assert run(env, "key", "set", "two", stdin=f"\n{first}\n\n").returncode == 0
    assert run(env, "key", "print", "two").stdout == first + "\n"


def test_key_status_says_in_one_line_that_a_backend_cannot_list_its_keys(
    env: dict[str, str],
) -> None:
    """Only the Secret Service lists its entries; another backend is said by name in one
    note line (it named the class as "X cannot list its entries"), and a stored key is still
    shown when named."""
    env = {**env, "PYTHON_KEYRING_BACKEND": PLAINTEXT, "JUDGEAUDIT_ALLOW_PLAINTEXT_KEYRING": "1"}
    assert run(env, "key", "set", "plain", stdin="sk-plain-" + "4" * 16).returncode == 0
    done = run(env, "key", "status")
    assert done.returncode == 0, done.stderr
    notes = [line for line in done.stderr.splitlines() if line.startswith("note: ")]
    assert notes == [
        f"note: cannot list keys in {PLAINTEXT}: a key no profile uses is shown only by "
        "`judgeaudit key status NAME`"
    ]
    named = run(env, "key", "status", "plain").stdout.splitlines()[1]
    assert named.split()[:3] == ["plain", "stored", "…4444"]

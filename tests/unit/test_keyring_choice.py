"""judgeaudit's keyring backend is keyring's own choice, reached without its needless work.

Off macOS, ``keyringkind`` fails keyring's import of its macOS backend's framework loader at once
(``ctypes.util.find_library`` ran ldconfig and a C compiler on every ``key print``). Each case
of keyring's precedence (``PYTHON_KEYRING_BACKEND``, ``keyringrc.cfg``, detection) is run in two
fresh interpreters, one asking keyring alone and one asking through judgeaudit first: the
backend, and for keyring's chainer the backends it chains, must be the same.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

CHOSEN = """
import json, sys, keyring
if sys.argv[1] == "judgeaudit":
    from judgeaudit.profiles import keyringkind
    try:
        keyringkind.backend()
    except Exception:
        pass  # keyring's own refusal: asked again below, as keyring alone is
name = lambda b: f"{type(b).__module__}.{type(b).__name__}"
try:
    found = keyring.get_keyring()
    said = [name(found), *map(name, getattr(found, "backends", []))]
except Exception as exc:
    said = [f"{type(exc).__name__}: {exc}"]
print(json.dumps({"chosen": said, "find_library": "ctypes.util" in sys.modules}))
"""


def _chosen(asker: str, env: dict[str, str]) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", CHOSEN, asker], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    said: dict[str, object] = json.loads(done.stdout)
    return said


def _env(tmp_path: Path, case: str) -> dict[str, str]:
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "HOME": str(tmp_path)}
    env.pop("PYTHON_KEYRING_BACKEND", None)
    if case == "no D-Bus":
        env.pop("DBUS_SESSION_BUS_ADDRESS", None)
    elif case.startswith("PYTHON_KEYRING_BACKEND="):
        env["PYTHON_KEYRING_BACKEND"] = case.partition("=")[2]
    elif case.startswith("keyringrc.cfg "):
        config = tmp_path / "config" / "python_keyring" / "keyringrc.cfg"
        config.parent.mkdir(parents=True)
        config.write_text(f"[backend]\ndefault-keyring = {case.split()[1]}\n", encoding="utf-8")
    return env


CASES = [
    "detected",
    "no D-Bus",
    "PYTHON_KEYRING_BACKEND=keyring.backends.null.Keyring",
    "PYTHON_KEYRING_BACKEND=keyring.backends.macOS.Keyring",
    "keyringrc.cfg keyring.backends.null.Keyring",
    "keyringrc.cfg keyring.backends.macOS.Keyring",
]


@pytest.mark.parametrize("case", CASES)
def test_the_backend_is_keyrings_own_choice(tmp_path: Path, case: str) -> None:
    env = _env(tmp_path, case)
    theirs, ours = _chosen("keyring", env), _chosen("judgeaudit", env)
    assert ours["chosen"] == theirs["chosen"], case
    if platform.system() != "Darwin":  # the search keyring alone makes, and judgeaudit does not
        assert not ours["find_library"], ours
        assert theirs["find_library"] or "null" in case, theirs  # null: no macOS backend looked at


@pytest.mark.usefixtures("secret_service")
def test_the_secret_service_is_chosen_as_keyring_chooses_it(tmp_path: Path) -> None:
    """Inside scripts/with-keyring.sh detection finds the private Secret Service: judgeaudit's
    choice is it too (the case Linux users have)."""
    env = _env(tmp_path, "detected")
    theirs, ours = _chosen("keyring", env), _chosen("judgeaudit", env)
    assert ours["chosen"] == theirs["chosen"]
    assert "keyring.backends.SecretService.Keyring" in str(ours["chosen"]), ours

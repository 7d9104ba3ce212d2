"""The install line of a missing extra is a command its user can run where they are: a venv
made by `make demo` has no pip (uv filled it), so the line names that venv's uv."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from judgeaudit import extras


def _no_pip(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec

    def find(name: str, *args: object, **kwargs: object) -> object:
        return None if name == "pip" else real(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(importlib.util, "find_spec", find)


def test_a_venv_without_pip_is_told_its_own_uv(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    venv = tmp_path / "my venv" / "bin"
    venv.mkdir(parents=True)
    (venv / "uv").write_text("")
    monkeypatch.setattr(sys, "executable", str(venv / "python"))
    _no_pip(monkeypatch)
    assert extras.install("duckdb") == (
        f"'{venv}/uv' pip install --python '{venv}/python' 'judgeaudit[duckdb]'"
    )
    monkeypatch.chdir(tmp_path / "my venv")  # as the README runs it: from where the venv is
    assert extras.install("duckdb") == "bin/uv pip install --python bin/python 'judgeaudit[duckdb]'"


def test_without_pip_or_uv_and_with_pip_it_is_pip(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))
    with monkeypatch.context() as hidden:
        _no_pip(hidden)
        assert extras.install("spark") == "pip install 'judgeaudit[spark]'"
    if importlib.util.find_spec("pip") is not None:
        assert extras.install("spark") == "pip install 'judgeaudit[spark]'"


def test_the_line_this_venv_gives_names_a_uv_that_runs() -> None:
    """This project's own venv (made by `make venv`): the command's program exists and runs."""
    line = extras.install("duckdb")
    program = line.split(" pip install ")[0].strip("'") if " pip install " in line else "pip"
    program = str(Path.cwd() / program) if program != "pip" else program
    if program == "pip":
        pytest.skip("this environment has pip: the line is plain pip")
    done = subprocess.run([program, "--version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.startswith("uv ")

"""What a twenty-seventh-session review of the profile and exec CLI found wrong, as a user meets
it: the real CLI in a fresh world."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.cells import cell_len

from tests.new_user_helpers import add, cli, home

__all__ = ["home"]  # the fixture, shared

LONG_MODEL = "accounts/fireworks/models/llama-v3p1-405b-instruct"  # 51 characters


def test_profile_list_sizes_the_model_column_to_the_longest_id(home: Path) -> None:
    """The model column was 22 cells whatever it held: a longer id pushed the key column after
    it out of line with the other rows."""
    add(home, "short", "sdk", "https://gw.example.com/v1", "--key-env", "P_KEY", "--model", "m-1")
    add(home, "long", "sdk", "https://gw.example.com/v1", "--key-env", "P_KEY",
        "--model", LONG_MODEL)  # fmt: skip
    add(home, "cc", "claude", "https://gw.example.com", "--key-env", "P_KEY", "--model", "模型")
    listed = cli(home, "profile", "list")
    assert listed.returncode == 0, listed.stderr
    rows = [line for line in listed.stdout.splitlines() if line.startswith(("   short ",
            "   long ", "   cc "))]  # fmt: skip
    assert len(rows) == 3, listed.stdout
    assert LONG_MODEL in rows[[r.startswith("   long ") for r in rows].index(True)]  # whole
    # the key column starts at the same cell on every row, over both apps' lists
    assert len({cell_len(row.partition(" key ")[0]) for row in rows}) == 1, rows


@pytest.mark.parametrize(
    ("typo", "hint"),
    [
        ("--scrub", " (did you mean --scrub-other-providers?)"),
        ("--a", " (did you mean --as?)"),
        ("--scrub-other-provider", " (did you mean --scrub-other-providers?)"),
    ],
)
def test_exec_takes_no_abbreviation_before_name_as_after_it(
    home: Path, typo: str, hint: str
) -> None:
    """argparse took `exec --scrub NAME -- cmd` for --scrub-other-providers (and `--a plain` for
    --as) before NAME, while the same word after NAME was refused: one rule on both sides, the
    refusal's line the same, nothing run."""
    add(home, "p", "sdk", "https://gw.example.com/v1", "--key-env", "P_KEY")
    marker = home / "work" / "ran"
    run = ["--", "sh", "-c", f"touch {marker}"]
    value = ["plain"] if typo == "--a" else []
    before = cli(home, "exec", typo, *value, "p", *run, env={"P_KEY": "k-123"})
    after = cli(home, "exec", "p", typo, *value, *run, env={"P_KEY": "k-123"})
    line = (
        f"judgeaudit: exec: {typo} is not an option of exec{hint}; a command that itself starts"
        " with '-' goes after `--` (judgeaudit exec NAME -- CMD); nothing was run"
    )
    for done in (before, after):
        assert (done.returncode, done.stdout, done.stderr.splitlines()) == (2, "", [line])
    assert not marker.exists()
    # the whole option names still work on both sides
    for args in (["--scrub-other-providers", "--as=plain", "p"], ["p", "--as", "plain"]):
        done = cli(home, "exec", *args, *run, env={"P_KEY": "k-123"})
        assert done.returncode == 0, done.stderr
    assert marker.exists()

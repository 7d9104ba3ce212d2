"""The switch preview's diff of a file without a final line end: its last line ran straight
into the note after it (`…print ka"}  note: removes …`, a new user's trial). It is marked as
git marks it, and the note starts its own line."""

from __future__ import annotations

from pathlib import Path

from judgeaudit.profiles.diffview import render_diff
from judgeaudit.profiles.targets import FilePlan


def test_a_file_without_a_final_line_end_is_marked_and_the_note_keeps_its_line() -> None:
    plan = FilePlan(
        Path("/x/settings.json"), b'{"a": 1}', b'{"a": 2}\n', kind="claude", notes=["removes X"]
    )
    assert render_diff([plan]).splitlines() == [
        "--- /x/settings.json",
        "+++ /x/settings.json",
        "@@ -1 +1 @@",
        '-{"a": 1}',
        "\\ No newline at end of file",
        '+{"a": 2}',
        "  note: removes X",
    ]


def test_files_that_end_their_lines_are_diffed_as_before() -> None:
    plan = FilePlan(Path("/x/c.toml"), b"a = 1\n", b"a = 2\n", kind="codex")
    assert "No newline" not in render_diff([plan])

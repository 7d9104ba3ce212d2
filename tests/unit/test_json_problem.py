"""A JSON error names the problem and where once: the decoder's "Invalid control character at"
read "… at at column 9" in our line (a new user's finding, session 12)."""

from __future__ import annotations

import pytest

from judgeaudit.validate import ValidationError, loads_json


def test_a_control_character_is_named_once_with_its_column() -> None:
    with pytest.raises(ValidationError) as caught:
        loads_json('{"a": "x\x01"}', "f.jsonl:3", "pair")
    assert str(caught.value) == (
        "f.jsonl:3: not valid JSON (Invalid control character at column 9); one pair object per line"
    )


def test_other_decoder_messages_are_kept_whole() -> None:
    with pytest.raises(ValidationError) as caught:
        loads_json('{"a": 1,}', "f.jsonl:1", "pair")
    assert "(Expecting property name enclosed in double quotes at column 9)" in str(caught.value)

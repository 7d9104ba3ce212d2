"""A JSON error names the problem and where once: the decoder's "Invalid control character at"
read "… at at column 9" in our line (a new user's finding, session 12)."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgeaudit.audit.units.verdict_parse import VerdictError, parse_verdict
from judgeaudit.profiles.ccswitch_read import read_config_json
from judgeaudit.profiles.importers import import_json_list
from judgeaudit.profiles.jsonedit import JsonEditError, parse_tree
from judgeaudit.profiles.model import ProfileError
from judgeaudit.profiles.store import ProfileStore
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


def test_every_reader_that_names_a_json_problem_names_it_without_a_dangling_at(
    tmp_path: Path, isolated: ProfileStore
) -> None:
    """The CC Switch config, a profile list, a judge's verdict and an edited settings file: the
    same decoder message, each without "character at)" (the reviewer's repro)."""
    bad = tmp_path / "cfg.json"
    bad.write_text('{"a": "x\x01"}', encoding="utf-8")
    seen: list[str] = []
    with pytest.raises(ProfileError) as caught:
        read_config_json(bad)
    seen.append(str(caught.value))
    with pytest.raises(ProfileError) as caught:
        import_json_list(isolated, bad)
    seen.append(str(caught.value))
    with pytest.raises(VerdictError) as verdict:
        parse_verdict('{"winner": "A\x01"}')
    seen.append(str(verdict.value))
    with pytest.raises(JsonEditError) as edited:
        parse_tree('{"a": "x\x01"}')
    seen.append(str(edited.value))
    assert seen[0] == seen[1] == f"{bad}:1:9: invalid JSON (Invalid control character)"
    assert seen[2] == "invalid JSON: Invalid control character"
    assert "invalid string (Invalid control character)" in seen[3]
    assert not any("character at" in s for s in seen)

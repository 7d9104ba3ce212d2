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
from judgeaudit.validate import CUT, ValidationError, iter_jsonl, loads_json


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


@pytest.mark.parametrize(
    ("last", "cut"),
    [
        ('{"a": "unterminat', True),
        ('{"a": ', True),
        ('{"a": 1', True),
        ('{"a": 1,, "b": 2}', False),  # a wrong character inside the line: not a cut file
        ('{"a": "unterminat\n', False),  # ends with a newline: not the end of a cut file
    ],
)
def test_a_last_line_cut_mid_object_is_called_cut(tmp_path: Path, last: str, cut: bool) -> None:
    """A production log copied while it was being written ends mid-line: the line says the file
    looks cut off, not only which character the decoder expected (a new user's finding)."""
    path = tmp_path / "log.jsonl"
    path.write_text('{"a": 1}\n' + last, encoding="utf-8")
    with pytest.raises(ValidationError) as caught:
        list(iter_jsonl(path, "record"))
    message = str(caught.value)
    assert message.startswith(f"{path}:2: not valid JSON (")
    assert ("the file looks cut off" in message) is cut, message


def test_a_cut_inside_a_character_or_a_deep_last_line_gets_one_line(tmp_path: Path) -> None:
    """A log of Chinese text cut inside a character said "not UTF-8 … save as UTF-8"; a deeply
    nested last line without a newline crashed the check for a cut file (RecursionError, exit
    70): the first is called cut off, the second is refused as nested too deeply."""
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes('{"a": 1}\n{"task": "退货'.encode()[:-1])
    with pytest.raises(ValidationError) as caught:
        list(iter_jsonl(cut, "record"))
    assert str(caught.value) == f"{cut}:2: {CUT}"
    deep = tmp_path / "deep.jsonl"
    deep.write_text('{"a": 1}\n' + "[" * 5000 + "]" * 5000, encoding="utf-8")
    with pytest.raises(ValidationError) as caught:
        list(iter_jsonl(deep, "record"))
    assert "nested too deeply" in str(caught.value) and "cut off" not in str(caught.value)


def test_a_line_that_stops_short_before_its_newline_names_its_own_column(tmp_path: Path) -> None:
    """A recorded pairs file with a line cut at column 16 said "at column 1": the decoder ran on
    past the newline into "line 2" (a new user). The column is the line's own: where it ends."""
    path = tmp_path / "pairs.jsonl"
    path.write_text('{"a": 1}\n{"pair_id": "p"\n{"a": 2}\n', encoding="utf-8")
    with pytest.raises(ValidationError) as caught:
        list(iter_jsonl(path, "pair"))
    assert f"{path}:2: not valid JSON (Expecting ',' delimiter at column 16)" in str(caught.value)

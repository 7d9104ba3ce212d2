"""The validation layer's answers: the exact line and byte offset, and what is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgeaudit.outdir import check_out_dir
from judgeaudit.validate import (
    ValidationError,
    bin_edges,
    iter_jsonl,
    loads_json,
    read_text,
    read_toml,
    unknown_field,
)


def test_bad_byte_is_named_by_line_and_offset_even_after_a_bom(tmp_path: Path) -> None:
    path = tmp_path / "f.toml"
    path.write_bytes(b"\xef\xbb\xbfa = 1\nb = 'caf\xe9'\n")
    with pytest.raises(
        ValidationError, match=rf"^{path}:2: not UTF-8 \(byte 0xe9 at byte offset 17\)"
    ):
        read_text(path, "config")
    path.write_bytes(b"\xef\xbb\xbfa = 1\n")
    assert read_toml(path, "config") == {"a": 1}  # a BOM alone is fine


def test_jsonl_offsets_count_every_earlier_line(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_bytes(b'{"a": 1}\n\n{"b": "\xff"}\n')
    with pytest.raises(ValidationError, match=r":3: not UTF-8 \(byte 0xff at byte offset 17\)"):
        list(iter_jsonl(path, "pair"))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"x": NaN}', "NaN is not JSON"),
        ('{"x": -Infinity}', "-Infinity is not JSON"),
        ('{"x": 1e999}', "1e999 is too large"),
        ('{"x": ' + "1" * 5000 + "}", "5000 digits is too long"),
        ('{"x": 1', "not valid JSON"),
        ("[" * 100_000, "nested too deeply|not valid JSON"),
    ],
)
def test_json_numbers_python_would_accept_are_refused(text: str, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        loads_json(text, "f:1", "pair")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"verdicts": [{"order": "AB", "score_a": NaN}]}', r"f:1: verdicts\[0\].score_a: NaN is"),
        ('{"a": 1, "score_b": Infinity}', "f:1: score_b: Infinity is not JSON"),
        ('{"x": {"y": [1, 2, 1e400]}}', r"f:1: x.y\[2\]: 1e400 is too large"),
        ('{"trial": ' + "9" * 5000 + "}", "f:1: trial: an integer with 5000 digits"),
    ],
    ids=["nan", "infinity", "overflow", "long-integer"],
)
def test_a_refused_number_names_its_field(text: str, message: str) -> None:
    """A new user's trial: `NaN is not JSON` did not say which field held it (security.md: a
    refusal names the field), and its advice (a string) led to the next refusal."""
    with pytest.raises(ValidationError, match=message) as refused:
        loads_json(text, "f:1", "pair")
    assert "write it as a string" not in str(refused.value)


def test_toml_nan_and_inf_are_refused_with_their_key(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text("[run]\nx = [1, nan]\n")
    with pytest.raises(ValidationError, match=r"run.x\[1\]: nan is not a usable number"):
        read_toml(path, "spec")


def test_bins_and_labels() -> None:
    assert bin_edges([0, 1, 2], ["a", "b"], "gap") == ([0.0, 1.0, 2.0], ["a", "b"])
    for bins, labels, message in (
        ([0, 1, 1], None, r"gap.bins\[2\]: edge 1 appears twice"),
        ([0, 2, 1], None, r"gap.bins\[2\]: 1 comes after 2"),
        ([0, float("nan")], None, r"gap.bins\[1\]: nan"),
        ([0, 1], ["a", "b"], "2 labels for 1 buckets"),
        ([0, 1, 2], ["a", "a"], r"gap.labels\[1\]: \"a\" appears twice"),
        ([0, 1], [3], r"gap.labels\[0\]: must be a string"),
    ):
        with pytest.raises(ValidationError, match=message):
            bin_edges(bins, labels, "gap")


def test_out_dir_refusals(tmp_path: Path) -> None:
    check_out_dir(tmp_path / "new" / "deeper")  # not there yet: fine
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValidationError, match="is a file"):
        check_out_dir(tmp_path / "file")
    with pytest.raises(ValidationError, match=r"is a file, so .* cannot be created"):
        check_out_dir(tmp_path / "file" / "out")
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "report.html").write_text("my own report")
    with pytest.raises(ValidationError, match=r"holds report\.html but no audit\.db"):
        check_out_dir(tmp_path / "mine")
    (tmp_path / "mine" / "audit.db").write_bytes(b"SQLite format 3\x00" + bytes(100))
    check_out_dir(tmp_path / "mine")  # an audit directory: resumed, not refused


def test_json_depth_limit_is_exact_whatever_the_brackets_in_strings() -> None:
    """65 levels are refused and 64 accepted; brackets inside strings (which the quick count
    before the depth walk includes) never make a flat line refused."""
    deep = '{"x": ' * 65 + "1" + "}" * 65
    with pytest.raises(ValidationError, match="nested"):
        loads_json(deep, "f:1", "pair")
    assert loads_json('{"x": ' * 64 + "1" + "}" * 64, "f:1", "pair") is not None
    assert loads_json('{"x": "' + "[{" * 500 + '"}', "f:1", "pair") == {"x": "[{" * 500}
    assert loads_json("[" * 64 + "]" * 64, "f:1", "pair") is not None
    with pytest.raises(ValidationError, match="nested"):
        loads_json("[" * 65 + "]" * 65, "f:1", "pair")


def test_toml_dotted_keys_nest_without_brackets_and_are_still_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text(".".join(["a"] * 65) + " = 1\n")
    with pytest.raises(ValidationError, match="nested"):
        read_toml(path, "spec")
    path.write_text(".".join(["a"] * 64) + " = 1\n")
    assert read_toml(path, "spec")["a"]


def test_an_unknown_field_gets_a_did_you_mean_and_a_key_is_masked() -> None:
    """A new user's trial: security.md promises unknown keys "with a did-you-mean"; the JSONL
    formats listed the known fields only. One owner (validate.unknown_field) for all of them."""
    known = ("type", "pair_id", "order", "winner", "score_a")
    line = unknown_field("log.jsonl:2", "winer", known)
    assert line == (
        "log.jsonl:2: winer: unknown field; did you mean winner? known: type, pair_id, order, "
        "winner, score_a"
    )
    assert "did you mean" not in unknown_field("f:1", "zzz", known)
    pasted = "sk-" + "a1B2c3D4e5" * 4  # a key pasted as a field name is not echoed
    assert pasted not in unknown_field("f:1", pasted, known)
    assert unknown_field("f:1[0]", "scor_a", known, joiner=".").startswith("f:1[0].scor_a: ")


def test_a_field_name_cannot_forge_lines_or_colours() -> None:
    """A review: a key holding a newline or an ANSI escape printed two lines and a raw escape."""
    with pytest.raises(ValidationError) as refused:
        loads_json('{"x\\nInjected line\\u001b[31m": NaN}', "f:1", "pair")
    message = str(refused.value)
    assert "\n" not in message and "\x1b" not in message
    assert message.startswith("f:1: x\\nInjected line\\x1b[31m: NaN is not JSON")
    line = unknown_field("f:2", "wi\nnner\x1b[2J", ("winner",))
    assert "\n" not in line and "\x1b" not in line and line.startswith("f:2: wi\\nnner\\x1b[2J:")

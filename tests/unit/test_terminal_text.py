"""What the terminal owner (:mod:`judgeaudit.terminal`) does with the characters a terminal
draws as nothing or obeys: a bidi control and a zero-width one shown as their escape in plain
text, one visible cell in the app's styled text; the emoji's joiners left alone. Which ones is
:mod:`judgeaudit.unseen`'s, the description ids are refused by too (it was a hand list here
and Unicode categories there)."""

from __future__ import annotations

import json
import random
import unicodedata

import pytest
from rich.text import Text

from judgeaudit import unseen
from judgeaudit.agentnames import id_text_problem
from judgeaudit.terminal import CONTROLS, escape, printable, visible
from judgeaudit.tui.safe_text import safe

#: the Trojan Source set (by hand, from Unicode's Bidi_Control list) and the zero-width ones
BIDI = [0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
ZERO_WIDTH = [0x200B, 0x2060, 0xFEFF]


@pytest.mark.parametrize("code", BIDI + ZERO_WIDTH)
def test_an_invisible_character_is_written_as_its_escape(code: int) -> None:
    text = f"a{chr(code)}b"
    assert printable(text) == visible(text) == f"a\\u{code:04x}b"
    assert text.translate(CONTROLS) == "a�b"  # the app's spans keep their places


def test_controls_still_one_cell_and_a_files_own_layout_kept() -> None:
    assert printable("x\x1b[2Jy\r\n\tz") == "x�[2Jy�\n z"
    assert printable("x\x1b[2Jy\r\n\tz\r", layout=True) == "x�[2Jy\r\n\tz�"
    assert visible("x\ry\x1b") == "x\ry\x1b"  # stderr's own controls (a progress line)


def test_an_emoji_sequence_is_left_as_it_is() -> None:
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467 \u2764\ufe0f"
    assert printable(family) == family


#: invisible characters the hand list printed raw (checked by hand against Unicode's
#: Default_Ignorable_Code_Point list): the soft hyphen, the deprecated format controls
#: U+206A..206F, the Hangul filler, the combining grapheme joiner, a language tag
MISSED = [0x00AD, *range(0x206A, 0x2070), 0x3164, 0x034F, 0xE0001]


@pytest.mark.parametrize("code", MISSED)
def test_every_character_an_id_refuses_as_invisible_is_escaped_too(code: int) -> None:
    text = f"a{chr(code)}b"
    assert printable(text) == visible(text) == "a" + escape(code) + "b"
    assert text.translate(CONTROLS) == "a�b"
    assert id_text_problem(text) is not None


def test_an_astral_character_is_escaped_as_python_and_json_read_it() -> None:
    assert printable("a\U000e0001b") == "a\\U000e0001b"
    assert json.loads('"' + printable("a\u2066b") + '"') == "a\u2066b"


def test_a_flag_with_tags_is_left_as_it_is() -> None:
    england = "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f"
    assert printable(england) == england and id_text_problem(england) is None


#: "hi" smuggled in tag characters (U+E0068 U+E0069), by hand: invisible on a terminal
SMUGGLED = "\U000e0068\U000e0069"


@pytest.mark.parametrize(
    ("text", "plain", "cells"),
    [
        ("ok" + SMUGGLED, "ok\\U000e0068\\U000e0069", "ok��"),
        # after the black flag: printed as a plain flag, the letters hidden
        (
            "\U0001f3f4" + SMUGGLED + "\U000e007f",
            "\U0001f3f4\\U000e0068\\U000e0069\\U000e007f",
            "\U0001f3f4���",
        ),
    ],
)
def test_tags_outside_a_flag_are_escaped(text: str, plain: str, cells: str) -> None:
    assert printable(text) == visible(text) == plain
    assert safe(Text(text)).plain == cells  # one cell each: the app's spans keep their places
    assert id_text_problem(text) is not None


def test_a_flag_beside_smuggled_tags_stays_a_flag() -> None:
    scotland = "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"
    text = f"{scotland} {scotland}{SMUGGLED}"
    assert printable(text) == f"{scotland} {scotland}\\U000e0068\\U000e0069"
    assert safe(Text(scotland)).plain == scotland


def test_printing_and_ids_read_one_description_of_invisible() -> None:
    """Over every code point: what printing escapes is exactly what hides anywhere, and an id
    refuses it; what an id refuses as invisible and printing leaves is a character that shapes
    its neighbours somewhere (emoji, joining scripts, flags), or a control (one cell)."""
    escaped, refused = set(), set()
    for code in range(0x110000):
        char = chr(code)
        if 0xD800 <= code <= 0xDFFF or unicodedata.category(char) == "Cc":
            continue  # surrogates are no text; controls are one visible cell (above)
        if printable(char) != char:
            escaped.add(code)
        if unseen.hides(char):
            refused.add(code)
    tags = set(range(0xE0020, 0xE0080))  # alone, a tag is no flag's: escaped (below)
    assert escaped == {c for c in refused if unseen.hides_anywhere(c)} | tags
    assert refused - escaped == set(unseen.SHAPERS) - tags
    assert all(id_text_problem(f"a{chr(c)}b") is not None for c in escaped)
    assert {0x061C, 0x200B, 0x202E, 0x2066, 0xFEFF, 0x2028, 0x2029} <= escaped


def test_printing_and_ids_read_a_tag_as_a_flags_alike() -> None:
    """The second reviewer: printing (runs of tags) and ids (one tag at a time) decided "inside
    a flag" by two readings of the flags. Over random strings of flag parts, tags and letters,
    a tag printing keeps is exactly one an id takes (a tag an id refuses is one printing hides),
    and both keep the tags of whole flags written by hand."""
    wales = "\U0001f3f4" + "".join(chr(0xE0000 + ord(c)) for c in "gbwls") + "\U000e007f"
    parts = [*wales, wales, "\U0001f3f4", "\U000e0067", "\U000e007f", "a", " ", SMUGGLED]
    rng = random.Random(25)

    def marker(code: int) -> str:
        return "\x00"

    for _ in range(3000):
        text = "".join(rng.choice(parts) for _ in range(rng.randint(1, 12)))
        marked = unseen.stray_tags(text, marker)
        for at, char in enumerate(text):
            if "\U000e0020" <= char <= "\U000e007f":
                kept = marked[at] == char
                assert unseen.in_tag_flag(text, at) is kept, (repr(text), at)
                starts = [i for i in range(len(text)) if text.startswith(wales, i)]
                assert kept is any(i < at < i + len(wales) for i in starts), (repr(text), at)

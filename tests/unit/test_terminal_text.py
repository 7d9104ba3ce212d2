"""What the terminal owner (:mod:`judgeaudit.terminal`) does with the characters a terminal
draws as nothing or obeys: a bidi control and a zero-width one shown as their escape in plain
text, one visible cell in the app's styled text; the emoji's joiners left alone."""

from __future__ import annotations

import pytest

from judgeaudit.terminal import CONTROLS, printable, visible

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

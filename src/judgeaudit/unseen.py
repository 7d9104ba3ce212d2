"""What prints as nothing or moves the text around: one description for the two uses of it,
printing (:mod:`judgeaudit.terminal` escapes such a character: a value holding one printed as
another value) and ids (:func:`judgeaudit.agentnames.id_text_problem` refuses one: ``t\u200b1``
printed as ``t1`` and was another task).

By Unicode category (so a new Python's Unicode data extends it), plus the default-ignorable
code points of other categories. A few of them shape their neighbours where they stand (the
joiners of emoji and joining scripts, the variation selectors, the tags of a flag): printing
leaves :data:`SHAPERS` alone, since a translate table cannot see where they stand, but for the
tags, which it looks at in runs (:func:`stray_tags`: only a flag's stay); an id takes one only
where it shapes (``agentnames._shapes``, which asks :func:`in_tag_flag` for a tag: one reading
of the flags for both).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable

#: Unicode categories that print as nothing or move the text: control (Cc), format (Cf:
#: zero-width spaces and joiners, bidi controls, the byte-order mark, the soft hyphen, tags),
#: line and paragraph separators.
CATEGORIES = frozenset(("Cc", "Cf", "Zl", "Zp"))
#: Characters that print as nothing in other categories (Unicode's default-ignorable code points
#: outside those): the combining grapheme joiner, the Hangul fillers, Khmer's inherent vowels,
#: Mongolian's and the general variation selectors (``t\ufe0f1`` printed as ``t1``).
IGNORABLE = frozenset(
    (0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0, *range(0x180B, 0x1810),
     *range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0))
)  # fmt: skip
#: Of those, the ones that shape their neighbours in some places: the non-joiner and joiner
#: (emoji sequences, Persian and the Indic scripts), the variation selectors (VS16 makes an
#: emoji; Mongolian's shape its letters) and the tags (England's, Scotland's and Wales's flags).
SHAPERS = frozenset(
    (0x200C, 0x200D, *range(0x180B, 0x180E), 0x180F, *range(0xFE00, 0xFE10),
     *range(0xE0100, 0xE01F0), *range(0xE0020, 0xE0080))
)  # fmt: skip


def hides(char: str) -> bool:
    """Whether ``char`` (one character) prints as nothing or moves the text, by itself."""
    return unicodedata.category(char) in CATEGORIES or ord(char) in IGNORABLE


def hides_anywhere(code: int) -> bool:
    """Whether the character ``code`` hides wherever it stands (:func:`hides`, not one of the
    :data:`SHAPERS`): what printing escapes."""
    return code not in SHAPERS and hides(chr(code))


#: The flags Unicode writes with tags (England, Scotland, Wales): the black flag, the region's
#: tag letters, the cancel tag. Any other run of tags prints as nothing, or as the plain flag,
#: and hides its letters (text smuggled to a model in tags reads as nothing on a terminal).
TAG_FLAGS = tuple(
    "\U0001f3f4" + "".join(chr(0xE0000 + ord(c)) for c in region) + "\U000e007f"
    for region in ("gbeng", "gbsct", "gbwls")
)
_FLAG_OR_TAGS = re.compile("|".join(TAG_FLAGS) + "|[\U000e0020-\U000e007f]+")
_A_TAG = re.compile("[\U000e0020-\U000e007f]")  # one class: 2.5 ms per 200k CJK, the pair 6
_LONGEST_FLAG = max(map(len, TAG_FLAGS))


def in_tag_flag(text: str, at: int) -> bool:
    """Whether the tag character at ``at`` is part of one of :data:`TAG_FLAGS` as
    :func:`stray_tags` reads the text (the same runs: a flag's tags stay, any other is hidden):
    for an id, which takes a tag only where it shapes a flag."""
    window = _FLAG_OR_TAGS.finditer(text, max(0, at - _LONGEST_FLAG + 1), at + _LONGEST_FLAG)
    for found in window:  # a flag starts at its black flag, never inside a run of tags
        if found.start() <= at < found.end():
            return found.group() in TAG_FLAGS
    return False


def stray_tags(text: str, hidden: Callable[[int], str]) -> str:
    """``text`` with each tag character outside :data:`TAG_FLAGS` written as ``hidden(code)``:
    a translate table sees one character at a time and cannot tell a flag's tags from others,
    so printing looks at tags in runs first."""
    if text.isascii() or not _A_TAG.search(text):  # the usual text: one pass in C
        return text

    table = _tag_table(hidden)

    def one(found: re.Match[str]) -> str:
        run = found.group()
        return run if run in TAG_FLAGS else run.translate(table)

    return _FLAG_OR_TAGS.sub(one, text)


@functools.cache
def _tag_table(hidden: Callable[[int], str]) -> dict[int, str]:
    """The 96 tags as ``hidden`` writes them, worked out once: a run of a million tags is one
    ``str.translate`` (a call a character took 1.5 s)."""
    return {code: hidden(code) for code in range(0xE0020, 0xE0080)}

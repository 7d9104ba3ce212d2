"""What an agent name or a task id may be, wherever one comes from (a spec, ``import --agent``,
a results file, a pairs file, a log, a task file): one rule, so an import never writes an id the
audit then refuses.

Both are shown in every report row and joined into pair and trajectory ids, so neither may hold
a character that prints as nothing or moves the text around (:func:`id_text_problem`, by
:mod:`judgeaudit.unseen`, the description printing escapes by: control characters,
zero-width and other invisible format characters such as U+200B or the bidi overrides, line
and paragraph separators), nor a space other than U+0020 (U+00A0, U+2000–U+200A,
U+202F, U+205F, U+3000, U+1680: ``gpt\u00a04`` printed as ``gpt 4``): ``t\u200b1`` would print
as ``t1`` and be another task.
A task id may hold ``/`` and ``~``: ids are cut at their trial part, never at those, so different
tasks still get different ids (``tests/unit/test_id_injective.py``).

``~`` is refused because it separates the two agents of a pair id (``a~b``/``c`` and
``a``/``b~c`` would be one pair). A part between slashes of the form ``t0``, ``t12`` is refused
because ids read it as the trial (:mod:`judgeaudit.audit.units.ids`): task ``x`` with agent
``y/t0/z`` and task ``x/t0/y`` with agent ``z`` would share the pair id ``RUN/x/t0/y/t0/z~B``,
one pair dropped and its run never complete. With no agent part of that form the trial is the
last such part of an id, so different pairs (and trajectories) get different ids, whatever the
task ids hold; ``openai/gpt-4o`` stays a good name. The length is capped because names are
shown in every report row; a key pasted as a name is refused without being echoed.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from judgeaudit import unseen
from judgeaudit.credentials import looks_like_key
from judgeaudit.errors import InputError
from judgeaudit.validate import json_type

MAX_AGENT_NAME = 200
#: A part of an id that ids read as a trial (``t`` and digits).
TRIAL_PART = re.compile(r"t[0-9]+")


_ZWNJ, _ZWJ, _VS16 = "\u200c", "\u200d", "\ufe0f"
#: Scripts whose letters a joiner or non-joiner draws differently (Arabic, Syriac, Thaana, N'Ko
#: and their supplements; the Indic scripts; Myanmar; Khmer and Mongolian; Arabic forms).
_JOINING = ((0x0600, 0x08FF), (0x0900, 0x0DFF), (0x1000, 0x109F), (0x1780, 0x18AF),
            (0xFB50, 0xFDFF), (0xFE70, 0xFEFF))  # fmt: skip


def id_text_problem(text: str, what: str = "the id") -> str | None:
    """Why ``text`` cannot be a task id or an agent name (or, ``what``, a base URL) by its
    characters, or ``None``: the first one that prints as nothing or moves text (named by its
    code point, never echoed)."""
    if text.isascii() and text.isprintable():  # the usual id: one pass in C
        return None
    for index, char in enumerate(text, 1):
        if unicodedata.category(char) == "Zs" and char != " ":
            return (
                f"holds U+{ord(char):04X} ({unicodedata.name(char)}) at character {index}, which "
                f"prints as a space and is not one ({what} would look like another and not be "
                "it); use a plain space"
            )
        if unseen.hides(char) and not _shapes(text, index - 1):
            name = unicodedata.name(char, "a control character")
            return (
                f"holds U+{ord(char):04X} ({name}) at character {index}, which prints as nothing "
                f"or moves the text ({what} would look like another and not be it); remove it"
            )
    return None


def _pictographic(char: str) -> bool:
    """An emoji or pictograph a joiner or VS16 builds on (an approximation of Unicode's
    Extended_Pictographic by its blocks)."""
    code = ord(char)
    return 0x1F000 <= code <= 0x1FAFF or 0x2600 <= code <= 0x27BF or 0x2B00 <= code <= 0x2BFF


def _joining(char: str) -> bool:
    return any(low <= ord(char) <= high for low, high in _JOINING)


def _shapes(text: str, at: int) -> bool:
    """Whether the character at ``at``, invisible by itself, visibly shapes its neighbours: a
    zero-width joiner between two emoji (the family, the rainbow flag: VS16 counts with the
    emoji before it), a joiner or non-joiner between two letters of a joining script (Persian
    ``می‌خواهم``), VS16 right after an emoji, the tags of England's, Scotland's or Wales's flag.
    Anywhere else it hides: ``t\u200d1``, ``中\u200d文`` and ``ü\u200cü`` print as if it were
    not there."""
    char = text[at]
    before = text[at - 1] if at > 0 else ""
    after = text[at + 1] if at + 1 < len(text) else ""
    if char == _VS16:
        return bool(before) and _pictographic(before)
    if char in (_ZWJ, _ZWNJ):
        if not before or not after:
            return False
        if _joining(before) and _joining(after):
            return True
        emoji_before = _pictographic(before) or (
            before == _VS16 and at > 1 and _pictographic(text[at - 2])
        )
        return char == _ZWJ and emoji_before and _pictographic(after)
    if "\U000e0020" <= char <= "\U000e007f":
        return unseen.in_tag_flag(text, at)
    return False


def task_id_problem(task_id: str) -> str | None:
    """Why ``task_id`` cannot name a task, or ``None`` (``/`` and ``~`` are fine: see above)."""
    return id_text_problem(task_id)


def task_id(value: Any, where: str, error: type[InputError]) -> str:
    """A task id as every reader takes it (task files, results, pairs, logs, τ-bench): a
    non-empty string, or an integer (τ-bench task ids are numbers), by :func:`task_id_problem`;
    else ``error`` naming ``where``."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str):
        raise error(f"{where}: must be a non-empty string or an integer, got {json_type(value)}")
    return _text_task_id(value, where, error)


def _text_task_id(value: str, where: str, error: type[InputError]) -> str:
    """The checks of a task id given as text, once for both readers (a blank one named as blank,
    in words true of either: a file of quoted ids takes no integer)."""
    if not value.strip():
        raise error(f"{where}: is blank; give the task's id, a non-empty string")
    if (problem := task_id_problem(value)) is not None:
        raise error(f"{where}: {problem}")
    return value


def quoted_task_id(value: Any, where: str, error: type[InputError]) -> str:
    """A task id in a file whose ids are written as strings (a task file, a recorded log, a
    pairs file): :func:`task_id` stores a number as text, so ``7`` and ``"7"`` would name one
    task and the file would not say which was meant; a number is refused here, the way out
    named."""
    if not isinstance(value, str):
        raise error(
            f"{where}: must be a string, got {json_type(value)}; write it as a string (in quotes),"
            " as the file's other ids"
        )
    return _text_task_id(value, where, error)


def agent_name_problem(name: str) -> str | None:
    """Why ``name`` cannot name an agent (the message never repeats a key), or ``None``."""
    if looks_like_key(name):
        return "looks like an API key, not an agent name (not shown); give the agent's name"
    if (problem := id_text_problem(name)) is not None:
        return problem
    if len(name) > MAX_AGENT_NAME:
        return f"is {len(name)} characters long; use at most {MAX_AGENT_NAME}"
    if "~" in name:
        return f"{name!r} holds '~', which separates the two agents of a pair id; rename it"
    part = next((p for p in name.split("/") if TRIAL_PART.fullmatch(p)), None)
    if part is not None:
        return (
            f"{name!r} has the part {part!r}, which pair and trajectory ids read as a trial "
            "(two pairs could get one id); rename it"
        )
    return None

"""What an agent name or a task id may be, wherever one comes from (a spec, ``import --agent``,
a results file, a pairs file, a log, a task file): one rule, so an import never writes an id the
audit then refuses.

Both are shown in every report row and joined into pair and trajectory ids, so neither may hold
a character that prints as nothing or moves the text around (:func:`id_text_problem`: control
characters, zero-width and other invisible format characters such as U+200B or the bidi
overrides, line and paragraph separators): ``t\u200b1`` would print as ``t1`` and be another task.
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

from judgeaudit.credentials import looks_like_key

MAX_AGENT_NAME = 200
#: A part of an id that ids read as a trial (``t`` and digits).
TRIAL_PART = re.compile(r"t[0-9]+")


#: Unicode categories an id may not hold: control (Cc), format (Cf: zero-width spaces and
#: joiners, bidi controls, the byte-order mark, the soft hyphen), line and paragraph separators.
_INVISIBLE = frozenset(("Cc", "Cf", "Zl", "Zp"))


def id_text_problem(text: str) -> str | None:
    """Why ``text`` cannot be a task id or an agent name by its characters, or ``None``: the
    first one that prints as nothing or moves text (named by its code point, never echoed)."""
    if text.isascii() and text.isprintable():  # the usual id: one pass in C
        return None
    for index, char in enumerate(text, 1):
        if unicodedata.category(char) in _INVISIBLE and not _shapes(text, index - 1):
            name = unicodedata.name(char, "a control character")
            return (
                f"holds U+{ord(char):04X} ({name}) at character {index}, which prints as nothing "
                "or moves the text (the id would look like another and not be it); remove it"
            )
    return None


#: Zero-width non-joiner and joiner: they change how the characters beside them are drawn
#: (Persian ``می‌خواهم``, emoji sequences such as the family or the rainbow flag).
_JOINERS = frozenset(("\u200c", "\u200d"))
_BLACK_FLAG, _CANCEL_TAG = "\U0001f3f4", "\U000e007f"


def _shapes(text: str, at: int) -> bool:
    """Whether the format character at ``at`` visibly shapes its neighbours rather than hiding:
    a joiner between two visible non-ASCII characters (between ASCII letters it would hide:
    ``t\u200d1`` prints as ``t1``), or a tag character of a flag sequence (U+1F3F4, tags,
    U+E007F: England's flag)."""
    char = text[at]
    if char in _JOINERS:
        if at == 0 or at == len(text) - 1:
            return False
        return all(
            not n.isascii() and unicodedata.category(n) not in _INVISIBLE
            for n in (text[at - 1], text[at + 1])
        )
    if "\U000e0020" <= char <= _CANCEL_TAG:
        start = at
        while start > 0 and "\U000e0020" <= text[start - 1] <= _CANCEL_TAG:
            start -= 1
        end = text.find(_CANCEL_TAG, at)
        return start > 0 and text[start - 1] == _BLACK_FLAG and end != -1
    return False


def task_id_problem(task_id: str) -> str | None:
    """Why ``task_id`` cannot name a task, or ``None`` (``/`` and ``~`` are fine: see above)."""
    return id_text_problem(task_id)


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

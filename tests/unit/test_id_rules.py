"""One rule for what a task id and an agent name may hold (judgeaudit/agentnames.py), and the
OpenAI content parts an import reads (a new user's findings, twentieth session)."""

from __future__ import annotations

import unicodedata

import pytest

from judgeaudit.agentnames import agent_name_problem, task_id_problem
from judgeaudit.rollouts.messages import RolloutError, convert


@pytest.mark.parametrize("task_id", ["a/b~c", "retail/12", "x~y", "退款 任务 3", "t-✓", "0"])
def test_slashes_tildes_and_visible_text_are_task_ids(task_id: str) -> None:
    """'/' and '~' stay allowed in task ids: pair ids are cut at the trial part, never at them
    (tests/unit/test_id_injective.py proves no two pairs share an id)."""
    assert task_id_problem(task_id) is None


@pytest.mark.parametrize(
    "char", ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u202e", "\u2066", "\u00ad",
             "\u2028", "\u2029", "\n", "\t", "\x00", "\x1b"],
)  # fmt: skip
def test_a_character_that_prints_as_nothing_is_refused_in_both_kinds_of_id(char: str) -> None:
    """Named by code point and place, the same words for a task id and an agent name (one
    owner), and never the id itself."""
    said = task_id_problem(f"t{char}1")
    assert said is not None and f"U+{ord(char):04X}" in said and "at character 2" in said
    assert unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp")
    assert agent_name_problem(f"t{char}1") == said


@pytest.mark.parametrize(
    "text",
    ["\U0001f468\u200d\U0001f469\u200d\U0001f467", "\U0001f3f3\ufe0f\u200d\U0001f308",
     "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f",
     "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"],
    ids=["family", "rainbow-flag", "england-flag", "persian-zwnj"],
)  # fmt: skip
def test_a_joiner_that_shapes_visible_text_is_part_of_the_id(text: str) -> None:
    """A reviewer: emoji sequences and Persian words were refused ("remove it" would change
    the spelling). A joiner between two visible non-ASCII characters, and the tags of a flag
    sequence, shape what is drawn; between ASCII letters, at an end or alone they still hide."""
    assert task_id_problem(f"task {text}") is None and agent_name_problem(f"a-{text}") is None


def tags(letters: str) -> str:
    return "".join(chr(0xE0000 + ord(c)) for c in letters)


@pytest.mark.parametrize(
    "hiding",
    ["t\u200d1", "\u200d\u00e9", "\u00e9\u200d", "a\U000e0067\U000e007f",
     # a second reviewer: between letters of scripts a joiner does not shape, it hides
     "\u00fc\u200c\u00fc", "\u4e2d\u200d\u6587", "\u00a0\u200d\u00a0",
     "e\u0301\u200d\u0301", "\u3164\u200d\u3164",
     # a tag run that is no flag Unicode writes prints as the plain black flag
     "x\U0001f3f4\U000e007f", "\U0001f3f4" + tags("ignore") + "\U000e007f",
     # default-ignorable characters outside Cc/Cf: printed as nothing
     "t\ufe0f1", "t\u034f1", "t\u31641", "t\u180b1", "t\U000e01001"],
)  # fmt: skip
def test_a_character_that_hides_is_refused_wherever_it_does_not_shape(hiding: str) -> None:
    assert task_id_problem(hiding) is not None, repr(hiding)


def test_openai_content_parts_are_read_and_a_bare_string_list_is_refused() -> None:
    parts = [{"type": "text", "text": "Refund "}, {"type": "text", "text": "my mug"}]
    events, _ = convert([{"role": "user", "content": parts}], "r.jsonl:1: messages")
    assert events == [{"role": "user", "content": "Refund my mug"}]
    with pytest.raises(RolloutError, match=r"^r\.jsonl:1: messages\[0\]\.content\[1\]: a string"):
        convert([{"role": "user", "content": [parts[0], "b"]}], "r.jsonl:1: messages")


@pytest.mark.parametrize(
    "space",
    ["\u00a0", "\u1680", *map(chr, range(0x2000, 0x200B)), "\u202f", "\u205f", "\u3000"],
)
def test_a_space_that_is_not_the_plain_one_is_refused(space: str) -> None:
    """A new user: `gpt\\u00a04` printed as `gpt 4` and was another agent. Every Unicode space
    separator (Zs) but U+0020 is refused, named by code point and name, never echoed."""
    assert unicodedata.category(space) == "Zs"
    said = agent_name_problem(f"gpt{space}4")
    name = unicodedata.name(space)
    assert said == (
        f"holds U+{ord(space):04X} ({name}) at character 4, which prints as a space and is not "
        "one (the id would look like another and not be it); use a plain space"
    )
    assert task_id_problem(f"gpt{space}4") == said
    assert agent_name_problem("gpt 4") is None

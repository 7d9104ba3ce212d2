"""The texts ``import recorded-jsonl`` stores and writes, built from texts already encoded
instead of encoding (or decoding) every value again: a pair's line (:func:`joined_line`), the
canonical text its content hash is taken of (:func:`pair_canonical`, :func:`joined_canonical`)
and a verdict's two texts (:func:`verdict_texts`). Each equals what the encoders give for the
whole value (``tests/unit/test_joined_line.py``, ``tests/unit/test_recorded_text.py``); the
write no longer decodes what the load had just encoded (docs/benchmarks.md, goal 4).
"""

from __future__ import annotations

import math
from typing import Any

from judgeaudit.audit.inputs.pair_checks import canonical
from judgeaudit.audit.inputs.verdict_rules import VERDICT_KEYS
from judgeaudit.rollouts.formats import dumps

#: Keys the import adds to a pair's row, in the order it adds them.
ADDED = ("verdicts", "judge_model", "judge_prompt_hash")

#: Where each key of :data:`ADDED` goes in a row's canonical text: a raw NUL, which no encoded
#: text holds (the encoders escape control characters).
_MARK = "\x00"
_SORTED = tuple(sorted(ADDED))  # judge_model, judge_prompt_hash, verdicts: their canonical order
_MARKED = dict.fromkeys(_SORTED, _MARK)
_ITEMS = tuple(f",{canonical(key)}:{canonical(_MARK)}" for key in _SORTED)


def joined_line(stored: str, bodies: list[str], model: str | None, prompt_hash: str | None) -> str:
    """``dumps`` of a pair row stored as ``stored`` (``dumps`` of it, holding none of
    :data:`ADDED`) once its verdicts (stored as ``bodies``), judge model and prompt hash are
    added: the same text, built from the stored texts instead of encoding every value again (a
    sixth of an import's CPU)."""
    parts = [stored[:-1], ',"verdicts":[', ",".join(bodies), "]"]
    for key, value in zip(ADDED[1:], (model, prompt_hash), strict=True):
        if value is not None:
            parts += [",", dumps(key), ":", dumps(value)]
    parts.append("}")
    return "".join(parts)


def pair_canonical(row: dict[str, Any]) -> str | None:
    """The canonical text of ``row`` (a pair row) with a NUL where each key of :data:`ADDED` goes,
    for :func:`joined_canonical`; None when the row holds one of them (its place would move) or
    the marks could be mistaken (a nested object with such a key: the write then decodes)."""
    if any(key in row for key in ADDED):
        return None
    text = canonical({**row, **_MARKED})
    if any(text.count(item) != 1 for item in _ITEMS):
        return None
    for item in _ITEMS:
        text = text.replace(item, _MARK)
    return text


def joined_canonical(
    marked: str, bodies: list[str], model: str | None, prompt_hash: str | None
) -> str:
    """The canonical text of the row :func:`joined_line` writes, from :func:`pair_canonical` of
    the pair row and the verdicts' canonical texts (:func:`verdict_texts`)."""
    head, after_model, after_hash, tail = marked.split(_MARK)
    return "".join(
        (
            head,
            "" if model is None else f',"judge_model":{canonical(model)}',
            after_model,
            "" if prompt_hash is None else f',"judge_prompt_hash":{canonical(prompt_hash)}',
            after_hash,
            ',"verdicts":[',
            ",".join(bodies),
            "]",
            tail,
        )
    )


def verdict_texts(body: dict[str, Any]) -> tuple[str, str]:
    """(``dumps``, canonical text) of a checked verdict body (the six keys of
    :data:`~judgeaudit.audit.inputs.verdict_rules.VERDICT_KEYS`, in that order), written out for
    the usual values (finite float or no scores, no raw output, no reasons) and encoded whole
    for the rest."""
    order, winner, score_a, score_b = (
        body["order"],
        body["winner"],
        body["score_a"],
        body["score_b"],
    )
    if (
        tuple(body) != VERDICT_KEYS
        or order not in ("AB", "BA")
        or winner not in ("A", "B", "tie")
        or body["raw_output"] is not None
        or body["reasons"] != []
        or not (score_a is None or (type(score_a) is float and math.isfinite(score_a)))
        or not (score_b is None or (type(score_b) is float and math.isfinite(score_b)))
    ):
        return dumps(body), canonical(body)
    # A finite float's JSON text is its repr.
    a = "null" if score_a is None else repr(score_a)
    b = "null" if score_b is None else repr(score_b)
    return (
        f'{{"order":"{order}","winner":"{winner}","score_a":{a},"score_b":{b},'
        '"raw_output":null,"reasons":[]}',
        f'{{"order":"{order}","raw_output":null,"reasons":[],"score_a":{a},"score_b":{b},'
        f'"winner":"{winner}"}}',
    )

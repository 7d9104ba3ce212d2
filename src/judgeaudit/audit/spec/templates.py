"""Prompt templates as files the user owns: the judge, the user simulator, the LLM success check.

A template is a TOML file with multi-line strings ``system`` and ``user`` (the user simulator
has ``system`` only), plus for the judge ``output`` (how the verdict is read) and an optional
``retry`` (the re-ask after unparsable output). Placeholders are ``{name}``; literal braces are
doubled. The built-in en/zh templates are such files, shipped in ``judgeaudit/data/prompts``.
"""

from __future__ import annotations

import functools
import hashlib
import json
import string
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from judgeaudit.errors import InputError
from judgeaudit.tomlfile import read_toml

KINDS = ("judge", "user_simulator", "success_check")
OUTPUTS = ("json", "scores", "winner")


class TemplateError(InputError):
    """A template file that cannot be used; one line naming the file and what is wrong."""


@dataclass(frozen=True)
class _Rules:
    required: tuple[str, ...]
    optional: tuple[str, ...]
    keys: tuple[str, ...]  # the TOML keys a template of this kind may have
    why: str  # why the required placeholders are required


RULES = {
    "judge": _Rules(
        ("task", "trajectory_a", "trajectory_b"),
        ("order", "language"),
        ("system", "user", "output", "retry"),
        "a judge template must show the task and both trajectories",
    ),
    "user_simulator": _Rules(
        ("task",), ("language",), ("system",), "the user simulator must see its goal"
    ),
    "success_check": _Rules(
        ("task", "trajectory"),
        ("language",),
        ("system", "user"),
        "a success check must see the task and the trajectory",
    ),
}

#: The re-ask after an unparsable judge reply, per language and output mode, when a judge
#: template gives no ``retry`` of its own.
DEFAULT_RETRY = {
    "en": {
        "json": "Your previous reply could not be parsed. Reply again with only the JSON object "
        '{{"winner": ..., "score_a": ..., "score_b": ..., "reasons": [...]}}.',
        "scores": "Your previous reply could not be parsed. Reply again with only the JSON "
        'object {{"score_a": 0-5, "score_b": 0-5}}.',
        "winner": "Your previous reply could not be parsed. Reply again with only A, B or tie.",
    },
    "zh": {
        "json": '上一条回复无法解析。请只输出 JSON 对象 {{"winner": ..., "score_a": ..., '
        '"score_b": ..., "reasons": [...]}}。',
        "scores": '上一条回复无法解析。请只输出 JSON 对象 {{"score_a": 0-5, "score_b": 0-5}}。',
        "winner": "上一条回复无法解析。请只回答 A、B 或 tie。",
    },
}


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def messages_hash(messages: list[dict[str, Any]]) -> str:
    """The hash of the exact messages a model was sent (``judge_logs.prompt_hash``)."""
    canonical = json.dumps(messages, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return text_hash(canonical)


@dataclass(frozen=True)
class Template:
    kind: str
    source: str  # "builtin:judge.en" or the file it was read from
    system: str
    user: str = ""
    output: str = "json"
    retry: str = ""

    @functools.cached_property
    def hash(self) -> str:
        """``prompt_template_hash``: the template's content, whatever file it came from (worked
        out once: every judge call records it)."""
        body = {"kind": self.kind, "system": self.system, "user": self.user}
        if self.kind == "judge":
            body |= {"output": self.output, "retry": self.retry}
        return text_hash(json.dumps(body, ensure_ascii=False, sort_keys=True))

    def messages(self, **values: str) -> list[dict[str, Any]]:
        """The rendered system and user messages (the user simulator's is system only)."""
        out: list[dict[str, Any]] = []
        if self.system:
            out.append({"role": "system", "content": self.system.format(**values)})
        if self.user:
            out.append({"role": "user", "content": self.user.format(**values)})
        return out

    def retry_message(self, **values: str) -> str:
        """The re-ask after unparsable output: the template's own, or the default for its
        output mode in the run's language."""
        language = values.get("language", "en")
        retry = self.retry or DEFAULT_RETRY.get(language, DEFAULT_RETRY["en"])[self.output]
        return retry.format(**values)

    def describe(self) -> dict[str, Any]:
        """What the manifest records: where it came from, its hash, and its text."""
        out: dict[str, Any] = {"source": self.source, "hash": self.hash, "system": self.system}
        if self.kind != "user_simulator":
            out["user"] = self.user
        if self.kind == "judge":
            out |= {"output": self.output, "retry": self.retry}
        return out


def builtin(kind: str, language: str) -> Template:
    """A built-in template, read from the package data like any user file."""
    name = f"{kind}.{language}.toml"
    resource = resources.files("judgeaudit").joinpath(f"data/prompts/{name}")
    return parse_template(
        read_toml(Path(str(resource)), "template", TemplateError), kind, f"builtin:{name}"
    )


def load_template(path: Path, kind: str) -> Template:
    try:
        raw = read_toml(path, f"{kind.replace('_', ' ')} prompt template", TemplateError)
    except UnicodeDecodeError as exc:
        raise TemplateError(
            f"{path}: not UTF-8 text (byte {exc.start}); save the template as UTF-8"
        ) from None
    return parse_template(raw, kind, str(path))


def parse_template(raw: dict[str, Any], kind: str, source: str) -> Template:
    """Check keys, types and placeholders; every refusal names the file and the problem."""
    rules = RULES[kind]
    for key, value in raw.items():
        if key not in rules.keys:
            raise TemplateError(
                f"{source}: {key}: unknown key for a {kind} template; allowed: "
                f"{', '.join(rules.keys)}"
            )
        if not isinstance(value, str):
            raise TemplateError(f"{source}: {key}: must be a string, got {type(value).__name__}")
    texts = {k: raw[k] for k in ("system", "user", "retry") if k in raw}
    if kind == "user_simulator":
        if not texts.get("system", "").strip():
            raise TemplateError(f"{source}: system: missing; the user simulator's system prompt")
    elif not raw.get("user", "").strip():
        raise TemplateError(f"{source}: user: missing; the message that shows the inputs")
    output = raw.get("output", "json")
    if output not in OUTPUTS:
        raise TemplateError(f"{source}: output: {output!r} is not one of {', '.join(OUTPUTS)}")
    known = (*rules.required, *rules.optional)
    seen: set[str] = set()
    for key, text in texts.items():
        for name in _placeholders(text, f"{source}: {key}"):
            if name not in known:
                listed = ", ".join("{" + k + "}" for k in known)
                raise TemplateError(
                    f"{source}: {key}: unknown placeholder {{{name}}}; known: {listed} "
                    "(write a literal brace as {{ or }})"
                )
            if key != "retry":  # the re-ask is only sent after an unparsable first reply
                seen.add(name)
    for name in rules.required:
        if name not in seen:
            raise TemplateError(
                f"{source}: no {{{name}}} placeholder in system or user (a retry is only sent "
                f"after an unparsable reply); {rules.why} "
                f"({', '.join('{' + k + '}' for k in rules.required)})"
            )
    return Template(
        kind,
        source,
        texts.get("system", ""),
        texts.get("user", ""),
        output,
        texts.get("retry", ""),
    )


def _placeholders(text: str, where: str) -> list[str]:
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError:
        raise TemplateError(
            f"{where}: a brace without its pair; write a literal brace as {{{{ or }}}}"
        ) from None
    names = []
    for _literal, name, spec, conversion in parsed:
        if name is None:
            continue
        if name == "" or not name.isidentifier():
            raise TemplateError(
                f"{where}: placeholder {{{name}}} must be a name like {{task}} "
                "(write a literal brace as {{ or }})"
            )
        if spec or conversion:
            raise TemplateError(f"{where}: placeholder {{{name}}} takes no format or conversion")
        names.append(name)
    return names


def trajectory_block(text: str, label: str | None = None) -> str:
    """What ``{trajectory_a}``/``{trajectory_b}``/``{trajectory}`` expand to: the transcript in
    the tagged block the embedded judge (and most real judges) read."""
    tag = f"trajectory_{label}" if label else "trajectory"
    return f"<{tag}>\n{text}\n</{tag}>"

"""A hint the CLI prints that names a document's section ("docs/bridge.md, 'Global switch'",
"README: '...'") names one that exists: a user who looks finds it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from judgeaudit.profiles import bridgeopt
from judgeaudit.profiles.model import profile_from_dict
from tests.docs.links import ROOT

SRC = ROOT / "src" / "judgeaudit"
#: a document, then a quoted section: ``README: 'X'``, ``docs/bridge.md, 'X'``
REFERENCE = re.compile(r"(README(?:\.md)?|docs/[\w-]+\.md)[:,]?\s*['\"]([^'\"]+)['\"]")


def _headings(document: str) -> set[str]:
    path = ROOT / ("README.md" if document.startswith("README") else document)
    if not path.is_file():
        return set()
    return {
        line.lstrip("#").strip()
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.startswith("#")
    }


def _strings(path: Path) -> list[str]:
    """Every string literal of a module, adjacent pieces and f-string text joined."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            out.append(node.value)
        elif isinstance(node, ast.JoinedStr):
            out.append(
                "".join(str(v.value) if isinstance(v, ast.Constant) else "{}" for v in node.values)
            )
    return out


def _missing(text: str) -> list[str]:
    return [
        f"{doc}: {section!r}"
        for doc, section in REFERENCE.findall(text)
        if section not in _headings(doc)
    ]


def test_every_section_a_source_string_names_exists() -> None:
    problems = [
        f"{path.relative_to(ROOT)}: {miss}"
        for path in sorted(SRC.rglob("*.py"))
        for text in _strings(path)
        for miss in _missing(text)
    ]
    assert not problems, "sections that do not exist:\n" + "\n".join(problems)


def test_the_bridge_note_names_the_page_with_the_systemd_unit() -> None:
    profile = profile_from_dict(
        {
            "name": "gw",
            "app": "claude",
            "base_url": "https://gw.example/v1",
            "key": "gw",
            "options": {"bridge": "chat"},
        },
        "test",
    )
    note = bridgeopt.use_note(profile)
    refs = REFERENCE.findall(note)
    assert refs and not _missing(note), note
    doc, section = refs[0]
    body = (ROOT / doc).read_text(encoding="utf-8").split(f"## {section}", 1)[1]
    assert "systemd" in body.split("\n## ", 1)[0]

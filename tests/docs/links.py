"""Reading Markdown the way the docs tests need: relative links outside code, and heading anchors
as mkdocs (Python-Markdown's toc) makes them."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"

_FENCE = re.compile(r"^(```|~~~)")
_INLINE_CODE = re.compile(r"`[^`]*`")
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_EXTERNAL = ("http://", "https://", "mailto:")


def prose_lines(text: str, drop_code: bool = True) -> list[tuple[int, str]]:
    """(line number, line) for the lines outside fenced code blocks, inline code removed unless
    ``drop_code`` is false."""
    out: list[tuple[int, str]] = []
    fenced = False
    for number, line in enumerate(text.splitlines(), start=1):
        if _FENCE.match(line.lstrip()):
            fenced = not fenced
            continue
        if not fenced:
            out.append((number, _INLINE_CODE.sub("", line) if drop_code else line))
    return out


def relative_links(path: Path) -> list[tuple[int, str]]:
    """(line number, target) for every link and image in ``path`` that is not a URL."""
    found: list[tuple[int, str]] = []
    for number, line in prose_lines(path.read_text(encoding="utf-8")):
        for match in _LINK.finditer(line):
            target = match.group(1)
            if not target.startswith(_EXTERNAL):
                found.append((number, target))
    return found


def slugify(heading: str) -> str:
    """The id Python-Markdown's toc gives a heading (mkdocs' default; GitHub's agrees for ours)."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text only
    # emphasis marks go, but a code span keeps its characters (`env_key` -> env_key, as
    # mkdocs writes the id; dropping its underscore broke the site's strict build)
    parts = re.split(r"(`[^`]*`)", text)
    text = "".join(p[1:-1] if p.startswith("`") else re.sub(r"[*_]", "", p) for p in parts)
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def anchors(path: Path) -> set[str]:
    """The heading ids of a Markdown file."""
    ids: set[str] = set()
    for _number, line in prose_lines(path.read_text(encoding="utf-8"), drop_code=False):
        match = _HEADING.match(line)
        if match:
            ids.add(slugify(match.group(2)))
    return ids


def nav_pages(mkdocs_yml: Path) -> list[str]:
    """The .md files mkdocs.yml's nav lists (read without a YAML parser: the dev extra has none)."""
    pages: list[str] = []
    in_nav = False
    for line in mkdocs_yml.read_text(encoding="utf-8").splitlines():
        if re.match(r"^nav:\s*$", line):
            in_nav = True
            continue
        if in_nav and line and not line.startswith((" ", "-", "#")):
            break
        match = re.match(r"^\s*-\s*(?:[^:]*:\s*)?(\S+\.md)\s*$", line) if in_nav else None
        if match:
            pages.append(match.group(1))
    return pages

"""The README stays a front page and the documentation holds together: every relative link and
anchor resolves, and the site's navigation lists every page."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.docs.links import DOCS, ROOT, anchors, nav_pages, relative_links, slugify

README_LIMIT = 15_000  # bytes: the README is a front page, the rest lives in docs/
PAGES = sorted(DOCS.glob("*.md"))
FRONT = [ROOT / name for name in ("README.md", "CONTRIBUTING.md", "CHANGELOG.md", "AGENTS.md")]


def test_readme_is_a_short_front_page() -> None:
    size = (ROOT / "README.md").stat().st_size
    assert size < README_LIMIT, (
        f"README.md is {size} bytes (limit {README_LIMIT}): move sections into docs/"
    )


def test_readme_links_into_every_page_it_promises() -> None:
    """The front page's links reach the docs: at least the pages a newcomer starts from."""
    targets = {target.split("#")[0] for _, target in relative_links(ROOT / "README.md")}
    for page in ("docs/index.md", "docs/cli.md", "docs/architecture.md", "docs/judge.md"):
        assert page in targets, f"README.md does not link to {page}"


def _broken(path: Path, inside_docs: bool) -> list[str]:
    problems: list[str] = []
    for number, target in relative_links(path):
        where = f"{path.relative_to(ROOT)}:{number}: {target}"
        file_part, _, anchor = target.partition("#")
        resolved = path if not file_part else Path(os.path.normpath(path.parent / file_part))
        if inside_docs and DOCS not in (resolved, *resolved.parents):
            problems.append(f"{where}: points outside docs/ (the site cannot serve it)")
            continue
        if not resolved.exists():
            problems.append(f"{where}: no such file")
            continue
        if anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            problems.append(f"{where}: no heading with the anchor #{anchor}")
    return problems


@pytest.mark.parametrize("path", FRONT + PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(path: Path) -> None:
    problems = _broken(path, inside_docs=path.parent == DOCS)
    assert not problems, "broken links:\n" + "\n".join(problems)


def test_every_page_is_in_the_nav_and_every_nav_entry_exists() -> None:
    listed = nav_pages(ROOT / "mkdocs.yml")
    assert len(listed) == len(set(listed)), f"a page is listed twice: {listed}"
    on_disk = {p.name for p in PAGES}
    assert sorted(on_disk - set(listed)) == [], "pages missing from mkdocs.yml's nav"
    assert sorted(set(listed) - on_disk) == [], "nav entries with no page in docs/"


def test_every_page_starts_with_a_title() -> None:
    for page in PAGES:
        first = page.read_text(encoding="utf-8").splitlines()[0]
        assert first.startswith("# "), f"{page.name}: the first line is not a '# Title'"


def test_the_checker_catches_what_it_is_for(tmp_path: Path) -> None:
    """The link and anchor reading finds broken targets (so a pass above means something)."""
    page = tmp_path / "page.md"
    page.write_text(
        "# A `code` title\n\n## Know the cost first\n\n"
        "[ok](#know-the-cost-first) [bad](#nope) [gone](missing.md) ![img](pic.svg)\n"
        "`[not a link](x.md)`\n\n```\n[in a fence](y.md)\n```\n",
        encoding="utf-8",
    )
    targets = [target for _, target in relative_links(page)]
    assert targets == ["#know-the-cost-first", "#nope", "missing.md", "pic.svg"]
    assert anchors(page) == {"a-code-title", "know-the-cost-first"}
    assert slugify("The simulated provider: what it is and is not") == (
        "the-simulated-provider-what-it-is-and-is-not"
    )


_REPO_PATH = re.compile(
    r"(?<![\w/.~$-])((?:src|tests|bench|scripts|examples|screenshots|profiles|audit|analysis|cli|tui"
    r"|llm|sim|bridge|rollouts|data)/[\w./*-]+)"
)
PACKAGE = ROOT / "src" / "judgeaudit"


def named_paths(path: Path) -> list[tuple[int, str]]:
    """(line, path) for each repository path a page names (``tests/unit/test_x.py``,
    ``bench/startup.py``, ``audit/store/``: package paths are relative to src/judgeaudit)."""
    found: list[tuple[int, str]] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        for match in _REPO_PATH.finditer(line):
            found.append((number, match.group(1).rstrip(".,;:")))
    return found


def _exists(name: str) -> bool:
    for base in (ROOT, PACKAGE):
        if any(base.glob(name)) if "*" in name else (base / name).exists():
            return True
    return False


@pytest.mark.parametrize("path", FRONT + PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_file_the_docs_name_exists(path: Path) -> None:
    """A renamed test, bench or module must take its mentions along (globs must match)."""
    missing = [f"{path.name}:{n}: {name}" for n, name in named_paths(path) if not _exists(name)]
    assert not missing, "the docs name files that do not exist:\n" + "\n".join(missing)


def test_named_paths_reads_what_it_should(tmp_path: Path) -> None:
    page = tmp_path / "p.md"
    page.write_text(
        "Run `bench/startup.py` and tests/unit/test_bridge_*.py; see `audit/store/`.\n"
        "Not these: ~/.config/judgeaudit/profiles, https://h/api/v1, $CODEX_HOME/config.toml.\n",
        encoding="utf-8",
    )
    assert named_paths(page) == [
        (1, "bench/startup.py"),
        (1, "tests/unit/test_bridge_*.py"),
        (1, "audit/store/"),
    ]
    assert _exists("audit/store/") and _exists("tests/unit/test_bridge_*.py")
    assert not _exists("tests/unit/test_no_such_*.py") and not _exists("bench/nope.py")

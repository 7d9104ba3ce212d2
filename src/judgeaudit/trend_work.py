"""Where ``judgeaudit trend`` audits a folder of daily files when no ``--work`` is given: the
one owner of that default, for the CLI (:mod:`judgeaudit.daily`, ``trend --help``) and the app's
Trends screen, which names it before it writes there. Light on purpose: the screen reads it on
open, before anything heavy is imported."""

from __future__ import annotations

from pathlib import Path

#: the default work folder's name, inside the folder of daily files
WORK_DEFAULT = ".judgeaudit-trend"


def default_work(folder: Path) -> Path:
    """The work folder of ``folder``'s daily files without ``--work``: inside that folder."""
    return folder / WORK_DEFAULT

"""``judgeaudit demo`` and ``judgeaudit run`` (filled in by the audit engine)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    return None

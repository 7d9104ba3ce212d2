"""Helpers shared by the command modules."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from judgeaudit.errors import JudgeauditError

if TYPE_CHECKING:
    Sub = argparse._SubParsersAction[argparse.ArgumentParser]


class UserError(JudgeauditError):
    """Bad input or a refused action: printed as one line, exit code ``code``."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code
        self.exit_code = code

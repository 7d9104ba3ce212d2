"""One error family for the whole engine, so each front end catches a single type.

Every error the engine raises on purpose derives from :class:`JudgeauditError`; its message is
one line for the user (file/field/line and what to do) and ``exit_code`` is what the CLI returns.
Exit codes: 1 a check failed, 2 bad input or a refused action, 3 a drift gate tripped,
4 a run ended incomplete (resumable), 5 a gate could not decide (too little data to test),
6 a trend over daily files left refused days out (``judgeaudit.daily.PARTIAL_EXIT``).
"""

from __future__ import annotations


class JudgeauditError(Exception):
    """Base of every deliberate engine error: one line for the user, an exit code for the CLI."""

    exit_code: int = 2

    def in_app(self) -> str:
        """The line the terminal app shows: the same, unless it names a CLI option the app does
        not have (a subclass words it as the app's control)."""
        return str(self)


class InputError(JudgeauditError, ValueError):
    """Bad input or a refused action (exit 2); nothing was written."""


class CheckFailed(JudgeauditError):
    """A check the user asked for did not pass (exit 1)."""

    exit_code = 1


class IncompleteRun(JudgeauditError):
    """A run stopped before it finished; rerunning the same command resumes it (exit 4)."""

    exit_code = 4

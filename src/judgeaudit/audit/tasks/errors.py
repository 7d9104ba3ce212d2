"""The error type for task and trajectory input files."""

from judgeaudit.errors import InputError


class TaskError(InputError):
    """A task file problem, phrased as ``file:line: field: what to do``."""

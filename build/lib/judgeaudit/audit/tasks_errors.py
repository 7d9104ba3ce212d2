"""The error type for task and trajectory input files."""


class TaskError(ValueError):
    """A task file problem, phrased as ``file:line: field: what to do``."""

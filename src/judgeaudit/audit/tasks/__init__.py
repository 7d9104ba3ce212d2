"""The task world: the retail domain and its tools, task state and the state check that
decides success, the built-in tasks and task files.
"""

from judgeaudit.audit.tasks.catalog import REQUIRED_FIELDS, load_jsonl, load_tasks
from judgeaudit.audit.tasks.retail import EN, ZH, builtin_retail
from judgeaudit.audit.tasks.task import TASK_TYPES, Task, expected_after, task_set_hash

__all__ = [
    "EN",
    "REQUIRED_FIELDS",
    "TASK_TYPES",
    "ZH",
    "Task",
    "builtin_retail",
    "expected_after",
    "load_jsonl",
    "load_tasks",
    "task_set_hash",
]

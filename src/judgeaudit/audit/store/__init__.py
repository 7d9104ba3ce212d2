"""The database: ``OUT/audit.db``'s schema, its version and migrations, and every statement
that writes it. Nothing outside this package writes ``audit.db``.
"""

from judgeaudit.audit.store.db import (
    ADDED_COLUMNS,
    FLUSH_AT,
    FLUSH_EVERY_S,
    LOG_COLUMNS,
    PAIR_COLUMNS,
    REPORT_INDEX,
    SCHEMA,
    STORED_ONCE,
    AuditStore,
)

__all__ = [
    "ADDED_COLUMNS",
    "FLUSH_AT",
    "FLUSH_EVERY_S",
    "LOG_COLUMNS",
    "PAIR_COLUMNS",
    "REPORT_INDEX",
    "SCHEMA",
    "STORED_ONCE",
    "AuditStore",
]

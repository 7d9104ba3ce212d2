"""The database: ``OUT/audit.db``'s schema, its version and migrations, and every statement
that writes it. Nothing outside this package writes ``audit.db``; readers open it through
:func:`open_readonly`.
"""

from judgeaudit.audit.store.db import FLUSH_AT, FLUSH_EVERY_S, STORED_ONCE, AuditStore
from judgeaudit.audit.store.readonly import open_readonly
from judgeaudit.audit.store.schema import (
    ADDED_COLUMNS,
    COPY_PAIR_COLUMNS,
    LOG_COLUMNS,
    PAIR_COLUMNS,
    REPORT_INDEX,
    SCHEMA,
    SCHEMA_VERSION,
    SchemaError,
)
from judgeaudit.audit.store.scrubbed import Scrubbed

__all__ = [
    "ADDED_COLUMNS",
    "COPY_PAIR_COLUMNS",
    "FLUSH_AT",
    "FLUSH_EVERY_S",
    "LOG_COLUMNS",
    "PAIR_COLUMNS",
    "REPORT_INDEX",
    "SCHEMA",
    "SCHEMA_VERSION",
    "STORED_ONCE",
    "AuditStore",
    "SchemaError",
    "Scrubbed",
    "open_readonly",
]

"""An on-disk response cache keyed by the request hash, so reruns cost nothing."""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

from judgeaudit.credentials import scrub_content


class ResponseCache:
    """SQLite-backed; one row per request hash. Never stores keys (they are not in the hash)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, body TEXT NOT NULL)"
        )

    def get(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._db.execute("SELECT body FROM responses WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def put(self, key: str, body: dict[str, Any]) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO responses (key, body) VALUES (?, ?)",
                (key, scrub_content(json.dumps(body, ensure_ascii=False))),
            )

    def close(self) -> None:
        with self._lock:
            self._db.close()

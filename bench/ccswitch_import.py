"""How long a CC Switch import of many providers takes against a real Secret Service keyring.

Run inside ``scripts/with-keyring.sh`` (a private gnome-keyring). Builds a CC Switch database of
N Claude providers with D distinct keys in a private HOME, runs ``judgeaudit profile
import-ccswitch`` as a user would (its own process), checks that every profile landed and that
a sampled profile's key reads back, and prints the wall time, the process's CPU and the load.
For comparison it then writes ``--per-item`` keys the way the import did before (one keyring
item each, over one connection) and prints the cost per item, which is what N distinct keys
cost that way (gnome-keyring rewrites and syncs its file for every item).

The issue's bound: 5,000 rows must finish well inside 10 minutes (they did not finish in 10).
Usage: scripts/with-keyring.sh .venv/bin/python bench/ccswitch_import.py [--rows 5000]
[--distinct 5000] [--per-item 200]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SCHEMA = (
    "CREATE TABLE providers (id TEXT NOT NULL, app_type TEXT NOT NULL, name TEXT NOT NULL, "
    "settings_config TEXT NOT NULL, meta TEXT NOT NULL DEFAULT '{}', is_current BOOLEAN NOT "
    "NULL DEFAULT 0)"
)


def build_db(path: Path, rows: int, distinct: int) -> None:
    db = sqlite3.connect(path)
    db.execute(SCHEMA)
    db.executemany(
        "INSERT INTO providers (id, app_type, name, settings_config) VALUES (?,?,?,?)",
        [
            (
                f"id{i:05d}",
                "claude",
                f"Provider {i}",
                json.dumps(
                    {
                        "env": {
                            "ANTHROPIC_BASE_URL": "https://gw.example/api",
                            "ANTHROPIC_AUTH_TOKEN": f"fake-bench-key-{i % distinct}",
                        }
                    }
                ),
            )
            for i in range(rows)
        ],
    )
    db.commit()
    db.close()


def world(root: Path) -> dict[str, str]:
    for name in ("cfg", "claude", "codex", "home"):
        (root / name).mkdir()
    return {
        **os.environ,
        "JUDGEAUDIT_CONFIG_DIR": str(root / "cfg"),
        "CLAUDE_CONFIG_DIR": str(root / "claude"),
        "CODEX_HOME": str(root / "codex"),
        "HOME": str(root / "home"),
    }


def cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "judgeaudit", *args], capture_output=True, text=True, env=env
    )


def per_item_cost(count: int) -> float:
    """Seconds per keyring item written one by one over one connection (the old import)."""
    import contextlib

    import keyring

    chained = keyring.get_keyring()
    backend = next(
        b
        for b in getattr(chained, "backends", None) or [chained]
        if hasattr(b, "get_preferred_collection")
    )
    collection = backend.get_preferred_collection()
    started = time.monotonic()
    with contextlib.closing(collection.connection):
        for i in range(count):
            attributes = {"service": "judgeaudit-bench", "username": f"item-{i}"}
            collection.create_item(f"bench {i}", attributes, f"fake-bench-item-{i}", replace=True)
    return (time.monotonic() - started) / count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--distinct", type=int, default=5000)
    parser.add_argument("--per-item", type=int, default=200)
    args = parser.parse_args()
    if not os.environ.get("JUDGEAUDIT_SECRET_SERVICE"):
        sys.exit("run inside scripts/with-keyring.sh (a private Secret Service keyring)")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        env = world(root)
        build_db(root / "cc.db", args.rows, args.distinct)
        load = os.getloadavg()[0]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.monotonic()
        done = cli(env, "profile", "import-ccswitch", "--db", str(root / "cc.db"))
        took = time.monotonic() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0 or f"{args.rows} imported, 0 skipped" not in done.stdout:
            sys.exit(f"import failed ({done.returncode}): {done.stderr[-500:]}")
        last = args.rows - 1
        shown = cli(env, "key", "print", f"ccswitch-claude-provider-{last % args.distinct}")
        assert shown.stdout.strip() == f"fake-bench-key-{last % args.distinct}", shown.stderr
        profiles = len(list((root / "cfg" / "profiles").glob("*.toml")))
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        print(
            f"import: {args.rows} rows, {args.distinct} distinct keys: {took:.1f} s wall, "
            f"{cpu:.1f} s CPU, {profiles} profiles; load {load:.1f} -> {os.getloadavg()[0]:.1f}"
        )
    if args.per_item:
        each = per_item_cost(args.per_item)
        print(
            f"one keyring item each (the old way), {args.per_item} items: {each * 1000:.0f} ms "
            f"per item = {each * args.distinct:.0f} s for {args.distinct} distinct keys "
            "(at least: the daemon's file grows with every item)"
        )


if __name__ == "__main__":
    main()

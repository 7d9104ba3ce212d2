"""The live judge log is the run's final ``judge_logs.jsonl``, and a key a judge writes in its
reply is masked once, for every writer: ``audit.db``, the live log while the run goes, the final
file and ``export files``.

A judge that quotes a key (in prose around its verdict and inside the verdict's reasons) is a
small OpenAI-compatible server here; the run is the real runner over imported pairs."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from pathlib import Path

from judgeaudit.audit import events as ev
from judgeaudit.audit.inputs import load_spec
from judgeaudit.audit.runner import AuditRunner
from tests.helpers import loopback_http, write_refund_pairs

#: A key shape (``sk-`` then 8+ characters) that is not a real key.
KEY = "sk-JUDGE-canary-" + "0a1b2c3d4e5f"
PAIRS = 12


@contextmanager
def leaking_judge() -> Iterator[str]:
    """A judge endpoint whose every reply quotes KEY before and inside its JSON verdict."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            verdict = {
                "winner": "A",
                "score_a": 4.0,
                "score_b": 1.0,
                "reasons": [f"A used the key {KEY} correctly", "B did nothing"],
            }
            text = f"The key {KEY} was in the transcript.\n{json.dumps(verdict)}"
            body = json.dumps(
                {
                    "id": "x",
                    "object": "chat.completion",
                    "created": 0,
                    "model": "judge",
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": text},
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
                }
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_: object) -> None:
            pass

    with loopback_http(Handler) as url:
        yield url


def write_spec(folder: Path, url: str) -> Path:
    write_refund_pairs(folder, PAIRS)
    spec = folder / "spec.toml"
    spec.write_text(
        '[run]\nname = "leak"\nimported = "pairs.jsonl"\nconcurrency = 4\n'
        f'[endpoints.j]\nbase_url = "{url}"\nkey_env = "J_KEY"\n'
        '[judge]\nmodel = "judge-x"\nendpoint = "j"\n'
    )
    return spec


def test_a_key_in_a_judge_reply_is_masked_in_every_file_and_the_live_log_is_kept(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"
    live = out / "judge_logs.jsonl"
    seen: dict[str, object] = {}

    def on_event(event: ev.Event) -> None:
        if isinstance(event, ev.PairDone) and "inode" not in seen:
            seen["inode"] = live.stat().st_ino  # the file a `tail -f` follows
            seen["text"] = live.read_text(encoding="utf-8")

    with leaking_judge() as url:
        runner = AuditRunner(
            load_spec(write_spec(tmp_path, url)), out, on_event=on_event, keys=lambda _: "k"
        )
        finished = asyncio.run(runner.run())
    assert finished.complete

    # While the run went, the live log already held the masked reply, never the key.
    assert KEY not in str(seen["text"]) and KEY[-4:] in str(seen["text"])
    # The file followed during the run is the final one (not replaced by a rewrite) ...
    assert live.stat().st_ino == seen["inode"]
    lines = live.read_text(encoding="utf-8").splitlines()
    assert KEY not in "\n".join(lines)
    db = sqlite3.connect(out / "audit.db")
    db.row_factory = sqlite3.Row
    rows = db.execute('SELECT * FROM judge_logs ORDER BY pair_id, "order", attempt').fetchall()
    # ... and holds each stored judge call once, masked in the database as in the file.
    assert len(lines) == len(rows) == 2 * PAIRS
    for table in ("judge_logs", "prompts", "calls"):
        dump = json.dumps([list(r) for r in db.execute(f"SELECT * FROM {table}")])
        assert KEY not in dump
    by_id = {json.loads(line)["log_id"]: json.loads(line) for line in lines}
    for row in rows:
        logged = by_id[row["log_id"]]
        assert logged["raw_output"] == row["raw_output"] and "…" in row["raw_output"]
        assert logged["parsed_json"] == json.loads(row["parsed_json"])
        assert KEY not in logged["parsed_json"]["reasons"][0]
    db.close()

    # `export files` rebuilds the same lines from audit.db (ordered by pair).
    done = subprocess.run(
        [sys.executable, "-m", "judgeaudit", "export", "files", str(out)],
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    rebuilt = live.read_text(encoding="utf-8").splitlines()
    assert sorted(rebuilt) == sorted(lines)
    assert [json.loads(line)["log_id"] for line in rebuilt] == [r["log_id"] for r in rows]

"""Record what the pinned Claude Code and Codex releases really send, as bridge fixtures.

    JUDGEAUDIT_NPM_BIN=.cache/npm/node_modules/.bin .venv/bin/python -m tests.contract.record_fixtures

Each client does one tool round trip (read a file, answer) against a loopback recorder in front
of the embedded provider; every request it sends is kept (credentials never: the recorder drops
them) in ``tests/fixtures/bridge/<client>-<version>.json``. Long texts (system prompts, tool
descriptions) are cut to their first 400 characters and machine identifiers replaced, so a
fixture is small and holds nothing of this machine; every structural field stays as sent.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from tests.bridge_helpers import FIXTURES, Recorder, served
from tests.contract.versions import pinned

KEEP_CHARS = 400
ROOT = "/tmp/bridgecap"  # the temp dir the client ran in, as the fixture names it
#: Headers that carry a session or machine identifier: kept, with a fixed value.
ID_HEADERS = ("session-id", "thread-id", "x-client-request-id", "x-codex-window-id")


def trim(value: Any, root: str) -> Any:
    """The request with long strings cut, the work dir renamed, identifiers replaced."""
    if isinstance(value, dict):
        out = {k: trim(v, root) for k, v in value.items()}
        if isinstance(out.get("user_id"), str):
            out["user_id"] = '{"device_id":"0000","account_uuid":"","session_id":"0000"}'
        for key in out:
            if key in ID_HEADERS or key.endswith("-session-id") or key.endswith("turn-metadata"):
                out[key] = "0000"
        for key in ("prompt_cache_key", "session_id", "conversation_id"):
            if isinstance(out.get(key), str):
                out[key] = "00000000-0000-0000-0000-000000000000"
        return out
    if isinstance(value, list):
        return [trim(v, root) for v in value]
    if isinstance(value, str):
        text = value.replace(root, ROOT)
        return text if len(text) <= KEEP_CHARS else text[:KEEP_CHARS] + " [trimmed]"
    return value


def record(app: str, npm_bin: Path, out_dir: Path) -> Path:
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        for name in ("work", "home", "claude", "codex"):
            (tmp / name).mkdir()
        (tmp / "work" / "note.txt").write_text("file content XYZ\n", encoding="utf-8")
        env = {
            **os.environ,
            "HOME": str(tmp / "home"),
            "CLAUDE_CONFIG_DIR": str(tmp / "claude"),
            "CODEX_HOME": str(tmp / "codex"),
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "RECKEY": "recorder-token-not-a-key",
        }
        with served("sim", "serve", "--port", "0") as (sim, _), Recorder(sim[:-3]) as rec:
            if app == "claude":
                note = tmp / "work" / "note.txt"
                argv = [
                    str(npm_bin / "claude"),
                    "-p",
                    f'read it\nsim-tool: Read {{"file_path": "{note}"}}',
                ]
                env |= {
                    "ANTHROPIC_BASE_URL": rec.url,
                    "ANTHROPIC_AUTH_TOKEN": env["RECKEY"],
                    "ANTHROPIC_MODEL": "sim-chat",
                }
            else:
                table = f'{{name = "rec", base_url = "{rec.url}/v1", wire_api = "responses", env_key = "RECKEY"}}'
                argv = [
                    str(npm_bin / "codex"), "-c", "model_provider=rec",
                    "-c", f"model_providers.rec={table}", "-c", 'model="sim-chat"',
                    "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox",
                    'show the note\nsim-tool: exec_command {"cmd": "cat note.txt"}',
                ]  # fmt: skip
            done = subprocess.run(
                argv, cwd=tmp / "work", env=env, capture_output=True, text=True, timeout=300,
                stdin=subprocess.DEVNULL,
            )  # fmt: skip
            if done.returncode != 0 or "file content XYZ" not in done.stdout:
                raise SystemExit(
                    f"{app} did not finish its round trip:\n{done.stdout}\n{done.stderr}"
                )
        version = pinned(app)
        requests = [r for r in rec.seen if isinstance(r["body"], dict)]
        path = out_dir / f"{app}-{version}.json"
        record_ = {"client": app, "version": version, "requests": trim(requests, str(tmp))}
        path.write_text(json.dumps(record_, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        return path


def main() -> None:
    npm_bin = Path(os.environ.get("JUDGEAUDIT_NPM_BIN", ".cache/npm/node_modules/.bin"))
    for app in sys.argv[1:] or ["claude", "codex"]:
        print(record(app, npm_bin, FIXTURES))


if __name__ == "__main__":
    main()

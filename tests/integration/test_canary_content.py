"""The canary sweep for content (issue 27): keys that reach judgeaudit inside the data it audits
(a conversation quoting a key, a tool result holding a bearer token) or inside a provider's
error reply. Every command a user runs on such data writes its files; none of them, and none
of stdout/stderr, may hold a canary: they are masked by :func:`judgeaudit.credentials.
scrub_content` before anything is written (see docs/security.md)."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from tests.helpers import loopback_http

ROLLOUTS = Path(__file__).resolve().parents[2] / "examples" / "rollouts"
#: Key shapes that must not look real (no 20+ alphanumeric run after ``sk-``).
IN_CONVERSATION = "sk-CONTENT-canary-" + "a1b2c3d4e5f6"
IN_TOOL = "tok-TOOL-canary-" + "9z8y7x6w"  # only the "Bearer" before it says it is a key
IN_ERROR = "sk-ERROR-canary-" + "f6e5d4c3b2a1"
CANARIES = (IN_CONVERSATION, IN_TOOL, IN_ERROR)

SPEC = """[run]
name = "canary"
imported = "{pairs}"
judge_view = "evidence"
[endpoints.sim]
base_url = "embedded"
[judge]
model = "judge-default"
endpoint = "sim"
"""


def quoting_rollouts(tmp: Path) -> list[Path]:
    """The example τ-bench rollouts, with a key quoted by the user, repeated by the agent and
    returned by a tool in every conversation."""
    out = []
    for source in ("tau-bench-gpt-4o.json", "tau-bench-small-model.json"):
        items = json.loads((ROLLOUTS / source).read_text(encoding="utf-8"))
        for item in items:
            item["traj"][1:1] = [
                {"role": "user", "content": f"My old key was {IN_CONVERSATION}, is it leaked?"},
                {"role": "assistant", "content": f'I see "{IN_CONVERSATION}" in your message.'},
            ]
            tool = next(m for m in item["traj"] if m["role"] == "tool")
            tool["content"] = f"{tool['content']} (curl -H 'Authorization: Bearer {IN_TOOL}')"
        path = tmp / source
        path.write_text(json.dumps(items), encoding="utf-8")
        out.append(path)
    return out


@contextmanager
def erroring_provider() -> Iterator[str]:
    """An OpenAI-compatible endpoint that refuses every call quoting a key in its error."""

    class Handler(BaseHTTPRequestHandler):
        def _refuse(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(length)
            body = json.dumps(
                {"error": {"message": f"Incorrect API key provided: {IN_ERROR}", "code": "x"}}
            ).encode()
            self.send_response(400)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            with contextlib.suppress(OSError):  # the client may give up first
                self.wfile.write(body)

        do_POST = _refuse
        do_GET = _refuse

        def log_message(self, *_: object) -> None:
            pass

    with loopback_http(Handler) as url:
        yield url


def test_keys_in_conversations_and_provider_errors_reach_no_written_file(tmp_path: Path) -> None:
    inputs = tmp_path / "in"
    inputs.mkdir()
    rollouts = quoting_rollouts(inputs)
    work = tmp_path / "w"
    work.mkdir()
    (work / "spec.toml").write_text(SPEC.format(pairs=work / "pairs.jsonl"), encoding="utf-8")
    env = {
        **os.environ,
        "JUDGEAUDIT_CONFIG_DIR": str(tmp_path / "cfg"),
        "JUDGEAUDIT_LOG_DIR": str(tmp_path / "logs"),
        "HOME": str(tmp_path / "home"),
        "ERRKEY": "not-the-canary-1234",
    }
    w = str(work)
    with erroring_provider() as bad_url:
        commands = [
            ("import", "tau-bench", *map(str, rollouts), "--agent", "gpt-4o", "--agent", "small-model",
             "--out", f"{w}/pairs.jsonl"),
            ("run", f"{w}/spec.toml", "--out", f"{w}/out", "--events", "jsonl"),
            ("report", f"{w}/out", "--format", "json", "--output", f"{w}/report.json"),
            ("report", f"{w}/out", "--format", "html", "--output", f"{w}/report.html"),
            ("review", "export", f"{w}/out", "--file", f"{w}/review.csv"),
            ("export", "preferences", f"{w}/out", "--format", "jsonl", "--labels", "state",
             "--out", f"{w}/prefs.jsonl"),
            ("export", "preferences", f"{w}/out", "--format", "trl", "--out", f"{w}/trl.jsonl"),
            ("rejudge", f"{w}/out", "--out", f"{w}/rj", "--events", "jsonl"),
            ("compare", f"{w}/out", f"{w}/rj", "--format", "json"),
            ("judges", f"{w}/out", f"{w}/rj", "--format", "json", "--output", f"{w}/judges.json"),
            ("rejudge", f"{w}/out", "--out", f"{w}/rj-err", "--events", "jsonl",
             "--judge-endpoint", bad_url, "--judge-key-env", "ERRKEY", "--judge-model", "m"),
        ]  # fmt: skip
        outputs = []
        for args in commands:
            done = subprocess.run(
                [sys.executable, "-m", "judgeaudit", *args],
                capture_output=True,
                text=True,
                timeout=600,
                env=env,
                cwd=work,
            )
            assert "Traceback" not in done.stderr, (args[0], done.stderr[-2000:])
            outputs.append((args[0], done))
            if args[0] in ("import", "run"):
                assert done.returncode == 0, done.stderr
            (work / f"{args[0]}-{len(outputs)}.out").write_text(done.stdout + done.stderr)
        # A reviewer's note quoting the key, imported, then shown by the report.
        labels = (work / "review.csv").read_text(encoding="utf-8").splitlines()
        first = labels[1].split(",")
        first[-4:] = ["1", "0", "A", f"saw {IN_CONVERSATION} here"]
        (inputs / "labels.csv").write_text("\n".join([labels[0], ",".join(first)]) + "\n")
        for args in (
            ("review", "import", f"{w}/out", str(inputs / "labels.csv")),
            ("report", f"{w}/out", "--format", "html", "--output", f"{w}/labelled.html"),
        ):
            done = subprocess.run(
                [sys.executable, "-m", "judgeaudit", *args],
                capture_output=True,
                text=True,
                timeout=600,
                env=env,
                cwd=work,
            )
            assert done.returncode == 0, done.stderr
            (work / f"{args[0]}-{len(outputs)}.out").write_text(done.stdout + done.stderr)
            outputs.append((args[0], done))
    by_name = dict(outputs)
    assert by_name["import"].returncode == 0, by_name["import"].stderr
    assert outputs[1][1].returncode == 0, outputs[1][1].stderr  # the run
    assert (work / "prefs.jsonl").stat().st_size > 0 and (work / "review.csv").exists()
    # The refused re-judge really met the provider's error (and said so).
    refused = outputs[-3][1]
    assert refused.returncode != 0 and "400" in refused.stdout + refused.stderr
    # The content really carried the key this far: the judge saw it, masked.
    stored = (work / "pairs.jsonl").read_text(encoding="utf-8")
    assert "My old key was …e5f6" in stored and "Authorization: Bearer …7x6w" in stored

    leaks = []
    written = [p for p in tmp_path.rglob("*") if p.is_file() and inputs not in p.parents]
    assert len(written) > 15, written
    for path in written:
        data = path.read_bytes()
        for canary in CANARIES:
            if canary.encode() in data or canary[:-4].encode() in data:
                leaks.append(f"{path.relative_to(tmp_path)}: {canary[:12]}")
    assert leaks == []


IN_RAW = "sk-RAW-canary-" + "0a9b8c7d6e5f"  # a judge's logged reply quoting a key
IN_NOTE = "sk-NOTE-canary-" + "5e6f7a8b9c0d"  # a reviewer's note
DAILY = ("2026-11-01", "2026-11-02", "2026-11-03")


def quoting_daily_logs(logs: Path) -> None:
    """Three days of the example recorded-verdict log, each conversation quoting a key, each
    tool result a bearer token and each logged judge reply a key."""
    logs.mkdir()
    lines = (ROLLOUTS / "recorded-verdicts.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines if line.strip()]
    for record in records:
        if record["type"] == "pair":
            for side in ("trajectory_a", "trajectory_b"):
                record[side] = [
                    {"role": "user", "content": f"help, my key {IN_CONVERSATION} stopped working"},
                    {
                        "role": "tool_result",
                        "result": f"GET /v1 -H 'Authorization: Bearer {IN_TOOL}'",
                    },
                    *record[side],
                ]
        else:
            record["raw_output"] = f'{{"winner": "{record["winner"]}"}} (key was {IN_RAW})'
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    for day in DAILY:
        (logs / f"{day}.jsonl").write_text(text, encoding="utf-8")


@pytest.mark.timeout(900)  # ~25 commands, one on Spark; this machine is shared
def test_keys_in_daily_logs_reach_no_trend_engine_or_judges_output(tmp_path: Path) -> None:
    """Issue 27's sweep on this wave's commands: trend in every format (its --work runs and the
    default work dir), the report on DuckDB (and on Spark), Parquet shards, the leaderboard."""
    inputs = tmp_path / "in"
    inputs.mkdir()
    quoting_daily_logs(inputs / "logs")
    w = tmp_path / "w"
    w.mkdir()
    runs = w / "runs"
    env = {
        **os.environ,
        "JUDGEAUDIT_CONFIG_DIR": str(tmp_path / "cfg"),
        "JUDGEAUDIT_LOG_DIR": str(tmp_path / "logs"),
        "HOME": str(tmp_path / "home"),
    }
    first = runs / DAILY[0]
    logs = str(inputs / "logs")
    commands: list[tuple[str, ...]] = [
        ("trend", logs, "--work", str(runs)),
        ("trend", logs, "--work", str(runs), "--format", "json", "--output", f"{w}/t.json"),
        ("trend", logs, "--work", str(runs), "--format", "csv", "--output", f"{w}/t.csv"),
        ("trend", logs, "--work", str(runs), "--format", "html", "--output", f"{w}/t.html"),
        ("trend", logs, "--format", "json"),  # the default work dir, inside the logs folder
        ("review", "export", str(first), "--file", f"{w}/review.csv"),
    ]
    for day in DAILY:
        commands.append(
            ("export", "parquet", str(runs / day), "--to", f"{w}/pq", "--partition", "period")
        )
    commands += [
        ("report", str(first), "--engine", "duckdb", "--format", "json"),
        ("report", str(first), "--engine", "duckdb", "--format", "html", "--output", f"{w}/d.html"),
        ("report", str(first), "--engine", "duckdb", "--parquet", f"{w}/pq", "--format", "csv"),
        ("report", str(first), "--engine", "spark", "--format", "json"),  # about a minute here
        # A Parquet history straight from a day's log, then the trend over it.
        ("import", "recorded-jsonl", f"{logs}/{DAILY[0]}.jsonl", "--parquet", f"{w}/history"),
        ("trend", f"{w}/history", "--format", "html", "--output", f"{w}/history.html"),
        # a judge that gives verdicts: the recorded judge's name gets none from the embedded
        # provider, and a re-judge that judged nothing fails now (exit 1)
        (
            "rejudge",
            str(first),
            "--out",
            f"{w}/rj",
            "--judge-endpoint",
            "embedded",
            "--judge-model",
            "judge-default",
        ),
        ("judges", str(first), f"{w}/rj"),
        ("judges", str(first), f"{w}/rj", "--format", "md", "--output", f"{w}/judges.md"),
        ("judges", str(first), f"{w}/rj", "--format", "json"),
    ]
    outputs = [run_cli(args, env, w) for args in commands]
    # A reviewer's note quoting a key, imported into a day, then the trend and reports again.
    rows = (w / "review.csv").read_text(encoding="utf-8").splitlines()
    labelled = rows[1].split(",")
    labelled[-4:] = ["1", "0", "A", f"saw {IN_NOTE} in it"]
    (inputs / "labels.csv").write_text("\n".join([rows[0], ",".join(labelled)]) + "\n")
    again: list[tuple[str, ...]] = [
        ("review", "import", str(first), str(inputs / "labels.csv")),
        ("trend", logs, "--work", str(runs), "--format", "html", "--output", f"{w}/t2.html"),
        ("report", str(first), "--engine", "duckdb", "--format", "json"),
    ]
    outputs += [run_cli(args, env, w) for args in again]
    for args, done in outputs:
        assert done.returncode == 0, (args, done.stderr[-2000:])
    # The canaries really went in, and were masked where they are stored.
    db = sqlite3.connect(first / "audit.db")
    events = "".join(r[0] for r in db.execute("SELECT events FROM trajectories"))
    raw = "".join(r[0] for r in db.execute("SELECT raw_output FROM judge_logs"))
    notes = [r[0] for r in db.execute("SELECT note FROM human_labels")]
    db.close()
    assert "my key …e5f6 stopped" in events and "Bearer …7x6w" in events
    assert "(key was …6e5f)" in raw and notes == ["saw …9c0d in it"]
    assert json.loads(outputs[-1][1].stdout)["pairs"] == 40
    assert len(list((w / "pq").glob("period=*/*.parquet"))) == 3
    assert "2026-11-03" in outputs[0][1].stdout
    sweep(tmp_path, inputs, outputs, (IN_CONVERSATION, IN_TOOL, IN_RAW, IN_NOTE))


def run_cli(
    args: tuple[str, ...], env: dict[str, str], cwd: Path
) -> tuple[tuple[str, ...], subprocess.CompletedProcess[str]]:
    done = subprocess.run(
        [sys.executable, "-m", "judgeaudit", *args],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        cwd=cwd,
    )
    assert "Traceback" not in done.stderr, (args, done.stderr[-2000:])
    return args, done


def sweep(
    root: Path,
    inputs: Path,
    outputs: list[tuple[tuple[str, ...], subprocess.CompletedProcess[str]]],
    canaries: tuple[str, ...],
) -> None:
    """No canary (nor its first part) in any file written under ``root`` (the given inputs
    aside, but not what was written beside them) or in any command's stdout/stderr."""
    given = {p for p in inputs.rglob("*") if p.suffix in (".jsonl", ".csv")}
    written = [p for p in root.rglob("*") if p.is_file() and p not in given]
    assert len(written) > 20, written
    leaks = []
    for path in written:
        data = path.read_bytes()
        leaks += [
            f"{path.relative_to(root)}: {c[:12]}" for c in canaries if c[:-4].encode() in data
        ]
    for args, done in outputs:
        text = done.stdout + done.stderr
        leaks += [f"{' '.join(args[:2])}: output: {c[:12]}" for c in canaries if c[:-4] in text]
    assert leaks == []

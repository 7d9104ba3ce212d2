"""Preference export from imported rollouts (Chinese text and tool calls, byte for byte) and on
bad input (one line, exit 2, no file and no half file left)."""

from __future__ import annotations

import errno
import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from judgeaudit.cli import main
from tests.cli_helpers import cli

SYSTEM = {"role": "system", "content": "你是网店客服。退款前先向顾客确认；告诉顾客退款金额。"}
ASK = {"role": "user", "content": "我想退订单 #W1001 里的马克杯，能退多少钱？"}
GOOD: list[dict[str, Any]] = [
    SYSTEM,
    ASK,
    {
        "role": "assistant",
        "content": "我先查一下订单。",
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {
                    "name": "get_order_details",
                    "arguments": '{"order_id": "#W1001", "备注": "马克杯☕"}',
                },
            }
        ],
    },
    {
        "role": "tool",
        "tool_call_id": "c1",
        "content": '{"status":"delivered","items":[{"name":"马克杯","price":12.5}]}',
    },
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c2",
                "type": "function",
                "function": {"name": "refund_item", "arguments": '{"item": "马克杯"}'},
            },
            {
                "id": "c3",
                "type": "function",
                "function": {"name": "calculate", "arguments": '{"expression": "12.5 * 1"}'},
            },
        ],
    },
    {"role": "tool", "tool_call_id": "c2", "content": "退款成功：R-88"},
    {"role": "tool", "tool_call_id": "c3", "content": "12.5"},
    {"role": "assistant", "content": "已退款 12.5 元（退款号 R-88）。\n还有别的需要吗？😊"},
    {"role": "user", "content": "没有了，谢谢！"},
]
BAD = [
    SYSTEM,
    ASK,
    {"role": "assistant", "content": "好的，已经帮您处理完毕！"},
    {"role": "user", "content": "谢谢"},
]
SPEC = '[run]\nname = "zh"\nimported = "pairs.jsonl"\n[gap]\nsource = "judge"\n[judge]\nsource = "recorded"\n'


def _rollouts(path: Path, decisive: bool = True) -> Path:
    lines: list[dict[str, Any]] = [
        {"task_id": "退款-1", "agent": "模型甲", "trial": 0, "messages": GOOD, "success": True},
        {
            "task_id": "退款-1",
            "agent": "模型乙",
            "trial": 0,
            "messages": BAD,
            "success": not decisive,
        },
    ]
    for order in ("AB", "BA"):  # the judge prefers the confident claim: a misselection
        lines.append(
            {
                "type": "verdict",
                "task_id": "退款-1",
                "agent_a": "模型甲",
                "agent_b": "模型乙",
                "order": order,
                "winner": "B",
                "score_a": 2.0,
                "score_b": 4.5,
                "judge_model": "评审-1",
                "prompt_hash": "评审模板-v1",
            }
        )
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), "utf-8")
    return path


def _audit(tmp: Path, decisive: bool = True) -> Path:
    tmp.mkdir(parents=True, exist_ok=True)
    source = _rollouts(tmp / "rollouts.jsonl", decisive)
    assert main(["import", "openai-jsonl", str(source), "--out", str(tmp / "pairs.jsonl")]) == 0
    (tmp / "spec.toml").write_text(SPEC, encoding="utf-8")
    assert (
        main(["run", str(tmp / "spec.toml"), "--out", str(tmp / "out"), "--events", "jsonl"]) == 0
    )
    return tmp / "out"


def _renumbered(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The source messages with the ids the export gives (the store keeps no tool-call id)."""
    ids = {"c1": "call_0", "c2": "call_1", "c3": "call_2"}
    text = json.dumps(messages, ensure_ascii=False)
    for old, new in ids.items():
        text = text.replace(f'"{old}"', f'"{new}"')
    out: list[dict[str, Any]] = json.loads(text)
    return out


def test_chinese_transcripts_and_tool_calls_round_trip_byte_for_byte(tmp_path: Path) -> None:
    out = _audit(tmp_path)
    dest = tmp_path / "zh.jsonl"
    assert main(["export", "preferences", str(out), "--format", "trl", "--out", str(dest)]) == 0
    raw = dest.read_bytes()
    for text in (
        "我想退订单 #W1001 里的马克杯，能退多少钱？",
        "退款成功：R-88",
        '\\"备注\\": \\"马克杯☕\\"',
        "😊",
    ):
        assert text.encode("utf-8") in raw  # written as UTF-8, never \u-escaped
    (row,) = [json.loads(line) for line in raw.decode("utf-8").splitlines()]
    expected = _renumbered(GOOD)
    for got, want in (
        (row["prompt"], expected[:2]),
        (row["chosen"], expected[2:8]),
        (row["rejected"], BAD[2:3]),
    ):
        assert (
            json.dumps(got, ensure_ascii=False).encode()
            == json.dumps(want, ensure_ascii=False).encode()
        )
    assert (row["chosen_agent"], row["rejected_agent"], row["judge_pref"]) == (
        "模型甲",
        "模型乙",
        "B",
    )
    assert row["judge_agrees"] is False and row["task_id"] == "退款-1"
    card = json.loads((tmp_path / "zh.card.json").read_text(encoding="utf-8"))
    assert card["reversed_by_state"] == 1 and card["judge"]["models_on_pairs"] == ["评审-1"]
    # a recorded judge's prompt is the one stored with its verdicts, not the spec's template
    assert card["judge"]["source"] == "recorded verdicts"
    assert card["judge"]["prompt_hash"] == "评审模板-v1"
    # the OpenAI format cannot hold this pair (several assistant turns differ): skipped, counted
    done = cli(
        "export", "preferences", str(out), "--format", "openai", "--out", str(tmp_path / "o.jsonl")
    )
    assert done.returncode == 2 and "diverge_before_last_assistant_turn" in done.stderr
    assert not (tmp_path / "o.jsonl").exists()
    # our complete form keeps the stored events exactly
    assert (
        main(
            [
                "export",
                "preferences",
                str(out),
                "--format",
                "jsonl",
                "--out",
                str(tmp_path / "all.jsonl"),
            ]
        )
        == 0
    )
    complete = json.loads((tmp_path / "all.jsonl").read_text(encoding="utf-8"))
    db = sqlite3.connect(out / "audit.db")
    stored = db.execute("SELECT events FROM trajectories WHERE agent = '模型甲'").fetchone()[0]
    db.close()
    assert json.dumps(complete["trajectory_a"]["events"], ensure_ascii=False) == stored


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _audit(tmp_path_factory.mktemp("small"))


def _refused(args: list[str], folder: Path, message: str) -> None:
    before = sorted(p.name for p in folder.iterdir())
    done = cli("export", "preferences", *args)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and message in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert sorted(p.name for p in folder.iterdir()) == before  # no file, no temp file


def test_bad_input_one_line_exit_2_nothing_written(small: Path, tmp_path: Path) -> None:
    dest = tmp_path / "p.jsonl"
    _refused(
        [str(small), "--format", "parquet", "--out", str(dest)],
        tmp_path,
        "--format 'parquet': use trl, openai, jsonl",
    )
    _refused(
        [str(small), "--labels", "human", "--out", str(dest)],
        tmp_path,
        "--labels 'human': use state, judge, agree",
    )
    _refused([str(tmp_path / "nowhere"), "--out", str(dest)], tmp_path, "no audit database")
    _refused([str(small), "--run", "r-x", "--out", str(dest)], tmp_path, "run 'r-x' not found")
    (tmp_path / "a-file").write_text("x")
    _refused(
        [str(small), "--out", str(tmp_path / "a-file" / "p.jsonl")],
        tmp_path,
        "not a writable directory",
    )
    _refused([str(small), "--out", str(tmp_path)], tmp_path, "is a directory")


def test_unwritable_path(small: Path, tmp_path: Path) -> None:
    done = cli("export", "preferences", str(small), "--out", "/proc/judgeaudit-prefs/p.jsonl")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "cannot write" in done.stderr or "not a writable directory" in done.stderr


def test_existing_out_needs_force(small: Path, tmp_path: Path) -> None:
    dest = tmp_path / "p.jsonl"
    dest.write_text("my own file\n")
    _refused([str(small), "--out", str(dest)], tmp_path, "exists; pass --force")
    assert dest.read_text() == "my own file\n"
    dest.unlink()
    (tmp_path / "p.card.md").write_text("an older card\n")
    _refused([str(small), "--out", str(dest)], tmp_path, "p.card.md exists; pass --force")
    done = cli("export", "preferences", str(small), "--out", str(dest), "--force")
    assert done.returncode == 0, done.stderr
    assert json.loads(dest.read_text(encoding="utf-8"))["pair_id"]
    assert "Data card" in (tmp_path / "p.card.md").read_text(encoding="utf-8")


def test_unfinished_run_refused(small: Path, tmp_path: Path) -> None:
    out = tmp_path / "copy"
    shutil.copytree(small, out)
    db = sqlite3.connect(out / "audit.db")
    db.execute("UPDATE runs SET status = 'running'")
    db.commit()
    db.close()
    _refused([str(out), "--out", str(tmp_path / "p.jsonl")], tmp_path, "is stopped, not finished")


def test_no_decisive_pair_refused(tmp_path: Path) -> None:
    out = _audit(tmp_path / "run", decisive=False)
    (tmp_path / "x").mkdir()
    _refused(
        [str(out), "--labels", "judge", "--out", str(tmp_path / "x" / "p.jsonl")],
        tmp_path / "x",
        "no decisive pair",
    )


def test_disk_full_mid_write_leaves_no_half_file(
    small: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import judgeaudit.analysis.preferences as prefs

    def full(*_: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(prefs, "render_card", full)  # after every row was streamed
    (tmp_path / "x").mkdir()
    code = main(
        [
            "export",
            "preferences",
            str(small),
            "--format",
            "jsonl",
            "--out",
            str(tmp_path / "x" / "p.jsonl"),
        ]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert (
        err.count("\n") == 1 and "No space left on device" in err and "nothing was written" in err
    )
    assert list((tmp_path / "x").iterdir()) == []


def test_failed_forced_export_keeps_the_old_file_and_card(
    small: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import judgeaudit.analysis.preferences as prefs

    dest = tmp_path / "p.jsonl"
    assert main(["export", "preferences", str(small), "--out", str(dest)]) == 0
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert sorted(before) == ["p.card.json", "p.card.md", "p.jsonl"]

    def interrupted(*_: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(prefs, "render_card", interrupted)
    with pytest.raises(KeyboardInterrupt):
        prefs.export_preferences(prefs.ExportOptions(small, "jsonl", "judge", dest, force=True))
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before

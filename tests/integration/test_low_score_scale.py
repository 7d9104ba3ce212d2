"""A log whose judge scores 0-1 (probabilities) on the audit's 0-5 scale (a new user's finding,
twentieth session): no side reaches the satisfied threshold (4), so "failed although judge
satisfied" was `n/a (0/0 judged sides)` without a word. The import now warns in one line (exit 0,
the pairs written: a 0-5 judge may score low) when every one of at least 20 scores is at most
1, and the report says so under the n/a."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli_helpers import cli, cli_ok

SPEC = '[run]\nname = "rec"\nimported = "pairs.jsonl"\n[judge]\nsource = "recorded"\n'
WARNING = "every one of the 40 recorded scores is at most 1 (highest 0.9)"


def _log(path: Path, pairs: int, top: float) -> Path:
    rows: list[dict[str, object]] = []
    for n in range(pairs):
        rows.append(
            {
                "type": "pair",
                "pair_id": f"p{n}",
                "task_id": f"t{n % 5}",
                "trial": n // 5,
                "agent_a": "v7",
                "agent_b": "v8",
                "success_a": n % 2,
                "success_b": 0,
            }
        )
        for order, (a, b) in (("AB", (top, 0.1)), ("BA", (0.2, 0.3))):
            rows.append(
                {
                    "type": "verdict",
                    "pair_id": f"p{n}",
                    "order": order,
                    "winner": "A" if a > b else "B",
                    "score_a": a,
                    "score_b": b,
                }
            )
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path  # fmt: skip


def test_a_log_scored_0_to_1_is_imported_with_a_warning_and_the_report_says_why(
    tmp_path: Path,
) -> None:
    log = _log(tmp_path / "log.jsonl", 10, 0.9)  # 10 pairs x 2 orders x 2 scores = 40
    done = cli("import", "recorded-jsonl", str(log), "--out", str(tmp_path / "pairs.jsonl"))
    assert done.returncode == 0 and (tmp_path / "pairs.jsonl").is_file(), done.stderr
    warned = [line for line in done.stderr.splitlines() if line.startswith("warning:")]
    assert len(warned) == 1 and WARNING in warned[0], done.stderr
    assert "scale is 0-5" in warned[0] and "satisfied at 4" in warned[0]
    assert "multiply its scores by 5" in warned[0]
    (tmp_path / "spec.toml").write_text(SPEC, encoding="utf-8")
    cli_ok("run", str(tmp_path / "spec.toml"), "--out", str(tmp_path / "out"))
    report = cli_ok("report", str(tmp_path / "out")).stdout.splitlines()
    at = next(i for i, line in enumerate(report) if "failed although judge satisfied" in line)
    assert "n/a (0/0 judged sides)" in report[at]
    assert report[at + 1].strip().startswith("WARNING: every one of the 20 recorded scores")
    out = str(tmp_path / "out")
    data = json.loads(cli_ok("report", out, "--format", "json").stdout)
    assert "multiply its scores by 5" in data["satisfied_but_failed"]["scale_note"]
    for fmt in ("md", "html"):
        assert (
            "every one of the 20 recorded scores" in cli_ok("report", out, "--format", fmt).stdout
        )


def test_the_cli_threshold_is_the_one_rule() -> None:
    """`report --threshold`'s default is the satisfied score the warning names (the CLI keeps
    the number itself: it must not load the engine to start)."""
    from judgeaudit.cli import build_parser
    from judgeaudit.score_scale import SATISFIED_AT

    argv = ["report", "out"]
    assert build_parser(argv).parse_args(argv).threshold == SATISFIED_AT


def test_no_warning_with_few_scores_or_one_above_1(tmp_path: Path) -> None:
    for name, pairs, top in (("few", 4, 0.9), ("one-high", 10, 1.5)):
        log = _log(tmp_path / f"{name}.jsonl", pairs, top)
        done = cli_ok("import", "recorded-jsonl", str(log), "--out", str(tmp_path / f"{name}.p"))
        assert "warning" not in done.stderr, (name, done.stderr)


def test_openai_jsonl_verdict_lines_warn_the_same(tmp_path: Path) -> None:
    rows: list[dict[str, object]] = []
    for n in range(10):
        for agent in ("v7", "v8"):
            rows.append(
                {
                    "task_id": f"t{n}",
                    "agent": agent,
                    "success": int(agent == "v7"),
                    "messages": [
                        {"role": "user", "content": "hi"},
                        {"role": "assistant", "content": f"ok {agent}"},
                    ],
                }
            )
        for order in ("AB", "BA"):
            rows.append({"type": "verdict", "task_id": f"t{n}", "agent_a": "v7", "agent_b": "v8",
                         "order": order, "winner": "A", "score_a": 0.9, "score_b": 0.1})  # fmt: skip
    log = tmp_path / "r.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    done = cli_ok("import", "openai-jsonl", str(log), "--out", str(tmp_path / "p.jsonl"))
    assert WARNING in done.stderr, done.stderr

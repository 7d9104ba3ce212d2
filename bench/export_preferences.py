"""Preference export at scale: peak memory and rows/s of ``judgeaudit export preferences`` on a
large recorded run, against its floor (reading the same rows), as ratios measured in one run.

The pairs and verdicts come from bench/recorded_scale.py's generator (same agents, skills and
judge); each pair gets a short conversation per side (user, a tool call and its result, the
agent's reply, the user's sign-off; a Chinese phrase in every tenth), written as the imported
pairs file that ``[judge] source = "recorded"`` audits without a model call. Then, each as a
real process with its peak RSS from the kernel (wait4):

- ``judgeaudit export preferences OUT --format trl`` (and ``jsonl``, which also merge-joins the
  judge calls) at N and at N/10: memory must not grow with N;
- the floor: the export's own ordered scan (pairs joined to both trajectories and the human
  labels), every row fetched and its two event lists parsed, nothing built or written.

Usage: python bench/export_preferences.py [--pairs 1000000] [--dir DIR | --keep] [--formats trl,jsonl]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.recorded_scale import CPU, generate, measured, mib
from bench.workdir import add_options, work_dir

FLOOR = """
import json, sqlite3, sys
from pathlib import Path
from judgeaudit.analysis.frame import open_db, resolve_run
from judgeaudit.analysis.preferences import _pairs
from judgeaudit.analysis.report import resolve_buckets
db = open_db(Path(sys.argv[1]))
run_id = resolve_run(db, None)
manifest = json.loads(db.execute("SELECT manifest FROM runs WHERE run_id = ?", (run_id,)).fetchone()[0])
source, bins, _ = resolve_buckets(db, run_id, manifest)
n = 0
for row in _pairs(db, run_id, source, bins, with_logs=sys.argv[2] == "jsonl"):
    json.loads(row["events_a"]), json.loads(row["events_b"])
    n += 1
print(n)
"""


def side(i: int, success: int, agent: str) -> list[dict[str, object]]:
    """A short conversation; the same first user message on both sides of a pair."""
    order = f"O-{i % 10000:05d}"
    zh = "（请尽快处理，谢谢）" if i % 10 == 0 else ""
    reply = (
        f"Refund issued for {order}: $12.50 back to your card (refund id R-{i})."
        if success
        else "All done! Your request has been processed, anything else?"
    )
    return [
        {"role": "user", "content": f"Please refund the mug in order {order}.{zh}"},
        {"role": "tool_call", "name": "get_order", "arguments": json.dumps({"order_id": order})},
        {"role": "tool_result", "name": "get_order", "result": {"order_id": order, "agent": agent}},
        {"role": "agent", "content": reply},
        {"role": "user", "content": "Thanks. <finished>"},
    ]


def imported_pairs(recorded: Path, dest: Path) -> int:
    """recorded_scale's pair and verdict lines → the imported pairs file, streaming."""
    count = 0
    with recorded.open(encoding="utf-8") as source, dest.open("w", encoding="utf-8") as out:
        pair: dict[str, object] | None = None
        for line in source:
            row = json.loads(line)
            if "order" not in row:
                pair = row
                i = int(str(row.pop("pair_id"))[1:])
                pair["task"] = f"task {row['task_id']}"
                pair["trajectory_a"] = side(i, int(row["success_a"]), str(row["agent_a"]))
                pair["trajectory_b"] = side(i, int(row["success_b"]), str(row["agent_b"]))
                pair["verdicts"] = []
                continue
            assert pair is not None
            model = row.pop("judge_model")
            row.pop("pair_id")
            pair["judge_model"] = model
            verdicts = pair["verdicts"]
            assert isinstance(verdicts, list)
            verdicts.append(row)
            if len(verdicts) == 2:
                out.write(json.dumps(pair, ensure_ascii=False) + "\n")
                count += 1
    return count


def build(work: Path, name: str, pairs: int) -> Path:
    out = work / f"{name}.out"
    if (out / "audit.db").exists():
        return out
    started = time.perf_counter()
    generate(work / f"{name}.recorded.jsonl", pairs)
    imported_pairs(work / f"{name}.recorded.jsonl", work / f"{name}.pairs.jsonl")
    (work / f"{name}.spec.toml").write_text(
        f'[run]\nname = "prefs-{name}"\nimported = "{name}.pairs.jsonl"\n'
        '[judge]\nsource = "recorded"\n',
        encoding="utf-8",
    )
    spec = str(work / f"{name}.spec.toml")
    wall, rss, _ = measured(
        [sys.executable, "-m", "judgeaudit", "run", spec, "--out", str(out), "--events", "jsonl"],
        work / f"run-{name}.log",
    )
    print(
        f"built {name}: {pairs:,} pairs in {time.perf_counter() - started:.0f}s"
        f" (the recorded run itself {wall:.0f}s, peak RSS {mib(rss)})"
    )
    return out


def export(work: Path, out: Path, name: str, fmt: str) -> tuple[float, int, float]:
    """(wall s, peak RSS, CPU s) of one export."""
    dest = work / f"{name}.{fmt}.jsonl"
    wall, rss, text = measured(
        [sys.executable, "-m", "judgeaudit", "export", "preferences", str(out), "--format", fmt,
         "--out", str(dest), "--force"],
        work / f"export-{name}-{fmt}.log",
    )  # fmt: skip
    print(f"  {text.splitlines()[0]}")
    return wall, rss, CPU[f"export-{name}-{fmt}"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=1_000_000)
    add_options(parser, "working directory (reused if built)")
    parser.add_argument("--formats", default="trl,jsonl")
    args = parser.parse_args()
    with work_dir(args.dir, "export-prefs-", args.keep) as work:
        measure(args, work)


def measure(args: argparse.Namespace, work: Path) -> None:
    small_n = max(args.pairs // 10, 1)
    print(f"working in {work}; {args.pairs:,} and {small_n:,} recorded pairs")
    outs = {"small": build(work, "small", small_n), "full": build(work, "full", args.pairs)}
    for fmt in args.formats.split(","):
        results = {}
        for name in ("small", "full"):
            results[name] = export(work, outs[name], name, fmt)
        floor_s, floor_rss, count = measured(
            [sys.executable, "-c", FLOOR, str(outs["full"]), fmt], work / f"floor-{fmt}.log"
        )
        floor_cpu = CPU[f"floor-{fmt}"]
        wall, rss, cpu = results["full"]
        rows = json.loads((work / f"full.{fmt}.card.json").read_text(encoding="utf-8"))["rows"]
        print(
            f"{fmt}: {rows:,} rows from {int(count):,} pairs in {wall:.1f}s wall, {cpu:.1f}s CPU"
            f" = {rows / wall:,.0f} rows/s; peak RSS {mib(rss)}"
        )
        print(
            f"{fmt}: floor (the same ordered scan, rows fetched and events parsed):"
            f" {floor_s:.1f}s wall, {floor_cpu:.1f}s CPU, peak RSS {mib(floor_rss)}"
        )
        print(
            f"{fmt}: export / floor: time {wall / floor_s:.2f}x, CPU {cpu / floor_cpu:.2f}x,"
            f" peak RSS {rss / floor_rss:.2f}x; peak RSS at {args.pairs:,} vs {small_n:,} pairs:"
            f" {rss / results['small'][1]:.2f}x (bounded memory: about 1)"
        )


if __name__ == "__main__":
    main()

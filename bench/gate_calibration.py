"""Calibrate ``compare --fail-on-rise`` the way a statistician would, on the embedded provider.

For each size (the demo's, and one with more trials per task) it makes one source run, then:

- null re-judges: the same judge with another re-judge seed (``run.seed``), gated against the
  source: "worse" (exit 3) there is a false alarm; "not worse" (exit 0) is the gate passing an
  unchanged judge; exit 5 is "inconclusive". These share the source's own draw, so they are
  correlated; disjoint pairs of null re-judges (seed 101 vs 102, 103 vs 104, ...) are
  independent null instances and are reported too;
- weaker judges (simulated: ``judge-default:diligence=0,evidence=0.3,style=0.7`` and others),
  each with several re-judge seeds: "worse" is power, "not worse" would be a wrong pass;
- seed replicates of the unchanged spec (only the simulation seed differs), every ordered pair
  gated: the gate refuses these unpaired comparisons (exit 2), so its false-alarm rate there is
  zero by construction; the bench checks that it does refuse.

Every rate is printed with its 95% Wilson interval. For hundreds of re-judges (the gate's
published false-alarm rate and power) see ``gate_calibration_inprocess.py``, which gives the
same verdicts in process. ``--small`` is the CI configuration (about a
minute: a small spec, two null seeds, one weaker judge); its figures are not asserted.

Every run is the user's own command (``judgeaudit run SPEC``, the spec ``judgeaudit rejudge``
writes, at ``--concurrency``) and every gate is ``judgeaudit compare A B --fail-on-rise``. With
``--workdir DIR`` the runs and each gate's result are kept there, and a second call with the
same options reuses them (so a long calibration can be stopped and resumed, or extended with
more ``--nulls``); one line per step goes to stderr with its wall time.

    python bench/gate_calibration.py [--small] [--nulls 10] [--weak-seeds 3] [--json FILE]
    python bench/gate_calibration.py --tasks builtin:retail-x12 --nulls 40 --jobs 2 --weak-seeds 1 \
        --replicates 0 --workdir /tmp/calib
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from judgeaudit.analysis import noninferiority as ni
from judgeaudit.analysis.stats import wilson

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "src" / "judgeaudit" / "data" / "demo.toml"
WEAKER = [
    "judge-default:diligence=0,evidence=0.3,style=0.7",
    "judge-default:diligence=0,evidence=0.2,style=0.8",
    "judge-default:noise=3,position=0",
]
SMALL_AGENTS = ("ace", "solid", "shaky", "weak")


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "judgeaudit", *args], capture_output=True, text=True, check=False
    )


def source_spec(folder: Path, trials: int, seed: int, small: bool, copies: int = 1) -> Path:
    text = DEMO.read_text(encoding="utf-8").replace("trials = 2", f"trials = {trials}")
    if copies > 1:  # the grown built-in task set: the 42 templates over fresh orders, N times
        text = text.replace('"builtin:retail"', f'"builtin:retail-x{copies}"')
    text = text.replace("seed = 7", f"seed = {seed}")
    if small:  # fewer agents: a quarter of the demo's pairs
        blocks = text.split("[[agents]]")
        kept = [b for b in blocks[1:] if any(f'name = "{a}"' in b for a in SMALL_AGENTS)]
        tail = blocks[-1][blocks[-1].index("[user_simulator]") :]
        kept[-1] = kept[-1] if "[user_simulator]" in kept[-1] else kept[-1] + tail
        text = blocks[0] + "".join("[[agents]]" + b for b in kept)
    path = folder / f"source-t{trials}-x{copies}-s{seed}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def rejudge_spec(folder: Path, source: Path, model: str, seed: int) -> Path:
    path = folder / f"rj-{abs(hash((model, seed))) % 10**8}.toml"
    path.write_text(
        f'[run]\nname = "calib"\ntrajectories_from = "{source}"\nseed = {seed}\n\n'
        '[endpoints.sim]\nbase_url = "embedded"\n\n'
        f'[judge]\nmodel = "{model}"\nendpoint = "sim"\n',
        encoding="utf-8",
    )
    return path


CONCURRENCY = {"value": 64}
JOBS = {
    "value": 1
}  # --jobs: null re-judges run at once  # --concurrency: the embedded provider answers at once, CPU bound


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S', time.gmtime())}] {message}", file=sys.stderr, flush=True)


def run(spec: Path, out: Path) -> None:
    """``judgeaudit run SPEC --out OUT`` unless OUT already holds its finished run (marker)."""
    marker = out / ".calibration-done"
    if marker.is_file():
        return
    started = time.monotonic()
    done = cli(
        "run",
        str(spec),
        "--out",
        str(out),
        "--events",
        "jsonl",
        "--concurrency",
        str(CONCURRENCY["value"]),
    )
    if done.returncode != 0:
        raise SystemExit(f"gate_calibration: {spec} failed: {done.stderr.strip()[-300:]}")
    marker.write_text("", encoding="utf-8")
    log(f"run {out.name}: {time.monotonic() - started:.0f} s")


def gate(a: Path, b: Path) -> dict[str, Any]:
    """``judgeaudit compare A B --fail-on-rise --format json``, cached next to run B."""
    cache = b / f".gate-{a.name}.json"
    if cache.is_file():
        cached: dict[str, Any] = json.loads(cache.read_text(encoding="utf-8"))
        return cached
    started = time.monotonic()
    done = cli("compare", str(a), str(b), "--fail-on-rise", "--format", "json")
    result = json.loads(done.stdout) if done.stdout.strip() else {}
    overall = result.get("overall") or {}
    figures = {
        "a": a.name,
        "b": b.name,
        "exit": done.returncode,
        "verdict": (result.get("gate") or {}).get("verdict"),
        "change": overall.get("change"),
        "upper": overall.get("upper"),
        "flips": (overall.get("paired") or {}).get("flipped_to_misselected", 0)
        + (overall.get("paired") or {}).get("flipped_to_correct", 0),
        "decisive": overall.get("n_before"),
        "tasks": overall.get("tasks"),
        "se": overall.get("se"),
        "deff": overall.get("deff"),
        "needed": overall.get("needed"),
    }
    cache.write_text(json.dumps(figures), encoding="utf-8")
    log(
        f"gate {a.name} -> {b.name}: exit {done.returncode} ({figures['verdict']}), change "
        f"{_points(figures['change'])}, bound {_points(figures['upper'])}, "
        f"{time.monotonic() - started:.0f} s"
    )
    return figures


def _points(x: float | None) -> str:
    return "n/a" if x is None else f"{x * 100:+.2f}"


def rate(k: int, n: int) -> dict[str, Any]:
    low, high = wilson(k, n)
    return {"k": k, "n": n, "rate": k / n if n else None, "ci_low": low, "ci_high": high}


def show(name: str, r: dict[str, Any]) -> str:
    if not r["n"]:
        return f"  {name}: n/a"
    return (
        f"  {name}: {r['k']}/{r['n']} = {r['rate'] * 100:.1f}% "
        f"[{r['ci_low'] * 100:.1f}, {r['ci_high'] * 100:.1f}] (Wilson 95%)"
    )


def size(
    folder: Path,
    trials: int,
    nulls: list[int],
    weak: list[str],
    weak_seeds: int,
    small: bool,
    copies: int = 1,
) -> dict[str, Any]:
    tag = f"t{trials}-x{copies}"
    source = folder / f"src-{tag}"
    run(source_spec(folder, trials, 7, small, copies), source)
    # The weaker judges first: a calibration stopped early still has its power figures.
    weaker: dict[str, list[dict[str, Any]]] = {}
    for model in weak:
        weaker[model] = []
        for seed in range(201, 201 + weak_seeds):
            out = folder / f"weak-{tag}-{WEAKER.index(model) if model in WEAKER else model}-{seed}"
            run(rejudge_spec(folder, source, model, seed), out)
            weaker[model].append(gate(source, out))
    seeds = nulls
    outs = [folder / f"null-{tag}-{seed}" for seed in seeds]
    specs = [rejudge_spec(folder, source, "judge-default", seed) for seed in seeds]
    # Null re-judges only judge (no simulation): --jobs of them at once, each its own process.
    with ThreadPoolExecutor(max_workers=JOBS["value"]) as pool:
        list(pool.map(run, specs, outs))
    null = [gate(source, out) for out in outs]
    # Every comparison above shares the source's own draw, so they are correlated; disjoint
    # pairs of null re-judges (101 vs 102, 103 vs 104, ...: an odd seed and the next one, when
    # both were run) are independent null instances.
    run_by_seed = dict(zip(seeds, outs, strict=True))
    disjoint = [
        gate(run_by_seed[seed], run_by_seed[seed + 1])
        for seed in seeds
        if seed % 2 and seed + 1 in run_by_seed
    ]
    result: dict[str, Any] = {
        "trials": trials,
        "tasks": 42 * copies,
        "decisive": null[0]["decisive"] if null else None,
        "null": null,
        "false_alarm": rate(sum(g["exit"] == 3 for g in null), len(null)),
        "null_not_worse": rate(sum(g["exit"] == 0 for g in null), len(null)),
        "disjoint": disjoint,
        "disjoint_false_alarm": rate(sum(g["exit"] == 3 for g in disjoint), len(disjoint)),
        "disjoint_not_worse": rate(sum(g["exit"] == 0 for g in disjoint), len(disjoint)),
        "all_null_not_worse": rate(
            sum(g["exit"] == 0 for g in null + disjoint), len(null) + len(disjoint)
        ),
        "weaker": {},
    }
    result["formula"] = formula(null + disjoint, 42 * copies)
    if result["formula"] is not None:  # against one source the spread is half the variance
        for key, gates in (("sd_vs_source", null), ("sd_disjoint", disjoint)):
            changes = [g["change"] for g in gates if g.get("change") is not None]
            result["formula"][key] = statistics.stdev(changes) if len(changes) > 1 else None
    for model, gates in weaker.items():
        result["weaker"][model] = {
            "gates": gates,
            "power": rate(sum(g["exit"] == 3 for g in gates), len(gates)),
            "wrong_pass": rate(sum(g["exit"] == 0 for g in gates), len(gates)),
        }
    return result


def formula(gates: list[dict[str, Any]], tasks: int) -> dict[str, Any] | None:
    """What the gate's own sample-size formula (``noninferiority.pairs_needed``, the
    inconclusive line's figure) says for these null comparisons, at their mean discordance and
    design effect: the pass rate it predicts here, and the pairs (and tasks) for 80% and 95%."""
    usable = [g for g in gates if g.get("se") and g.get("decisive")]
    if not usable:
        return None
    n = int(statistics.mean(g["decisive"] for g in usable))
    psi = statistics.mean(g["flips"] / g["decisive"] for g in usable)
    deff = statistics.mean(g["deff"] for g in usable)
    per_task = n / tasks
    need = {p: ni.pairs_needed(psi, ni.DEFAULT_MARGIN, deff, p) for p in (0.80, 0.95)}
    return {
        "comparisons": len(usable),
        "decisive": n,
        "discordance": psi,
        "deff": deff,
        "mean_se": statistics.mean(g["se"] for g in usable),
        "mean_change": statistics.mean(g["change"] for g in usable),
        "predicted_pass": ni.power_at(n, psi, ni.DEFAULT_MARGIN, deff),
        "pairs_80": need[0.80],
        "tasks_80": math.ceil(need[0.80] / per_task),
        "pairs_95": need[0.95],
        "tasks_95": math.ceil(need[0.95] / per_task),
    }


def show_formula(f: dict[str, Any] | None) -> list[str]:
    if f is None:
        return []

    def sd(key: str) -> str:
        return "n/a" if f.get(key) is None else f"{f[key] * 100:.2f}"

    return [
        f"  null changes: mean {f['mean_change'] * 100:+.2f} points; SD {sd('sd_disjoint')} "
        f"between independent re-judges, {sd('sd_vs_source')} against the one source (which "
        f"they all share); mean task-clustered SE {f['mean_se'] * 100:.2f} points",
        f"  gate's sample-size formula at discordance {f['discordance'] * 100:.1f}%, design "
        f"effect {f['deff']:.2f}: predicts passing {f['predicted_pass'] * 100:.0f}% at "
        f"{f['decisive']} pairs; 80% needs ~{f['pairs_80']} pairs (~{f['tasks_80']} tasks), "
        f"95% ~{f['pairs_95']} pairs (~{f['tasks_95']} tasks)",
    ]


def replicates(folder: Path, seeds: int, small: bool) -> dict[str, Any]:
    outs = []
    for seed in range(1, seeds + 1):
        out = folder / f"rep-{seed}"
        run(source_spec(folder, 2, seed, small), out)
        outs.append(out)
    codes = [gate(a, b)["exit"] for a in outs for b in outs if a != b]
    return {
        "comparisons": len(codes),
        "refused": rate(sum(c == 2 for c in codes), len(codes)),
        "false_alarm": rate(sum(c == 3 for c in codes), len(codes)),
    }


def _seed_list(text: str) -> list[int]:
    """``101-115,121,130-133``: the seeds, in order, each once."""
    seeds: list[int] = []
    try:
        for part in text.split(","):
            low, _, high = part.partition("-")
            for seed in range(int(low), int(high or low) + 1):
                if seed not in seeds:
                    seeds.append(seed)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r}: use seeds and ranges, e.g. 101-115,121"
        ) from None
    return seeds


def _copies(tasks: str) -> int:
    """``builtin:retail`` is one copy of the 42 templates, ``builtin:retail-xN`` N copies."""
    if tasks == "builtin:retail":
        return 1
    prefix = "builtin:retail-x"
    if not tasks.startswith(prefix) or not tasks[len(prefix) :].isdigit():
        raise SystemExit(
            f"gate_calibration: --tasks {tasks}: use builtin:retail or builtin:retail-xN"
        )
    return int(tasks[len(prefix) :])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="the CI configuration (~1 min)")
    parser.add_argument("--nulls", type=int, default=10, help="null re-judge seeds per size")
    parser.add_argument(
        "--null-seeds",
        type=_seed_list,
        help="instead of --nulls: these re-judge seeds, e.g. 101-115,121-128",
    )
    parser.add_argument("--weak-seeds", type=int, default=3, help="seeds per weaker judge")
    parser.add_argument("--replicates", type=int, default=3, help="seed replicates of the spec")
    parser.add_argument(
        "--sizes",
        default="2,2@8",
        help="sizes: TRIALS or TRIALS@COPIES (builtin:retail-xCOPIES, 42 tasks a copy); "
        "default: the demo (2 trials, 42 tasks) and 2 trials over 336 tasks",
    )
    parser.add_argument(
        "--tasks",
        help="instead of --sizes: builtin:retail-xN task sets (comma-separated), --trials each",
    )
    parser.add_argument("--trials", type=int, default=1, help="trials per task with --tasks")
    parser.add_argument(
        "--concurrency", type=int, default=64, help="each run's --concurrency (default 64)"
    )
    parser.add_argument("--jobs", type=int, default=1, help="null re-judges run at once")
    parser.add_argument("--workdir", type=Path, help="keep runs and gate results here; reuse them")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    if args.small:
        args.nulls, args.weak_seeds, args.replicates, args.sizes = 2, 1, 2, "1"
    if args.tasks:
        args.sizes = ",".join(f"{args.trials}@{_copies(t)}" for t in args.tasks.split(","))
    CONCURRENCY["value"] = args.concurrency
    JOBS["value"] = max(1, args.jobs)
    weak = WEAKER[:1] if args.small else WEAKER
    started = time.monotonic()
    figures: dict[str, Any] = {"sizes": [], "small": args.small}
    with contextlib.ExitStack() as stack:
        if args.workdir:
            args.workdir.mkdir(parents=True, exist_ok=True)
            folder = args.workdir.resolve()
        else:
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="gate-calib-")))
        for item in args.sizes.split(","):
            trials, _, copies = item.partition("@")
            figures["sizes"].append(
                size(
                    folder,
                    int(trials),
                    args.null_seeds or list(range(101, 101 + args.nulls)),
                    weak,
                    args.weak_seeds,
                    args.small,
                    int(copies or 1),
                )
            )
        figures["replicates"] = replicates(folder, args.replicates, args.small)
    figures["elapsed_s"] = round(time.monotonic() - started, 1)
    for part in figures["sizes"]:
        print(
            f"size: trials={part['trials']}, tasks={part['tasks']}, "
            f"{part['decisive']} decisive pairs"
        )
        print(show("null re-judges: false alarm (worse, exit 3)", part["false_alarm"]))
        print(show("null re-judges: passed (not worse, exit 0)", part["null_not_worse"]))
        print(show("disjoint null pairs: false alarm (exit 3)", part["disjoint_false_alarm"]))
        print(show("disjoint null pairs: passed (exit 0)", part["disjoint_not_worse"]))
        print(show("all null comparisons: passed (exit 0)", part["all_null_not_worse"]))
        for line in show_formula(part["formula"]):
            print(line)
        for model, w in part["weaker"].items():
            print(show(f"{model}: power (worse, exit 3)", w["power"]))
            print(show(f"{model}: wrongly passed (exit 0)", w["wrong_pass"]))
    rep = figures["replicates"]
    print(f"seed replicates: {rep['comparisons']} ordered comparisons of unchanged-spec runs")
    print(show("refused as unpaired (exit 2)", rep["refused"]))
    print(show("false alarm (exit 3)", rep["false_alarm"]))
    print(f"elapsed {figures['elapsed_s']} s")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

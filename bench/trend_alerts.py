"""The trend's change detector, measured: false alarms on drift-free series, delay on a rise.

Each period is simulated the way judge logs cluster: ``--tasks`` tasks per period, each with
``--pairs`` decisive pairs whose misselection shares the task's own random effect (logit-normal,
sd ``--sd``), so the design effect is real. The near bucket is the first pair of each task. The
period's rates, design effects and the alerts come from the product's own code
(:func:`judgeaudit.analysis.clustered.interval`, :func:`judgeaudit.analysis.trend_alerts.detect`).

- *False alarms*: ``--series`` drift-free series of ``--periods`` periods at rate ``--rate``; the
  share with any alert (target: at most alpha, the detector's family-wise level).
- *Detection delay*: as many series with the rate raised by ``--rise`` from period
  ``--change`` on (0-based); the delay is the first alert's period minus the change.

Prints each rate with its Wilson interval. Usage:
    python bench/trend_alerts.py [--series 200] [--periods 30] [--tasks 40] [--seed 1]
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from judgeaudit.analysis.clustered import Sums, interval
from judgeaudit.analysis.stats import wilson
from judgeaudit.analysis.trend_alerts import ALPHA, BASELINE, Point, detect


def _period(
    rng: random.Random, name: str, rate: float, args: argparse.Namespace
) -> tuple[Point, Point]:
    logit = math.log(rate / (1 - rate))
    overall: list[tuple[float, float]] = []
    near: list[tuple[float, float]] = []
    for _ in range(args.tasks):
        p = 1 / (1 + math.exp(-(logit + rng.gauss(0, args.sd))))
        wrong = [int(rng.random() < p) for _ in range(args.pairs)]
        overall.append((sum(wrong), len(wrong)))
        near.append((wrong[0], 1))

    def point(per_task: list[tuple[float, float]]) -> Point:
        s = Sums.of(per_task)
        deff = interval(s)["design_effect"] or 1.0
        return Point(name, int(s.k), int(s.n), float(deff))

    return point(overall), point(near)


def one_series(rng: random.Random, args: argparse.Namespace, rise: float) -> int | None:
    """The index of the first alert, or None."""
    overall, near = [], []
    for t in range(args.periods):
        rate = args.rate + (rise if t >= args.change else 0.0)
        o, n = _period(rng, f"p{t:03d}", rate, args)
        overall.append(o)
        near.append(n)
    fired, _ = detect({"misselection": overall, "near": near}, args.baseline, args.alpha)
    return min((f["index"] for f in fired), default=None)


def _rate(k: int, n: int) -> str:
    low, high = wilson(k, n)
    assert low is not None and high is not None
    return f"{k}/{n} = {k / n:.3f} (95% Wilson [{low:.3f}, {high:.3f}])"


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--series", type=int, default=200)
    parser.add_argument("--periods", type=int, default=30)
    parser.add_argument("--change", type=int, default=20)
    parser.add_argument("--tasks", type=int, default=40)
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--rate", type=float, default=0.15)
    parser.add_argument("--rise", type=float, default=0.15)
    parser.add_argument("--sd", type=float, default=0.8)
    parser.add_argument("--baseline", type=int, default=BASELINE)
    parser.add_argument("--alpha", type=float, default=ALPHA)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    null = [one_series(rng, args, 0.0) for _ in range(args.series)]
    alarms = sum(first is not None for first in null)
    risen = [one_series(rng, args, args.rise) for _ in range(args.series)]
    early = sum(first is not None and first < args.change for first in risen)
    delays = [first - args.change for first in risen if first is not None and first >= args.change]
    at_change = sum(d == 0 for d in delays)
    print(
        f"detector: one-sided Fisher exact test on effective counts vs the first {args.baseline} periods, Holm "
        f"over every (period, metric), alpha {args.alpha}; {args.periods} periods x {args.tasks} "
        f"tasks x {args.pairs} decisive pairs, rate {args.rate}, task sd {args.sd} (logit), "
        f"seed {args.seed}"
    )
    print(f"false alarms (drift-free series with any alert): {_rate(alarms, args.series)}")
    print(
        f"rise of +{args.rise:.2f} from period {args.change}: detected in "
        f"{_rate(len(delays), args.series)}; at the change itself {_rate(at_change, args.series)}; "
        f"alerts before the change {early}"
    )
    if delays:
        print(
            f"detection delay (periods after the change, detected series): median "
            f"{statistics.median(delays):g}, mean {statistics.fmean(delays):.2f}, max {max(delays)}"
        )
    return {
        "false_alarm_rate": alarms / args.series,
        "series": args.series,
        "false_alarms": alarms,
        "detected": len(delays) / args.series,
        "at_change": at_change / args.series,
        "early": early,
    }


if __name__ == "__main__":
    main()

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

- *A judge that stops deciding*: as many series where ``--undecided`` of the verdicts turn
  "tie" from the change on (misselection falls; only the tie-aware rate rises).
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
    rng: random.Random, name: str, rate: float, args: argparse.Namespace, undecided: float = 0.0
) -> tuple[Point, Point, Point]:
    """Misselection, near bucket and tie-aware points of one period; a decisive pair that is not
    wrong is a tie with the task's own tie share (logit-normal around ``--ties``), and with
    ``undecided`` of its verdicts replaced by "tie" (a judge that stops deciding)."""
    logit = math.log(rate / (1 - rate))
    tie_logit = math.log(args.ties / (1 - args.ties))
    overall: list[tuple[float, float]] = []
    near: list[tuple[float, float]] = []
    ties = 0
    for _ in range(args.tasks):
        p = 1 / (1 + math.exp(-(logit + rng.gauss(0, args.sd))))
        q = 1 / (1 + math.exp(-(tie_logit + rng.gauss(0, args.sd))))
        wrong, tie = [], []
        for _ in range(args.pairs):
            gone = rng.random() < undecided
            w = not gone and rng.random() < p
            wrong.append(int(w))
            tie.append(int(gone or (not w and rng.random() < q)))
        overall.append((sum(wrong), len(wrong)))
        near.append((wrong[0], 1))
        ties += sum(tie)

    def point(per_task: list[tuple[float, float]]) -> Point:
        s = Sums.of(per_task)
        deff = interval(s)["design_effect"] or 1.0
        return Point(name, int(s.k), int(s.n), float(deff))

    o = point(overall)  # the tie-aware series as trend_alerts.points_of builds it
    return o, point(near), Point(name, o.wrong + ties / 2, o.decisive, o.design_effect)


def one_series(
    rng: random.Random, args: argparse.Namespace, rise: float, undecided: float = 0.0
) -> int | None:
    """The index of the first alert, or None."""
    overall, near, tie_aware = [], [], []
    for t in range(args.periods):
        after = t >= args.change
        rate = args.rate + (rise if after else 0.0)
        o, n, a = _period(rng, f"p{t:03d}", rate, args, undecided if after else 0.0)
        overall.append(o)
        near.append(n)
        tie_aware.append(a)
    series = {"misselection": overall, "near": near, "tie_aware": tie_aware}
    fired, _ = detect(series, args.baseline, args.alpha)
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
    parser.add_argument("--ties", type=float, default=0.2, help="tie share of the right pairs")
    parser.add_argument(
        "--undecided", type=float, default=1.0, help="share of verdicts turned tie after the change"
    )
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
    stopped = [one_series(rng, args, 0.0, args.undecided) for _ in range(args.series)]
    caught = sum(first is not None and first >= args.change for first in stopped)
    print(
        f"detector: one-sided Fisher exact test on effective counts vs the first {args.baseline} periods, Holm "
        f"over every (period, metric), alpha {args.alpha}; {args.periods} periods x {args.tasks} "
        f"tasks x {args.pairs} decisive pairs, rate {args.rate}, ties {args.ties} of the rest, "
        f"task sd {args.sd} (logit), seed {args.seed}; metrics: misselection, near, tie-aware"
    )
    print(f"false alarms (drift-free series with any alert): {_rate(alarms, args.series)}")
    print(
        f"rise of +{args.rise:.2f} from period {args.change}: detected in "
        f"{_rate(len(delays), args.series)}; at the change itself {_rate(at_change, args.series)}; "
        f"alerts before the change {early}"
    )
    print(
        f"{args.undecided:.0%} of verdicts turned tie from period {args.change} (misselection "
        f"falls): detected in {_rate(caught, args.series)}"
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
        "undecided_detected": caught / args.series,
    }


if __name__ == "__main__":
    main()

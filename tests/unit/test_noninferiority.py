"""The gate's task-clustered statistics against independent computations: statsmodels' cluster-
robust OLS, scipy's permutation test and beta quantiles, a hand-built task bootstrap, and
Connor's sample-size formula computed by hand with scipy's normal quantiles."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from judgeaudit.analysis import noninferiority as ni


def _fixed_pairs() -> tuple[np.ndarray, np.ndarray]:
    """600 pairs over 40 tasks with task-level correlated flips (seeded, so fixed)."""
    rng = np.random.default_rng(11)
    tasks = np.repeat(np.arange(40), rng.integers(5, 26, size=40))[:600]
    lean = rng.normal(0.02, 0.06, size=40)[tasks]
    u = rng.random(len(tasks))
    d = np.where(u < 0.05 + lean.clip(0, None), 1, np.where(u > 0.95 + lean.clip(None, 0), -1, 0))
    return tasks, d


def _sums(tasks: np.ndarray, d: np.ndarray) -> tuple[list[int], list[int]]:
    ids = np.unique(tasks)
    return (
        [int(d[tasks == t].sum()) for t in ids],
        [int((tasks == t).sum()) for t in ids],
    )


def test_t_quantiles_match_scipy() -> None:
    for df in (1, 2, 3, 4, 7, 12, 41, 300, 5000):
        for q in (0.95, 0.975):
            assert ni.t_quantile(q, df) == pytest.approx(stats.t.ppf(q, df), rel=1e-7)


def test_clustered_interval_is_statsmodels_cluster_robust_ols_with_t() -> None:
    import statsmodels.api as sm

    tasks, d = _fixed_pairs()
    result = ni.clustered(*_sums(tasks, d))
    assert result.low is not None and result.high is not None
    fit = sm.OLS(d.astype(float), np.ones((len(d), 1))).fit(
        cov_type="cluster", cov_kwds={"groups": tasks}, use_t=True
    )
    assert result.change == pytest.approx(fit.params[0])
    assert result.se == pytest.approx(fit.bse[0], rel=1e-9)
    low, high = fit.conf_int(alpha=0.05)[0]
    assert result.low == pytest.approx(low) and result.high == pytest.approx(high)
    assert result.upper == pytest.approx(fit.conf_int(alpha=0.10)[0][1]), "one-sided 95%"


def test_clustered_interval_agrees_with_a_hand_built_task_bootstrap() -> None:
    tasks, d = _fixed_pairs()
    sums, counts = _sums(tasks, d)
    result = ni.clustered(sums, counts)
    assert result.low is not None and result.high is not None and result.se is not None
    rng = np.random.default_rng(5)
    s, c = np.array(sums), np.array(counts)
    draws = rng.integers(0, len(s), size=(20000, len(s)))  # resample whole tasks
    boot = s[draws].sum(axis=1) / c[draws].sum(axis=1)
    low, high = np.percentile(boot, [2.5, 97.5])
    width = result.high - result.low
    assert abs(result.low - low) < 0.1 * width and abs(result.high - high) < 0.1 * width
    iid_se = math.sqrt(d.var(ddof=1) / len(d))
    assert result.se > iid_se, "correlated flips within tasks widen the interval"
    assert ni.design_effect(result, int(np.abs(d).sum())) == pytest.approx(
        (result.se / iid_se) ** 2
    )


def test_signflip_p_is_the_exact_permutation_test() -> None:
    sums = [3, -1, 2, 0, 5, -2, 1, 1, -4, 2, 2, 0, 1]
    observed = sum(sums)
    flips = [
        sum(e * s for e, s in zip(signs, sums, strict=True)) >= observed
        for signs in itertools.product((1, -1), repeat=len(sums))
    ]
    assert ni.signflip_p(sums) == pytest.approx(sum(flips) / len(flips))
    scipy_p = stats.permutation_test(
        (np.array(sums, dtype=float),),
        np.sum,
        permutation_type="samples",
        alternative="greater",
        n_resamples=np.inf,
    ).pvalue
    assert ni.signflip_p(sums) == pytest.approx(scipy_p)


def test_signflip_with_one_pair_per_task_is_mcnemar_exact_one_sided() -> None:
    up, down = 19, 7  # flips to misselected / to correct, each pair its own task
    reference = stats.binomtest(up, up + down, 0.5, alternative="greater").pvalue
    assert ni.signflip_p([1] * up + [-1] * down + [0] * 40) == pytest.approx(reference)


def test_ni_bound_is_the_t_limit_with_many_flips_and_the_exact_floor_with_few() -> None:
    tasks, d = _fixed_pairs()
    result = ni.clustered(*_sums(tasks, d))
    up, down = int((d == 1).sum()), int((d == -1).sum())
    assert ni.ni_bound(result, up, down) == pytest.approx(result.upper)
    few = ni.clustered([1, 0, 0, 0] + [0] * 36, [10] * 40)  # one flip in 400 pairs
    floor = stats.beta.ppf(0.95, 2, 399)  # Clopper-Pearson one-sided upper for 1/400
    assert ni.ni_bound(few, 1, 0) == pytest.approx(floor, rel=1e-6)
    assert few.upper is not None and few.upper < floor, "the t limit alone would collapse"


def test_min_pairs_is_where_zero_flips_first_bound_below_the_margin() -> None:
    n = ni.min_pairs(0.02)
    assert stats.beta.ppf(0.95, 1, n) < 0.02 <= stats.beta.ppf(0.95, 1, n - 1)
    assert ni.decide(False, n - 1, 0.0, 0.02) == "too few pairs to tell"
    assert ni.decide(False, n, 0.019, 0.02) == "not worse"
    assert ni.decide(False, n, 0.021, 0.02) == "inconclusive"
    assert ni.decide(True, 3, 0.5, 0.02) == "worse"


def test_pairs_needed_is_connors_formula_times_the_design_effect() -> None:
    psi, delta = 54 / 649, 0.02
    z_a, z_b = stats.norm.ppf(0.95), stats.norm.ppf(0.80)
    hand = (z_a * math.sqrt(psi) + z_b * math.sqrt(psi - delta**2)) ** 2 / delta**2
    assert ni.pairs_needed(psi, delta) == math.ceil(hand)
    assert ni.pairs_needed(psi, delta, 2.2) == math.ceil(hand * 2.2)
    rise = ni.detectable_rise(ni.pairs_needed(psi, delta), psi)
    assert rise == pytest.approx(delta, abs=1e-4), "the inverse of the same formula"


def test_pairs_needed_gives_eighty_percent_power_by_simulation() -> None:
    """Monte Carlo: at Connor's n, a one-sided McNemar (binomial) test at 5% detects the rise
    about 80% of the time (a sanity check of the formula, not of our code's arithmetic)."""
    psi, delta = 0.10, 0.03
    n = ni.pairs_needed(psi, delta)
    rng = np.random.default_rng(3)
    up_p, down_p = (psi + delta) / 2, (psi - delta) / 2
    draws = rng.multinomial(n, [up_p, down_p, 1 - psi], size=4000)
    p = stats.binom.sf(draws[:, 0] - 1, draws[:, 0] + draws[:, 1], 0.5)
    assert 0.75 < float((p < 0.05).mean()) < 0.86


def test_power_at_inverts_pairs_needed_and_matches_statsmodels_for_an_unchanged_judge() -> None:
    """power_at is the power pairs_needed solves for; for an unchanged judge (true change 0)
    the chance that the one-sided bound clears the margin is statsmodels' one-sample normal
    power at effect size delta / sqrt(psi x deff) (NormalIndPower with ratio=0)."""
    from statsmodels.stats.power import NormalIndPower

    psi, delta, deff = 0.08, 0.02, 1.8
    for power in (0.80, 0.95):
        n = ni.pairs_needed(psi, delta, deff, power)
        assert power <= ni.power_at(n, psi, delta, deff) < power + 0.002
        assert ni.power_at(n - 5, psi, delta, deff) < power
    for n in (649, 2533, 3831):
        reference = NormalIndPower().power(
            effect_size=delta / math.sqrt(psi * deff),
            nobs1=n,  # pairs; the design effect is in the effect size
            alpha=0.05,
            ratio=0,
            alternative="larger",
        )
        assert ni.power_at(n, psi, delta, deff) == pytest.approx(reference, abs=0.01)


def test_power_at_is_how_often_the_gate_passes_an_unchanged_judge_by_simulation() -> None:
    """Monte Carlo of the gate's own decision (clustered bound, floor, decide) on an unchanged
    judge whose flips cluster by task: the share passed ("not worse") is power_at at the
    simulated discordance and design effect."""
    rng = np.random.default_rng(5)
    tasks, per_task, psi, delta = 400, 8, 0.08, 0.02
    passed, deffs = 0, []
    sims = 800
    for _ in range(sims):
        lean = rng.normal(0.0, 0.03, size=tasks).clip(-psi / 2, psi / 2)
        u = rng.random((tasks, per_task))
        up, down = psi / 2 + lean[:, None], psi / 2 - lean[:, None]
        d = np.where(u < up, 1, np.where(u > 1 - down, -1, 0))
        sums = [int(x) for x in d.sum(axis=1)]
        row = ni.clustered(sums, [per_task] * tasks)
        flips_up, flips_down = int((d == 1).sum()), int((d == -1).sum())
        deffs.append(ni.design_effect(row, flips_up + flips_down))
        bound = ni.ni_bound(row, flips_up, flips_down)
        passed += ni.decide(False, row.n, bound, delta) == "not worse"
    predicted = ni.power_at(tasks * per_task, psi, delta, float(np.mean(deffs)))
    assert 1.2 < float(np.mean(deffs)) < 3.0, "the flips do cluster by task"
    assert passed / sims == pytest.approx(predicted, abs=0.05)

"""Human review weighted back to the audit: sklearn's sample-weighted kappa, the weighted
agreement's stratified Jeffreys interval against statsmodels' and scipy's, its coverage, the
success check counted once per conversation, and the sample size `review export` suggests."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import beta
from sklearn.metrics import cohen_kappa_score

from judgeaudit.analysis.review import agreement, sample
from judgeaudit.analysis.review_weights import STRATA, stratum_of, suggested_n


def _run(n_sbf: int, n_control: int) -> pd.DataFrame:
    """A run: n_sbf satisfied-but-failed pairs (judge scored a failed side 5), n_control
    controls; every pair its own task and conversations."""
    n = n_sbf + n_control
    sbf = np.arange(n) < n_sbf
    return pd.DataFrame(
        {
            "pair_id": [f"p{i}" for i in range(n)],
            "task_id": [f"t{i}" for i in range(n)],
            "agent_a": "x",
            "agent_b": "y",
            "trial": 0,
            "trial_b": 0,
            "success_a": np.where(sbf, 0, 1),
            "success_b": 0,
            "judge_score_a": np.where(sbf, 5.0, 3.0),
            "judge_score_b": 1.0,
            "judge_pref": "A",
            "consistent": 1,
            "misselected": 0,
        }
    )


def test_weighted_kappa_is_sklearns_with_inverse_sampling_weights() -> None:
    pairs = _run(n_sbf=50, n_control=950)
    drawn = sample(pairs, 20, seed=3)
    assert set(drawn["stratum"]) == {"satisfied_but_failed", "control"}
    rng = np.random.default_rng(0)
    # A reviewer who disagrees with the judge on most satisfied-but-failed pairs, rarely else.
    prefs = [
        ("B" if rng.random() < 0.8 else "A") if s == "satisfied_but_failed" else
        ("A" if rng.random() < 0.9 else "B")
        for s in drawn["stratum"]
    ]  # fmt: skip
    labels = pd.DataFrame(
        {
            "pair_id": drawn["pair_id"],
            "human_success_a": None,
            "human_success_b": None,
            "human_pref": prefs,
        }
    )
    got = agreement(pairs, labels)["judge_vs_human"]
    joined = pairs.merge(labels, on="pair_id")
    strata = stratum_of(joined)
    sizes, taken = stratum_of(pairs).value_counts(), strata.value_counts()
    weights = strata.map(lambda s: sizes[s] / taken[s]).to_numpy()
    expected = cohen_kappa_score(joined["judge_pref"], joined["human_pref"], sample_weight=weights)
    assert got["weighted_kappa"] == pytest.approx(expected)
    agree = (joined["judge_pref"] == joined["human_pref"]).to_numpy()
    assert got["weighted_agreement"] == pytest.approx(np.average(agree, weights=weights))
    assert got["agreement"] == pytest.approx(agree.mean())  # unweighted, as before
    # A hand-built stratified Jeffreys interval (scipy's Beta, its own seed) gives the same
    # interval up to Monte-Carlo error.
    values = np.zeros(20000)
    for s in set(strata):
        inside = (strata == s).to_numpy()
        k, n = int(agree[inside].sum()), int(inside.sum())
        share = sizes[s] / sizes[list(set(strata))].sum()
        values += share * beta.rvs(k + 0.5, n - k + 0.5, size=20000, random_state=12345)
    low, high = np.percentile(values, [2.5, 97.5])
    assert got["weighted_agreement_ci"] == pytest.approx([low, high], abs=0.02)
    # the judge said "A" on every drawn pair: kappa is 0 in every resample by construction,
    # which no interval bounds (it printed [0.00, 0.00] before)
    assert set(joined["judge_pref"]) == {"A"} and got["weighted_kappa"] == 0.0
    assert got["weighted_kappa_ci"] is None


def test_success_check_agreement_counts_each_conversation_once() -> None:
    pairs = _run(n_sbf=0, n_control=4).assign(task_id="t0", agent_a="x", trial=0)
    pairs["agent_b"] = ["y1", "y2", "y3", "y4"]
    # the same conversation (t0, x, trial 0) is side A of all four pairs
    labels = pd.DataFrame(
        {
            "pair_id": pairs["pair_id"],
            "human_success_a": [0, 0, 0, 0],
            "human_success_b": [0, 0, 0, 0],
            "human_pref": None,
        }
    )
    got = agreement(pairs, labels)["success_check_vs_human"]
    assert got["n"] == 5  # one A conversation + four B conversations (was 8 sides)
    assert got["agreement"] == pytest.approx(4 / 5)


def test_suggested_review_size_by_hand() -> None:
    # four equal strata: no design effect, the binomial n at 50% for +-10 points
    assert suggested_n(dict.fromkeys(STRATA, 100), 0.2) == 97  # 1.96^2 * 0.25 / 0.1^2 = 96.04
    # one big stratum among four: Kish deff = 4 * (97^2 + 3 * 1^2) / 100^2 = 3.7648
    assert suggested_n({"control": 97, "misselected": 1, "inconsistent": 1,
                        "satisfied_but_failed": 1}, 0.2) == 100  # fmt: skip
    # (362 = 3.7648 * 96.04 rounded up, but the run has 100 pairs: never more than it has);
    # with 1,000 pairs: Kish deff = 4 * (997^2 + 3) / 1000^2 = 3.976048, 3.976048 * 96.04 = 381.9
    assert suggested_n({"control": 997, "misselected": 1, "inconsistent": 1,
                        "satisfied_but_failed": 1}, 0.2) == 382  # fmt: skip


def test_kappa_waits_for_two_tasks_a_stratum_agreement_does_not() -> None:
    """Five labels over four strata gave agreement "77.8–100.0%" and a kappa interval of zero
    width: a stratum of one is resampled as itself. Kappa's bootstrap waits until each
    stratum's labels span two tasks; the agreement's Jeffreys interval needs no wait."""
    from judgeaudit.analysis.review_weights import weighted_figures

    population = {"control": 100, "misselected": 10, "inconsistent": 10}
    x = ["A", "B", "A", "A", "B"]
    y = ["A", "B", "B", "A", "A"]
    strata = ["control", "control", "misselected", "misselected", "inconsistent"]
    found = weighted_figures(x, y, strata, population)
    assert found["weighted_kappa_ci"] is None
    assert found["interval"].endswith(
        "kappa: none yet: the bootstrap needs labelled pairs from 2 tasks in each stratum it"
        " weighs, and these have them from one: inconsistent; label more"
    )
    # the point estimate still stands, by hand: weights 50 (control), 5, 5, 10 (inconsistent)
    point = (50 + 50 + 0 + 5 + 0) / (50 + 50 + 5 + 5 + 10)
    assert found["weighted_agreement"] == pytest.approx(point)
    low, high = found["weighted_agreement_ci"]
    assert 0 < low < point < high < 1  # one label in a stratum is wide, not missing
    # two labels from one task: kappa still waits (its pairs share the task's conversations)
    one_task = weighted_figures(
        [*x, "A"], [*y, "A"], [*strata, "inconsistent"], population, ["t1"] * 4 + ["t2"] * 2
    )
    assert (
        one_task["weighted_kappa_ci"] is None
        and "from one: control, inconsistent, misselected;" in one_task["interval"]
    )
    two_each = weighted_figures([*x, "A"], [*y, "A"], [*strata, "inconsistent"], population)
    low, high = two_each["weighted_kappa_ci"]
    assert -1 <= low < two_each["weighted_kappa"] < high <= 1


def test_one_stratum_is_the_jeffreys_interval_of_statsmodels() -> None:
    """A review of one stratum is one proportion: its interval is statsmodels' Jeffreys
    interval, up to the 4,000 draws' Monte-Carlo error."""
    from statsmodels.stats.proportion import proportion_confint

    from judgeaudit.analysis.review_weights import weighted_figures

    for agreed, n in ((7, 10), (18, 25), (2, 9)):
        x, y = ["A"] * n, ["A"] * agreed + ["B"] * (n - agreed)
        found = weighted_figures(x, y, ["control"] * n, {"control": 500})
        expected = proportion_confint(agreed, n, alpha=0.05, method="jeffreys")
        assert found["weighted_agreement_ci"] == pytest.approx(list(expected), abs=0.012)


def test_every_label_agreeing_gives_an_interval_that_reaches_one() -> None:
    """A new user's trial: three agreeing labels printed "weighted 100.0% [100.0, 100.0], kappa
    1.00 [1.00, 1.00]", which bounds nothing. The agreement now has an honest interval ending
    at the figure (Brown, Cai and DasGupta's rule for k = n); kappa, which every resample
    reproduces, has none."""
    from judgeaudit.analysis.review_weights import weighted_figures

    population = {"control": 100, "misselected": 10}
    same = ["A", "B", "A", "B"]
    found = weighted_figures(same, same, ["control"] * 2 + ["misselected"] * 2, population)
    assert found["weighted_agreement"] == 1.0
    low, high = found["weighted_agreement_ci"]
    assert high == 1.0 and 0.3 < low < 0.9  # two labels per stratum say little
    assert found["weighted_kappa_ci"] is None
    assert "none where every resample gives the same kappa" in found["interval"]


def test_a_stratum_labelled_whole_needs_no_second_label() -> None:
    """A stratum of one pair, labelled, is a census: no sampling spread, so it does not hold
    the interval back."""
    from judgeaudit.analysis.review_weights import weighted_figures

    population = {"control": 100, "misselected": 1}
    found = weighted_figures(
        ["A", "B", "A", "B"], ["A", "B", "B", "A"], ["control", "control", "control", "misselected"],
        population,
    )  # fmt: skip
    assert found["weighted_kappa_ci"] is not None, found["interval"]


def test_the_interval_covers_where_the_bootstrap_did_not() -> None:
    """bench/review_weights_coverage.py, 300 simulated reviews of 3 labels per stratum: the
    bootstrap of labelled pairs covered about 72% (a control stratum whose labels all agree
    has no spread); the stratified Jeffreys interval about 94%, of the run's agreement and of
    such audits'."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "bench/review_weights_coverage.py"
    spec = importlib.util.spec_from_file_location("review_cov_bench", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    found = bench.coverage(300, 3)
    assert found["before run"] < 0.85 and found["before audits"] < 0.85
    assert found["after run"] >= 0.91 and found["after audits"] >= 0.91
    # labels sharing tasks (8 tasks, a strong task effect): the bootstrap covered 57-64%; the
    # effective n (task design effect, Korn-Graubard degrees of freedom) keeps it >= 95%
    clustered = bench.coverage(300, 3, n_tasks=8, sd=3.0)
    assert clustered["before audits"] < 0.7
    assert clustered["after run"] >= 0.93 and clustered["after audits"] >= 0.93


def test_labels_of_one_task_count_as_fewer() -> None:
    """A reviewer's case: 8 tasks x 3 labels whose agreement a task shares. Counted as 24
    independent labels the interval was as narrow as 24 labels make it; with the task design
    effect it is as wide as the tasks allow: the interval of the same labels spread over 24
    tasks is strictly inside it."""
    from judgeaudit.analysis.review_weights import weighted_figures

    agree = [True] * 3 + [False] * 3 + [True] * 18  # one task disagrees wholly
    x, y = ["A"] * 24, ["A" if a else "B" for a in agree]
    population = {"control": 10**6}
    per_task = [t for t in range(8) for _ in range(3)]
    together = weighted_figures(x, y, ["control"] * 24, population, per_task)
    apart = weighted_figures(x, y, ["control"] * 24, population, list(range(24)))
    (lo_t, hi_t), (lo_a, hi_a) = together["weighted_agreement_ci"], apart["weighted_agreement_ci"]
    assert lo_t < lo_a and hi_a < hi_t


def test_as_labelled_agreement_and_kappa_carry_their_intervals() -> None:
    """The unweighted figures printed bare once: agreement with the report's interval (one pair
    per task here, so Wilson's: statsmodels) and kappa with its asymptotic interval
    (statsmodels' cohens_kappa), both methods named in the text the reports print."""
    from statsmodels.stats.inter_rater import cohens_kappa
    from statsmodels.stats.proportion import proportion_confint

    from judgeaudit.analysis.fmt import review_lines

    pairs = _run(n_sbf=0, n_control=40)
    prefs = ["A"] * 22 + ["B"] * 6 + ["tie"] * 4 + ["A"] * 8
    pairs["judge_pref"] = ["A"] * 22 + ["A"] * 6 + ["tie"] * 4 + ["B"] * 8
    labels = pd.DataFrame(
        {"pair_id": pairs["pair_id"], "human_success_a": None, "human_success_b": None,
         "human_pref": prefs}
    )  # fmt: skip
    got = agreement(pairs, labels)["judge_vs_human"]
    agreed = 26
    assert got["agreement"] == pytest.approx(agreed / 40)
    low, high = proportion_confint(agreed, 40, method="wilson")
    assert got["agreement_ci"] == pytest.approx([low, high])
    cats = ["A", "B", "tie"]
    table = np.zeros((3, 3))
    for j, h in zip(pairs["judge_pref"], prefs, strict=True):
        table[cats.index(j), cats.index(h)] += 1
    ref = cohens_kappa(table)
    assert got["kappa"] == pytest.approx(ref.kappa)
    assert got["kappa_ci"] == pytest.approx([ref.kappa_low, min(1.0, ref.kappa_upp)])
    line = review_lines({"labelled": 40, "judge_vs_human": got})[1]
    assert f"agreement 65.0% [{low * 100:.1f}, {high * 100:.1f}]" in line
    assert f"Cohen's kappa {ref.kappa:.2f} [{ref.kappa_low:.2f}, {ref.kappa_upp:.2f}]" in line
    assert "Wilson with a task design effect" in line and "Fleiss, Cohen & Everitt" in line


def test_agreement_of_pairs_of_one_task_is_clustered_by_task() -> None:
    """Pairs of one task share its conversations: when whole tasks agree or not, the interval
    widens past Wilson's over pairs (the report's design effect)."""
    from statsmodels.stats.proportion import proportion_confint

    pairs = _run(n_sbf=0, n_control=40)
    pairs["task_id"] = [f"t{i // 4}" for i in range(40)]  # 10 tasks of 4 pairs
    prefs = ["A" if (i // 4) % 2 == 0 else "B" for i in range(40)]  # tasks agree as a whole
    labels = pd.DataFrame(
        {"pair_id": pairs["pair_id"], "human_success_a": None, "human_success_b": None,
         "human_pref": prefs}
    )  # fmt: skip
    got = agreement(pairs, labels)["judge_vs_human"]
    low, high = proportion_confint(20, 40, method="wilson")
    assert got["agreement_ci"][0] < low and got["agreement_ci"][1] > high


def test_conversations_never_make_a_census_of_a_stratum_of_pairs() -> None:
    """A review: the success check passes up to two conversations a pair against a population
    of pairs, so half a stratum's pairs labelled counted as all of it and lost its spread."""
    from judgeaudit.analysis.review_weights import weighted_figures

    x, y = [1, 1, 1, 0, 1, 1], [1, 0, 1, 1, 1, 1]
    as_pairs = weighted_figures(x, y, ["control"] * 6, {"control": 6}, [1, 1, 2, 2, 3, 3])
    assert as_pairs["weighted_agreement_ci"] is None  # six pairs of six: the run's, exactly
    found = weighted_figures(
        x, y, ["control"] * 6, {"control": 6}, [1, 1, 2, 2, 3, 3], per_pair=False
    )
    low, high = found["weighted_agreement_ci"]
    assert low < 4 / 6 < high

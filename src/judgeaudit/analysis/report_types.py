"""The report payload's shape: what :func:`judgeaudit.analysis.report.build_report` returns and
every reader (the table, JSON, CSV, Markdown and HTML renderers, compare, drift, the trend, the
judges leaderboard and the terminal app) takes.

The builders fill a report in two steps: the aggregation (:mod:`judgeaudit.analysis.aggregate`,
or the pandas reference) writes the counts, then :func:`judgeaudit.analysis.split.add_figures`
adds the three-way split, the clustered intervals and the position-bias tests to the same rows.
Keys the second step adds are ``NotRequired``. The key order of the JSON output is the order the
builders insert keys in, not the order declared here.
Sections another module owns in full (the human review, the verdict health, the style
attribution, the gap model, the manifest) stay plain dicts, typed where they are built.
"""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict


class Interval(TypedDict):
    """A rate over its denominator with its 95% interval (``None`` when the denominator is 0)."""

    rate: float | None
    ci_low: float | None
    ci_high: float | None


class Clustered(Interval):
    """A rate whose interval carries the task-clustering design effect."""

    design_effect: float | None


class Split(Clustered):
    """Of the decisive pairs: judge right, wrong (misselected) or a tie, and the tie-aware rate
    ``(wrong + tie / 2) / decisive`` with its interval (:func:`judgeaudit.analysis.split.three_way`)."""

    right: int
    wrong: int
    tie: int
    tie_aware_rate: float | None
    tie_aware_ci: list[float | None] | None


class SplitAdded(TypedDict, total=False):
    """The split's keys a row gets from add_figures (its rate and interval it already has)."""

    right: int
    wrong: int
    tie: int
    design_effect: float | None
    tie_aware_rate: float | None
    tie_aware_ci: list[float | None] | None


class Bucket(Interval, SplitAdded):
    """One gap bucket ``(lo, hi]``."""

    label: str
    alias: str  # the English label of a Chinese one, else the label
    lo: float
    hi: float
    pairs: int
    decisive: int
    misselected: int
    boot_low: float | None  # the task-clustered bootstrap interval
    boot_high: float | None
    no_verdict_pairs: NotRequired[int]
    no_verdict_decisive: NotRequired[int]


class Overall(Split):
    """Every decisive pair in one row."""

    decisive: int


#: An agent pair's shares of its pairs that get an interval ``NAME_ci`` (:class:`PairShares`).
SHARE_NAMES = ("success_rate_a", "success_rate_b", "judge_win_rate_a", "judge_win_rate_b")


class PairShares(TypedDict, total=False):
    """An agent pair's shares' 95% intervals, [low, high], added last by add_figures
    (:func:`judgeaudit.analysis.split.pair_shares`)."""

    success_rate_a_ci: list[float | None]
    success_rate_b_ci: list[float | None]
    judge_win_rate_a_ci: list[float | None]
    judge_win_rate_b_ci: list[float | None]


class AgentPair(Interval, SplitAdded, PairShares):
    """One (agent A, agent B) pair of agents over all its judged pairs."""

    agent_a: str
    agent_b: str
    pairs: int
    success_rate_a: float
    success_rate_b: float
    capability_gap: float | None
    judge_win_rate_a: float
    judge_win_rate_b: float
    decisive: int
    misselected: int
    ranking_misselected: bool
    # added by add_figures after the split: the ranking test (split.ranking)
    ranking: NotRequired[str | None]  # "misselected", "suggestive" or None
    success_only_a: NotRequired[int]
    success_only_b: NotRequired[int]
    success_p_value: NotRequired[float]
    judge_sign_p_value: NotRequired[float]


class Breakdown(Interval, SplitAdded):
    """One row of a breakdown by task type, or by agent pair and judge model."""

    task_type: NotRequired[str]
    agent_a: NotRequired[str]
    agent_b: NotRequired[str]
    judge_model: NotRequired[str]
    pairs: int
    decisive: int
    misselected: int
    consistency_rate: float | None
    #: [low, high], added by add_figures (position.breakdown_consistency)
    consistency_rate_ci: NotRequired[list[float | None]]


class Satisfied(Interval):
    """Of the satisfied (judge score over the threshold, or user simulator satisfied), failed."""

    satisfied: int
    failed: int
    unit: NotRequired[str]  # what is counted once (added by add_figures)
    design_effect: NotRequired[float | None]


class SatisfiedButFailed(TypedDict):
    threshold: float
    judge: Satisfied
    user_simulator: Satisfied
    judge_prefers_a_unsupported: int | None
    pairs: list[str]  # up to 200 example pair ids
    #: Why no side reached the threshold when every judge score is at most 1 (a 0-1 judge):
    #: verdict_rules.low_scale's words; only then (twentieth session).
    scale_note: NotRequired[str]


class Agreement(TypedDict):
    """How much of the swap consistency is tie/tie (position.agreement): a judge answering
    "tie" to everything is 100% consistent having decided nothing (twentieth session)."""

    both_tie: int  # consistent pairs whose two orders both said tie
    both_tie_rate: float | None  # of the pairs judged in both orders
    both_tie_rate_ci: list[float | None]
    decided_pairs: int  # judged in both orders, at least one order named a side
    decided_consistent: int  # ... both orders named the same side
    decided_consistency_rate: float | None  # None over no such pair: not measured
    decided_consistency_rate_ci: list[float | None]


class PositionBias(TypedDict):
    """Per judge model: order consistency and the first-position tests (position.position_bias)."""

    judge_model: str
    pairs: int
    consistent: int
    consistency_rate: float
    inconsistent: int
    # counted by the aggregation, replaced by add_figures with the tested figures below
    first_position_wins: NotRequired[int]
    decided_in_inconsistent: NotRequired[int]
    first_position_win_rate: NotRequired[Any]  # a rate, then the tested figure (a dict)
    unparsed_orders: NotRequired[int]
    consistency_rate_ci: NotRequired[list[float | None]]  # [low, high], added by add_figures
    # Agreement's keys, added by add_figures (position.agreement)
    both_tie: NotRequired[int]
    both_tie_rate: NotRequired[float | None]
    both_tie_rate_ci: NotRequired[list[float | None]]
    decided_pairs: NotRequired[int]
    decided_consistent: NotRequired[int]
    decided_consistency_rate: NotRequired[float | None]
    decided_consistency_rate_ci: NotRequired[list[float | None]]
    flips_won_by_first: NotRequired[dict[str, Any]]


class SatisfiedParts(TypedDict):
    """Satisfied-but-failed counted per judged side and per conversation (split.py)."""

    judge: Satisfied
    user_simulator: Satisfied


class Ranking(TypedDict):
    """Does the judge rank an agent pair opposite to the success check (split.ranking)?"""

    ranking_misselected: bool
    ranking: str | None
    success_only_a: int
    success_only_b: int
    success_p_value: float
    judge_sign_p_value: float


class FirstPosition(TypedDict):
    """A judge model's swap-consistency interval and two first-position tests
    (position.position_bias)."""

    consistency_rate_ci: list[float | None]
    agreement: Agreement
    first_position_win_rate: dict[str, Any]
    flips_won_by_first: dict[str, Any]


class Bootstrap(TypedDict):
    method: str
    resamples: int
    seed: int
    cluster: str


class Sections(TypedDict):
    """What the aggregation returns (:func:`judgeaudit.analysis.aggregate.report_sections`)."""

    pairs: int
    decisive: int
    misselected: int
    buckets: list[Bucket]
    no_gap: int
    outside_bins: int
    agent_pairs: list[AgentPair]
    satisfied_but_failed: SatisfiedButFailed
    position_bias: list[PositionBias]
    by_task_type: list[Breakdown]
    by_models: list[Breakdown]
    human_review: dict[str, Any]


class Report(Sections):
    """The whole report."""

    run_id: str
    status: str
    gap_source: str
    bins: list[float]
    verdicts: dict[str, Any]  # analysis.verdicts.verdict_health
    bootstrap: Bootstrap
    manifest: dict[str, Any]
    # added by add_figures, then build_report
    overall: NotRequired[Overall]
    gap_model: NotRequired[dict[str, Any] | None]
    intervals: NotRequired[str]
    style: NotRequired[dict[str, Any]]

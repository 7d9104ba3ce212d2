"""The data card of a preference export: what is in the file, which labels the judge would have
reversed, how noisy its labels are per gap bucket, and what was left out and why.

Counted while the rows stream (counters only, never the rows), then written beside the file as
JSON and Markdown. ``reversed_by_state`` counts, over all of the run's decisive pairs, the judge
verdicts that state reverses: exactly the report's ``misselected``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judgeaudit import __version__
from judgeaudit.analysis import clustered
from judgeaudit.analysis.pref_card_text import LISTED, export_summary, render_card

if TYPE_CHECKING:
    from judgeaudit.analysis.preferences import ExportOptions

# export_summary: moved to pref_card_text, still importable here (split modules keep their face)
__all__ = ["CardMeta", "Tally", "card_paths", "export_summary", "render_card", "style_summary"]

NO_BUCKET = "(no bucket)"
NOISE_METHOD = f"95%, {clustered.METHOD} (judgeaudit.analysis.clustered.interval, the report's)"
NOISE_DEFINITION = (
    "of the decisive pairs (exactly one side succeeded by state) on which the judge gave a "
    "label (A or B; an order-inconsistent verdict is a tie and gives none), the share it gave "
    "backwards"
)
SKIP_MEANING = {
    "no_transcript": "the store keeps no trajectory for a side (recorded verdicts without one)",
    "no_user_message": "a side has no user message to start the prompt",
    "prompt_differs": "the two sides start differently (system or first user message)",
    "empty_completion": "a side has no message after the prompt",
    "diverge_before_last_assistant_turn": "the sides differ before their last assistant "
    "message; OpenAI's format holds one assistant message per output (not cut to fit)",
    "identical_outputs": "both sides are the same conversation",
}
LEFT_OUT_MEANING = {
    "not_decisive": "both sides succeeded or both failed: state names no winner",
    "human_label_not_decisive": "decisive by state, but a human label says both or neither "
    "succeeded",
    "human_label_contradicts": "a human label prefers the side its own success marks say "
    "failed, or a tie (its pairs listed; correct them with `judgeaudit review import`)",
    "human_marks_disagree": "a human label marks a conversation that another pair's label marks "
    "the other way, so which is right is unknown (its pairs listed; give them one mark with "
    "`judgeaudit review import`)",
    "judge_tie": "the judge's verdict is a tie (or inconsistent across the two orders)",
    "judge_disagrees": "the judge preferred the other side (--labels agree keeps agreement only)",
}


def card_paths(dest: Path) -> tuple[Path, Path]:
    """``prefs.jsonl`` → ``prefs.card.md``, ``prefs.card.json`` (beside the file)."""
    stem = dest.with_suffix("") if dest.suffix else dest
    return stem.with_name(stem.name + ".card.md"), stem.with_name(stem.name + ".card.json")


@dataclass(frozen=True)
class CardMeta:
    file: str
    fmt: str
    labels: str
    run_id: str
    spec_hash: Any
    judge: dict[str, Any]
    task_set: dict[str, Any]
    gap: dict[str, Any]
    style: dict[str, Any] = field(default_factory=dict)  # style_summary of the run's model

    @classmethod
    def from_manifest(
        cls,
        options: ExportOptions,
        run_id: str,
        manifest: dict[str, Any],
        source: str,
        bins: list[float],
        names: list[str],
        recorded_prompts: list[str] | None = None,
    ) -> CardMeta:
        """``recorded_prompts``: for a run of recorded verdicts, the prompt hashes stored with
        them (the spec's template was never sent to that judge)."""
        prompts = manifest.get("prompts", {})
        judge_template = prompts.get("templates", {}).get("judge", {})
        judge: dict[str, Any] = {
            "source": "llm",
            "model": manifest.get("models", {}).get("judge", {}).get("model"),
            "prompt_hash": prompts.get("hashes", {}).get("judge"),
            "prompt_source": judge_template.get("source")
            if isinstance(judge_template, dict)
            else None,
        }
        if recorded_prompts is not None:
            judge = {
                "source": "recorded verdicts",
                "model": None,
                "prompt_hash": ", ".join(recorded_prompts) or None,
                "prompt_source": "as recorded with the verdicts"
                if recorded_prompts
                else "not recorded with the verdicts",
            }
        return cls(
            file=str(options.dest),
            fmt=options.fmt,
            labels=options.labels,
            run_id=run_id,
            spec_hash=manifest.get("spec_hash"),
            judge=judge,
            task_set=dict(manifest.get("task_set") or {}),
            gap={"source": source, "bins": bins, "labels": names},
        )


#: how many of the style model's terms the card lists (the rest: ``judgeaudit report``)
STYLE_TERMS = 3


def style_summary(section: dict[str, Any], out: Any, run_id: str) -> dict[str, Any]:
    """The report's style model (``judgeaudit report``'s last section) as the card states it: the feature terms
    with the largest odds ratios, stable ones first (a reversed label more likely where the
    winner had more of it), or why no model was fitted."""
    from judgeaudit.analysis.why import instability, top_style_terms

    # there is no ``why`` command: the card named one and a reader got "invalid choice"
    see = f"judgeaudit report {out} --run {run_id}"
    if section.get("status") == "skipped" or not section.get("terms"):
        reason = str(section.get("note") or "no model was fitted")
        return {"computed": False, "reason": reason, "see": see}
    terms = top_style_terms(section, STYLE_TERMS)
    keep = ("feature", "kind", "odds_ratio", "ci_low", "ci_high", "p_value")
    reasons = [instability(t) for t in terms]
    return {
        "computed": True,
        "method": "the report's style model over all judged orders of the run (docs/why.md)",
        "terms": [
            {**{k: t[k] for k in keep}, "unstable": why is not None, "unstable_reason": why}
            for t, why in zip(terms, reasons, strict=True)
        ],
        "see": see,
    }


#: What ``rows_a_human_took_from_state`` counts (the card's JSON and its Markdown).
HUMAN_OVER_STATE = (
    "rows whose label a human review set against state's (the success check's) winner: the "
    "review says state got these pairs wrong; each is labelled as the human said"
)


@dataclass
class _Bucket:
    decisive: int = 0
    ties: int = 0
    #: per task: (reversed, labelled), for the task-clustered interval; the totals are theirs
    tasks: dict[str, list[int]] = field(default_factory=dict)

    @property
    def reversed(self) -> int:
        return sum(rev for rev, _ in self.tasks.values())

    @property
    def labelled(self) -> int:
        return sum(lab for _, lab in self.tasks.values())

    def add(self, other: _Bucket) -> None:
        self.decisive += other.decisive
        self.ties += other.ties
        for task, (rev, lab) in other.tasks.items():
            counts = self.tasks.setdefault(task, [0, 0])
            counts[0] += rev
            counts[1] += lab


@dataclass
class Tally:
    """Counters filled while the rows stream; ``card`` turns them into the data card."""

    names: list[str]
    pairs: int = 0
    decisive: int = 0
    reversed_by_state: int = 0
    rows: int = 0
    against_judge: int = 0
    against_truth: int = 0
    trailing_user_dropped: int = 0
    buckets: dict[str, _Bucket] = field(default_factory=dict)
    rows_by: Counter[tuple[str, str]] = field(default_factory=Counter)
    label_sources: Counter[str] = field(default_factory=Counter)
    left_out: Counter[str] = field(default_factory=Counter)
    #: the pairs left out for their human label (it contradicts itself, or marks a
    #: conversation another label marks the other way): a reviewer's few, listed to correct
    listed: dict[str, list[str]] = field(default_factory=dict)
    #: the written rows whose human label chose the side state did not: the training labels a
    #: reviewer says state (the verifiable check) got wrong, listed to look at
    human_over_state: list[str] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)
    #: of the pairs ``--format openai`` skipped, per reason, those ``--format trl`` writes
    trl_keeps: Counter[str] = field(default_factory=Counter)
    judge_models: set[str] = field(default_factory=set)

    def see_pair(
        self, row: dict[str, Any], bucket: str | None, state: str | None, judge: str | None
    ) -> None:
        """Every pair of the run, written or not: the judge's label noise against state."""
        self.pairs += 1
        if row["judge_model"]:
            self.judge_models.add(str(row["judge_model"]))
        if state is None:
            return
        self.decisive += 1
        b = self.buckets.setdefault(bucket or NO_BUCKET, _Bucket())
        b.decisive += 1
        if judge is None:
            b.ties += 1
            return
        counts = b.tasks.setdefault(str(row["task_id"]), [0, 0])
        counts[1] += 1
        if judge != state:
            counts[0] += 1
            self.reversed_by_state += 1

    def see_row(
        self,
        task_type: str | None,
        bucket: str | None,
        label_source: str,
        *,
        against_judge: bool,
        against_truth: bool,
    ) -> None:
        self.rows += 1
        self.rows_by[(bucket or NO_BUCKET, str(task_type))] += 1
        self.label_sources[label_source] += 1
        self.against_judge += against_judge
        self.against_truth += against_truth

    def leave_out(self, reason: str, pair_id: str | None = None) -> None:
        self.left_out[reason] += 1
        if reason in LISTED and pair_id is not None:
            self.listed.setdefault(reason, []).append(pair_id)

    def skip(self, reason: str, trl_keeps: bool = False) -> None:
        self.skipped[reason] += 1
        self.trl_keeps[reason] += trl_keeps

    def card(self, meta: CardMeta) -> dict[str, Any]:
        order = [*self.names, NO_BUCKET]
        by_bucket: Counter[str] = Counter()
        by_type: Counter[str] = Counter()
        for (bucket, task_type), n in self.rows_by.items():
            by_bucket[bucket] += n
            by_type[task_type] += n
        noise = [_noise(name, self.buckets[name]) for name in order if name in self.buckets]
        total = _Bucket()
        for b in self.buckets.values():
            total.add(b)
        return {
            "card": "judgeaudit preference data card, version 1",
            "file": meta.file,
            "format": meta.fmt,
            "labels": meta.labels,
            "rows": self.rows,
            "run_id": meta.run_id,
            "spec_hash": meta.spec_hash,
            "tool_version": __version__,
            "judge": {**meta.judge, "models_on_pairs": sorted(self.judge_models)},
            "task_set": meta.task_set,
            "gap": meta.gap,
            "pairs": self.pairs,
            "decisive_pairs": self.decisive,
            "reversed_by_state": self.reversed_by_state,
            "rows_labelled_against_judge": self.against_judge,
            "rows_labelled_against_state": self.against_truth,
            "rows_a_human_took_from_state": {
                "rows": len(self.human_over_state),
                "why": HUMAN_OVER_STATE,
                "pair_ids": self.human_over_state,
            },
            "rows_by_bucket": {b: by_bucket[b] for b in order if by_bucket[b]},
            "rows_by_task_type": dict(sorted(by_type.items())),
            "rows_by_bucket_and_task_type": [
                {"bucket": b, "task_type": t, "rows": n}
                for (b, t), n in sorted(
                    self.rows_by.items(), key=lambda kv: (order.index(kv[0][0]), kv[0][1])
                )
            ],
            "label_sources": dict(sorted(self.label_sources.items())),
            "label_noise": {
                "method": NOISE_METHOD,
                "definition": NOISE_DEFINITION,
                "by_bucket": noise,
                "overall": _noise("all", total),
            },
            "left_out": {
                k: {"pairs": n, "why": LEFT_OUT_MEANING.get(k, k)}
                | ({"pair_ids": self.listed.get(k, [])} if k in LISTED else {})
                for k, n in sorted(self.left_out.items())
            },
            "skipped": {
                k: {"pairs": n, "why": SKIP_MEANING.get(k, k)}
                | ({"kept_by_trl": self.trl_keeps[k]} if meta.fmt == "openai" else {})
                for k, n in sorted(self.skipped.items())
            },
            "transformations": _transformations(meta.fmt, self.trailing_user_dropped),
            "style_features": meta.style,
        }


def _noise(name: str, b: _Bucket) -> dict[str, Any]:
    ci = clustered.interval(clustered.Sums.of([(k, n) for k, n in b.tasks.values()]))
    low, high = ci["ci_low"], ci["ci_high"]
    return {
        "bucket": name,
        "decisive": b.decisive,
        "judge_ties": b.ties,
        "judge_labelled": b.labelled,
        "reversed": b.reversed,
        "rate": b.reversed / b.labelled if b.labelled else None,
        "ci_low": low,
        "ci_high": high,
    }


def _transformations(fmt: str, dropped: int) -> list[str]:
    if fmt == "jsonl":
        return ["none: trajectories as stored (events), every pair column, every judge call"]
    out = [
        "stored events turned into OpenAI chat messages (text, tool arguments and tool results "
        "verbatim); tool-call ids numbered call_0, call_1… per trajectory (the store keeps none)",
        "system message: the trajectory's own context (imported), else the run's agent system "
        "prompt (simulated)",
    ]
    if fmt == "trl":
        out.append(
            f"{dropped} closing user turns after the agent's last message dropped from "
            "chosen/rejected (the user simulator's sign-off is not policy output)"
        )
    else:
        out.append("closing user turns after the agent's last message dropped before comparing")
    return out

"""`judgeaudit export preferences` on the real demo audit, read back by the tools a trainer uses:
Hugging Face `datasets` for the TRL file, a JSON schema of OpenAI's documented format, and the
audit database itself (independent SQL) for which pairs and labels must be there."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.cli_helpers import cli, cli_ok

SCHEMA = Path(__file__).resolve().parents[1] / "fixtures" / "preferences"
SCHEMA /= "openai_preference.schema.json"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("prefs") / "demo"
    done = cli("demo", "--no-tui", "--events", "jsonl", "--out", str(out))
    assert done.returncode == 0, done.stderr[-2000:]
    return out


def export(out: Path, dest: Path, *args: str) -> dict[str, Any]:
    done = cli("export", "preferences", str(out), "--out", str(dest), *args)
    assert done.returncode == 0, done.stderr
    assert "data card" in done.stdout
    card: dict[str, Any] = json.loads(dest.with_suffix(".card.json").read_text(encoding="utf-8"))
    # the line names the run it exported (with several runs in OUT, the latest unless --run)
    assert f" of run {card['run_id']} to {dest};" in done.stdout.splitlines()[0]
    return card


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def decisive_truth(out: Path) -> dict[str, tuple[str, str]]:
    """pair_id -> (the side that succeeded, the judge's verdict), straight from audit.db."""
    db = sqlite3.connect(out / "audit.db")
    rows = db.execute(
        "SELECT pair_id, success_a, judge_pref FROM audit_pairs WHERE success_a != success_b"
    ).fetchall()
    db.close()
    return {pid: ("A" if sa else "B", pref) for pid, sa, pref in rows}


def test_demo_as_trl_loads_with_datasets_every_decisive_pair_once(
    demo: Path, tmp_path: Path
) -> None:
    dest = tmp_path / "dpo.jsonl"
    card = export(demo, dest, "--format", "trl", "--labels", "state")
    os.environ["HF_DATASETS_OFFLINE"] = "1"
    os.environ["HF_HOME"] = str(tmp_path / "hf")
    from datasets import load_dataset

    ds = load_dataset("json", data_files=str(dest), split="train")
    truth = decisive_truth(demo)
    assert ds.num_rows == len(truth) == card["rows"] == card["decisive_pairs"]
    assert sorted(ds["pair_id"]) == sorted(truth)  # every decisive pair, exactly once
    for row in ds:
        assert row["chosen_side"] == truth[row["pair_id"]][0]
        assert row["label_source"] == "state"
        for column in ("prompt", "chosen", "rejected"):
            messages = row[column]
            assert isinstance(messages, list) and messages
            assert all(m["role"] in ("system", "user", "assistant", "tool") for m in messages)
        assert [m["role"] for m in row["prompt"]] == ["system", "user"]
        assert row["chosen"][0]["role"] == "assistant" and row["chosen"][-1]["role"] != "user"
        assert row["chosen"] != row["rejected"]
    calls = [m for row in ds for m in row["chosen"] + row["rejected"] if m.get("tool_calls")]
    assert calls, "the demo's agents call tools; the calls must be in the messages"
    results = [m for row in ds for m in row["chosen"] if m["role"] == "tool"]
    assert results and all(isinstance(m["content"], str) and m["tool_call_id"] for m in results)
    # Chunked reading (a large file) gives the same rows: the message schema is stable.
    chunked = load_dataset("json", data_files=str(dest), split="train", chunksize=8192)
    assert chunked["pair_id"] == ds["pair_id"]


def test_reversed_count_equals_the_reports_misselected(demo: Path, tmp_path: Path) -> None:
    card = export(demo, tmp_path / "p.jsonl", "--format", "trl")
    report = json.loads(cli("report", str(demo), "--format", "json").stdout)
    assert report["misselected"] > 0
    assert card["reversed_by_state"] == report["misselected"]
    rows = lines(tmp_path / "p.jsonl")
    backwards = [r for r in rows if r["judge_pref"] in "AB" and r["judge_pref"] != r["chosen_side"]]
    assert len(backwards) == report["misselected"] == card["rows_labelled_against_judge"]
    assert all(r["judge_agrees"] is False for r in backwards)
    # per bucket: the card's reversed labels are the report's misselected pairs in that bucket
    by_label = {b["bucket"]: b for b in card["label_noise"]["by_bucket"]}
    for bucket in report["buckets"]:
        assert by_label[bucket["label"]]["reversed"] == bucket["misselected"]
        assert by_label[bucket["label"]]["decisive"] == bucket["decisive"]
    assert sum(card["rows_by_bucket"].values()) == card["rows"]


def test_label_noise_interval_is_the_reports_task_clustered_wilson(
    demo: Path, tmp_path: Path
) -> None:
    """The card's interval is the report's (Wilson at n / design effect), computed here
    independently: the design effect as statsmodels' task-clustered over its plain variance of
    the mean, Wilson's formula by hand. (It was plain Wilson, pairs counted as independent.)"""
    import math

    import numpy as np
    import statsmodels.api as sm

    card = export(demo, tmp_path / "p.jsonl")
    db = sqlite3.connect(demo / "audit.db")
    rows = db.execute(
        "SELECT task_id, (judge_pref = 'A' AND success_a = 0) OR (judge_pref = 'B' AND"
        " success_b = 0) FROM audit_pairs WHERE success_a != success_b"
        " AND judge_pref IN ('A', 'B')"
    ).fetchall()
    db.close()
    y = np.array([float(r) for _, r in rows])
    tasks = np.array([t for t, _ in rows])
    ones = np.ones((len(y), 1))
    plain = sm.OLS(y, ones).fit().bse[0] ** 2
    clustered = sm.OLS(y, ones).fit(cov_type="cluster", cov_kwds={"groups": tasks}).bse[0] ** 2
    n = len(y) / max(1.0, clustered / plain)
    p, z = y.mean(), 1.959963984540054
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    overall = card["label_noise"]["overall"]
    assert overall["judge_labelled"] == len(y) and overall["reversed"] == int(y.sum())
    assert overall["ci_low"] == pytest.approx(max(0.0, centre - half), rel=1e-9)
    assert overall["ci_high"] == pytest.approx(min(1.0, centre + half), rel=1e-9)
    assert clustered / plain > 1.05, "the demo's pairs of a task agree: a real design effect"
    assert "design effect" in card["label_noise"]["method"]
    # the Markdown card prints it as every report prints an interval (it had its own "[x%, y%]")
    low, high = max(0.0, centre - half) * 100, min(1.0, centre + half) * 100
    card_md = (tmp_path / "p.card.md").read_text(encoding="utf-8")
    assert f"| {p * 100:.1f}% | [{low:.1f}, {high:.1f}] |" in card_md


def test_judge_and_agree_labels(demo: Path, tmp_path: Path) -> None:
    db = sqlite3.connect(demo / "audit.db")
    labelled = dict(
        db.execute("SELECT pair_id, judge_pref FROM audit_pairs WHERE judge_pref IN ('A', 'B')")
    )
    db.close()
    export(demo, tmp_path / "judge.jsonl", "--labels", "judge")
    rows = lines(tmp_path / "judge.jsonl")
    assert {r["pair_id"]: r["chosen_side"] for r in rows} == labelled  # ties left out
    assert {r["label_source"] for r in rows} == {"judge"}
    truth = decisive_truth(demo)
    wrong = [
        r for r in rows if r["pair_id"] in truth and truth[r["pair_id"]][0] != r["chosen_side"]
    ]
    assert all(r["judge_agrees"] is False for r in wrong)
    assert all(r["judge_agrees"] is None for r in rows if r["pair_id"] not in truth)
    # the summary of judge labels: state contradicts rows (the judge's own never do), and the
    # ties left out are pairs, not decisive pairs (a new user read 270 "decisive" of 79)
    again = cli("export", "preferences", str(demo), "--out", str(tmp_path / "j2.jsonl"),
                "--labels", "judge")  # fmt: skip
    card = json.loads((tmp_path / "j2.card.json").read_text(encoding="utf-8"))
    ties = card["left_out"]["judge_tie"]["pairs"]
    assert (
        f"backwards by state and state (or a human) contradicts "
        f"{card['rows_labelled_against_state']} of the "
        f"rows written; {ties} pairs left out ({ties} judge_tie); 0 skipped"
    ) in again.stdout, again.stdout
    assert card["rows_labelled_against_state"] > 0

    card = export(demo, tmp_path / "agree.jsonl", "--labels", "agree")
    agree = lines(tmp_path / "agree.jsonl")
    expected = {p for p, (side, pref) in truth.items() if side == pref}
    assert {r["pair_id"] for r in agree} == expected
    assert all(r["judge_agrees"] is True for r in agree)
    assert card["left_out"]["judge_disagrees"]["pairs"] == card["reversed_by_state"]


def test_a_human_label_that_contradicts_itself_is_left_out_and_listed(
    demo: Path, tmp_path: Path
) -> None:
    """A label stored before `review import` refused them (or saved key by key in the app):
    marks that say A succeeded with a preference for B would have made A the chosen side."""
    out = Path(shutil.copytree(demo, tmp_path / "demo"))
    truth = decisive_truth(out)
    (mixed, (won, _)), (flipped, (was, _)) = sorted(truth.items())[:2]
    lost, other = {"A": "B", "B": "A"}[won], {"A": "B", "B": "A"}[was]
    marks = {"A": (1, 0), "B": (0, 1)}
    with sqlite3.connect(out / "audit.db") as db:
        db.executemany(
            "INSERT INTO human_labels (pair_id, human_success_a, human_success_b, human_pref)"
            " VALUES (?, ?, ?, ?)",
            [(mixed, *marks[won], lost), (flipped, *marks[other], other)],
        )
    dest = tmp_path / "state.jsonl"
    done = cli("export", "preferences", str(out), "--out", str(dest))
    assert done.returncode == 0, done.stderr
    assert "left out 1 pair(s) whose human label prefers the side" in done.stderr
    assert mixed in done.stderr
    rows = {r["pair_id"]: r for r in lines(dest)}
    assert mixed not in rows and len(rows) == len(truth) - 1
    # a label that agrees with itself is the human's, against state
    assert (rows[flipped]["chosen_side"], rows[flipped]["label_source"]) == (other, "human")
    card = json.loads((tmp_path / "state.card.json").read_text(encoding="utf-8"))
    assert card["left_out"]["human_label_contradicts"]["pair_ids"] == [mixed]
    card_md = (tmp_path / "state.card.md").read_text(encoding="utf-8")
    assert f"`{mixed}`" in card_md
    # the training label a reviewer took from state is counted and named (a new user: the
    # card said 0 rows against state, by construction, and named none)
    over = card["rows_a_human_took_from_state"]
    assert (over["rows"], over["pair_ids"]) == (1, [flipped])
    assert f"Rows a human review took from state: **1** (`{flipped}`)" in card_md
    # the judge's labels do not read the human's: the pair stays
    export(out, tmp_path / "judge.jsonl", "--labels", "judge")
    judged = {r["pair_id"] for r in lines(tmp_path / "judge.jsonl")}
    assert (mixed in judged) == (truth[mixed][1] in ("A", "B"))


def test_pairs_marking_one_conversation_both_ways_are_left_out_and_named(
    demo: Path, tmp_path: Path
) -> None:
    """A conversation marked succeeded in one pair and failed in another (stored before the
    checks, or carried from an older audit): the export wrote it chosen in one row and rejected
    in the other. The report leaves it out of the success check; the export leaves out the pairs
    whose human verdict would rest on it, names them on stderr and lists them in the card."""
    out = Path(shutil.copytree(demo, tmp_path / "demo"))
    db = sqlite3.connect(out / "audit.db")
    one, two, task = db.execute(  # two decisive pairs sharing side A's conversation
        "SELECT p.pair_id, q.pair_id, p.task_id FROM audit_pairs p JOIN audit_pairs q"
        " ON q.run_id = p.run_id AND q.task_id = p.task_id AND q.trial = p.trial"
        " AND q.agent_a = p.agent_a AND q.pair_id > p.pair_id"
        " WHERE p.success_a != p.success_b AND q.success_a != q.success_b"
        " ORDER BY p.pair_id, q.pair_id LIMIT 1"
    ).fetchone()
    (third,) = db.execute(  # a decisive pair of another task
        "SELECT pair_id FROM audit_pairs WHERE success_a != success_b AND task_id != ?"
        " ORDER BY pair_id LIMIT 1",
        (task,),
    ).fetchone()
    db.executemany(
        "INSERT INTO human_labels (pair_id, human_success_a, human_success_b) VALUES (?, ?, ?)",
        [(one, 1, 0), (two, 0, 1), (third, 0, 1)],  # one says A's conversation won, two lost
    )
    db.commit()
    db.close()
    dest = tmp_path / "state.jsonl"
    done = cli("export", "preferences", str(out), "--out", str(dest))
    assert done.returncode == 0, done.stderr
    assert (
        f"export preferences: left out 2 pair(s) whose human label marks a conversation "
        f"succeeded that another pair's label marks failed (or the reverse): {one}, {two} (all "
        "listed in the card); give each conversation one mark with judgeaudit review import"
    ) in done.stderr
    rows = {r["pair_id"]: r for r in lines(dest)}
    assert one not in rows and two not in rows
    assert rows[third]["label_source"] == "human"  # a label marking no split conversation
    assert len(rows) == len(decisive_truth(out)) - 2
    card = json.loads((tmp_path / "state.card.json").read_text(encoding="utf-8"))
    assert card["left_out"]["human_marks_disagree"]["pair_ids"] == [one, two]
    judge = export(out, tmp_path / "judge.jsonl", "--labels", "judge")  # reads no human label
    assert "human_marks_disagree" not in judge["left_out"]


def test_openai_rows_validate_against_the_documented_schema(demo: Path, tmp_path: Path) -> None:
    dest = tmp_path / "openai.jsonl"
    card = export(demo, dest, "--format", "openai", "--labels", "state")
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    rows = lines(dest)
    assert rows
    for row in rows:
        jsonschema.validate(row, schema)
        assert row["input"]["messages"][-1]["role"] in ("user", "tool")  # outputs answer it
    # nothing truncated silently: every decisive pair is a row or a counted skip
    skipped = sum(s["pairs"] for s in card["skipped"].values())
    assert len(rows) + skipped == card["decisive_pairs"]
    assert card["skipped"]["diverge_before_last_assistant_turn"]["pairs"] > 0
    # and a row is the whole conversation: its input plus its output is one side's trajectory
    truth = decisive_truth(demo)
    for row in rows:
        assert row["chosen_side"] == truth[row["pair_id"]][0]


def test_jsonl_is_the_complete_form(demo: Path, tmp_path: Path) -> None:
    dest = tmp_path / "all.jsonl"
    export(demo, dest, "--format", "jsonl")
    rows = lines(dest)
    db = sqlite3.connect(demo / "audit.db")
    db.row_factory = sqlite3.Row
    first = rows[0]
    pair = dict(
        db.execute("SELECT * FROM audit_pairs WHERE pair_id = ?", (first["pair_id"],)).fetchone()
    )
    traj = db.execute(
        "SELECT events FROM trajectories WHERE run_id = ? AND task_id = ? AND agent = ? AND trial = ?",
        (pair["run_id"], pair["task_id"], pair["agent_a"], pair["trial"]),
    ).fetchone()
    orders = db.execute(
        'SELECT "order" FROM judge_logs WHERE pair_id = ? ORDER BY "order", attempt',
        (first["pair_id"],),
    ).fetchall()
    db.close()
    assert first["pair"] == pair
    assert first["trajectory_a"]["events"] == json.loads(traj[0])
    assert [c["order"] for c in first["judge_calls"]] == [o[0] for o in orders]
    assert {"AB", "BA"} <= {c["order"] for c in first["judge_calls"]}
    assert all(len(r["judge_calls"]) >= 2 for r in rows)


def test_card_markdown_names_what_a_trainer_needs(demo: Path, tmp_path: Path) -> None:
    card = export(demo, tmp_path / "p.jsonl", "--format", "openai")
    text = (tmp_path / "p.card.md").read_text(encoding="utf-8")
    manifest = json.loads((demo / "manifest.json").read_text(encoding="utf-8"))
    assert (
        manifest["task_set"]["hash"] in text
        and card["task_set"]["hash"] == manifest["task_set"]["hash"]
    )
    assert manifest["prompts"]["hashes"]["judge"] in text
    assert manifest["models"]["judge"]["model"] in text
    assert f"**{card['reversed_by_state']}**" in text
    assert "diverge_before_last_assistant_turn" in text
    assert "Wilson" in text
    # the style model behind reversed labels: the report's own terms (it said "not computed:
    # this build has no style attribution" beside a report that had one)
    report = json.loads(cli_ok("report", str(demo), "--format", "json").stdout)["style"]
    style = card["style_features"]
    assert (
        style["computed"] is True
        and style["see"] == f"judgeaudit report {demo} --run {card['run_id']}"
    )
    by_feature = {t["feature"]: t for t in report["terms"]}
    assert style["terms"] and len(style["terms"]) <= 3
    for term in style["terms"]:
        assert term["odds_ratio"] == by_feature[term["feature"]]["odds_ratio"]
        assert f"- {term['feature']} ({term['kind']}): odds ratio {term['odds_ratio']:.3g}" in text
    ratios = [t["odds_ratio"] for t in style["terms"]]
    assert ratios == sorted(ratios, reverse=True)
    assert not any(t["unstable"] for t in style["terms"])  # the demo's judge: all measured
    # the command the card names exists and prints every term
    shown = cli_ok(*style["see"].split()[1:]).stdout
    assert all(f"OR {t['odds_ratio']:7.3g}" in shown for t in report["terms"])


def test_the_summary_line_counts_as_the_card_and_names_what_it_left_out(
    demo: Path, tmp_path: Path
) -> None:
    """A new user: a human label flipping a pair the judge got backwards and one marking both
    sides succeeded. The line said the judge labelled 42 pairs backwards, the card 40 rows,
    and neither the left-out pair nor the openai format's 626 skipped pairs had a reason."""
    out = Path(shutil.copytree(demo, tmp_path / "demo"))
    truth = decisive_truth(out)
    with sqlite3.connect(out / "audit.db") as db:
        task = dict(db.execute("SELECT pair_id, task_id FROM audit_pairs").fetchall())
    flip = next(p for p, (side, pref) in sorted(truth.items()) if pref in "AB" and pref != side)
    both = next(p for p in sorted(truth) if task[p] != task[flip])
    with sqlite3.connect(out / "audit.db") as db:
        db.executemany(
            "INSERT INTO human_labels (pair_id, human_success_a, human_success_b, human_pref)"
            " VALUES (?, ?, ?, ?)",
            [(flip, *((1, 0) if truth[flip][1] == "A" else (0, 1)), truth[flip][1]),
             (both, 1, 1, None)],
        )  # fmt: skip
    dest = tmp_path / "trl.jsonl"
    done = cli("export", "preferences", str(out), "--out", str(dest), "--format", "trl")
    assert done.returncode == 0, done.stderr
    rows = lines(dest)
    backwards = sum(
        truth[r["pair_id"]][1] in ("A", "B") and truth[r["pair_id"]][1] != r["chosen_side"]
        for r in rows
    )
    misselected = sum(pref in ("A", "B") and pref != side for side, pref in truth.values())
    assert backwards == misselected - 1  # the flipped pair now agrees with the judge
    line = done.stdout.splitlines()[0]
    assert (
        f"the judge labelled {misselected} of the run's {len(truth)} decisive pairs backwards by "
        f"state and contradicts {backwards} of the rows written; 1 decisive pair left out "
        "(1 human_label_not_decisive) and "
    ) in line, line
    assert line.endswith("; 0 skipped by the format"), line
    card_md = dest.with_suffix(".card.md").read_text(encoding="utf-8")
    assert f"Rows whose label the judge contradicts: {backwards};" in card_md

    dest = tmp_path / "openai.jsonl"
    done = cli("export", "preferences", str(out), "--out", str(dest), "--format", "openai")
    assert done.returncode == 0, done.stderr
    openai = {r["pair_id"] for r in lines(dest)}
    skipped = len(truth) - 1 - len(openai)  # decisive, less the one left out, less written
    # of them, those the trl export above wrote (a new user: the line and the card did not say
    # that trl keeps the pairs openai cannot hold)
    kept = len({r["pair_id"] for r in rows} - openai)
    assert 0 < kept <= skipped
    assert done.stdout.splitlines()[0].endswith(
        f"; {skipped} skipped by the format ({skipped} diverge_before_last_assistant_turn); "
        f"--format trl keeps {kept} of them (whole conversations)"
    ), done.stdout
    card = json.loads(dest.with_suffix(".card.json").read_text(encoding="utf-8"))
    assert card["skipped"]["diverge_before_last_assistant_turn"]["kept_by_trl"] == kept
    assert (
        f"not cut to fit); --format trl keeps {kept} of them (whole conversations)."
        in dest.with_suffix(".card.md").read_text(encoding="utf-8")
    )

"""The CLI as a user runs it: demo, report formats, compare gate, review round trip, bad keys."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.audit_helpers import write_spec
from tests.cli_helpers import cli
from tests.helpers import sim_server


@pytest.fixture(scope="module")
def demo_out(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, subprocess.CompletedProcess[str]]:
    out = tmp_path_factory.mktemp("demo") / "out"
    done = cli("demo", "--no-tui", "--out", str(out))
    assert done.returncode == 0, done.stderr
    return out, done


def _rate(bucket: dict[str, object]) -> float:
    value = bucket["rate"]
    assert isinstance(value, float)
    return value


def test_demo_shows_the_phenomenon(demo_out: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    out, done = demo_out
    assert "misselection by capability gap" in done.stdout
    for name in (
        "audit.db",
        "audit_pairs.csv",
        "judge_logs.jsonl",
        "manifest.json",
        "report.html",
        "misselection.svg",
    ):
        assert (out / name).exists(), name
    report = json.loads(cli("report", str(out), "--format", "json").stdout)
    buckets = {b["alias"]: b for b in report["buckets"]}
    assert set(buckets) == {"near", "small", "medium", "large"}
    assert all(b["decisive"] > 0 for b in buckets.values()), "agent pairs fall in every bucket"
    near, large = buckets["near"], buckets["large"]
    assert _rate(near) > _rate(large)
    assert near["ci_low"] > large["ci_high"], "near-equal misselection clearly above large-gap"
    assert report["satisfied_but_failed"]["judge"]["failed"] > 0
    for b in report["buckets"]:
        assert b["ci_low"] <= b["rate"] <= b["ci_high"]


def test_demo_off_a_terminal_prints_progress_lines_not_every_event(
    demo_out: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    """A new user in CI: `demo --no-tui` into a pipe wrote about 4,300 JSON event lines before
    its summary. Off a terminal it prints a progress line per tenth of each phase on stderr and
    the summary on stdout; every event only with `--events jsonl`."""
    _, done = demo_out
    assert not [line for line in done.stdout.splitlines() if line.startswith("{")]
    assert done.stdout.startswith("misselection by capability gap")
    assert "\r" not in done.stderr
    bars = [line for line in done.stderr.splitlines() if "] " in line and " eta " in line]
    assert 2 <= len(bars) <= 22, bars  # two phases, at most 11 lines each
    assert bars[-1].startswith("judging      [########################] 1260/1260 ")
    assert len(done.stderr.splitlines()) <= 30


#: A report in a fresh process: its style fit, and whether scipy or statsmodels was loaded.
REPORT_MODULES = (
    "import json, sys\n"
    "from pathlib import Path\n"
    "from judgeaudit.analysis.report import build_report\n"
    "report = build_report(Path(sys.argv[1]))\n"
    "loaded = sorted({m.split('.')[0] for m in sys.modules} & {'scipy', 'statsmodels'})\n"
    "print(json.dumps([report['style']['status'], loaded]))\n"
)


def test_the_report_fits_the_style_model_without_scipy_or_statsmodels(
    demo_out: tuple[Path, subprocess.CompletedProcess[str]], tmp_path: Path
) -> None:
    """statsmodels and scipy are test references only (about 200 MB and 0.6 s a report)."""
    out, _ = demo_out
    done = subprocess.run(
        [sys.executable, "-c", REPORT_MODULES, str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "JUDGEAUDIT_REPORT_MEMO": "0"},
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == ["ok", []]


def test_report_formats_and_original_bins(
    demo_out: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    out, _ = demo_out
    report = json.loads(cli("report", str(out), "--format", "json", "--gap-source", "judge").stdout)
    assert report["bins"] == [-0.01, 0.2, 0.5, 1.0, 5.0]
    assert [b["label"] for b in report["buckets"]] == ["近同", "小差", "中差", "大差"]
    html = cli("report", str(out), "--format", "html").stdout
    assert "<svg" in html and "http://" not in html.split("<pre>")[0].replace(
        'xmlns="http://www.w3.org/2000/svg"', ""
    )
    md = cli("report", str(out), "--format", "md").stdout
    assert "near" in md
    # the agent pairs with their ranking flags and the task types, as the text report has them
    parsed = json.loads(cli("report", str(out), "--format", "json").stdout)
    pairs_table = md.split("## Agent pairs")[1].split("## By task type")[0]
    for p in parsed["agent_pairs"]:
        assert f"| {p['agent_a']} | {p['agent_b']} |" in pairs_table
        if p.get("ranking") == "suggestive":
            assert "ranking opposite (suggestive" in pairs_table
    types_table = md.split("## By task type")[1]
    assert all(
        f"| {t['task_type']} | {t['decisive']} |" in types_table for t in parsed["by_task_type"]
    )
    table = cli("report", str(out), "--bins=-0.01,0.5,1", "--labels", "close,far").stdout
    assert "close" in table and "far" in table
    bad = cli("report", str(out), "--bins=-0.01,0.5,1", "--labels", "one")
    assert bad.returncode != 0 and "2 labels needed" in bad.stderr


def test_compare_gates_on_a_rise_only_over_the_same_trajectories(
    tmp_path: Path, demo_out: tuple[Path, subprocess.CompletedProcess[str]]
) -> None:
    out, _ = demo_out
    same = cli("compare", str(out), str(out), "--fail-on-rise")
    assert same.returncode == 2 and "compared with itself" in same.stderr, "a gate that cannot fail"
    worse = tmp_path / "worse"
    spec = tmp_path / "worse.toml"
    text = (Path(__file__).resolve().parents[2] / "examples" / "demo.toml").read_text()
    spec.write_text(
        text.replace('model = "judge-default"', 'model = "judge-default:noise=3,position=0"')
    )
    assert cli("run", str(spec), "--out", str(worse), "--events", "jsonl").returncode == 0
    unpaired = cli("compare", str(out), str(worse), "--fail-on-rise")
    assert unpaired.returncode == 2, unpaired.stdout + unpaired.stderr
    assert "are not paired (each run simulated its own conversations)" in unpaired.stderr
    assert "re-judge the same trajectories" in unpaired.stderr
    assert len(unpaired.stderr.strip().splitlines()) == 1 and unpaired.stdout == ""
    info = cli("compare", str(out), str(worse))
    assert info.returncode == 0 and "not gated" in info.stdout, "still shown, for information"
    rejudged = tmp_path / "noisy"
    done = cli(
        "rejudge",
        str(out),
        "--judge-model",
        "judge-default:noise=3,position=0",
        "--out",
        str(rejudged),
        "--events",
        "jsonl",
    )
    assert done.returncode == 0, done.stderr
    gated = cli("compare", str(out), str(rejudged), "--fail-on-rise")
    assert gated.returncode == 3, gated.stdout + gated.stderr
    assert "models.judge.model" in gated.stdout and "RISE" in gated.stdout
    assert "gate (margin 2 points): WORSE" in gated.stdout
    assert gated.stderr.startswith("judgeaudit: worse: misselection rose in:")


def test_review_round_trip(
    tmp_path: Path, demo_out: tuple[Path, subprocess.CompletedProcess[str]]
) -> None:
    out, _ = demo_out
    sample = tmp_path / "sample.csv"
    exported = cli("review", "export", str(out), "--n", "12", "--file", str(sample), "--unblind")
    assert exported.returncode == 0
    # the sample size a 20-point-wide interval on the weighted agreement needs, suggested
    assert (
        "suggested --n " in exported.stdout and "--n 12 gives a wider interval" in exported.stdout
    )
    rows = list(csv.DictReader(sample.open()))
    assert len(rows) == 12
    assert {"satisfied_but_failed", "inconsistent", "misselected"} & {r["stratum"] for r in rows}
    for row in rows:  # a reviewer who agrees with the judge and with the success check
        row["human_pref"] = row["judge_pref"]
        if not _prefers_against(row["success_a"], row["success_b"], row["judge_pref"]):
            row["human_success_a"], row["human_success_b"] = row["success_a"], row["success_b"]
    with sample.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    assert cli("review", "import", str(out), str(sample)).returncode == 0
    assert cli("review", "import", str(out), str(sample)).returncode == 0  # idempotent
    review = json.loads(cli("report", str(out), "--format", "json").stdout)["human_review"]
    assert review["labelled"] == 12
    assert review["judge_vs_human"]["agreement"] == 1.0
    assert review["success_check_vs_human"]["kappa"] == 1.0
    rows[0]["human_pref"] = "maybe"
    with sample.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    bad = cli("review", "import", str(out), str(sample))
    assert bad.returncode != 0 and f"{sample}:2: human_pref: 'maybe'" in bad.stderr
    # a preference its own success marks contradict: refused, naming the file's line
    for at, pref in ((2, "B"), (3, "tie")):
        rows[0].update(human_success_a="1", human_success_b="0", human_pref="A")
        rows[at - 2].update(human_success_a="1", human_success_b="0", human_pref=pref)
        with sample.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
        bad = cli("review", "import", str(out), str(sample))
        assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1, bad.stderr
        assert f"{sample}:{at}: human_pref {pref} contradicts human_success_a 1" in bad.stderr
        assert "A succeeded and B failed" in bad.stderr
    again = json.loads(cli("report", str(out), "--format", "json").stdout)["human_review"]
    assert again == review  # nothing stored
    # the app's Review stores such a label as typed (and warns): the report leaves it out
    from judgeaudit.analysis.label_import import import_labels

    first = rows[0]["pair_id"]
    import_labels(out, [{"pair_id": first, "human_success_a": 1, "human_success_b": 0,
                         "human_pref": "B", "note": None}])  # fmt: skip
    left = json.loads(cli("report", str(out), "--format", "json").stdout)["human_review"]
    assert left["contradicting"] == {"count": 1, "pair_ids": [first]}
    assert left["labelled"] == 12 and left["judge_vs_human"]["n"] == 11
    text = cli("report", str(out), "--format", "table").stdout
    assert f"1 labelled pair left out of these figures, human_pref contradicting the label's " \
        f"own success marks ({first})" in text  # fmt: skip


def _prefers_against(success_a: str, success_b: str, pref: str) -> bool:
    """By hand: exactly one side succeeded and ``pref`` is not that side."""
    if success_a == success_b:
        return False
    return pref != ("A" if success_a == "1" else "B")


def test_rejected_key_stops_run_early_without_the_key(tmp_path: Path) -> None:
    with sim_server("--require-key-env", "GOOD", env={"GOOD": "good-key-1234"}) as url:
        spec = write_spec(tmp_path / "spec.toml")
        text = spec.read_text().replace(
            'base_url = "embedded"', f'base_url = "{url}"\nkey_env = "MY_KEY"'
        )
        spec.write_text(text)
        done = cli(
            "run",
            str(spec),
            "--out",
            str(tmp_path / "out"),
            "--events",
            "jsonl",
            env={"MY_KEY": "wrong-key-5678"},
        )
        assert done.returncode == 2
        assert "rejected the API key" in done.stderr and len(done.stderr.strip().splitlines()) == 1
        assert "5678" not in done.stderr + done.stdout
        # the key came from a variable: the line names it (no profile is involved)
        assert "put the right one in $MY_KEY" in done.stderr
        assert "profile" not in done.stderr
        missing = cli("run", str(spec), "--out", str(tmp_path / "out2"))
        assert missing.returncode == 2 and "MY_KEY is empty" in missing.stderr


def test_bad_spec_is_one_line_and_nonzero(tmp_path: Path) -> None:
    spec = tmp_path / "bad.toml"
    spec.write_text("[run\n")
    done = cli("run", str(spec), "--out", str(tmp_path / "out"))
    assert (
        done.returncode == 2 and done.stderr.startswith("judgeaudit: ") and str(spec) in done.stderr
    )
    assert not (tmp_path / "out").exists()


def test_report_buckets_agree_with_the_original_snippet_and_exact_gaps(
    demo_out: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    from decimal import Decimal

    import pandas as pd

    out, _ = demo_out
    pairs = pd.read_csv(out / "audit_pairs.csv")
    # The declared source (capability): the snippet on the stored reward_gap column.
    report = json.loads(cli("report", str(out), "--format", "json").stdout)
    snippet = pd.cut(pairs["reward_gap"], bins=report["bins"], labels=False)
    assert [b["pairs"] for b in report["buckets"]] == [
        int((snippet == i).sum()) for i in range(len(report["buckets"]))
    ]
    # Judge-score gaps computed exactly in decimal arithmetic (the scores have few decimals).
    exact = [
        float(abs(Decimal(str(a)) - Decimal(str(b))))
        for a, b in zip(pairs["judge_score_a"], pairs["judge_score_b"], strict=True)
    ]
    judged = json.loads(cli("report", str(out), "--format", "json", "--gap-source", "judge").stdout)
    cut = pd.cut(pd.Series(exact), bins=judged["bins"], labels=False)
    assert [b["pairs"] for b in judged["buckets"]] == [
        int((cut == i).sum()) for i in range(len(judged["buckets"]))
    ]
    table = cli("report", str(out), "--gap-source", "judge").stdout
    assert "misselection by judge-score gap" in table


WEAKER_JUDGE = "judge-default:diligence=0,evidence=0.2,style=0.8"


def _roles(out: Path) -> dict[str, int]:
    import sqlite3

    db = sqlite3.connect(out / "audit.db")
    try:
        return dict(db.execute("SELECT role, COUNT(*) FROM calls GROUP BY role").fetchall())
    finally:
        db.close()


@pytest.mark.parametrize(
    "model", [WEAKER_JUDGE, "judge-default:diligence=0,evidence=0.3,style=0.7"]
)
def test_rejudge_of_the_demo_with_a_weaker_judge_never_passes_the_gate(
    tmp_path: Path, demo_out: tuple[Path, subprocess.CompletedProcess[str]], model: str
) -> None:
    out, _ = demo_out
    weaker = tmp_path / "weaker"
    done = cli(
        "rejudge", str(out), "--judge-model", model, "--out", str(weaker), "--events", "jsonl"
    )
    assert done.returncode == 0, done.stderr
    assert set(_roles(weaker)) == {"judge"}, "the calls table shows no agent or user call"
    gated = cli("compare", str(out), str(weaker), "--fail-on-rise")
    assert gated.returncode in (3, 5), gated.stdout + gated.stderr
    assert gated.stdout.splitlines()[1].startswith("paired: ")
    assert "exact task-level sign-flip permutation test" in gated.stdout
    assert "task-clustered and per row, not simultaneous" in gated.stdout
    result = json.loads(cli("compare", str(out), str(weaker), "--format", "json").stdout)
    overall = result["overall"]
    assert result["paired"] and overall["verdict"] in ("worse", "inconclusive")
    assert overall["paired"]["flipped_to_misselected"] > overall["paired"]["flipped_to_correct"]
    assert result["gate"]["exit_code"] == gated.returncode
    if gated.returncode == 5:
        assert "INCONCLUSIVE" in gated.stdout and "inconclusive (exit 5)" in gated.stderr
        need = overall["needed"]
        line = next(x for x in gated.stdout.splitlines() if "not enough data" in x)
        assert f"at ~{need['pairs']} decisive pairs" in line
        assert need["pairs"] > overall["n_before"] and need["tasks"] > result["shared_tasks"]
        # JSON has no 'not enough data' line: the reason names the field too (a new user)
        in_json = cli("compare", str(out), str(weaker), "--fail-on-rise", "--format", "json")
        assert "the data cannot tell yet (see `overall.needed`)" in in_json.stderr
        assert "the data cannot tell yet (see the 'not enough data' line)" in gated.stderr
        assert json.loads(in_json.stdout)["overall"]["needed"] == need
    if model.endswith("style=0.7"):
        assert gated.returncode == 5, "the demo cannot tell this judge from the default one"


def test_rejudge_of_the_demo_with_the_same_judge_passes_the_gate_with_no_flips(
    tmp_path: Path, demo_out: tuple[Path, subprocess.CompletedProcess[str]]
) -> None:
    out, _ = demo_out
    same = tmp_path / "same"
    done = cli("rejudge", str(out), "--out", str(same), "--events", "jsonl")
    assert done.returncode == 0, done.stderr
    gated = cli("compare", str(out), str(same), "--fail-on-rise")
    assert gated.returncode == 0, gated.stdout + gated.stderr
    assert "manifest changes: none" in gated.stdout
    assert "gate (margin 2 points): NOT WORSE" in gated.stdout
    assert "too few pairs to tell" in gated.stdout and "does not block on its own" in gated.stdout
    result = json.loads(cli("compare", str(out), str(same), "--format", "json").stdout)
    assert result["paired"] and not result["rises"]
    for row in [*result["buckets"], result["overall"]]:
        flips = row["paired"]
        assert flips["flipped_to_misselected"] == 0 and flips["flipped_to_correct"] == 0


def test_rejudge_dry_run_states_the_gates_power(
    demo_out: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    out, _ = demo_out
    report = json.loads(cli("report", str(out), "--format", "json").stdout)
    plan = cli("rejudge", str(out), "--judge-model", "judge-strict", "--out", str(out), "--dry-run")
    assert plan.returncode == 0, plan.stderr
    line = next(x for x in plan.stdout.splitlines() if "gate power:" in x)
    assert f"{report['decisive']} decisive pairs over 42 tasks" in line
    assert "smallest rise detectable at 80% power: ~" in line


@pytest.mark.timeout(900)  # three re-judges of the demo on a shared machine
def test_judges_ranks_three_rejudges_of_the_demo_in_every_format(
    tmp_path: Path, demo_out: tuple[Path, subprocess.CompletedProcess[str]]
) -> None:

    out, _ = demo_out
    board_dir = tmp_path / "judges"
    models = ["judge-default", "judge-strict", "judge-default:diligence=0,evidence=0.3,style=0.7"]
    args = [a for m in models for a in ("--judge-model", m)]
    done = cli("rejudge", str(out), *args, "--out", str(board_dir), "--events", "jsonl")
    assert done.returncode == 0, done.stderr
    assert f"judgeaudit judges {board_dir}" in done.stderr  # stdout: the JSON lines alone
    board = json.loads(cli("judges", str(board_dir), "--format", "json").stdout)
    rows = board["judges"]
    assert sorted(r["judge_model"] for r in rows) == sorted(models)
    # ranked by the tie-aware rate (a judge that stops deciding is not the best), then misselection
    keys = [(r["tie_aware"]["rate"], r["misselection"]["rate"]) for r in rows]
    assert keys == sorted(keys) and rows[0]["vs_best"] is None
    assert all(r["vs_best"]["verdict"] in ("worse", "not worse", "inconclusive") for r in rows[1:])
    weak = next(r for r in rows if r["judge_model"] == models[2])
    assert weak["vs_best"] is None or weak["vs_best"]["verdict"] != "not worse"
    assert any(r["frontier"] for r in rows) and board["cost_axis"] == "tokens", "no prices here"
    cells: list[str] = []
    unstable_seen = 0
    for row in rows:
        report = json.loads(
            cli("report", str(board_dir), "--run", row["run_id"], "--format", "json").stdout
        )
        assert row["misselection"]["rate"] == pytest.approx(
            report["misselected"] / report["decisive"]
        )
        # the style column: the report's largest feature odds ratio (issue 24), in every format,
        # among the stable ones: an interval over 100-fold apart (by hand) sizes nothing (the
        # style-weighted judge's cites_ids was 796 [66.7, 9.5e+03]: a new user's trial)
        features = [t for t in report["style"]["terms"] if t["kind"] not in ("success", "position")]
        stable = [t for t in features if t["ci_high"] / t["ci_low"] <= 100]
        assert all(t["unstable"] == (t not in stable) for t in features)
        top = max(stable, key=lambda t: t["odds_ratio"])
        assert row["style"]["feature"] == top["feature"] and row["style"]["unstable"] is False
        assert row["style"]["odds_ratio"] == pytest.approx(top["odds_ratio"])
        unstable_seen += len(features) - len(stable)
        cells.append(f"{top['feature']} {top['odds_ratio']:.3g}")
        # one interval per rate: the report's own (a CR1 t interval here once gave a judge with
        # 9 misselections [0.0, 12.6] beside the report's [2.1, 15.7]: a new user's trial)
        sbf = report["satisfied_but_failed"]["judge"]
        assert row["satisfied_but_failed_ci"] == [sbf["ci_low"], sbf["ci_high"]]
        for key in ("rate", "ci_low", "ci_high"):
            assert row["misselection"][key] == pytest.approx(report["overall"][key]), key
            assert row["near"][key] == pytest.approx(report["buckets"][0][key]), key
        assert row["tokens"] > 0 and row["latency_p95_ms"] >= row["latency_p50_ms"]
    assert unstable_seen, "the style-weighted judge's cites_ids: the case the ranking skips"
    table = cli("judges", str(board_dir)).stdout
    assert table.splitlines()[0].startswith("#  judge") and "vs best" in table
    assert "* no other judge beats it" in table
    assert "top style OR" in table.splitlines()[0] and all(c in table for c in cells)
    md = cli("judges", str(board_dir), "--format", "md").stdout
    assert "| top style OR |" in md and all(f"| {c} |" in md for c in cells)
    assert md.startswith("| # | judge |")
    assert sum(line.startswith("| ") for line in md.splitlines()) == 4, "header and three judges"

"""`review export` never replaces a reviewer's work unasked (found by a new user: a second export
wrote over a filled-in sample, exit 0, the labels gone). A sample with a label or a note in it,
or a file that is no review sample, is refused in one line (exit 2, the file untouched) that
says how many rows hold labels and the two ways out; an earlier sample with nothing filled in is
replaced as before; ``--force`` replaces anything. The commands it suggests paste as printed
(the output directory here holds a space and a non-ASCII letter)."""

from __future__ import annotations

import csv
import shlex
from pathlib import Path

import pytest

from tests.audit_helpers import write_spec, write_tasks
from tests.cli_helpers import cli, cli_ok


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("review") / "my runs é"
    folder.mkdir()
    write_tasks(folder / "tasks.jsonl", 8)
    spec = write_spec(folder / "spec.toml", tasks="tasks.jsonl")
    cli_ok("run", str(spec), "--out", str(folder / "out"), "--events", "jsonl")
    return folder / "out"


def fill(sample: Path, rows: dict[int, dict[str, str]]) -> None:
    """Write ``rows`` (row index -> column -> value) into the sample, as a reviewer would."""
    with sample.open(newline="", encoding="utf-8") as handle:
        table = list(csv.DictReader(handle))
    for index, values in rows.items():
        table[index].update(values)
    with sample.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(table[0]))
        writer.writeheader()
        writer.writerows(table)


def test_a_filled_in_sample_is_kept_until_its_labels_are_stored_and_force_is_given(
    out: Path, tmp_path: Path
) -> None:
    sample = tmp_path / "sample.csv"
    first = cli_ok("review", "export", str(out), "--n", "10", "--out", str(sample))
    suggested = shlex.split(first.stdout.splitlines()[0].split("then: ", 1)[1])
    assert suggested == ["judgeaudit", "review", "import", str(out), str(sample)]
    cli_ok("review", "export", str(out), "--n", "10", "--out", str(sample))  # nothing filled in
    fill(sample, {0: {"human_pref": "A", "human_success_a": "1"}, 3: {"note": "odd reply"}})
    kept = sample.read_bytes()

    refused = cli("review", "export", str(out), "--n", "10", "--out", str(sample))
    assert refused.returncode == 2 and refused.stdout == ""
    assert len(refused.stderr.splitlines()) == 1, refused.stderr
    line = refused.stderr.strip()
    assert f"--out {sample} holds 2 rows with labels or notes" in line
    assert line.endswith("; pass --force to replace it")
    assert sample.read_bytes() == kept
    store = shlex.split(line.split("`")[1])  # the first way out, pasted as printed
    assert store == ["judgeaudit", "review", "import", str(out), str(sample)]
    assert "stored 1 labelled pairs" in cli_ok(*store[1:]).stdout

    cli_ok("review", "export", str(out), "--n", "10", "--out", str(sample), "--force")
    with sample.open(newline="", encoding="utf-8") as handle:  # only what is stored is shown
        shown = [row for row in csv.DictReader(handle) if row["human_pref"] or row["note"]]
    assert len(shown) == 1 and shown[0]["human_pref"] == "A"  # the one pair labelled above
    cli_ok("review", "export", str(out), "--n", "10", "--out", str(sample))  # nothing unsaved


def test_a_file_that_is_no_review_sample_is_kept_and_an_empty_one_replaced(
    out: Path, tmp_path: Path
) -> None:
    other = tmp_path / "budget.csv"
    other.write_text("month,spend\n2026-11,120\n", encoding="utf-8")
    refused = cli("review", "export", str(out), "--out", str(other))
    assert refused.returncode == 2
    assert f"--out {other} is not a review sample" in refused.stderr
    assert other.read_text(encoding="utf-8") == "month,spend\n2026-11,120\n"
    empty = tmp_path / "empty.csv"
    empty.touch()
    cli_ok("review", "export", str(out), "--n", "10", "--out", str(empty))
    assert empty.read_text(encoding="utf-8").startswith("pair_id,task_id,")


def test_a_sample_of_an_unfinished_run_says_it_covers_the_pairs_stored_so_far(
    tmp_path: Path,
) -> None:
    """A new user sampled a live run (69 of 630 pairs) and was not told: the sample still comes
    (labels of stored pairs stay valid), with one line saying what it covers."""
    import sqlite3

    from tests.report_fixture import build_audit_db

    out = build_audit_db(tmp_path / "out")
    db = sqlite3.connect(out / "audit.db")
    with db:
        db.execute("UPDATE runs SET status = 'running' WHERE run_id = 'r-main'")
    stored = db.execute("SELECT COUNT(*) FROM audit_pairs WHERE run_id = 'r-main'").fetchone()[0]
    db.close()
    live = cli("review", "export", str(out), "--run", "r-main", "--n", "5")
    assert live.returncode == 0, live.stderr
    assert live.stderr.strip().splitlines()[0] == (
        f"review export: run r-main is running ({stored} pairs stored so far): the sample is"
        " drawn from those; export again once it has finished to sample the whole run"
    )
    assert (out / "review_sample.csv").is_file()
    finished = cli("review", "export", str(out), "--run", "r-other", "--n", "5", "--force")
    assert finished.returncode == 0 and "stored so far" not in finished.stderr


def test_a_new_sample_shows_the_labels_already_stored_and_import_says_what_it_replaced(
    out: Path, tmp_path: Path
) -> None:
    """Two samples of one run share pairs; the second showed them blank, a reviewer labelled
    them again and `review import` silently replaced the earlier labels (a new user's trial).
    A sample now carries the stored labels; one left as exported is no unsaved work; an import
    that changes a stored label says how many it replaced."""
    import shutil
    import sqlite3
    from contextlib import closing

    mine = tmp_path / "out"
    shutil.copytree(out, mine)
    with closing(sqlite3.connect(mine / "audit.db")) as db, db:  # no earlier test's labels
        db.execute("DELETE FROM human_labels")
    first = tmp_path / "first.csv"
    cli_ok("review", "export", str(mine), "--n", "10", "--out", str(first))
    fill(first, {0: {"human_pref": "tie", "human_success_a": "0"}, 1: {"human_pref": "A"}})
    stored = cli_ok("review", "import", str(mine), str(first))
    assert "stored 2 labelled pairs" in stored.stdout and "replaced" not in stored.stdout

    second = tmp_path / "second.csv"
    cli_ok("review", "export", str(mine), "--n", "10", "--out", str(second))
    with second.open(newline="", encoding="utf-8") as handle:
        rows = {r["pair_id"]: r for r in csv.DictReader(handle)}
    with first.open(newline="", encoding="utf-8") as handle:
        labelled = list(csv.DictReader(handle))[:2]
    for row in labelled:  # the same seed samples the same pairs: shown as stored
        shown = rows[row["pair_id"]]
        assert [shown[c] for c in ("human_success_a", "human_success_b", "human_pref")] == [
            row[c] for c in ("human_success_a", "human_success_b", "human_pref")
        ]
    cli_ok("review", "export", str(mine), "--n", "10", "--out", str(second))  # nothing unsaved

    index = next(i for i, r in enumerate(rows.values()) if r["pair_id"] == labelled[0]["pair_id"])
    fill(second, {index: {"human_pref": "B"}})
    again = cli_ok("review", "import", str(mine), str(second))
    assert "; 1 of them replaced a different label stored before" in again.stdout
    over_it = cli("review", "export", str(mine), "--n", "10", "--out", str(second))
    assert over_it.returncode == 0  # its one changed row is stored now too: nothing unsaved

    # a reviewer's note, then a sheet whose note cell is empty: said, never silent (a new user)
    fill(second, {index: {"note": "checked the tool call"}})
    noted = cli_ok("review", "import", str(mine), str(second))
    assert "removed a note" not in noted.stdout
    fill(second, {index: {"note": ""}})
    emptied = cli_ok("review", "import", str(mine), str(second))
    assert "; 1 of them removed a note stored before (its note cell was empty)" in emptied.stdout


def test_suggested_n_never_exceeds_the_run(out: Path, tmp_path: Path) -> None:
    done = cli_ok(
        "review", "export", str(out), "--n", "5", "--width", "2",
        "--out", str(tmp_path / "s.csv"),
    )  # fmt: skip
    pairs = len(open_db_pairs(out))
    assert f"suggested --n {pairs} (every pair of the run: no fewer would do)" in done.stdout


def open_db_pairs(out: Path) -> list[tuple[object, ...]]:
    import sqlite3

    db = sqlite3.connect(out / "audit.db")
    rows = db.execute("SELECT pair_id FROM audit_pairs").fetchall()
    db.close()
    return rows


def test_the_sample_is_blind_unless_asked(out: Path, tmp_path: Path) -> None:
    """The CSV showed reviewers the judge's preference, the success check and the stratum
    ("misselected"), in stratum blocks, while the app's Review starts blind (a new user's
    trial): the default sample has none of them, its rows shuffled; --unblind adds them."""
    blind, seen = tmp_path / "blind.csv", tmp_path / "seen.csv"
    cli_ok("review", "export", str(out), "--n", "12", "--out", str(blind))
    cli_ok("review", "export", str(out), "--n", "12", "--out", str(seen), "--unblind")
    with blind.open(newline="", encoding="utf-8") as handle:
        blind_rows = list(csv.DictReader(handle))
    with seen.open(newline="", encoding="utf-8") as handle:
        seen_rows = list(csv.DictReader(handle))
    assert list(blind_rows[0]) == [
        "pair_id", "task_id", "agent_a", "agent_b",
        "human_success_a", "human_success_b", "human_pref", "note",
    ]  # fmt: skip
    assert {"stratum", "judge_pref", "success_a", "success_b"} <= set(seen_rows[0])
    assert sorted(r["pair_id"] for r in blind_rows) == sorted(r["pair_id"] for r in seen_rows)
    assert [r["pair_id"] for r in blind_rows] != [r["pair_id"] for r in seen_rows]


def test_out_names_the_sample_and_the_old_file_flag_still_works(out: Path, tmp_path: Path) -> None:
    """`review export` takes `--out` like every other command that writes a file (a new user
    typed `--out` and got "unrecognized arguments"); `--file`, its name before, still writes the
    same sample so existing scripts go on working, but is no longer shown in the help."""
    new, old = tmp_path / "new.csv", tmp_path / "old.csv"
    done = cli_ok("review", "export", str(out), "--n", "6", "--out", str(new))
    assert done.stdout.startswith(f"wrote 6 pairs to {new};")
    cli_ok("review", "export", str(out), "--n", "6", "--file", str(old))
    assert old.read_bytes() == new.read_bytes()
    shown = cli_ok("review", "export", "--help").stdout
    assert "--out FILE" in shown and "--file" not in shown


def test_n_pairs_are_sampled_when_the_run_has_them(tmp_path: Path) -> None:
    """A new user's lane: `--n 40` on a 40-pair run wrote 30 (the control stratum was short and
    nothing filled it); every pair of the run is now in the sample, each stratum drawn at
    random within itself (the weights stay known)."""
    import pandas as pd

    from judgeaudit.analysis.review import sample
    from judgeaudit.analysis.review_weights import STRATA

    rows = []
    for i in range(40):  # 30 misselected pairs, 10 controls: control is short of its share
        missel = i < 30
        rows.append({"pair_id": f"p{i}", "task_id": f"t{i % 7}", "agent_a": "x", "agent_b": "y",
                     "success_a": 1, "success_b": 0,
                     "judge_score_a": 1.0, "judge_score_b": 1.0, "consistent": 1,
                     "misselected": int(missel), "judge_pref": "B" if missel else "A"})  # fmt: skip
    pairs = pd.DataFrame(rows)
    drawn = sample(pairs, 40)
    assert len(drawn) == 40 and set(drawn["pair_id"]) == set(pairs["pair_id"])
    assert set(drawn["stratum"]) <= set(STRATA)
    # a sample with no stratum short is the one drawn before (its first rows as they were)
    big = pd.concat([pairs.assign(pair_id=pairs["pair_id"] + f"-{k}") for k in range(5)])
    assert len(sample(big.reset_index(drop=True), 40)) == 40


@pytest.mark.parametrize("seed", ["-1", str(2**63), "99999999999999999999999"])
def test_a_seed_out_of_range_is_one_line(out: Path, seed: str) -> None:
    """A seed outside a run spec's 0 to 2^63-1 is one line, exit 2, nothing written (it was
    numpy's "Seed must be between 0 and 2**32 - 1", exit 70)."""
    path = out.parent / f"seed{seed[:3]}.csv"
    done = cli("review", "export", str(out), "--seed", seed, "--out", str(path))
    assert done.returncode == 2, done.stderr
    assert done.stderr == (
        f"judgeaudit: review export: --seed {seed}: give a seed from 0 to 9223372036854775807"
        " (2^63-1), as a run spec's seed\n"
    )
    assert not path.exists()


def test_every_seed_a_run_takes_draws_and_small_seeds_draw_as_before(out: Path) -> None:
    """2^32 and 2^63-1 draw (each its own sample, the same again); below 2^32 the seed is
    pandas' own ``random_state`` as before, so an earlier sample reproduces."""
    from judgeaudit.analysis.review import draws

    drawn: dict[int, list[str]] = {}
    for seed in (2**32, 2**63 - 1, 2**63 - 1):
        path = out.parent / f"big{seed}.csv"
        cli_ok("review", "export", str(out), "--seed", str(seed), "--out", str(path), "--force")
        drawn.setdefault(seed, []).append(path.read_text())
    assert drawn[2**63 - 1][0] == drawn[2**63 - 1][1] != drawn[2**32][0]
    assert [draws(s) for s in (0, 7, 2**32 - 1)] == [0, 7, 2**32 - 1]


def test_width_is_in_points_and_an_old_fraction_is_refused(out: Path, tmp_path: Path) -> None:
    """``--width`` took a fraction (0.1) while its own line and ``compare --margin`` speak in
    points: it takes points, and a fraction (what 0.1 meant before) is refused with the points
    it meant, never read as a tenth of a point; nothing is written."""
    sample = tmp_path / "s.csv"
    ten = cli_ok("review", "export", str(out), "--width", "10", "--out", str(sample))
    assert "labelled pairs for a 95% interval 10 points wide" in ten.stdout
    sample.unlink()
    for old in ("0.1", "0.2"):
        done = cli("review", "export", str(out), "--width", old, "--out", str(sample))
        assert done.returncode == 2 and not sample.exists()
        points = f"{float(old) * 100:g}"
        assert done.stderr.strip() == (
            f"judgeaudit: review export: --width {old}: the width is in percentage points now (as"
            f" the suggested --n line and compare --margin); for {points} points give --width "
            f"{points}"
        )
    # under a hundredth, no suggestion that is itself refused (0.005 said "give --width 0.5")
    tiny = cli("review", "export", str(out), "--width", "0.005", "--out", str(sample))
    assert tiny.returncode == 2 and not sample.exists()
    assert tiny.stderr.strip() == (
        "judgeaudit: review export: --width 0.005: give the interval's width in percentage"
        " points, at least 1 (default 20)"
    )
    default = cli_ok("review", "export", str(out), "--out", str(sample))  # the sizing's own
    assert "labelled pairs for a 95% interval 20 points wide" in default.stdout

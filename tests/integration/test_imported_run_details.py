"""Small new-user findings (23) around an imported audit: the database's file mode, `show` with
the two agents the other way round, a lone brace in a judge template. Real CLI, real files."""

from __future__ import annotations

import json
import shutil
import sqlite3
import stat
from pathlib import Path

import pytest

from tests.cli_helpers import cli

ROLLOUTS = Path(__file__).resolve().parents[2] / "examples" / "rollouts"
RECORDED_SPEC = '[run]\nname = "rec"\nimported = "pairs.jsonl"\n[judge]\nsource = "recorded"\n'


@pytest.fixture(scope="module")
def recorded_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A recorded-verdict audit of the example production log: no model call at all."""
    tmp = tmp_path_factory.mktemp("recorded")
    pairs = tmp / "pairs.jsonl"
    done = cli(
        "import", "recorded-jsonl", str(ROLLOUTS / "recorded-verdicts.jsonl"), "--out", str(pairs)
    )
    assert done.returncode == 0, done.stderr
    (tmp / "spec.toml").write_text(RECORDED_SPEC, encoding="utf-8")
    done = cli("run", str(tmp / "spec.toml"), "--out", str(tmp / "out"), "--events", "progress")
    assert done.returncode == 0, done.stderr
    return tmp / "out"


def test_audit_db_is_private_like_the_derived_files(recorded_out: Path, tmp_path: Path) -> None:
    """The DB holds the same trajectories and verdicts as the derived files (0600): so is it,
    and so are the CSV and JSONL a recorded run leaves to ``export files``."""
    copy = tmp_path / "out"
    shutil.copytree(recorded_out, copy)
    done = cli("export", "files", str(copy))
    assert done.returncode == 0, done.stderr
    for name in ("audit.db", "audit_pairs.parquet", "audit_pairs.csv", "judge_logs.jsonl"):
        mode = stat.S_IMODE((copy / name).stat().st_mode)
        assert mode == 0o600, f"{name}: {oct(mode)}"


def test_show_with_the_agents_reversed_says_which_pair_was_meant(recorded_out: Path) -> None:
    done = cli("report", str(recorded_out), "--format", "json")
    assert done.returncode == 0, done.stderr
    for unknown in ("no-such-pair", "prod-0/t0/nobody~none"):
        listed = cli("show", str(recorded_out), unknown)
        assert listed.returncode == 2 and "not found; ids look like" in listed.stderr
        where = f"listed in {recorded_out / 'audit_pairs.csv'}, which `judgeaudit export files"
        assert where in listed.stderr and "OUT" not in listed.stderr, listed.stderr
    pair_id = _first_pair_id(recorded_out)
    head, _, agents = pair_id.rpartition("/")
    first, _, second = agents.partition("~")
    reversed_id = f"{head}/{second}~{first}"
    done = cli("show", str(recorded_out), reversed_id)
    assert done.returncode == 2
    assert f"did you mean {pair_id!r}" in done.stderr, done.stderr


def _first_pair_id(out: Path) -> str:
    db = sqlite3.connect(out / "audit.db")
    try:
        return str(db.execute("SELECT MIN(pair_id) FROM audit_pairs").fetchone()[0])
    finally:
        db.close()


def test_a_lone_brace_in_a_template_is_named_in_our_words(tmp_path: Path) -> None:
    template = tmp_path / "judge.toml"
    template.write_text(
        'output = "json"\nsystem = "Reply with JSON } only"\n'
        'user = "{task} {trajectory_a} {trajectory_b}"\n',
        encoding="utf-8",
    )
    spec = tmp_path / "spec.toml"
    spec.write_text(
        '[run]\nname = "t"\nimported = "pairs.jsonl"\n[endpoints.sim]\nbase_url = "embedded"\n'
        '[judge]\nmodel = "judge-default"\nendpoint = "sim"\nprompt = "judge.toml"\n',
        encoding="utf-8",
    )
    done = cli("run", str(spec), "--out", str(tmp_path / "out"))
    assert done.returncode == 2
    assert "Single '}'" not in done.stderr and "format string" not in done.stderr
    assert f"{template}" in done.stderr and "system" in done.stderr
    assert "{{ or }}" in done.stderr


def test_show_finds_an_accented_pair_id_typed_decomposed_or_composed(tmp_path: Path) -> None:
    """A terminal that sends "é" as e + combining accent (NFD) still finds the pair stored
    composed (NFC), whole or by its tail."""
    import unicodedata

    source = (ROLLOUTS / "recorded-verdicts.jsonl").read_text(encoding="utf-8")
    (tmp_path / "rv.jsonl").write_text(
        source.replace('"prod-0"', '"prod-caf\\u00e9-0"'), encoding="utf-8"
    )
    done = cli(
        "import",
        "recorded-jsonl",
        str(tmp_path / "rv.jsonl"),
        "--out",
        str(tmp_path / "pairs.jsonl"),
    )
    assert done.returncode == 0, done.stderr
    (tmp_path / "spec.toml").write_text(RECORDED_SPEC, encoding="utf-8")
    done = cli(
        "run", str(tmp_path / "spec.toml"), "--out", str(tmp_path / "out"), "--events", "progress"
    )
    assert done.returncode == 0, done.stderr
    db = sqlite3.connect(tmp_path / "out" / "audit.db")
    (pair_id,) = db.execute(
        "SELECT pair_id FROM audit_pairs WHERE pair_id LIKE '%/prod-caf%' ORDER BY pair_id LIMIT 1"
    ).fetchone()
    db.close()
    assert "caf\u00e9" in pair_id, "stored composed, as the file had it"
    for typed in (pair_id, pair_id.split("/", 1)[1]):
        for form in ("NFC", "NFD"):
            shown = cli("show", str(tmp_path / "out"), unicodedata.normalize(form, typed))
            assert shown.returncode == 0, (form, shown.stderr)
            assert f"pair {pair_id}" in shown.stdout


def test_show_says_a_recorded_verdict_has_no_prompt(recorded_out: Path) -> None:
    done = cli("show", str(recorded_out), _first_pair_id(recorded_out))
    assert done.returncode == 0, done.stderr
    assert (
        "rendered prompt: not stored (a recorded verdict: the log it came from holds no prompt)"
        in (done.stdout)
    )
    assert "before prompts were kept" not in done.stdout


def test_show_takes_a_tail_of_whole_parts_and_counts_what_it_matches(
    recorded_out: Path, tmp_path: Path
) -> None:
    """A tail that cuts a task id in two ("rod-0/t0/…" of "prod-0/t0/…") names no pair (it
    opened another task's pair); several matches are listed and counted, the way out said;
    with two runs in OUT the agents typed the other way round still get their "did you mean"."""
    pair_id = _first_pair_id(recorded_out)
    _run, task_and_rest = pair_id.split("/", 1)
    cut = task_and_rest[1:]
    done = cli("show", str(recorded_out), cut)
    assert done.returncode == 2 and f"pair {cut!r} not found" in done.stderr, done.stderr
    assert cli("show", str(recorded_out), task_and_rest).returncode == 0

    copy = tmp_path / "out"  # a second run of the same pairs into the same OUT
    shutil.copytree(recorded_out, copy)
    spec = recorded_out.parent / "spec.toml"
    again = cli("run", str(spec), "--out", str(copy), "--new-run", "--events", "progress")
    assert again.returncode == 0, again.stderr
    db = sqlite3.connect(copy / "audit.db")
    both = [r for (r,) in db.execute("SELECT pair_id FROM audit_pairs ORDER BY pair_id")]
    db.close()
    twice = sorted(p for p in both if p.split("/", 1)[1] == task_and_rest)
    assert len(twice) == 2
    several = cli("show", str(copy), task_and_rest)
    assert several.returncode == 2
    assert (
        f"pair {task_and_rest!r} matches 2 pairs ({twice[0]!r}, {twice[1]!r}); give the whole id"
        " (the run's id first)"
    ) in several.stderr, several.stderr
    head, _, agents = task_and_rest.rpartition("/")
    first, _, second = agents.partition("~")
    reversed_tail = f"{head}/{second}~{first}"
    meant = cli("show", str(copy), reversed_tail)
    assert meant.returncode == 2
    assert f"did you mean {twice[0]!r} or {twice[1]!r} (the agents the other way round)?" in (
        meant.stderr
    ), meant.stderr


def test_a_recorded_verdict_keeps_its_raw_output_or_none_and_show_says_which(
    tmp_path: Path,
) -> None:
    """A production log's verdict without the judge's text stored a JSON text the importer made
    up as its raw output (data contract: raw output kept verbatim): now NULL, and `show` says it
    was not recorded; a verdict with one keeps it byte for byte. No "template None" either."""
    lines = (ROLLOUTS / "recorded-verdicts.jsonl").read_text(encoding="utf-8").splitlines()
    said = 'I prefer A — “clearly” ✓\n{"winner": "A"}'
    for i, line in enumerate(lines):
        line = lines[i] = line.replace(', "prompt_hash": "f00d"', "")  # no prompt hash either
        if '"pair_id": "p000", "order": "AB"' in line:
            lines[i] = line.rstrip("}") + f", {json.dumps({'raw_output': said})[1:]}"
    log = tmp_path / "log.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    pairs = tmp_path / "pairs.jsonl"
    assert cli("import", "recorded-jsonl", str(log), "--out", str(pairs)).returncode == 0
    (tmp_path / "spec.toml").write_text(RECORDED_SPEC, encoding="utf-8")
    out = tmp_path / "out"
    assert cli("run", str(tmp_path / "spec.toml"), "--out", str(out)).returncode == 0
    db = sqlite3.connect(out / "audit.db")
    rows = db.execute('SELECT pair_id, "order", raw_output, parsed_json FROM judge_logs').fetchall()
    db.close()
    (pair_id,) = [p for p, order, raw, _ in rows if raw == said and order == "AB"]
    assert [raw for *_, raw, _ in rows].count(None) == len(rows) - 1 == 79
    assert all(parsed for *_, parsed in rows)
    shown = cli("show", str(out), pair_id)
    assert shown.returncode == 0, shown.stderr
    assert said in shown.stdout
    assert "(not recorded: the log held the verdict without the judge's text" in shown.stdout
    assert "template None" not in shown.stdout and "prompt None" not in shown.stdout

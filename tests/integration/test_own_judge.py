"""Audit your own judge: user template files on the embedded provider, rendered prompts kept."""

from __future__ import annotations

import asyncio
import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from judgeaudit.audit.spec.templates import load_template
from judgeaudit.engine import run_audit
from tests.audit_helpers import write_spec, write_tasks
from tests.cli_helpers import cli

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "prompts"


def _spec_with(tmp_path: Path, **templates: str) -> Path:
    """A small spec (12 tasks) whose [judge]/[user_simulator]/[success_check] name templates."""
    write_tasks(tmp_path / "tasks.jsonl", 12)
    spec = write_spec(tmp_path / "spec.toml", tasks="tasks.jsonl")
    text = spec.read_text()
    for role, name in templates.items():
        shutil.copy(FIXTURES / name, tmp_path / name)
        if role == "success_check":
            text += (
                f'\n[success_check]\nmodel = "judge-strict"\nendpoint = "sim"\nprompt = "{name}"\n'
            )
        else:
            header = f"[{role}]\n"
            text = text.replace(header, f'{header}prompt = "{name}"\n')
    spec.write_text(text)
    return spec


@pytest.fixture(scope="module")
def own_judge(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("own")
    spec = _spec_with(
        base,
        judge="judge_rubric.toml",
        user_simulator="user_terse.toml",
        success_check="success_strict.toml",
    )
    finished = asyncio.run(run_audit(spec, base / "out"))
    assert finished.complete
    return base


def test_every_judge_call_keeps_the_rendered_prompt_of_the_users_template(own_judge: Path) -> None:
    db = sqlite3.connect(own_judge / "out" / "audit.db")
    template = load_template(own_judge / "judge_rubric.toml", "judge")
    rows = db.execute(
        'SELECT l.prompt_hash, l.prompt_template_hash, l."order", p.messages_json'
        " FROM judge_logs l LEFT JOIN prompts p ON p.prompt_hash = l.prompt_hash"
    ).fetchall()
    assert len(rows) == db.execute("SELECT COUNT(*) FROM audit_pairs").fetchone()[0] * 2
    for prompt_hash, template_hash, order, messages_json in rows:
        assert messages_json is not None, f"{prompt_hash} does not resolve in prompts"
        system, user = json.loads(messages_json)
        assert system["content"].startswith("RUBRIC-7:")
        assert "Customer request:" in user["content"]
        assert f"Conversation shown first ({order}):\n<trajectory_A>" in user["content"]
        assert template_hash == template.hash
    distinct = db.execute("SELECT COUNT(DISTINCT prompt_hash) FROM judge_logs").fetchone()[0]
    assert distinct == db.execute("SELECT COUNT(*) FROM prompts").fetchone()[0]


def test_manifest_lists_every_template_and_its_hash(own_judge: Path) -> None:
    manifest = json.loads((own_judge / "out" / "manifest.json").read_text())
    prompts = manifest["prompts"]
    for kind, name in (
        ("judge", "judge_rubric.toml"),
        ("user_simulator", "user_terse.toml"),
        ("success_check", "success_strict.toml"),
    ):
        described = prompts["templates"][kind]
        # relative to the spec's directory: the manifest does not name the checkout
        assert described["source"] == name
        assert described["hash"] == prompts["hashes"][kind]
        assert described["hash"] == load_template(own_judge / name, kind).hash


def test_user_simulator_and_success_check_templates_drive_the_conversations(
    own_judge: Path,
) -> None:
    db = sqlite3.connect(own_judge / "out" / "audit.db")
    endings = dict(db.execute("SELECT ending, COUNT(*) FROM trajectories GROUP BY ending"))
    assert endings.get("finished", 0) > 0, endings
    labelled = db.execute(
        "SELECT COUNT(*) FROM trajectories WHERE llm_success IS NOT NULL"
    ).fetchone()[0]
    assert labelled == db.execute("SELECT COUNT(*) FROM trajectories").fetchone()[0]


def test_show_prints_the_rendered_prompt_next_to_the_raw_output(own_judge: Path) -> None:
    out = own_judge / "out"
    pair_id = (
        sqlite3.connect(out / "audit.db")
        .execute("SELECT pair_id FROM audit_pairs ORDER BY pair_id LIMIT 1")
        .fetchone()[0]
    )
    tail = pair_id.split("/", 1)[1]  # a unique tail is enough
    done = cli("show", str(out), tail)
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert text.startswith(f"pair {pair_id}")
    assert text.count("-- rendered prompt:") == 2 and "RUBRIC-7:" in text
    assert text.index("RUBRIC-7:") < text.index("-- raw output:")
    detail = json.loads(cli("show", str(out), pair_id, "--format", "json").stdout)
    assert [c["order"] for c in detail["judge_calls"]] == ["AB", "BA"]
    assert detail["judge_calls"][0]["messages"][0]["content"].startswith("RUBRIC-7:")
    missing = cli("show", str(out), "no-such-pair")
    assert missing.returncode == 2 and "not found" in missing.stderr


@pytest.mark.parametrize(
    ("name", "scores"), [("judge_scores.toml", True), ("judge_winner.toml", False)]
)
def test_scores_and_winner_output_modes_work_on_the_embedded_provider(
    tmp_path: Path, name: str, scores: bool
) -> None:
    spec = _spec_with(tmp_path, judge=name)
    finished = asyncio.run(run_audit(spec, tmp_path / "out"))
    assert finished.complete
    db = sqlite3.connect(tmp_path / "out" / "audit.db")
    assert (
        db.execute("SELECT COUNT(*) FROM judge_logs WHERE parse_error IS NOT NULL").fetchone()[0]
        == 0
    )
    with_scores = db.execute(
        "SELECT COUNT(*) FROM audit_pairs WHERE judge_score_a IS NOT NULL"
    ).fetchone()[0]
    total = db.execute("SELECT COUNT(*) FROM audit_pairs").fetchone()[0]
    assert with_scores == (total if scores else 0)
    assert (
        db.execute("SELECT COUNT(*) FROM audit_pairs WHERE judge_pref != 'tie'").fetchone()[0] > 0
    )


def test_bad_template_is_one_line_naming_file_and_placeholder_and_writes_nothing(
    tmp_path: Path,
) -> None:
    spec = _spec_with(tmp_path, judge="judge_rubric.toml")
    template = tmp_path / "judge_rubric.toml"
    template.write_text(template.read_text().replace("{trajectory_b}", "{trajectory_c}"))
    done = cli("run", str(spec), "--out", str(tmp_path / "out"))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and str(template) in done.stderr
    assert "unknown placeholder {trajectory_c}" in done.stderr
    assert not (tmp_path / "out").exists()

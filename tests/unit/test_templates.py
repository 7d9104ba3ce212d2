"""Prompt templates as user files: format, placeholders, refusals, output modes."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgeaudit.audit.inputs import load_spec
from judgeaudit.audit.spec import SpecError
from judgeaudit.audit.spec.templates import TemplateError, builtin, load_template
from judgeaudit.audit.units.verdict_parse import VerdictError, parse_output, parse_success
from tests.audit_helpers import write_spec

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "prompts"


def _template(tmp_path: Path, body: str, name: str = "t.toml") -> Path:
    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    return path


def test_builtin_templates_are_valid_files_for_every_kind_and_language() -> None:
    for kind in ("judge", "user_simulator", "success_check"):
        for language in ("en", "zh"):
            template = builtin(kind, language)
            assert template.source == f"builtin:{kind}.{language}.toml"
            assert len(template.hash) == 16


def test_custom_judge_template_renders_task_trajectories_order_and_literal_braces() -> None:
    template = load_template(FIXTURES / "judge_rubric.toml", "judge")
    system, user = template.messages(
        task="GOAL", trajectory_a="<A>", trajectory_b="<B>", order="BA", language="en"
    )
    assert system["role"] == "system" and '{"winner": "A"|"B"|"tie"' in system["content"]
    assert user["content"].startswith("Customer request:\nGOAL")
    assert "Conversation shown first (BA):\n<A>" in user["content"]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("user = '{task} {trajectory_a} {trajectory_b} {rubric}'", "unknown placeholder {rubric}"),
        ("user = '{task} {trajectory_a}'", "no {trajectory_b} placeholder"),
        ("user = '{trajectory_a} {trajectory_b}'", "no {task} placeholder"),
        ("user = '{task} {trajectory_a} {trajectory_b} {\"winner\": 1}'", "placeholder"),
        ("user = '{task} {trajectory_a} {trajectory_b} }'", "a brace without its pair"),
        ("user = '{task!r} {trajectory_a} {trajectory_b}'", "no format or conversion"),
        ("usr = '{task} {trajectory_a} {trajectory_b}'", "usr: unknown key"),
        ("output = 'yaml'\nuser = '{task} {trajectory_a} {trajectory_b}'", "'yaml' is not one"),
        ("system = 'only a system prompt {task} {trajectory_a} {trajectory_b}'", "user: missing"),
        ("user = 3", "user: must be a string"),
        ("user = '''", "not valid TOML"),
    ],
)
def test_bad_judge_template_is_refused_naming_file_and_placeholder(
    tmp_path: Path, body: str, expected: str
) -> None:
    path = _template(tmp_path, body)
    with pytest.raises(TemplateError) as caught:
        load_template(path, "judge")
    message = str(caught.value)
    assert message.startswith(str(path)) and expected in message and "\n" not in message


def test_a_template_that_is_not_utf8_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "latin1.toml"
    path.write_bytes("user = '{task} {trajectory_a} {trajectory_b} café'".encode("latin-1"))
    with pytest.raises(TemplateError, match=r"latin1\.toml:1: not UTF-8 \(byte 0xe9"):
        load_template(path, "judge")


def test_user_simulator_and_success_check_have_their_own_placeholders(tmp_path: Path) -> None:
    assert load_template(FIXTURES / "user_terse.toml", "user_simulator").user == ""
    bad = _template(tmp_path, "system = 'no goal here'")
    with pytest.raises(TemplateError, match=r"no \{task\} placeholder"):
        load_template(bad, "user_simulator")
    wrong = _template(tmp_path, "system = '{task} {trajectory_a}'", "u.toml")
    with pytest.raises(TemplateError, match=r"unknown placeholder \{trajectory_a\}"):
        load_template(wrong, "user_simulator")
    check = _template(tmp_path, "user = '{task}'", "c.toml")
    with pytest.raises(TemplateError, match=r"no \{trajectory\} placeholder"):
        load_template(check, "success_check")


def test_spec_prompt_keys_load_templates_relative_to_the_spec(tmp_path: Path) -> None:
    spec = write_spec(tmp_path / "spec.toml")
    (tmp_path / "rubric.toml").write_text(
        (FIXTURES / "judge_rubric.toml").read_text(encoding="utf-8"), encoding="utf-8"
    )
    plain_hash = load_spec(spec).spec_hash()
    spec.write_text(
        spec.read_text().replace(
            'model = "judge-default"', 'model = "judge-default"\nprompt = "rubric.toml"'
        )
    )
    loaded = load_spec(spec)
    assert loaded.templates["judge"].source == str(tmp_path / "rubric.toml")
    assert loaded.spec_hash() != plain_hash
    (tmp_path / "rubric.toml").write_text(
        (FIXTURES / "judge_rubric.toml").read_text().replace("RUBRIC-7", "RUBRIC-8")
    )
    assert load_spec(spec).spec_hash() != loaded.spec_hash(), "editing the template = new run"
    text = spec.read_text()
    spec.write_text(text.replace('prompt = "rubric.toml"', 'prompt = "missing.toml"'))
    # the key and where it looked, not the template reader's bare path (a new user)
    with pytest.raises(SpecError, match=r"judge\.prompt: .*missing\.toml: no such file"):
        load_spec(spec)
    spec.write_text(text.replace("[[agents]]", '[[agents]]\nprompt = "rubric.toml"', 1))
    with pytest.raises(SpecError, match=r"agents\[0\]\.prompt: unknown key"):
        load_spec(spec)


def test_winner_only_judge_cannot_feed_a_judge_score_gap(tmp_path: Path) -> None:
    spec = write_spec(tmp_path / "spec.toml")
    (tmp_path / "w.toml").write_text((FIXTURES / "judge_winner.toml").read_text())
    spec.write_text(
        spec.read_text().replace(
            'model = "judge-default"', 'model = "judge-default"\nprompt = "w.toml"'
        )
        + '\n[gap]\nsource = "judge"\n'
    )
    with pytest.raises(SpecError, match=r'gap\.source: "judge" needs judge scores'):
        load_spec(spec)


def test_output_modes_read_what_the_template_declared() -> None:
    full = '{"winner": "B", "score_a": 4.5, "score_b": 2.0, "reasons": ["x"]}'
    assert parse_output(full, "json").winner == "B"
    scored = parse_output(full, "scores")  # the declared scores decide, not the winner field
    assert (scored.winner, scored.score_a, scored.score_b) == ("A", 4.5, 2.0)
    assert parse_output("score_a: 1.5\nscore_b: 3", "scores").winner == "B"
    assert parse_output('{"score_a": 3, "score_b": 3}', "scores").winner == "tie"
    assert parse_output(full, "winner").winner == "B"
    assert parse_output(full, "winner").score_a is None
    assert parse_output("A", "winner").winner == "A"
    assert parse_output("Winner: tie.", "winner").winner == "tie"
    with pytest.raises(VerdictError):
        parse_output("I cannot decide", "winner")
    with pytest.raises(VerdictError):
        parse_output('{"score_a": 9, "score_b": 1}', "scores")
    assert parse_success('```json\n{"success": true}\n```') == 1
    assert parse_success("no idea") is None


def test_builtin_templates_render_the_retry_with_the_run_language() -> None:
    en = builtin("judge", "en").retry_message(language="en", order="AB")
    assert en.startswith("Your previous reply could not be parsed") and '{"winner"' in en
    zh = builtin("judge", "zh").retry_message(language="zh", order="BA")
    assert zh.startswith("上一条回复无法解析")
    custom = load_template(FIXTURES / "judge_scores.toml", "judge")
    assert '{"score_a": 0-5' in custom.retry_message(language="en")
    assert "只输出" in custom.retry_message(language="zh")

"""Bad specs and task files get one line naming the file, line/key and the fix."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from judgeaudit.audit.inputs import load_spec
from judgeaudit.audit.inputs.imported import load_imported
from judgeaudit.audit.spec import SpecError
from judgeaudit.audit.tasks import TASK_TYPES, builtin_retail, load_jsonl
from judgeaudit.audit.tasks.domain import Environment
from judgeaudit.audit.tasks.errors import TaskError
from judgeaudit.audit.tasks.success import state_check
from judgeaudit.audit.units.verdict_parse import VerdictError, parse_verdict
from tests.audit_helpers import write_spec


def test_builtin_retail_has_40_tasks_over_five_types() -> None:
    tasks = builtin_retail()
    assert len(tasks) >= 40
    assert {t.task_type for t in tasks} == set(TASK_TYPES)
    for task in tasks:
        assert task.goal("en").startswith("Opening request:")
        assert task.goal("zh").startswith("开场请求：")


def test_expected_state_is_reached_by_the_correct_actions() -> None:
    task = builtin_retail()[0]
    env = Environment(task.initial_state)
    order = task.goal("en").split("order ")[1].split(".")[0]
    item = task.goal("en").split("item ")[1].split(" ")[0]
    result = env.call("refund_item", json.dumps({"order_id": order, "item_id": item}))
    told = f"Refunded {result['amount']}"
    assert state_check(task, env.state, told).success
    assert not state_check(task, env.state, "All done!").success  # the amount was never told
    wrong = Environment(task.initial_state)
    other = next(i for i in task.initial_state["orders"][order]["items"] if i != item)
    wrong.call("refund_item", json.dumps({"order_id": order, "item_id": other}))
    assert not state_check(task, wrong.state, told).success


def test_tool_failure_fails_once_then_works() -> None:
    task = next(t for t in builtin_retail() if t.task_type == "tool_failure")
    env = Environment(task.initial_state, task.fail_once)
    assert task.fail_once is not None
    order = next(iter(o for o in task.initial_state["orders"] if o in task.goal("en")))
    args = {"refund_item": {"order_id": order, "item_id": "x"}}.get(
        task.fail_once, {"order_id": order}
    )
    assert "temporary failure" in env.call(task.fail_once, json.dumps(args))["error"]
    assert "temporary failure" not in str(env.call(task.fail_once, json.dumps(args)))


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            lambda s: s.replace("concurrency = 8", "concurency = 8"),
            r"run.concurency: unknown key; did you mean 'concurrency'\?",
        ),
        (lambda s: s.replace("trials = 1", 'trials = "one"'), r"run.trials: must be int, got str"),
        (
            lambda s: s.replace(
                'endpoint = "sim"\n\n[[agents]]\nname = "weak"',
                'endpoint = "nope"\n\n[[agents]]\nname = "weak"',
            ),
            r"agents\[0\].endpoint: 'nope' is not defined",
        ),
        (
            lambda s: s.replace(
                'base_url = "embedded"', 'base_url = "https://taotoken.net/api?utm_source=blog"'
            ),
            r"query string \(tracking utm_ parameters\?\)",
        ),
        (
            lambda s: s.replace("swap = true", 'swap = true\nlanguage = "fr"'),
            r"run.language: 'fr' is not one of en, zh",
        ),
        (lambda s: s.replace("[judge]", "[judgee]"), r"judgee: unknown key"),
    ],
)
def test_bad_spec_names_key_and_fix(tmp_path: Path, edit, message: str) -> None:  # type: ignore[no-untyped-def]
    path = write_spec(tmp_path / "spec.toml")
    path.write_text(edit(path.read_text()))
    with pytest.raises(SpecError, match=message) as info:
        load_spec(path)
    assert str(info.value).startswith(str(path))
    assert "\n" not in str(info.value)


def test_same_source_bias_warning(tmp_path: Path) -> None:
    path = write_spec(tmp_path / "spec.toml", user="judge-default")
    path.write_text(path.read_text().replace("temperature = 0.7", "temperature = 0.0"))
    assert any("same-source bias" in w for w in load_spec(path).warnings)
    assert not load_spec(write_spec(tmp_path / "ok.toml")).warnings


def test_spec_hash_ignores_speed_settings(tmp_path: Path) -> None:
    a = load_spec(write_spec(tmp_path / "a.toml"))
    path = write_spec(tmp_path / "b.toml")
    path.write_text(path.read_text().replace("concurrency = 8", "concurrency = 64"))
    assert load_spec(path).spec_hash() == a.spec_hash()
    assert load_spec(write_spec(tmp_path / "c.toml", seed=4)).spec_hash() != a.spec_hash()


def test_task_file_errors_name_file_line_field(tmp_path: Path) -> None:
    good = builtin_retail()[0]
    row: dict[str, Any] = {
        "task_id": "x1",
        "task_type": "refund",
        "instruction": "Opening request: hi",
        "initial_state": good.initial_state,
        "expected_state": good.expected_state,
    }
    path = tmp_path / "tasks.jsonl"
    path.write_text(
        json.dumps(row) + "\n" + json.dumps({**row, "task_id": "x2", "task_type": "dance"}) + "\n"
    )
    with pytest.raises(TaskError, match=rf"{path}:2: task_type: 'dance' is not one of"):
        load_jsonl(path)
    path.write_text(json.dumps(row) + "\n{not json\n")
    with pytest.raises(TaskError, match=rf"{path}:2: not valid JSON"):
        load_jsonl(path)
    del row["expected_state"]
    path.write_text(json.dumps(row) + "\n")
    with pytest.raises(
        TaskError, match=rf"{path}:1: expected_state: missing; give expected_state or actions"
    ):
        load_jsonl(path)
    row["actions"] = [
        {"tool": "cancel_order", "args": {"order_id": "O-1001"}}
    ]  # delivered: refused
    path.write_text(json.dumps(row) + "\n")
    with pytest.raises(
        TaskError, match=rf"{path}:1: actions\[0\]: cancel_order.*can no longer be cancelled"
    ):
        load_jsonl(path)


def test_imported_file_errors(tmp_path: Path) -> None:
    path = tmp_path / "pairs.jsonl"
    path.write_text(
        json.dumps(
            {
                "task_id": "t",
                "task": "x",
                "agent_a": "a",
                "agent_b": "b",
                "trajectory_a": [{"role": "robot", "content": "x"}],
                "trajectory_b": "user: hi",
                "success_a": 1,
                "success_b": 0,
            }
        )
        + "\n"
    )
    with pytest.raises(TaskError, match=rf"{path}:1: trajectory_a\[0\].role: must be one of"):
        load_imported(path)
    path.write_text(
        json.dumps(
            {
                "task_id": "t",
                "task": "x",
                "agent_a": "a",
                "agent_b": "b",
                "trajectory_a": "user: hi",
                "trajectory_b": "user: hi",
                "success_a": 2,
                "success_b": 0,
            }
        )
        + "\n"
    )
    with pytest.raises(TaskError, match=rf"{path}:1: success_a: must be 0/1"):
        load_imported(path)


@pytest.mark.parametrize(
    ("raw", "winner"),
    [
        ('{"winner": "A", "score_a": 4, "score_b": 2, "reasons": ["x"]}', "A"),
        ('```json\n{"winner": "B", "score_a": 1, "score_b": 3}\n```', "B"),
        (
            'Here is my verdict:\n{"winner": "tie", "score_a": 3, "score_b": 3}\nHope this helps.',
            "tie",
        ),
        ('{"note": "x"} then {"winner": "a", "score_a": 5, "score_b": 0}', "A"),
    ],
)
def test_verdict_parsing_survives_fences_and_prose(raw: str, winner: str) -> None:
    assert parse_verdict(raw).winner == winner


@pytest.mark.parametrize("prose", ["", "Verdict: ", "```json\n"])
def test_a_reason_quoting_a_quote_and_a_brace_is_read(prose: str) -> None:
    """A reason may quote the agent (an escaped quote, then a brace): the verdict is still found,
    with its reasons as written (the brace scan once ended the string at the escaped quote)."""
    verdict = {
        "winner": "B",
        "score_a": 1,
        "score_b": 4,
        "reasons": ['A wrote "{" and stopped', "B ok"],
    }
    raw = prose + json.dumps(verdict) + ("\n```" if prose.startswith("```") else "")
    parsed = parse_verdict(raw)
    assert (parsed.winner, parsed.reasons) == ("B", ['A wrote "{" and stopped', "B ok"])


@pytest.mark.parametrize(
    "raw",
    [
        '{"winner": "A", "score_a": 4',
        "{'winner': 'A'}",
        '{"winner": "C"}',
        '{"winner": "A", "score_a": 9}',
        "no json",
    ],
)
def test_unparsable_verdicts_raise(raw: str) -> None:
    with pytest.raises(VerdictError):
        parse_verdict(raw)


def test_example_specs_parse() -> None:
    root = Path(__file__).resolve().parents[2] / "examples"
    demo, gateway = load_spec(root / "demo.toml"), load_spec(root / "taotoken.toml")
    assert len(demo.agents) >= 5 and demo.endpoints["sim"].embedded
    assert gateway.endpoints["taotoken"].profile == "taotoken-sdk"
    assert not gateway.warnings


def test_profile_endpoint_excludes_base_url(tmp_path: Path) -> None:
    path = write_spec(tmp_path / "spec.toml")
    path.write_text(
        path.read_text().replace('base_url = "embedded"', 'base_url = "embedded"\nprofile = "x"')
    )
    with pytest.raises(SpecError, match="profile supplies base_url and key"):
        load_spec(path)

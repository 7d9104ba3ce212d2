"""Bad-input rows for ``judgeaudit import`` and task files (new-user findings 8-11, 17, 23).

Each row is refused with one line naming the input file, line or JSON path and field, exit 2,
and nothing written; the builders below make the smallest valid record, then break one thing.
"""

from __future__ import annotations

import json
from typing import Any

from tests.badinput.cases import TASKS_SPEC, Case, jsonl, pair, run_imported, run_spec, spec

GOAL = "You are Zoë. Ask for a refund of the mug in order #W1001."


def tau(task_id: Any = 0, trial: Any = 0, **overrides: Any) -> dict[str, Any]:
    """One τ-bench result; ``overrides`` replace keys (``None`` drops the key)."""
    item: dict[str, Any] = {
        "task_id": task_id,
        "trial": trial,
        "reward": 1.0,
        "info": {"task": {"user_id": "u0", "instruction": GOAL, "actions": []}},
        "traj": [
            {"role": "system", "content": "Retail policy."},
            {"role": "user", "content": "Refund my mug, please."},
            {"role": "assistant", "content": f"Refunded, trial {trial}."},
        ],
    }
    item.update(overrides)
    return {k: v for k, v in item.items() if v is not None}


def tau_file(*items: dict[str, Any]) -> str:
    return json.dumps(list(items), ensure_ascii=False)


def tau2_file(sims: list[dict[str, Any]], reason: str = "Refund the mug.") -> str:
    return json.dumps(
        {
            "info": {"agent_info": {"llm": "m"}, "environment_info": {"domain_name": "retail"}},
            "tasks": [{"id": "0", "user_scenario": {"instructions": {"reason_for_call": reason}}}],
            "simulations": sims,
        },
        ensure_ascii=False,
    )


def sim(trial: int = 0, **overrides: Any) -> dict[str, Any]:
    item: dict[str, Any] = {
        "task_id": "0",
        "trial": trial,
        "reward_info": {"reward": 1.0},
        "messages": [
            {"role": "user", "content": "Refund my mug."},
            {"role": "assistant", "content": f"Done ({trial})."},
        ],
    }
    item.update(overrides)
    return {k: v for k, v in item.items() if v is not None}


def oa(**overrides: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "task_id": "t1",
        "agent": "x",
        "trial": 0,
        "task": "Refund the mug.",
        "messages": [{"role": "user", "content": "refund"}, {"role": "assistant", "content": "ok"}],
        "success": 1,
    }
    row.update(overrides)
    return {k: v for k, v in row.items() if v is not None}


def verdict_line(**overrides: Any) -> dict[str, Any]:
    """A recorded verdict for the pair :func:`oa` x and y make (openai-jsonl's verdict line)."""
    row: dict[str, Any] = {
        "type": "verdict",
        "task_id": "t1",
        "agent_a": "x",
        "agent_b": "y",
        "order": "AB",
        "winner": "A",
        "score_a": 4.0,
        "score_b": 2.0,
    }
    return row | overrides


def tau_import(case_id: str, files: dict[str, str], *needles: str, agents: int = 0) -> Case:
    """``import tau-bench`` over ``files`` in order, with ``--agent a``, ``--agent b``... if asked."""
    argv: list[str] = ["import", "tau-bench", *(f"{{tmp}}/{name}" for name in files)]
    for index in range(agents):
        argv += ["--agent", "ab"[index]]
    return Case(case_id, (*argv, "--out", "{tmp}/p.jsonl"), 2, needles, dict(files))


def one_file(case_id: str, fmt: str, name: str, text: str, *needles: str) -> Case:
    return Case(
        case_id,
        ("import", fmt, f"{{tmp}}/{name}", "--out", "{tmp}/p.jsonl"),
        2,
        needles,
        {name: text},
    )


TAU2_TWO_AGENTS = tuple(
    [
        "import",
        "tau2-bench",
        "{tmp}/a.json",
        "{tmp}/b.json",
        "--agent",
        "a",
        "--agent",
        "b",
        "--out",
        "{tmp}/p.jsonl",
    ]
)

PRICED = {"SKU-103": {"name": "Mug", "price": 5139}}
ORDER = {
    "order_id": "O-1001",
    "customer": "C-1",
    "status": "delivered",
    "items": ["SKU-103"],
    "address": "1 Main St",
    "tracking": "TRK-1",
}


def task_row(catalog: Any = None, order: Any = None, **overrides: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "task_id": "zh-1",
        "task_type": "refund",
        "instruction": {"en": "Refund item SKU-103 in order O-1001.", "zh": "退款 SKU-103 ☕"},
        "initial_state": {
            "catalog": PRICED if catalog is None else catalog,
            "orders": {"O-1001": ORDER if order is None else order},
        },
        "actions": [{"tool": "refund_item", "args": {"order_id": "O-1001", "item_id": "SKU-103"}}],
        "required_facts": ["$51.39"],
    }
    row.update(overrides)
    return row


def without(mapping: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in mapping.items() if k != key}


IMPORT_CASES: list[Case] = [
    # --- 8: a file that contributes nothing, or the same file twice ------------------------------
    tau_import(
        "import-tau-empty-file-for-an-agent",
        {"a.json": tau_file(tau(0), tau(1)), "b.json": "[]"},
        "{tmp}/b.json",
        "agent 'b'",
        "no trajectories",
        agents=2,
    ),
    Case(
        "import-tau2-no-simulations-for-an-agent",
        TAU2_TWO_AGENTS,
        2,
        ("{tmp}/b.json", "agent 'b'", "no trajectories"),
        {"a.json": tau2_file([sim(0), sim(1)]), "b.json": tau2_file([])},
    ),
    Case(
        "import-same-file-twice",
        ("import", "tau-bench", "{tmp}/a.json", "{tmp}/a.json", "--out", "{tmp}/p.jsonl"),
        2,
        ("{tmp}/a.json", "given twice"),
        {"a.json": tau_file(tau(0), tau(0, trial=1))},
    ),
    tau_import(
        "import-same-content-twice",
        {"a.json": tau_file(tau(0)), "copy.json": tau_file(tau(0))},
        "{tmp}/copy.json",
        "same content as {tmp}/a.json",
    ),
    Case(
        "import-agent-flag-empty",
        ("import", "tau-bench", "{tmp}/a.json", "--agent", "", "--out", "{tmp}/p.jsonl"),
        2,
        ("--agent", "not a usable name"),
        {"a.json": tau_file(tau(0), tau(0, trial=1))},
    ),
    # --- 9: one task id, two different tasks -----------------------------------------------------
    tau_import(
        "import-tau-task-conflict-across-files",
        {
            "a.json": tau_file(tau(0)),
            "b.json": tau_file(
                tau(0, info={"task": {"instruction": "something else", "actions": []}})
            ),
        },
        "{tmp}/b.json: [0].info.task.instruction",
        "task_id '0'",
        "{tmp}/a.json: [0]",
        agents=2,
    ),
    tau_import(
        "import-tau-task-conflict-same-file",
        {
            "a.json": tau_file(
                tau(1), tau(1, trial=1, info={"task": {"instruction": "DIFFERENT", "actions": []}})
            )
        },
        "{tmp}/a.json: [1].info.task.instruction",
        "different task",
        "[0]",
    ),
    tau_import(
        "import-tau-context-conflict",
        {
            "a.json": tau_file(tau(0)),
            "b.json": tau_file(
                tau(0, traj=[{"role": "system", "content": "Other policy."}, *tau(0)["traj"][1:]])
            ),
        },
        "{tmp}/b.json: [0].traj",
        "system prompt",
        agents=2,
    ),
    Case(
        "import-tau2-task-conflict-across-files",
        TAU2_TWO_AGENTS,
        2,
        ("{tmp}/b.json: tasks[0].user_scenario.instructions", "different task"),
        {"a.json": tau2_file([sim(0)]), "b.json": tau2_file([sim(0)], reason="Cancel it.")},
    ),
    # --- 10: openai-jsonl names the input line, not the output -----------------------------------
    one_file(
        "import-jsonl-task-conflict-names-the-input",
        "openai-jsonl",
        "r.jsonl",
        jsonl(oa(), oa(agent="y", task="Something else.")),
        "{tmp}/r.jsonl:2: task",
        "{tmp}/r.jsonl:1",
    ),
    # --- a pretty-printed JSON document where JSONL is expected: a column in line 1 named, not
    # the cause; the way out is said (twenty-seventh session) ---------------------------------
    one_file(
        "import-jsonl-pretty-array",
        "openai-jsonl",
        "r.json",
        json.dumps([oa(), oa(agent="y")], indent=2),
        "{tmp}/r.json:1: not valid JSON",
        "r.json is a JSON array: one object per line, e.g. jq -c '.[]' {tmp}/r.json",
    ),
    one_file(
        "import-recorded-pretty-object",
        "recorded-jsonl",
        "log.jsonl",
        json.dumps(oa(), indent=2),
        "{tmp}/log.jsonl:1: not valid JSON",
        "log.jsonl is pretty-printed: one object per line, e.g. jq -c . {tmp}/log.jsonl",
    ),
    one_file(  # a spec given as the log: its `[run]` is no JSON array (twenty-ninth session)
        "import-recorded-a-toml-spec",
        "recorded-jsonl",
        "spec.toml",
        '[run]\nname = "x"\nimported = "pairs.jsonl"\n',
        "{tmp}/spec.toml:1: not valid JSON",
        "spec.toml looks like TOML (its first line is a table header, [run]): give the "
        "JSON-lines file, one object per line",
    ),
    one_file(  # two judges on one pair: the verdict's own line and both models (twenty-ninth)
        "import-recorded-two-judge-models",
        "recorded-jsonl",
        "log.jsonl",
        jsonl(
            {
                "pair_id": "p1",
                "task_id": "t",
                "agent_a": "a",
                "agent_b": "b",
                "success_a": 1,
                "success_b": 0,
            },
            {"pair_id": "p1", "order": "AB", "winner": "A", "judge_model": "rm-j"},
            {"pair_id": "p1", "order": "BA", "winner": "A", "judge_model": "other-j"},
        ),
        "{tmp}/log.jsonl:3: judge_model: 'other-j' for pair 'p1', whose verdict on "
        "{tmp}/log.jsonl:2 gives 'rm-j'; a pair is judged by one judge: give its verdicts one "
        "judge_model",
    ),
    one_file(
        "import-jsonl-array-on-one-line",
        "openai-jsonl",
        "r.json",
        json.dumps([oa(), oa(agent="y")]) + "\n",
        "{tmp}/r.json:1: expected a JSON object per line, got a list; r.json is a JSON array",
    ),
    # --- a verdict line's field is named at its own line (it was "the pair of r.jsonl:1 and
    # r.jsonl:2: verdicts[0].score_a", the trajectories' lines and the pairs file's path) -------
    *(
        one_file(
            f"import-jsonl-verdict-{field}",
            "openai-jsonl",
            "r.jsonl",
            jsonl(oa(), oa(agent="y", success=0), verdict_line(**{field: value})),
            f"{{tmp}}/r.jsonl:3: {field}:",
            says,
        )
        for field, value, says in (
            ("score_a", "4", "must be a number, got a string"),
            ("order", "ab", 'must be "AB" or "BA", got "ab"'),
            ("score_b", 7, "5"),
        )
    ),
    # --- 11: missing or mistyped fields ----------------------------------------------------------
    one_file(
        "import-tau-instruction-number",
        "tau-bench",
        "r.json",
        tau_file(tau(0, info={"task": {"instruction": 42}})),
        "{tmp}/r.json: [0].info.task.instruction",
        "must be a string, got a number",
    ),
    one_file(
        "import-tau-info-missing",
        "tau-bench",
        "r.json",
        tau_file(without(tau(0), "info")),
        "{tmp}/r.json: [0].info",
        "missing",
    ),
    one_file(
        "import-tau-trial-missing",
        "tau-bench",
        "r.json",
        tau_file(without(tau(0), "trial")),
        "{tmp}/r.json: [0].trial",
        "missing",
    ),
    one_file(
        "import-tau-traj-empty",
        "tau-bench",
        "r.json",
        tau_file(tau(0, traj=[])),
        "{tmp}/r.json: [0].traj",
        "no user, assistant or tool message",
    ),
    one_file(
        "import-tau2-messages-missing",
        "tau2-bench",
        "r.json",
        tau2_file([without(sim(0), "messages")]),
        "{tmp}/r.json: simulations[0].messages",
        "missing",
    ),
    one_file(
        "import-tau2-task-id-not-in-tasks",
        "tau2-bench",
        "r.json",
        tau2_file([sim(0), {**sim(1), "task_id": "7"}]),
        "{tmp}/r.json: simulations[1].task_id",
        "'7' is not in tasks",
    ),
    one_file(
        "import-jsonl-agent-missing",
        "openai-jsonl",
        "r.jsonl",
        jsonl(without(oa(), "agent")),
        "{tmp}/r.jsonl:1: agent",
        "missing",
        "--agent",
    ),
    one_file(  # the agent is named by the file's field: say which, and the way out
        "import-tau2-agent-named-by-llm",
        "tau2-bench",
        "r.json",
        tau2_file([sim(0)]).replace('"llm": "m"', '"llm": "openai/t1"'),
        "{tmp}/r.json: info.agent_info.llm",
        "has the part 't1'",
        "without --agent this field names the agent: pass --agent NAME",
    ),
    one_file(  # a recorded-verdict log given to the trajectory importer
        "import-jsonl-a-recorded-log",
        "openai-jsonl",
        "r.jsonl",
        jsonl({"type": "pair", "pair_id": "p1", "task_id": "t1"}),
        "{tmp}/r.jsonl:1: type: 'pair'",
        "(a recorded log's pair: `import recorded-jsonl`)",
    ),
    one_file(  # the hint names the page that has the format (it named the README, which no
        # longer holds it)
        "import-jsonl-no-messages",
        "openai-jsonl",
        "r.jsonl",
        jsonl(oa(messages=None)),
        "{tmp}/r.jsonl:1: messages: missing",
        "(see the openai-jsonl format in docs/rollouts.md)",
    ),
    one_file(
        "import-jsonl-agent-number",
        "openai-jsonl",
        "r.jsonl",
        jsonl(oa(agent=5)),
        "{tmp}/r.jsonl:1: agent",
        "must be a string, got a number",
    ),
    one_file(
        "import-jsonl-messages-empty",
        "openai-jsonl",
        "r.jsonl",
        jsonl(oa(messages=[{"role": "system", "content": "policy only"}])),
        "{tmp}/r.jsonl:1: messages",
        "no user, assistant or tool message",
    ),
    one_file(
        "import-recorded-pair-id-number",
        "recorded-jsonl",
        "r.jsonl",
        jsonl({"pair_id": 12, "order": "AB", "winner": "A"}),
        "{tmp}/r.jsonl:1: pair_id",
        "must be a string, got a number",
    ),
    one_file(
        "import-recorded-pair-line-pair-id-number",
        "recorded-jsonl",
        "r.jsonl",
        jsonl({"type": "pair", "pair_id": 12, "task_id": "t"}),
        "{tmp}/r.jsonl:1: pair_id",
        "must be a string, got a number",
    ),
    one_file(
        "import-recorded-agent-number",
        "recorded-jsonl",
        "r.jsonl",
        jsonl({**pair(pair_id="p", agent_b=7), "type": "pair"}),
        "{tmp}/r.jsonl:1: agent_b",
        "must be a string, got a number",
    ),
    # two pairs that would share one pair id (a new user's finding, session 12): refused by the
    # agent name, at its line, before anything is written
    one_file(
        "import-recorded-pair-id-collision",
        "recorded-jsonl",
        "r.jsonl",
        jsonl(
            {
                **pair(pair_id="p1", task_id="T/t0/openai", agent_a="gpt-4o", agent_b="z"),
                "type": "pair",
            },
            {
                **pair(pair_id="p2", task_id="T", agent_a="openai/t0/gpt-4o", agent_b="z"),
                "type": "pair",
            },
        ),
        "{tmp}/r.jsonl:2: agent_a",
        "'t0'",
    ),
    # --- 23: one location syntax, the right hint for a JSON file ---------------------------------
    one_file(
        "import-recorded-bad-winner-location",
        "recorded-jsonl",
        "r.jsonl",
        jsonl({"pair_id": "p", "order": "AB", "winner": "X"}),
        "{tmp}/r.jsonl:1: winner:",
    ),
    one_file(
        "import-tau-empty-file-hint",
        "tau-bench",
        "r.json",
        "",
        "{tmp}/r.json",
        "not valid JSON",
        "one JSON list",
    ),
    # --- 17: task-file state errors name the state field -----------------------------------------
    run_spec(
        "tasks-price-is-a-string",
        TASKS_SPEC,
        "{tmp}/tasks.jsonl:1: initial_state.catalog.SKU-103.price",
        "integer cents",
        tasks__jsonl=jsonl(task_row(catalog={"SKU-103": {"name": "Mug", "price": "51.39"}})),
    ),
    run_spec(
        "tasks-order-without-order-id",
        TASKS_SPEC,
        "{tmp}/tasks.jsonl:1: initial_state.orders.O-1001.order_id",
        "missing",
        tasks__jsonl=jsonl(task_row(order=without(ORDER, "order_id"))),
    ),
    run_spec(
        "tasks-order-item-not-in-catalog",
        TASKS_SPEC,
        "{tmp}/tasks.jsonl:1: initial_state.orders.O-1001.items[0]",
        "SKU-999",
        tasks__jsonl=jsonl(task_row(order={**ORDER, "items": ["SKU-999"]})),
    ),
    run_spec(
        "tasks-action-not-an-object",
        TASKS_SPEC,
        "{tmp}/tasks.jsonl:1: actions[0]",
        '"tool"',
        tasks__jsonl=jsonl(task_row(actions=["refund_item"])),
    ),
    run_spec(
        "tasks-expected-state-price-string",
        TASKS_SPEC,
        "{tmp}/tasks.jsonl:1: expected_state.catalog.SKU-103.price",
        "integer cents",
        tasks__jsonl=jsonl(
            without(
                task_row(
                    expected_state={
                        "catalog": {"SKU-103": {"name": "Mug", "price": "51.39"}},
                        "orders": {"O-1001": ORDER},
                    }
                ),
                "actions",
            )
        ),
    ),
    # --- twentieth session (a new user's finding): ids and content the imports let through ------
    one_file(  # 7 and "7" in one log: one task or two? (the log's pair_id must be a string too)
        "import-recorded-task-id-number",
        "recorded-jsonl",
        "r.jsonl",
        jsonl({**pair(pair_id="p", task_id=7), "type": "pair"}),
        "{tmp}/r.jsonl:1: task_id",
        "must be a string, got a number",
        "in quotes",
    ),
    one_file(  # 't\u200b1' prints as 't1' and was another task
        "import-recorded-task-id-zero-width",
        "recorded-jsonl",
        "r.jsonl",
        jsonl({**pair(pair_id="p", task_id="t\u200b1"), "type": "pair"}),
        "{tmp}/r.jsonl:1: task_id",
        "U+200B (ZERO WIDTH SPACE) at character 2",
        "remove it",
    ),
    one_file(
        "import-jsonl-task-id-zero-width",
        "openai-jsonl",
        "r.jsonl",
        jsonl(oa(task_id="t1\u200b"), oa(agent="y", success=0)),
        "{tmp}/r.jsonl:1: task_id",
        "U+200B (ZERO WIDTH SPACE) at character 3",
    ),
    one_file(  # a bidi override turns the rest of a report row around
        "import-jsonl-agent-bidi-override",
        "openai-jsonl",
        "r.jsonl",
        jsonl(oa(), oa(agent="y\u202egpt")),
        "{tmp}/r.jsonl:2: agent",
        "U+202E (RIGHT-TO-LEFT OVERRIDE) at character 2",
    ),
    one_file(  # ["a", "b"] was joined to "ab": not OpenAI's content parts
        "import-jsonl-content-list-of-strings",
        "openai-jsonl",
        "r.jsonl",
        jsonl(
            oa(
                messages=[
                    {"role": "user", "content": ["a", "b"]},
                    {"role": "assistant", "content": "ok"},
                ]
            ),
            oa(agent="y", success=0),
        ),
        "{tmp}/r.jsonl:1: messages[0].content[0]",
        '{"type": "text", "text": ...}',
    ),
    run_imported(  # a pairs file written by hand: the same rule
        "pairs-task-id-zero-width",
        jsonl(pair(task_id="\ufefft1")),
        ":1: task_id",
        "U+FEFF (ZERO WIDTH NO-BREAK SPACE) at character 1",
    ),
    run_spec(  # a spec's agent name: the same rule (a TOML \u escape writes the character)
        "spec-agent-zero-width",
        spec().replace('name = "ace"', 'name = "a\\u200bce"'),
        "agents[0].name",
        "U+200B (ZERO WIDTH SPACE) at character 2",
    ),
    run_spec(
        "tasks-task-id-zero-width",
        TASKS_SPEC,
        "{tmp}/tasks.jsonl:1: task_id",
        "U+200D (ZERO WIDTH JOINER) at character 3",
        tasks__jsonl=jsonl(task_row(task_id="zh\u200d1")),
    ),
    # --- a blank task id reads alike from a pairs file, a task file and a rollout file: one
    # owner (agentnames.task_id) where three copies said three things ---------------------------
    # (the blank one no longer says "or an integer", which a task or pairs file refuses:
    # twenty-eighth session)
    run_imported(
        "pairs-task-id-blank",
        jsonl(pair(task_id="  ")),
        ":1: task_id: is blank; give the task's id, a non-empty string",
    ),
    run_spec(
        "tasks-task-id-blank",
        TASKS_SPEC,
        "{tmp}/tasks.jsonl:1: task_id: is blank; give the task's id, a non-empty string",
        tasks__jsonl=jsonl(task_row(task_id="  ")),
    ),
    one_file(
        "import-jsonl-task-id-blank",
        "openai-jsonl",
        "r.jsonl",
        jsonl(oa(task_id="  "), oa(agent="y")),
        "{tmp}/r.jsonl:1: task_id: is blank; give the task's id, a non-empty string",
    ),
    run_imported(  # stored as text, 7 and "7" one task: refused as a task file's (twenty-eighth
        # session)
        "pairs-numeric-task-id",
        jsonl(pair(task_id=7)),
        ":1: task_id: must be a string, got a number; write it as a string (in quotes), as the"
        " file's other ids",
    ),
    run_spec(
        "tasks-task-id-a-list",
        TASKS_SPEC,
        "{tmp}/tasks.jsonl:1: task_id",
        "must be a string, got a list; write it as a string (in quotes)",  # as a recorded log's
        tasks__jsonl=jsonl(task_row(task_id=["a"])),
    ),
]

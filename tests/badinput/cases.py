"""The bad-input table: one row per refused input (files to write, argv, exit code, needles).

Add a row to extend the suite; ``{tmp}`` in files, argv and needles is the test's directory.
Rows for profile commands can live in another module and be added to ``CASES`` the same way.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field

from judgeaudit.audit.store.schema import SCHEMA

BASE_SPEC = """\
[run]
name = "bad"
{run}
[gap]
{gap}
[endpoints.sim]
base_url = "embedded"
{endpoint}
[[agents]]
name = "ace"
model = "agent-ace"
endpoint = "sim"
{agent}
[[agents]]
name = "weak"
model = "agent-weak"
endpoint = "sim"

[user_simulator]
model = "user-default"
endpoint = "sim"
temperature = 0.7

[judge]
model = "judge-default"
endpoint = "sim"
{judge}
"""


def spec(run: str = "", gap: str = "", endpoint: str = "", agent: str = "", judge: str = "") -> str:
    return BASE_SPEC.format(run=run, gap=gap, endpoint=endpoint, agent=agent, judge=judge)


IMPORTED_SPEC = """\
[run]
name = "imp"
imported = "pairs.jsonl"
[endpoints.sim]
base_url = "embedded"
[judge]
model = "judge-default"
endpoint = "sim"
"""


def pair(**overrides: object) -> dict[str, object]:
    row: dict[str, object] = {
        "task_id": "t1",
        "task": "Refund item SKU-101 in order O-1001.",
        "agent_a": "x",
        "agent_b": "y",
        "trajectory_a": "user: refund please\nagent: done, refunded $12.00",
        "trajectory_b": "user: refund please\nagent: all done!",
        "success_a": 1,
        "success_b": 0,
    }
    row.update(overrides)
    return {k: v for k, v in row.items() if v is not None}


def jsonl(*rows: object) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


TASK = {
    "task_id": "x1",
    "task_type": "refund",
    "instruction": "Opening request: refund item SKU-101 in order O-1001.",
    "initial_state": {"catalog": {}, "orders": {}},
    "expected_state": {"catalog": {}, "orders": {}},
}


@dataclass(frozen=True)
class Case:
    id: str
    argv: tuple[str, ...]
    code: int
    needles: tuple[str, ...]
    files: dict[str, str | bytes] = field(default_factory=dict)


def run_spec(case_id: str, text: str | bytes, *needles: str, **files: str | bytes) -> Case:
    return Case(
        case_id,
        ("run", "{tmp}/spec.toml", "--out", "{tmp}/out"),
        2,
        needles if any(n.startswith("{tmp}/") for n in needles) else ("{tmp}/spec.toml", *needles),
        {"spec.toml": text, **{k.replace("__", "."): v for k, v in files.items()}},
    )


def run_imported(case_id: str, rows: str | bytes, *needles: str) -> Case:
    return Case(
        case_id,
        ("run", "{tmp}/spec.toml", "--out", "{tmp}/out"),
        2,
        ("{tmp}/pairs.jsonl", *needles),
        {"spec.toml": IMPORTED_SPEC, "pairs.jsonl": rows},
    )


def sim_config(case_id: str, text: str | bytes, *needles: str) -> Case:
    return Case(
        case_id,
        ("sim", "serve", "--config", "{tmp}/sim.toml"),
        2,
        ("{tmp}/sim.toml", *needles),
        {"sim.toml": text},
    )


TASKS_SPEC = spec(run='tasks = "tasks.jsonl"')


def truncated_db() -> bytes:
    """The first page of a real audit.db's schema, as a copy cut short leaves it: SQLite reads
    its header, then finds the schema's pages missing ("database disk image is malformed")."""
    db = sqlite3.connect(":memory:")
    try:
        db.executescript(SCHEMA)
        return db.serialize()[:4096]
    finally:
        db.close()


CASES: list[Case] = [
    # --- spec ranges: 0 deadlocks, 2**63-1 is a memory bomb --------------------------------
    run_spec("concurrency-0", spec(run="concurrency = 0"), "run.concurrency", "out of range"),
    # the spec's field is named, not only the file (a new user's finding, session 12)
    run_spec("imported-missing", IMPORTED_SPEC, "run.imported", "pairs.jsonl: no such file"),
    # a judge template that is not there: the key and the path it was looked for at (new user)
    run_spec(
        "prompt-missing",
        spec(judge='prompt = "nope.toml"'),
        "judge.prompt",
        "{tmp}/nope.toml: no such file (relative to the spec)",
    ),
    run_spec(
        "endpoint-concurrency-0", spec(endpoint="concurrency = 0"), "endpoints.sim.concurrency"
    ),
    run_spec(
        "trials-int64-max", spec(run="trials = 9223372036854775807"), "run.trials", "1 to 1000"
    ),
    run_spec("trials-negative", spec(run="trials = -1"), "run.trials"),
    run_spec("trials-zero", spec(run="trials = 0"), "run.trials"),
    run_spec("trials-float", spec(run="trials = 1.5"), "run.trials", "must be int"),
    run_spec("trials-string", spec(run='trials = "3"'), "run.trials", "must be int"),
    run_spec("trials-bool", spec(run="trials = true"), "run.trials", "must be int"),
    run_spec("max-turns-zero", spec(run="max_turns = 0"), "run.max_turns"),
    run_spec("max-turns-huge", spec(run="max_turns = 100000"), "run.max_turns"),
    run_spec("judge-retries-negative", spec(run="judge_retries = -1"), "run.judge_retries"),
    run_spec("judge-retries-huge", spec(run="judge_retries = 1000000"), "run.judge_retries"),
    run_spec("seed-negative", spec(run="seed = -1"), "run.seed"),
    run_spec("seed-beyond-int64", spec(run="seed = 99999999999999999999999"), "run.seed"),
    run_spec("temperature-negative", spec(agent="temperature = -0.5"), "agents[0].temperature"),
    run_spec("temperature-huge", spec(agent="temperature = 5"), "agents[0].temperature"),
    run_spec("temperature-nan", spec(judge="temperature = nan"), "judge.temperature", "nan"),
    run_spec("temperature-inf", spec(judge="temperature = inf"), "judge.temperature", "inf"),
    run_spec("timeout-zero", spec(endpoint="timeout_s = 0"), "endpoints.sim.timeout_s"),
    run_spec("timeout-negative", spec(endpoint="timeout_s = -5"), "endpoints.sim.timeout_s"),
    run_spec("timeout-inf", spec(endpoint="timeout_s = inf"), "endpoints.sim.timeout_s"),
    run_spec("price-negative", spec(endpoint="price_in = -1\nprice_out = 1"), "price_in"),
    run_spec("price-nan", spec(endpoint="price_in = nan\nprice_out = 1"), "price_in", "nan"),
    run_spec("price-half", spec(endpoint="price_in = 1"), "endpoints.sim", "price_out"),
    run_spec(
        "name-empty", spec(run='name = ""').replace('name = "bad"\n', ""), "run.name", "empty"
    ),
    run_spec("model-empty", spec().replace('model = "agent-ace"', 'model = ""'), "agents[0].model"),
    # --- gap bins: caught today only after the whole run -----------------------------------
    run_spec("bins-duplicate", spec(gap="bins = [0, 0.5, 0.5, 1]"), "gap.bins[2]", "twice"),
    run_spec("bins-nan", spec(gap="bins = [0, nan, 1]"), "gap.bins", "nan"),
    run_spec("bins-unsorted", spec(gap="bins = [0, 1, 0.5]"), "gap.bins[2]", "increasing"),
    run_spec("bins-one-edge", spec(gap="bins = [0.5]"), "gap.bins", "at least two"),
    run_spec("bins-string", spec(gap='bins = [0, "x", 1]'), "gap.bins[1]", "number"),
    run_spec(
        "labels-count",
        spec(gap='bins = [0, 0.5, 1]\nlabels = ["a"]'),
        "gap.labels",
        "1 labels for 2",
    ),
    run_spec(
        "labels-duplicate",
        spec(gap='bins = [0, 0.5, 1]\nlabels = ["a", "a"]'),
        "gap.labels[1]",
        "twice",
    ),
    run_spec(
        "labels-without-bins", spec(gap='labels = ["a", "b", "c", "d"]'), "gap.labels", "gap.bins"
    ),
    # --- run.pairs: a duplicate can never finish --------------------------------------------
    run_spec(
        "pairs-duplicate",
        spec(run='pairs = [["ace", "weak"], ["ace", "weak"]]'),
        "run.pairs[1]",
        "already paired",
    ),
    run_spec(
        "pairs-reversed",
        spec(run='pairs = [["ace", "weak"], ["weak", "ace"]]'),
        "run.pairs[1]",
        "already paired",
    ),
    run_spec("pairs-self", spec(run='pairs = [["ace", "ace"]]'), "run.pairs[0]", "two different"),
    run_spec("pairs-unknown", spec(run='pairs = [["ace", "nobody"]]'), "run.pairs[0]"),
    # --- spec files themselves ---------------------------------------------------------------
    run_spec(
        "spec-not-utf8",
        spec().encode() + b"\n# caf\xe9\n",
        "not UTF-8",
        "byte 0xe9",
        "save the file as UTF-8",
    ),
    run_spec("spec-utf16", spec().encode("utf-16"), "not UTF-8"),
    run_spec("spec-invalid-toml", "[run\nname = 1\n", "not valid TOML"),
    run_spec(
        "spec-unknown-key",
        spec(run="concurency = 4"),
        "run.concurency",
        "did you mean 'concurrency'",
    ),
    Case(
        "spec-missing",
        ("run", "{tmp}/nope.toml", "--out", "{tmp}/out"),
        2,
        ("{tmp}/nope.toml", "cannot read spec"),
    ),
    Case(
        "spec-is-directory",
        ("run", "{tmp}/dir", "--out", "{tmp}/out"),
        2,
        ("{tmp}/dir", "is a directory"),
        {"dir/keep": ""},
    ),
    # --- task files (the run must not create OUT) --------------------------------------------
    run_spec(
        "tasks-not-utf8",
        TASKS_SPEC,
        "{tmp}/tasks.jsonl:2",
        "not UTF-8",
        tasks__jsonl=jsonl(TASK).encode() + b'{"task_id": "\xff"}\n',
    ),
    run_spec(
        "tasks-nan",
        TASKS_SPEC,
        "{tmp}/tasks.jsonl:1",
        "task_id: NaN is not JSON",
        tasks__jsonl='{"task_id": NaN}\n',
    ),
    run_spec(
        "tasks-infinity",
        TASKS_SPEC,
        "{tmp}/tasks.jsonl:1",
        "Infinity",
        tasks__jsonl='{"task_id": -Infinity}\n',
    ),
    run_spec(
        "tasks-overflow",
        TASKS_SPEC,
        "{tmp}/tasks.jsonl:1",
        "1e400",
        tasks__jsonl='{"task_id": 1e400}\n',
    ),
    run_spec(
        "tasks-huge-int",
        TASKS_SPEC,
        "{tmp}/tasks.jsonl:1",
        "too long",
        tasks__jsonl='{"task_id": ' + "9" * 5000 + "}\n",
    ),
    run_spec(
        "tasks-duplicate-id",
        TASKS_SPEC,
        "{tmp}/tasks.jsonl:2",
        "appears twice",
        tasks__jsonl=jsonl(TASK, TASK),
    ),
    run_spec(
        "tasks-bad-type",
        TASKS_SPEC,
        "{tmp}/tasks.jsonl:1",
        "task_type",
        tasks__jsonl=jsonl({**TASK, "task_type": "dance"}),
    ),
    run_spec(  # stored as text, 7 and "7" one task: refused as a recorded log's (twenty-seventh
        # session)
        "tasks-numeric-id",
        TASKS_SPEC,
        "{tmp}/tasks.jsonl:1: task_id: must be a string, got a number; write it as a string (in"
        " quotes), as the file's other ids",
        tasks__jsonl=jsonl({**TASK, "task_id": 7}),
    ),
    run_spec(
        "tasks-array-line",
        TASKS_SPEC,
        "{tmp}/tasks.jsonl:1",
        "a JSON object per line",
        tasks__jsonl="[1, 2]\n",
    ),
    run_spec("tasks-missing", TASKS_SPEC, "{tmp}/tasks.jsonl", "run.tasks", "no such file"),
    run_spec(
        "tasks-empty",
        TASKS_SPEC,
        "{tmp}/tasks.jsonl",
        "the file is empty (blank lines only): no task",
        tasks__jsonl="\n\n",
    ),
    # --- imported pairs ---------------------------------------------------------------------
    run_imported(
        "pairs-not-utf8", jsonl(pair()).encode() + b'{"task_id": "caf\xc3"}\n', ":2", "not UTF-8"
    ),
    run_imported(
        "pairs-agent-twice-different",
        jsonl(pair(), pair(agent_b="z", success_a=0)),
        ":2",
        "trajectory_a",
        "different trajectory or label",
    ),
    run_imported("pairs-same-pair-twice", jsonl(pair(), pair()), ":2", "already on"),
    run_imported(
        "pairs-mirrored-pair",
        jsonl(
            pair(),
            pair(
                agent_a="y",
                agent_b="x",
                trajectory_a=pair()["trajectory_b"],
                trajectory_b=pair()["trajectory_a"],
                success_a=0,
                success_b=1,
            ),
        ),
        ":2",
        "already on",
    ),
    run_imported(
        "pairs-task-differs",
        jsonl(pair(), pair(agent_b="z", task="Something else")),
        ":2",
        "different task",
    ),
    run_imported("pairs-success-2", jsonl(pair(success_a=2)), ":1", "success_a", "0/1"),
    run_imported("pairs-missing-field", jsonl(pair(success_b=None)), ":1", "success_b", "missing"),
    run_imported("pairs-unknown-field", jsonl(pair(sucess_b=1)), ":1", "sucess_b", "unknown field"),
    run_imported(  # a recorded log named in run.imported: it listed 25 known fields
        "pairs-a-recorded-log",
        jsonl(pair(type="pair", pair_id="p1")),
        ":1: a pair line of a log, not a pair",
        "`judgeaudit import recorded-jsonl LOG --out PAIRS.jsonl`",
    ),
    run_imported(
        "pairs-an-openai-log",
        jsonl({"type": "trajectory", "task_id": "t1", "agent": "x", "messages": []}),
        ":1: a trajectory line of a log, not a pair",
        "import openai-jsonl",
    ),
    run_imported("pairs-type-not-text", jsonl(pair(type=[1])), ":1", "type", "unknown field"),
    run_imported(
        "pairs-tool-result-missing",
        jsonl(
            pair(
                trajectory_a=[
                    {"role": "user", "content": "hi"},
                    {"role": "tool_result", "name": "calculate"},
                ]
            )
        ),
        ":1",
        "trajectory_a[1].result",
        "missing",
    ),
    run_imported(
        "pairs-tool-call-no-name",
        jsonl(pair(trajectory_a=[{"role": "tool_call", "arguments": "{}"}])),
        ":1",
        "trajectory_a[0].name",
    ),
    run_imported("pairs-reward-nan", '{"task_id": "t1", "reward_a": NaN}\n', ":1", "NaN"),
    run_imported("pairs-trial-negative", jsonl(pair(trial=-1)), ":1", "trial", "out of range"),
    run_imported("pairs-trial-string", jsonl(pair(trial="0")), ":1", "trial", "integer"),
    run_imported(
        "pairs-same-agent-same-trial",
        jsonl(pair(agent_b="x")),
        ":1",
        "agent_b",
        "same agent and trial",
    ),
    run_imported(
        "pairs-verdict-bad-order",
        jsonl(pair(verdicts=[{"order": "AA", "winner": "A"}])),
        ":1",
        "verdicts[0].order",
    ),
    run_imported(
        "pairs-verdict-score-range",
        jsonl(pair(verdicts=[{"order": "AB", "winner": "A", "score_a": 9}])),
        ":1",
        "verdicts[0].score_a",
        "out of range",
    ),
    # --- output directory --------------------------------------------------------------------
    Case(
        "out-is-a-file",
        ("run", "{tmp}/spec.toml", "--out", "{tmp}/out.txt"),
        2,
        ("{tmp}/out.txt", "--out is a file"),
        {"spec.toml": spec(), "out.txt": "mine"},
    ),
    Case(
        "out-under-a-file",
        ("run", "{tmp}/spec.toml", "--out", "{tmp}/out.txt/sub"),
        2,
        ("{tmp}/out.txt", "is a file"),
        {"spec.toml": spec(), "out.txt": "mine"},
    ),
    Case(
        "out-holds-foreign-report",
        ("run", "{tmp}/spec.toml", "--out", "{tmp}/res"),
        2,
        ("{tmp}/res", "audit_pairs.csv", "no audit.db"),
        {"spec.toml": spec(), "res/audit_pairs.csv": "my,own\n"},
    ),
    Case(
        "out-db-not-sqlite",
        ("run", "{tmp}/spec.toml", "--out", "{tmp}/res"),
        2,
        ("{tmp}/res/audit.db", "not SQLite"),
        {"spec.toml": spec(), "res/audit.db": "hello"},
    ),
    Case(
        "concurrency-flag-zero",
        ("run", "{tmp}/spec.toml", "--out", "{tmp}/out", "--concurrency", "0"),
        2,
        ("--concurrency", "out of range"),
        {"spec.toml": spec()},
    ),
    Case(
        "key-env-empty",
        ("run", "{tmp}/spec.toml", "--out", "{tmp}/out"),
        2,
        ("endpoints.sim", "JUDGEAUDIT_TEST_UNSET_KEY"),
        {
            "spec.toml": spec().replace(
                'base_url = "embedded"',
                'base_url = "http://127.0.0.1:9/v1"\nkey_env = "JUDGEAUDIT_TEST_UNSET_KEY"',
            )
        },
    ),
    # a key read from PATH: the user's PATH went to the gateway as the bearer token
    run_spec(
        "key-env-path",
        spec().replace(
            'base_url = "embedded"', 'base_url = "http://127.0.0.1:9/v1"\nkey_env = "PATH"'
        ),
        "endpoints.sim.key_env",
        "PATH is one the system and programs run by",
    ),
    # --- sim configs ---------------------------------------------------------------------------
    sim_config("sim-not-utf8", b"seed = 1\n# \xff\n", "not UTF-8", ":2"),
    sim_config("sim-seed-string", 'seed = "x"\n', "seed", "integer"),
    sim_config("sim-seed-negative", "seed = -3\n", "seed", "out of range"),
    sim_config("sim-rate-over-1", "[faults]\nrate_429 = 2\n", "rate_429", "out of range"),
    sim_config("sim-rate-sum", "[faults]\nrate_429 = 0.6\nrate_500 = 0.6\n", "add up to 1.2"),
    sim_config("sim-latency-negative", "[faults]\nlatency_ms = -1\n", "latency_ms"),
    sim_config("sim-latency-nan", "[faults]\nlatency_ms = nan\n", "faults.latency_ms", "nan"),
    sim_config("sim-skill-7", '[models.x]\nkind = "agent"\nskill = 7\n', "models.x", "skill"),
    sim_config(
        "sim-param-string", '[models.x]\nkind = "judge"\nnoise = "lots"\n', "noise", "number"
    ),
    sim_config("sim-unknown-key", "sed = 1\n", "sed", "unknown key"),
    sim_config("sim-unknown-fault", "[faults]\nrate_404 = 0.1\n", "rate_404"),
    # --- report and review ---------------------------------------------------------------------
    Case("report-bins-duplicate", ("report", "{tmp}", "--bins=0,1,1"), 2, ("--bins[2]", "twice")),
    Case("report-bins-nan", ("report", "{tmp}", "--bins=nan,1"), 2, ("--bins[0]", "nan")),
    Case("report-no-db", ("report", "{tmp}/none"), 2, ("{tmp}/none", "no audit database")),
    Case(
        "report-not-sqlite",
        ("report", "{tmp}/fake.db"),
        2,
        ("{tmp}/fake.db", "not SQLite", "give an OUT directory"),
        {"fake.db": "not a db"},
    ),
    Case(
        "report-empty-sqlite",
        ("report", "{tmp}/o"),
        2,
        ("{tmp}/o/audit.db", "damaged (file is not a database)", "restore it from a copy"),
        {"o/audit.db": b"SQLite format 3\x00" + bytes(84)},
    ),
    # --- a damaged audit.db in an OUT directory: writers refuse it as readers do, and the
    # advice is for an OUT given (restore the file, or run into a new --out) ---------------------
    Case(
        "run-db-truncated",
        ("run", "{tmp}/spec.toml", "--out", "{tmp}/o"),
        2,
        ("{tmp}/o/audit.db", "damaged (database disk image is malformed)", "restore it from a"),
        {"spec.toml": spec(), "o/audit.db": truncated_db()},
    ),
    Case(
        "report-db-truncated",
        ("report", "{tmp}/o"),
        2,
        ("{tmp}/o/audit.db", "damaged (database disk image is malformed)", "new --out"),
        {"o/audit.db": truncated_db()},
    ),
    Case(
        "report-db-garbage-in-out",
        ("report", "{tmp}/o"),
        2,
        ("{tmp}/o/audit.db", "damaged (not SQLite)", "restore it from a copy"),
        {"o/audit.db": "not a db"},
    ),
    Case(
        "report-db-empty-in-out",
        ("report", "{tmp}/o"),
        2,
        ("{tmp}/o/audit.db", "empty, no run was stored", "judgeaudit run SPEC --out {tmp}/o"),
        {"o/audit.db": b""},
    ),
    Case(
        "review-import-db-truncated",
        ("review", "import", "{tmp}/o", "{tmp}/labels.csv"),
        2,
        ("{tmp}/o/audit.db", "damaged (database disk image is malformed)"),
        {"o/audit.db": truncated_db(), "labels.csv": "pair_id,human_pref\n"},
    ),
    # --- import --------------------------------------------------------------------------------
    Case(
        "import-out-is-dir",
        ("import", "openai-jsonl", "{tmp}/r.jsonl", "--out", "{tmp}"),
        2,
        ("{tmp}", "--out is a directory"),
        {"r.jsonl": "{}\n"},
    ),
    Case(
        "import-not-utf8",
        ("import", "openai-jsonl", "{tmp}/r.jsonl", "--out", "{tmp}/p.jsonl"),
        2,
        ("{tmp}/r.jsonl:1", "not UTF-8"),
        {"r.jsonl": b'{"task_id": "\xfe"}\n'},
    ),
    Case(
        "import-tau-not-list",
        ("import", "tau-bench", "{tmp}/r.json", "--out", "{tmp}/p.jsonl"),
        2,
        ("{tmp}/r.json", "JSON list"),
        {"r.json": "{}"},
    ),
    Case(
        "import-tau-missing-reward",
        ("import", "tau-bench", "{tmp}/r.json", "--out", "{tmp}/p.jsonl"),
        2,
        ("{tmp}/r.json", "[0].reward", "missing"),
        {"r.json": '[{"task_id": 1, "traj": []}]'},
    ),
    Case(
        "import-tau-bad-role",
        ("import", "tau-bench", "{tmp}/r.json", "--out", "{tmp}/p.jsonl"),
        2,
        ("[0].traj[0].role", "robot"),
        {
            "r.json": '[{"task_id": 1, "trial": 0, "reward": 1, "info": {"task": {"instruction": "g"}},'
            ' "traj": [{"role": "robot", "content": "x"}]}]'
        },
    ),
    Case(
        "import-tau-tool-no-name",
        ("import", "tau-bench", "{tmp}/r.json", "--out", "{tmp}/p.jsonl"),
        2,
        ("[0].traj[0].tool_calls[0].function.name",),
        {
            "r.json": '[{"task_id": 1, "trial": 0, "reward": 1, "info": {"task": {"instruction": "g"}},'
            ' "traj": [{"role": "assistant", "content": null, "tool_calls": [{"id": "c", "function": {"arguments": "{}"}}]}]}]'
        },
    ),
    Case(
        "import-tau2-no-simulations",
        ("import", "tau2-bench", "{tmp}/r.json", "--out", "{tmp}/p.jsonl"),
        2,
        ("{tmp}/r.json", "simulations"),
        {"r.json": '{"tasks": []}'},
    ),
    Case(
        "import-agent-count",
        (
            "import",
            "tau-bench",
            "{tmp}/a.json",
            "{tmp}/b.json",
            "--out",
            "{tmp}/p.jsonl",
            "--agent",
            "x",
        ),
        2,
        ("--agent", "2 file(s)"),
        {"a.json": "[]", "b.json": "[]"},
    ),
    Case(
        "import-jsonl-success-word",
        ("import", "openai-jsonl", "{tmp}/r.jsonl", "--out", "{tmp}/p.jsonl"),
        2,
        ("{tmp}/r.jsonl:1", "success", "0/1"),
        {"r.jsonl": jsonl({"task_id": "t", "agent": "a", "messages": [], "success": "yes"})},
    ),
    Case(
        "import-recorded-no-pair-id",
        ("import", "recorded-jsonl", "{tmp}/r.jsonl", "--out", "{tmp}/p.jsonl"),
        2,
        ("{tmp}/r.jsonl:1", "pair_id"),
        {"r.jsonl": jsonl({"type": "verdict", "order": "AB", "winner": "A"})},
    ),
    Case(
        "import-recorded-verdict-conflict",
        ("import", "recorded-jsonl", "{tmp}/r.jsonl", "--out", "{tmp}/p.jsonl"),
        2,
        ("{tmp}/r.jsonl:2", "different AB verdict"),
        {
            "r.jsonl": jsonl(
                {"pair_id": "p", "order": "AB", "winner": "A"},
                {"pair_id": "p", "order": "AB", "winner": "B"},
            )
        },
    ),
    Case(
        "import-recorded-pair-conflict",
        ("import", "recorded-jsonl", "{tmp}/r.jsonl", "--out", "{tmp}/p.jsonl"),
        2,
        ("{tmp}/r.jsonl:2", "pair_id", "different content"),
        {
            "r.jsonl": jsonl(
                {**pair(pair_id="p"), "type": "pair"},
                {**pair(pair_id="p", success_a=0), "type": "pair"},
            )
        },
    ),
]

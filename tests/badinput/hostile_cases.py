"""Hostile-input rows (issue 27): FIFOs and 2 GB sparse files where a file is read, credentials
in URLs, keys and pair-id separators where a name goes, a template that hides trajectory B.

``FIFO`` and ``SPARSE`` as a file's content make the test create a named pipe or a 2 GB sparse
file there (see ``test_bad_inputs.setup``); no row may block or read either whole.
"""

from __future__ import annotations

from tests.badinput.cases import IMPORTED_SPEC, Case, jsonl, pair, run_imported, run_spec, spec

FIFO = b"\x00<fifo>"
SPARSE = b"\x00<sparse 2 GB>"
SPARSE_SIZE = 2 * 1024**3
#: A key's shape (an ``sk-`` prefix) that must never be echoed; not a real-looking key.
KEYLIKE = "sk-" + "hostile-" + "a1b2c3d4"

FORMATS = {"tau-bench": "r.json", "tau2-bench": "r.json", "openai-jsonl": "r.jsonl"}
FORMATS["recorded-jsonl"] = "r.jsonl"


def imp(case_id: str, fmt: str, content: bytes, *needles: str, extra: tuple[str, ...] = ()) -> Case:
    name = FORMATS[fmt]
    argv = ("import", fmt, f"{{tmp}}/{name}", *extra, "--out", "{tmp}/p.jsonl")
    where = "--agent" if extra else f"{{tmp}}/{name}"
    return Case(case_id, argv, 2, (where, *needles), {name: content})


def db_case(case_id: str, *argv: str) -> Case:
    return Case(
        case_id, argv, 2, ("{tmp}/out/audit.db", "not a regular file"), {"out/audit.db": FIFO}
    )


JUDGE_TEMPLATE_NO_B = """\
user = "Task: {task}\\nA: {trajectory_a}\\nWhich is better?"
retry = "Again. A: {trajectory_a} B: {trajectory_b}"
"""
WITH_TEMPLATE = IMPORTED_SPEC.replace('endpoint = "sim"\n', 'endpoint = "sim"\nprompt = "t.toml"\n')
RUN = ("run", "{tmp}/spec.toml", "--out", "{tmp}/out")


def template(case_id: str, content: str | bytes, *needles: str) -> Case:
    files = {"spec.toml": WITH_TEMPLATE, "t.toml": content, "pairs.jsonl": jsonl(pair())}
    return Case(case_id, RUN, 2, ("{tmp}/t.toml", *needles), files)


CREDENTIAL_SPEC = IMPORTED_SPEC.replace(
    '[judge]\nmodel = "judge-default"\nendpoint = "sim"',
    f'[endpoints.judge]\nbase_url = "http://me:{KEYLIKE}@127.0.0.1:9/v1"\n'
    'key_env = "HOSTILE_KEY"\n[judge]\nmodel = "m"\nendpoint = "judge"',
)

HOSTILE_CASES: list[Case] = [
    *(imp(f"import-fifo-{fmt}", fmt, FIFO, "FIFO") for fmt in FORMATS),
    *(imp(f"import-sparse-{fmt}", fmt, SPARSE, "MB") for fmt in FORMATS),
    imp(
        "import-agent-key", "tau-bench", b"[]", "looks like an API key", extra=("--agent", KEYLIKE)
    ),
    imp("import-agent-tilde", "tau-bench", b"[]", "'~'", extra=("--agent", "a~b")),
    # a part ids read as the trial: task x with agent y/t0/z and task x/t0/y with z, one pair id
    imp("import-agent-trial-part", "tau-bench", b"[]", "'t0'", extra=("--agent", "y/t0/z")),
    # the agent named after the file, which the user never typed: the line says how to name it
    Case(
        "import-tau-file-named-like-a-trial",
        ("import", "tau-bench", "{tmp}/t0.json", "--out", "{tmp}/p.jsonl"),
        2,
        ("{tmp}/t0.json", "'t0'", "pass --agent NAME"),
        {"t0.json": b"[]"},
    ),
    imp(
        "import-agent-huge",
        "tau-bench",
        b"[]",
        "100000 characters",
        extra=("--agent", "x" * 100_000),
    ),
    template("template-fifo", FIFO, "FIFO"),
    template("template-sparse", SPARSE, "MB"),
    template("template-b-only-in-retry", JUDGE_TEMPLATE_NO_B, "{trajectory_b}", "system or user"),
    Case(
        "pairs-fifo",
        RUN,
        2,
        ("{tmp}/pairs.jsonl", "FIFO"),
        {"spec.toml": IMPORTED_SPEC, "pairs.jsonl": FIFO},
    ),
    run_imported("pairs-agent-tilde", jsonl(pair(agent_a="a~b", agent_b="c")), "agent_a", "'~'"),
    run_imported(
        "pairs-agent-trial-part", jsonl(pair(agent_a="openai/t12", agent_b="c")), "agent_a", "'t12'"
    ),
    run_imported("pairs-agent-huge", jsonl(pair(agent_a="x" * 100_000)), "agent_a", "100000"),
    run_spec(
        "spec-agent-tilde", spec().replace('name = "ace"', 'name = "a~b"'), "agents[0].name", "'~'"
    ),
    run_spec(
        "spec-agent-trial-part",
        spec().replace('name = "ace"', 'name = "t3"'),
        "agents[0].name",
        "'t3'",
    ),
    Case(
        "spec-endpoint-credentials",
        RUN,
        2,
        ("{tmp}/spec.toml", "endpoints.judge.base_url", "carries credentials", "***@"),
        {"spec.toml": CREDENTIAL_SPEC, "pairs.jsonl": jsonl(pair())},
    ),
    db_case("report-db-fifo", "report", "{tmp}/out"),
    db_case("compare-db-fifo", "compare", "{tmp}/out", "{tmp}/out"),
    db_case("show-db-fifo", "show", "{tmp}/out", "x/y/t0/a~b"),
    db_case("review-db-fifo", "review", "export", "{tmp}/out", "--file", "{tmp}/r.csv"),
]

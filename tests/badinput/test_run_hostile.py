"""Hostile input that needs a finished run (re-judge of a damaged source, ``show`` of a huge pair
id, ``compare`` with a byte copy), an immutable output directory, and the 2 GB sparse file
under a capped address space (``ulimit -v``): each is one line, exit 2, and leaves nothing
behind (no ``running`` run, no OUT)."""

from __future__ import annotations

import contextlib
import resource
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.audit_helpers import finished_run
from tests.badinput.cases import jsonl, pair
from tests.badinput.hostile_cases import FORMATS, KEYLIKE, SPARSE_SIZE, WITH_TEMPLATE
from tests.badinput.import_cases import tau, tau_file
from tests.cli_helpers import cli

MB = 1024 * 1024
JUDGE_TEMPLATE_OK = """\
system = "Judge two trajectories."
user = "Task: {task}\\nA: {trajectory_a}\\nB: {trajectory_b}\\nWhich is better?"
"""


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("hostile-run")
    finished_run(folder, 3)
    return folder


def one_line(done: subprocess.CompletedProcess[str], *needles: str) -> str:
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def damaged(base: Path, tmp: Path, sql: str) -> Path:
    copy = tmp / "src"
    shutil.copytree(base / "base", copy)
    db = sqlite3.connect(copy / "audit.db")
    db.execute(sql)
    db.commit()
    db.close()
    return copy


@pytest.mark.parametrize(
    ("sql", "needle"),
    [
        ("UPDATE trajectories SET events = 'not json' WHERE rowid = 1", "events are not JSON"),
        ("UPDATE trajectories SET events = '[{\"role\": 5}]'", ".role: must be one of"),
        ("UPDATE runs SET manifest = '[1, 2]'", "manifest is not a JSON object"),
        ("UPDATE tasks SET task_json = '{}' WHERE rowid = 1", "lacks task_id"),
    ],
    ids=["garbage-events", "tampered-events", "manifest-list", "task-emptied"],
)
def test_rejudge_of_a_damaged_source_writes_nothing(
    base: Path, tmp_path: Path, sql: str, needle: str
) -> None:
    source = damaged(base, tmp_path, sql)
    done = cli("rejudge", str(source), "--out", str(tmp_path / "again"))
    one_line(done, "damaged or", needle) if "manifest" not in needle else one_line(done, needle)
    assert not (tmp_path / "again").exists(), "a refused re-judge left an OUT (a running run)"


def test_rejudge_endpoint_with_credentials_is_refused_masked(base: Path, tmp_path: Path) -> None:
    url = f"http://me:{KEYLIKE}@127.0.0.1:9/v1"
    done = cli(
        "rejudge",
        str(base / "base"),
        "--out",
        str(tmp_path / "again"),
        "--judge-endpoint",
        url,
        "--judge-key-env",
        "HOSTILE_KEY",
    )
    line = one_line(done, "--judge-endpoint", "carries credentials", "http://***@127.0.0.1:9/v1")
    assert KEYLIKE not in line + done.stdout
    assert not (tmp_path / "again").exists()


def test_rejudge_key_env_may_not_be_a_system_variable(base: Path, tmp_path: Path) -> None:
    done = cli(
        "rejudge", str(base / "base"), "--out", str(tmp_path / "again"),
        "--judge-endpoint", "http://127.0.0.1:9/v1", "--judge-key-env", "PATH",
    )  # fmt: skip
    one_line(done, "--judge-key-env", "PATH is one the system and programs run by")
    assert not (tmp_path / "again").exists()


def test_rejudge_of_a_source_whose_stored_judge_url_carries_credentials(
    base: Path, tmp_path: Path
) -> None:
    """The source run's own judge URL (edited into its manifest) is refused as a typed one is,
    and the line names where it came from: the user typed no ``--judge-endpoint``."""
    url = f"http://me:{KEYLIKE}@127.0.0.1:9/v1"
    source = damaged(
        base, tmp_path, f"UPDATE runs SET manifest = replace(manifest, '\"embedded\"', '\"{url}\"')"
    )
    done = cli("rejudge", str(source), "--out", str(tmp_path / "again"))
    line = one_line(done, "the source run's judge base_url", "http://***@127.0.0.1:9/v1")
    assert "--judge-endpoint:" not in line
    assert KEYLIKE not in line + done.stdout
    assert not (tmp_path / "again").exists()


def test_show_with_a_huge_pair_id_is_one_line(base: Path) -> None:
    done = cli("show", str(base / "base"), "x" + "9" * 100_000)
    line = one_line(done, "100001 characters long")
    assert len(line) < 400


def test_show_still_finds_a_pair_by_its_tail(base: Path) -> None:
    db = sqlite3.connect(base / "base" / "audit.db")
    pair_id = db.execute("SELECT pair_id FROM audit_pairs LIMIT 1").fetchone()[0]
    db.close()
    done = cli("show", str(base / "base"), pair_id.split("/", 1)[1])
    assert done.returncode == 0 and f"pair {pair_id}" in done.stdout, done.stderr


def test_compare_with_a_byte_copy_of_the_same_run_is_refused(base: Path, tmp_path: Path) -> None:
    shutil.copytree(base / "base", tmp_path / "copy")
    done = cli("compare", str(base / "base"), str(tmp_path / "copy"))
    one_line(done, "hold the same run", "a copy of the other")


@contextlib.contextmanager
def immutable(path: Path) -> Iterator[None]:
    if subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode != 0:
        pytest.skip("chattr +i is not permitted here")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


def test_import_out_into_an_immutable_directory_is_one_line(tmp_path: Path) -> None:
    results = tmp_path / "r.json"
    results.write_text(tau_file(tau(0, 0), tau(0, 1)))
    locked = tmp_path / "locked"
    locked.mkdir()
    with immutable(locked):
        done = cli("import", "tau-bench", str(results), "--out", str(locked / "p.jsonl"))
    one_line(done, str(locked))
    assert "unexpected error" not in done.stderr
    assert list(locked.iterdir()) == []


def capped(limit: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_a_2gb_sparse_file_is_refused_within_a_capped_address_space(
    fmt: str, tmp_path: Path
) -> None:
    """``ulimit -v`` of what ``judgeaudit --help`` needs plus 300 MB: reading the file whole
    (2 GB) would raise MemoryError, so only the size check can pass."""
    sparse = tmp_path / FORMATS[fmt]
    with sparse.open("wb") as handle:
        handle.truncate(SPARSE_SIZE)
    limit = 1200 * MB  # numpy/pandas imports reserve address space; 2 GB would not fit
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "judgeaudit",
            "import",
            fmt,
            str(sparse),
            "--out",
            str(tmp_path / "p.jsonl"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=lambda: capped(limit),
    )
    one_line(done, str(sparse))
    assert "MemoryError" not in done.stderr
    assert not (tmp_path / "p.jsonl").exists()


@pytest.mark.parametrize("sparse_name", ["t.toml", "pairs.jsonl"], ids=["template", "pair-file"])
def test_a_2gb_sparse_template_or_pair_file_is_refused_within_a_capped_address_space(
    sparse_name: str, tmp_path: Path
) -> None:
    """The same cap for what ``run`` reads: a judge template (read whole) and a pair file
    (streamed by line) that are 2 GB sparse files are refused by size, not read into memory."""
    (tmp_path / "spec.toml").write_text(WITH_TEMPLATE, encoding="utf-8")
    (tmp_path / "t.toml").write_text(JUDGE_TEMPLATE_OK, encoding="utf-8")
    (tmp_path / "pairs.jsonl").write_text(jsonl(pair()), encoding="utf-8")
    sparse = tmp_path / sparse_name
    with sparse.open("wb") as handle:
        handle.truncate(SPARSE_SIZE)
    out = str(tmp_path / "out")
    done = subprocess.run(
        [sys.executable, "-m", "judgeaudit", "run", str(tmp_path / "spec.toml"), "--out", out],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=lambda: capped(1200 * MB),
    )
    one_line(done, sparse_name, "MB")
    assert "MemoryError" not in done.stderr
    assert not (tmp_path / "out").exists()


def test_an_output_that_is_a_device_node_is_never_replaced(base: Path, tmp_path: Path) -> None:
    """As root, ``import --out /dev/full`` renamed a file over the device node. Tried on a node
    made in the test's own directory (a copy of /dev/null), never on a real /dev entry."""
    import os
    import stat

    node = tmp_path / "null"
    try:
        os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("mknod is not permitted here")
    results = tmp_path / "r.json"
    results.write_text(tau_file(tau(0, 0), tau(0, 1)))
    for args in (
        ("import", "tau-bench", str(results), "--out", str(node)),
        ("trend", str(base / "base"), "--format", "csv", "--output", str(node)),
    ):
        one_line(cli(*args), str(node), "is a device")
        assert stat.S_ISCHR(node.lstat().st_mode), "the device node was replaced by a file"


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ("[" * 200_000, "not a readable CSV header"),
        (f"pair_id,human_success_a,human_success_b,human_pref\n{KEYLIKE}{'x' * 100_000},1,0,A\n",
         "pair_id: '"),
        (f"pair_id,human_success_a,human_success_b,human_pref\n{{pair}},1,0,{'B' * 100_000}\n",
         "human_pref: 'BBB"),
    ],
    ids=["header-field-past-the-csv-limit", "huge-keylike-pair-id", "huge-pref"],
)  # fmt: skip
def test_review_import_of_a_hostile_labels_file_is_one_short_line(
    base: Path, tmp_path: Path, content: str, needle: str
) -> None:
    """A header field past the csv module's 128 KB limit was a crash (exit 70); a 100,000-
    character cell (a pasted key) was echoed whole."""
    db = sqlite3.connect(base / "base" / "audit.db")
    pair_id = db.execute("SELECT pair_id FROM audit_pairs LIMIT 1").fetchone()[0]
    db.close()
    labels = tmp_path / "labels.csv"
    labels.write_text(content.replace("{pair}", pair_id))
    line = one_line(cli("review", "import", str(base / "base"), str(labels)), needle)
    assert len(line) < 400 and KEYLIKE not in line, line


HUGE_KEYLIKE_RUN = "sk-" + "x1" * 50_000  # a key pasted where the run id goes, 100,000 chars


@pytest.mark.parametrize(
    ("argv", "needles"),
    [
        (("report", "{out}", "--format", "json", "--output", "{tmp}/fifo.csv"), ("FIFO",)),
        (("report", "{out}", "--format", "json", "--output", "{tmp}"), ("is a directory",)),
        (("report", "{out}", "--output", "/proc/self/no/r.json"), ("cannot write",)),
        (("review", "export", "{out}", "--file", "{tmp}/fifo.csv"), ("FIFO",)),
        (("review", "export", "{out}", "--file", "/proc/self/no/r.csv"), ("cannot write",)),
        (("review", "export", "{out}", "--file", "{tmp}/r.csv", "--run", HUGE_KEYLIKE_RUN), ()),
        (
            ("export", "preferences", "{out}", "--out", "{tmp}/p.jsonl", "--run", HUGE_KEYLIKE_RUN),
            (),
        ),
        (("judges", "{out}", "--margin", "nan", "--output", "{tmp}/j.txt"), ("--margin nan",)),
        (("judges", "{out}", "--margin", "-5"), ("--margin -5",)),
        (("trend", "{out}", "--format", "csv", "--output", "{tmp}/fifo.csv"), ("FIFO",)),
        (
            ("export", "preferences", "{out}", "--out", "{tmp}/fifo.csv", "--force"),
            ("FIFO", "nothing was written"),
        ),
        (("import", "tau-bench", "{results}", "--out", "{tmp}/fifo.csv"), ("FIFO",)),
        (("import", "tau-bench", "{results}", "--out", "{tmp}/link.csv"), ("FIFO",)),
    ],
    ids=[
        "report-output-fifo",
        "report-output-dir",
        "report-output-unwritable",
        "review-file-fifo",
        "review-file-unwritable",
        "review-huge-keylike-run",
        "prefs-huge-keylike-run",
        "judges-margin-nan",
        "judges-margin-negative",
        "trend-output-fifo",
        "prefs-out-fifo-force",
        "import-out-fifo",
        "import-out-symlink-to-fifo",
    ],
)
def test_output_paths_and_run_ids_are_one_short_line(
    base: Path, tmp_path: Path, argv: tuple[str, ...], needles: tuple[str, ...]
) -> None:
    """Issue 27 on the newer surfaces: an output that is a FIFO, a directory or unwritable was
    a crash (exit 70) or replaced the FIFO (``trend --output``, ``export preferences --force``
    and ``import --out`` still replaced it); a bad run id was echoed whole (100 KB, key and all)."""
    import os

    os.mkfifo(tmp_path / "fifo.csv")
    (tmp_path / "link.csv").symlink_to("fifo.csv")  # as /dev/stdout is a link to a pipe or tty
    results = base / "results.json"  # outside tmp_path: the listing below must not change
    if not results.exists():
        results.write_text(tau_file(tau(0, 0), tau(0, 1)))
    args = [
        a.replace("{out}", str(base / "base"))
        .replace("{tmp}", str(tmp_path))
        .replace("{results}", str(results))
        for a in argv
    ]
    before = sorted(p.name for p in tmp_path.iterdir())
    line = one_line(cli(*args), *needles)
    assert len(line) < 400 and "x1x1x1x1x1x1x1x1" not in line and "sk-x1" not in line, line
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing written
    assert (tmp_path / "fifo.csv").is_fifo() and (tmp_path / "link.csv").is_symlink()


@pytest.mark.parametrize(
    ("sql", "needle"),
    [
        ("UPDATE trajectories SET events = 'not json'", "events is not valid JSON"),
        ("UPDATE runs SET manifest = '[1, 2]'", "manifest is not a JSON object"),
        ("UPDATE judge_logs SET parsed_json = '[1'", "parsed_json is not valid JSON"),
    ],
    ids=["garbage-events", "manifest-list", "garbage-parsed-json"],
)
def test_readers_of_a_damaged_database_answer_in_one_line(
    base: Path, tmp_path: Path, sql: str, needle: str
) -> None:
    """Issue 27's tampered source run, on the readers: report, judges and the preference export
    crashed (exit 70: JSONDecodeError, AttributeError) on an audit.db edited by hand."""
    copy = damaged(base, tmp_path, sql)
    commands: list[tuple[str, ...]] = [
        ("export", "preferences", str(copy), "--format", "jsonl", "--out", f"{tmp_path}/p.jsonl"),
    ]
    if "parsed_json" not in sql:  # report and judges do not read the judge's parsed replies
        commands += [("report", str(copy)), ("judges", str(copy), str(base / "base"))]
    for args in commands:
        one_line(cli(*args), needle)
    assert not (tmp_path / "p.jsonl").exists()

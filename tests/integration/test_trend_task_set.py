"""A live-judge `trend` series tells task sets apart by the tasks alone (the manifest's
``task_set.tasks_hash``), as `compare` does: the same tasks in a reordered file were refused as
"different task sets" (the file's hash). A run whose manifest predates the tasks hash puts
the series back on the file's hash (compare's rule: ``drift.task_set_key``)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from tests.audit_helpers import write_spec, write_tasks
from tests.cli_helpers import cli


def _manifest(out: Path) -> dict[str, object]:
    db = sqlite3.connect(out / "audit.db")
    try:
        (text,) = db.execute("SELECT manifest FROM runs").fetchone()
    finally:
        db.close()
    return dict(json.loads(text))


def _without_tasks_hash(out: Path) -> None:
    """The run as a manifest written before the twentieth session has it."""
    manifest = _manifest(out)
    task_set = dict(manifest["task_set"])  # type: ignore[call-overload]
    del task_set["tasks_hash"]
    db = sqlite3.connect(out / "audit.db")
    try:
        db.execute(
            "UPDATE runs SET manifest = ?", (json.dumps({**manifest, "task_set": task_set}),)
        )
        db.commit()
    finally:
        db.close()


def test_a_series_of_the_same_tasks_in_another_file_order_trends(tmp_path: Path) -> None:
    tasks = write_tasks(tmp_path / "tasks.jsonl", 3)
    lines = tasks.read_text(encoding="utf-8").splitlines()
    (tmp_path / "reordered.jsonl").write_text("\n".join(lines[::-1]) + "\n", encoding="utf-8")
    outs = []
    for name in ("tasks", "reordered"):
        spec = write_spec(tmp_path / f"{name}.toml", tasks=f"{name}.jsonl", name=name)
        assert cli("run", str(spec), "--out", str(tmp_path / name)).returncode == 0
        outs.append(tmp_path / name)
    first, second = (_manifest(o)["task_set"] for o in outs)
    assert first["hash"] != second["hash"]  # type: ignore[index]  # the files differ
    assert first["tasks_hash"] == second["tasks_hash"]  # type: ignore[index]  # their tasks do not
    done = cli("trend", *map(str, outs), "--format", "json")
    assert done.returncode == 0, done.stderr  # refused before: "different task sets"
    periods = json.loads(done.stdout)["periods"]
    assert [p["task_set"] for p in periods] == [first["tasks_hash"]] * 2  # type: ignore[index]
    # one run from before the tasks hash: the series falls back to the files' hashes, which differ
    old = tmp_path / "old"
    shutil.copytree(outs[1], old)
    _without_tasks_hash(old)
    refused = cli("trend", str(outs[0]), str(old))
    assert refused.returncode == 2
    assert "different task sets" in refused.stderr
    assert f"({second['hash'][:12]} vs {first['hash'][:12]})" in refused.stderr  # type: ignore[index]
    # ... and with the same file, an old run and a new one trend on the file's hash
    same = tmp_path / "same"
    assert cli("run", str(tmp_path / "tasks.toml"), "--out", str(same)).returncode == 0
    _without_tasks_hash(same)
    mixed = cli("trend", str(outs[0]), str(same), "--format", "json")
    assert mixed.returncode == 0, mixed.stderr
    assert {p["task_set"] for p in json.loads(mixed.stdout)["periods"]} == {first["hash"]}  # type: ignore[index]

"""`compare` says the task set changed only when the tasks did (a new user's finding, twentieth
session): two recorded runs over the same pairs with other verdicts listed `task_set.hash` as
changed, because that hash is of the imported file, verdicts included. The manifest now keeps
`task_set.tasks_hash` of the tasks alone, and compare uses it when both runs have it; a run
without it (an older manifest) is compared by the file's hash as before."""

from __future__ import annotations

import json
from pathlib import Path

from judgeaudit.analysis.drift import manifest_changes
from tests.cli_helpers import cli, cli_ok
from tests.integration.test_compare_unpaired_reason import ROLLOUTS, _recorded


def _flipped(text: str) -> str:
    """The same log with every verdict's winner turned round (another judge's verdicts)."""
    lines = []
    for line in text.splitlines():
        row = json.loads(line) if line.strip() else None
        if row is not None and row.get("winner") in ("A", "B"):
            row["winner"] = {"A": "B", "B": "A"}[row["winner"]]
            row.pop("score_a", None), row.pop("score_b", None)
        lines.append(line if row is None else json.dumps(row, ensure_ascii=False))
    return "\n".join(lines) + "\n"


def _changes(a: Path, b: Path) -> list[str]:
    done = cli_ok("compare", str(a), str(b), "--format", "json")
    return [c["key"] for c in json.loads(done.stdout)["manifest_changes"]]


def test_other_verdicts_on_the_same_tasks_do_not_change_the_task_set(tmp_path: Path) -> None:
    text = (ROLLOUTS / "recorded-verdicts.jsonl").read_text(encoding="utf-8")
    first = _recorded(tmp_path / "a", text)
    other_verdicts = _recorded(tmp_path / "b", _flipped(text))
    other_tasks = _recorded(tmp_path / "c", text.replace('"task_id": "', '"task_id": "new-'))
    manifests = [json.loads((out / "manifest.json").read_text()) for out in (first, other_verdicts)]
    assert manifests[0]["task_set"]["hash"] != manifests[1]["task_set"]["hash"]  # the files
    assert manifests[0]["task_set"]["tasks_hash"] == manifests[1]["task_set"]["tasks_hash"]
    assert "task_set.hash" not in _changes(first, other_verdicts)
    assert "task_set.tasks_hash" not in _changes(first, other_verdicts)
    assert "task_set.tasks_hash" in _changes(first, other_tasks)
    shown = cli("compare", str(first), str(other_tasks)).stdout
    assert "task_set.tasks_hash: '" in shown


def test_an_older_manifest_without_the_tasks_hash_is_compared_by_the_file_hash() -> None:
    old = {"task_set": {"source": "p.jsonl", "hash": "aaaa", "count": 3}}
    new = {"task_set": {"source": "p.jsonl", "hash": "bbbb", "count": 3, "tasks_hash": "cccc"}}
    same = {"task_set": {"source": "p.jsonl", "hash": "aaaa", "count": 3}}
    assert [c["key"] for c in manifest_changes(old, new)] == ["task_set.hash"]
    assert manifest_changes(old, same) == []
    both = {"task_set": {"hash": "dddd", "tasks_hash": "cccc"}}
    assert manifest_changes(new, both) == []  # the same tasks, another file

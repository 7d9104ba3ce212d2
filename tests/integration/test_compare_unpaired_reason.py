"""Why `compare` calls two runs unpaired, said as it is: two simulated runs are independent
samples by design, even when a deterministic provider made the very same conversations (it
said "the runs judged different conversations" of two runs of one spec); two imported runs are
unpaired only when their conversations differ, and paired when they are the same."""

from __future__ import annotations

from pathlib import Path

from tests.audit_helpers import write_spec, write_tasks
from tests.cli_helpers import cli

ROLLOUTS = Path(__file__).resolve().parents[2] / "examples" / "rollouts"
SPEC = '[run]\nname = "rec"\nimported = "pairs.jsonl"\n[judge]\nsource = "recorded"\n'


def _recorded(folder: Path, log_text: str) -> Path:
    folder.mkdir()
    (folder / "log.jsonl").write_text(log_text, encoding="utf-8")
    pairs = folder / "pairs.jsonl"
    done = cli("import", "recorded-jsonl", str(folder / "log.jsonl"), "--out", str(pairs))
    assert done.returncode == 0, done.stderr
    (folder / "spec.toml").write_text(SPEC, encoding="utf-8")
    assert cli("run", str(folder / "spec.toml"), "--out", str(folder / "out")).returncode == 0
    return folder / "out"


def test_two_simulated_runs_of_one_spec_are_unpaired_because_each_simulated(
    tmp_path: Path,
) -> None:
    write_tasks(tmp_path / "tasks.jsonl", 3)
    spec = write_spec(tmp_path / "spec.toml", tasks="tasks.jsonl")
    for name in ("a", "b"):
        assert cli("run", str(spec), "--out", str(tmp_path / name)).returncode == 0
    shown = cli("compare", str(tmp_path / "a"), str(tmp_path / "b"))
    assert shown.returncode == 0, shown.stderr
    assert "unpaired: each run simulated its own conversations (independent samples)" in (
        shown.stdout
    )
    assert "judged different conversations" not in shown.stdout


def test_imported_runs_are_unpaired_only_when_their_conversations_differ(tmp_path: Path) -> None:
    text = (ROLLOUTS / "recorded-verdicts.jsonl").read_text(encoding="utf-8")
    same_a = _recorded(tmp_path / "a", text)
    same_b = _recorded(tmp_path / "b", text)
    other = _recorded(tmp_path / "c", text.replace("fixed ✓", "fixed, I think"))
    paired = cli("compare", str(same_a), str(same_b))
    assert paired.returncode == 0 and "\npaired: " in paired.stdout, paired.stdout
    apart = cli("compare", str(same_a), str(other))
    assert apart.returncode == 0, apart.stderr
    assert (
        "unpaired: the runs judged different conversations: their transcripts differ "
        "(independent samples)"
    ) in apart.stdout
    gated = cli("compare", str(same_a), str(other), "--fail-on-rise")
    assert gated.returncode == 2
    assert (
        "are not paired (the runs judged different conversations: their transcripts differ)"
        in gated.stderr
    )


def test_a_simulated_run_against_an_imported_one_names_the_run_that_simulated(
    tmp_path: Path,
) -> None:
    write_tasks(tmp_path / "tasks.jsonl", 3)
    spec = write_spec(tmp_path / "spec.toml", tasks="tasks.jsonl")
    assert cli("run", str(spec), "--out", str(tmp_path / "sim")).returncode == 0
    imported = _recorded(tmp_path / "rec", (ROLLOUTS / "recorded-verdicts.jsonl").read_text())
    for a, b, which in ((tmp_path / "sim", imported, "A"), (imported, tmp_path / "sim", "B")):
        shown = cli("compare", str(a), str(b))
        assert f"unpaired: run {which} simulated its own conversations" in shown.stdout, (
            shown.stdout + shown.stderr
        )

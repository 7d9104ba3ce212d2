"""The gate's words as a new user read them on the demo (twenty-third session): the app's head
said "INCONCLUSIVE — inconclusive (exit 5): ..."; it showed the CLI's verdict line only for a
set-aside pass; a misselection row's p read `no flips` where the tie-aware row read `p=1` for
the same fact (nothing moved); and JSON `gate.at_this_size` was null with no reason. No gate
decision changed: the exits are docs/gate.md's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgeaudit.analysis.compare_entry import compare_runs
from judgeaudit.tui.drift_view import changes_text, drift_rows
from tests.cli_helpers import cli

WEAK = "judge-default:diligence=0,evidence=0.3,style=0.7"
TIED = "judge-default:position=2.5"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("words")
    outs = {name: root / name for name in ("demo", "weak", "same", "tied")}
    made = cli("demo", "--no-tui", "--out", str(outs["demo"]))
    assert made.returncode == 0, made.stderr
    for name, model in (("weak", [WEAK]), ("same", []), ("tied", [TIED])):
        flags = ["--judge-model", *model] if model else []
        made = cli("rejudge", str(outs["demo"]), "--out", str(outs[name]), *flags)
        assert made.returncode == 0, made.stderr
    return outs


def _gated(a: Path, b: Path) -> tuple[int, str, str]:
    done = cli("compare", str(a), str(b), "--fail-on-rise")
    return done.returncode, done.stdout, done.stderr


def test_no_gate_decision_changed(demo: dict[str, Path]) -> None:
    # docs/gate.md: the weaker judge 5, the same judge 0, off the tying judge 0, onto it 3
    assert _gated(demo["demo"], demo["weak"])[0] == 5
    assert _gated(demo["demo"], demo["same"])[0] == 0
    assert _gated(demo["tied"], demo["demo"])[0] == 0
    assert _gated(demo["demo"], demo["tied"])[0] == 3


def test_the_verdict_word_is_said_once_and_the_verdict_line_shown(demo: dict[str, Path]) -> None:
    _, stdout, stderr = _gated(demo["demo"], demo["weak"])
    reason = "not worse is not shown within 2 points and no rise is significant"
    assert stderr.startswith(f"judgeaudit: inconclusive (exit 5): {reason}"), stderr  # the CLI's
    text = changes_text(compare_runs(demo["demo"], demo["weak"])).plain
    head = text.splitlines()[1]
    assert head.startswith(f"gate (--fail-on-rise): INCONCLUSIVE — {reason}"), head
    # the CLI's verdict line, for every verdict, as `compare` prints it
    verdict = next(x for x in stdout.splitlines() if x.startswith("gate ("))
    assert verdict == "gate (margin 2 points): INCONCLUSIVE"
    assert f"\n{verdict}\n" in text
    same = changes_text(compare_runs(demo["demo"], demo["same"])).plain
    assert "\ngate (margin 2 points): NOT WORSE\n" in same
    tied = changes_text(compare_runs(demo["demo"], demo["tied"])).plain
    assert tied.splitlines()[1].startswith("gate (--fail-on-rise): FAILED — the tie-aware rate")
    assert "\ngate (margin 2 points): WORSE on the tie-aware rate: ties count half a loss\n" in tied


def test_a_row_where_nothing_moved_reads_no_flips_on_both_criteria(demo: dict[str, Path]) -> None:
    _, stdout, _ = _gated(demo["demo"], demo["same"])
    overall = next(x for x in stdout.splitlines() if x.startswith("  overall"))
    tie = next(x for x in stdout.splitlines() if x.startswith("  tie-aware overall"))
    for line in (overall, tie):
        assert "+0.0 (no pair flipped)" in line and "  no flips  " in line, line
    assert "p=" not in tie, tie
    rows = dict(drift_rows(compare_runs(demo["demo"], demo["same"]).result))
    assert rows["overall"]["p"] == rows["tie-aware"]["p"] == "no flips"
    # where a tie moved, the tie-aware row keeps its p and alpha
    _, moved, _ = _gated(demo["demo"], demo["weak"])
    assert "p=0.173 (alpha 0.025)" in next(
        x for x in moved.splitlines() if x.startswith("  tie-aware overall")
    )


def _gate(a: Path, b: Path) -> dict[str, object]:
    done = cli("compare", str(a), str(b), "--format", "json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["gate"]  # type: ignore[no-any-return]


def test_a_null_at_this_size_says_why(demo: dict[str, Path]) -> None:
    aside = _gate(demo["tied"], demo["demo"])  # set aside: none of the 274 both decided moved
    assert aside["at_this_size"] is None
    assert aside["at_this_size_because"] == "no pair both runs decided flipped"
    same = _gate(demo["demo"], demo["same"])
    assert same["at_this_size"] is None and same["at_this_size_because"] == "no pair flipped"
    weak = _gate(demo["demo"], demo["weak"])
    assert weak["at_this_size"] is not None and weak["at_this_size_because"] is None


def test_the_json_gate_carries_the_outcome_and_the_reasons_stderr_says(
    demo: dict[str, Path],
) -> None:
    """A CI job keeping only `compare --format json` had the verdict and the exit code but not
    why: `gate.outcome` and `gate.reasons` are what `--fail-on-rise` says on stderr."""
    for a, b, code, outcome in (
        ("demo", "weak", 5, "inconclusive"),
        ("demo", "tied", 3, "failed"),
        ("demo", "same", 0, "passed"),
    ):
        done = cli("compare", str(demo[a]), str(demo[b]), "--format", "json", "--fail-on-rise")
        assert done.returncode == code, done.stderr
        gate = json.loads(done.stdout)["gate"]
        said = [line.removeprefix("judgeaudit: ") for line in done.stderr.splitlines()]
        assert (gate["outcome"], gate["exit_code"], gate["reasons"]) == (outcome, code, said)
        assert bool(said) == (code != 0)
    weak = json.loads(
        cli("compare", str(demo["demo"]), str(demo["weak"]), "--format", "json").stdout
    )
    assert weak["gate"]["reasons"][0].startswith("inconclusive (exit 5): not worse is not shown")

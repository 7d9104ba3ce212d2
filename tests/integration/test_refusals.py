"""Refusals that need a real run: a run refused at its first call leaves nothing behind, a full
disk is one line and exit 4 and resumes, and an unexpected error names a log file."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from judgeaudit.cli import main
from tests.audit_helpers import write_spec
from tests.cli_helpers import cli
from tests.helpers import sim_server


def test_run_refused_at_first_call_writes_nothing_and_the_fix_needs_no_new_run(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"
    with sim_server("--require-key-env", "GOOD", env={"GOOD": "good-key-1234"}) as url:
        spec = write_spec(tmp_path / "spec.toml", tasks="builtin:retail")
        spec.write_text(
            spec.read_text().replace(
                'base_url = "embedded"', f'base_url = "{url}"\nkey_env = "MY_KEY"'
            )
        )
        refused = cli("run", str(spec), "--out", str(out), env={"MY_KEY": "wrong-key-5678"})
        assert refused.returncode == 2 and "rejected the API key" in refused.stderr
        assert not out.exists(), "a run refused at its first call left OUT behind"
        # The corrected spec (another judge model: a different spec hash) runs without --new-run.
        spec.write_text(
            spec.read_text().replace('model = "judge-default"', 'model = "judge-strict"')
        )
        spec.write_text(spec.read_text().replace("[run]\n", '[run]\npairs = [["ace", "weak"]]\n'))
        fixed = cli("run", str(spec), "--out", str(out), env={"MY_KEY": "good-key-1234"})
        assert fixed.returncode == 0, fixed.stderr
    db = sqlite3.connect(out / "audit.db")
    assert db.execute("SELECT COUNT(*), MIN(status) FROM runs").fetchone() == (1, "finished")


def test_unexpected_error_is_one_line_naming_a_log_with_the_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGEAUDIT_LOG_DIR", str(tmp_path / "logs"))

    def broken(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("a bug nobody planned for")

    monkeypatch.setattr("judgeaudit.analysis.report.build_report", broken)
    (tmp_path / "o").mkdir()
    code = main(["report", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 70 and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    logs = list((tmp_path / "logs").glob("crash-*.log"))
    assert len(logs) == 1 and str(logs[0]) in err
    text = logs[0].read_text()
    assert "Traceback" in text and "a bug nobody planned for" in text
    assert oct(logs[0].stat().st_mode & 0o777) == "0o600"


def _can_mount_tmpfs() -> bool:
    if sys.platform != "linux" or not shutil.which("unshare"):
        return False
    probe = subprocess.run(
        ["unshare", "-m", "--propagation", "private", "sh", "-c", "mount -t tmpfs none /mnt"],
        capture_output=True,
    )
    return probe.returncode == 0


@pytest.mark.skipif(not _can_mount_tmpfs(), reason="needs unshare + mount (root) for a real tmpfs")
def test_full_disk_is_one_line_exit_4_and_resumes(tmp_path: Path) -> None:
    """A real full disk: a 600 KiB tmpfs in a private mount namespace, then grown to finish."""
    spec = write_spec(tmp_path / "spec.toml")
    mount = tmp_path / "small"
    mount.mkdir()
    py = sys.executable
    script = f"""
set -u
mount -t tmpfs -o size=600k tmpfs {mount}
{py} -m judgeaudit run {spec} --out {mount}/out --events jsonl >/dev/null 2>{tmp_path}/first.err
echo $? > {tmp_path}/first.rc
sqlite3_count() {{ {py} -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT COUNT(*) FROM audit_pairs').fetchone()[0])" "$1"; }}
sqlite3_count {mount}/out/audit.db > {tmp_path}/first.pairs 2>/dev/null || echo none > {tmp_path}/first.pairs
mount -o remount,size=64m {mount}
{py} -m judgeaudit run {spec} --out {mount}/out --events jsonl >/dev/null 2>{tmp_path}/second.err
echo $? > {tmp_path}/second.rc
cp {mount}/out/audit_pairs.csv {tmp_path}/pairs.csv
"""
    subprocess.run(
        ["unshare", "-m", "--propagation", "private", "bash", "-c", script],
        check=True,
        timeout=900,
    )
    first_err = (tmp_path / "first.err").read_text()
    assert (tmp_path / "first.rc").read_text().strip() == "4", first_err
    lines = [line for line in first_err.splitlines() if line.startswith("judgeaudit:")]
    assert len(lines) == 1 and "disk is full" in lines[0] and "Traceback" not in first_err
    assert (tmp_path / "second.rc").read_text().strip() == "0", (
        tmp_path / "second.err"
    ).read_text()
    rows = (tmp_path / "pairs.csv").read_text().splitlines()[1:]
    ids = [r.split(",")[0] for r in rows]
    assert len(ids) == len(set(ids)) == 42 * 3, "every pair once after the resumed run"

"""Fresh clone to first result: `git clone` into a temp dir, then `make demo`, against its floors.

Measured in one run, side by side:

- ``make demo`` from the clone (venv, install of the runtime, one audit), with an empty installer
  cache (``--cold``) and with a warm one (the caches the cold run filled);
- the install floor: ``python -m venv`` plus ``pip install --no-index`` of the same wheels from a
  local directory (no resolver, no index; what pip must at least do; uv's copy from its cache can
  beat it, so a ratio below 1 is possible);
- the run floor: the demo's own audit in the venv the clone made (``judgeaudit demo --no-tui``).

Prints each wall time and its ratio to the sum of the floors. The machine is shared: the load
average is printed with the figures. Usage: python bench/fresh_demo.py [--cold] [--pip]
(``--pip`` forces the pip fallback of the Makefile, ``UV_OFF=1``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def pip_python() -> str:
    """An interpreter with pip: the Makefile's ``PYTHON`` (python3.11), as ``make demo`` uses it.
    The venvs here have no pip of their own (``venv --without-pip``, filled by uv), so
    ``sys.executable -m pip`` fails when this bench runs from one."""
    for candidate in (os.environ.get("PYTHON"), "python3.11", sys.executable):
        found = shutil.which(candidate) if candidate else None
        check = [found or "", "-m", "pip", "--version"]
        if found and subprocess.run(check, capture_output=True).returncode == 0:
            return found
    raise SystemExit("no Python with pip found (set PYTHON=/path/to/python3.11)")


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed in {cwd}:\n{done.stdout}\n{done.stderr}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cold", action="store_true", help="also time an empty installer cache")
    parser.add_argument("--pip", action="store_true", help="the Makefile's pip fallback (UV_OFF)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="fresh-demo-") as tmp:
        root = Path(tmp)
        caches = {"PIP_CACHE_DIR": str(root / "pip-cache"), "UV_CACHE_DIR": str(root / "uv-cache")}
        env = {**os.environ, **({"UV_OFF": "1"} if args.pip else {})}
        if not args.cold:  # the user's own caches: warm on a machine that installed before
            caches = {}
        rows: dict[str, float] = {}
        runs = ["cold", "warm"] if args.cold else ["warm"]
        for label in runs:
            clone = root / f"clone-{label}"
            subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
            rows[f"git clone + make demo ({label} cache)"] = timed(
                ["make", "--no-print-directory", "demo"], clone, {**env, **caches}
            )
        clone = root / f"clone-{runs[-1]}"
        # The floors: the same wheels, installed with no resolver and no index; the audit alone.
        wheels = root / "wheels"
        pip = pip_python()
        freeze = subprocess.run(
            [
                pip,
                "-m",
                "pip",
                "--python",
                str(clone / ".venv/bin/python"),
                "freeze",
                "--exclude-editable",
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        (root / "req.txt").write_text("\n".join(freeze) + "\n", encoding="utf-8")
        subprocess.run(
            [
                pip,
                "-m",
                "pip",
                "download",
                "-q",
                "--no-deps",
                "-d",
                str(wheels),
                "-r",
                str(root / "req.txt"),
            ],
            check=True,
            env={**os.environ, **caches},
        )
        floor_venv = root / "floor-venv"
        install = timed([sys.executable, "-m", "venv", str(floor_venv)], root, env)
        install += timed(
            [
                str(floor_venv / "bin/python"),
                "-m",
                "pip",
                "install",
                "-q",
                "--no-index",
                "--no-deps",
                "--find-links",
                str(wheels),
                "-r",
                str(root / "req.txt"),
            ],
            root,
            env,
        )
        run = timed(
            [str(clone / ".venv/bin/judgeaudit"), "demo", "--no-tui", "--out", str(root / "o")],
            clone,
            env,
        )
    floor = install + run
    installer = "pip (UV_OFF=1)" if args.pip else "uv, pip as fallback"
    print(f"fresh clone to first result ({installer}; load {os.getloadavg()[0]:.1f})")
    for name, value in rows.items():
        print(f"  {name:<44} {value:6.1f} s  {value / floor:4.2f}x floor  (goal <= 20 s)")
    print(f"  floor: venv + pip --no-index of the same wheels {install:6.1f} s")
    print(f"  floor: the demo's audit alone                   {run:6.1f} s")


if __name__ == "__main__":
    main()

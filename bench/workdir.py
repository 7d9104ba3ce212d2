"""A benchmark's working directory: ``--dir DIR`` is the user's (made if missing, kept, reused),
else a temporary one removed when the benchmark ends, also on an error or Ctrl-C, unless
``--keep`` (CI runs every benchmark on each push: their folders were left in /tmp, MBs each)."""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def add_options(parser: argparse.ArgumentParser, what: str = "working directory") -> None:
    """``--dir`` and ``--keep``, worded alike in every benchmark that takes them."""
    parser.add_argument(
        "--dir", type=Path, help=f"{what} (kept; default: a temporary one, removed at the end)"
    )
    parser.add_argument(
        "--keep", action="store_true", help="keep the temporary directory (its path is printed)"
    )


@contextmanager
def work_dir(given: Path | None, prefix: str, keep: bool = False) -> Iterator[Path]:
    if given is not None:
        given.mkdir(parents=True, exist_ok=True)
        yield given
        return
    path = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield path
    finally:
        if keep:
            print(f"kept {path}", file=sys.stderr)
        else:
            shutil.rmtree(path, ignore_errors=True)

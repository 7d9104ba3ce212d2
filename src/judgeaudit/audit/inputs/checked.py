"""A pairs file ``import`` wrote and already validated, so a recorded run validates it once.

``judgeaudit import recorded-jsonl … --out PAIRS.jsonl`` checks every line (per row and across
rows) while it writes the pairs file, then records what the run's own validation would find
beside it, in ``PAIRS.jsonl.checked.json``: the SHA-256 of the file's bytes, the pair count, the
content hash the run binds into its spec and the period. A recorded run that finds this record
hashes the file again (a fraction of a second per million pairs, against tens of seconds of
validation) and, only when every byte is the one the import wrote and the record is of this
version of the checks, builds its rows without checking them again. A file edited by hand (or
by anything else) has another hash: it is validated in full, and refused in one line naming
``file:line: field`` as before. A record that is missing, unreadable or of another version is
ignored the same way, so the record can only save work, never let a different file through.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from judgeaudit.fsutil import atomic_write_text

#: Bumped whenever a check of :func:`~judgeaudit.audit.inputs.imported.parse_pair`, the cross-row
#: checks or the content hash change: a record from an older import is then ignored.
#: 2: agent names with a trial-like part refused; 3: a log's pair_id checked; 4: ids holding an
#: invisible character (zero-width space, bidi control) refused (agentnames.id_text_problem).
CHECKS_VERSION = 4
SUFFIX = ".checked.json"
CHUNK = 1 << 20


@dataclass(frozen=True)
class Checked:
    """What the run's validation of the file gives, recorded by the import that wrote it."""

    sha256: str  # of the file's bytes
    pairs: int
    content: str  # ImportedSet.hash(): bound into the run's spec
    period: str | None
    version: int = CHECKS_VERSION


def record_path(pairs_file: Path) -> Path:
    return pairs_file.with_name(pairs_file.name + SUFFIX)


def write_checked(pairs_file: Path, record: Checked) -> None:
    atomic_write_text(record_path(pairs_file), json.dumps(asdict(record), indent=1) + "\n")


def forget_checked(pairs_file: Path) -> None:
    """Remove a stale record (before a file is rewritten, or when it is not one the run takes)."""
    with contextlib.suppress(FileNotFoundError):
        record_path(pairs_file).unlink()


def trusted(pairs_file: Path) -> Checked | None:
    """The import's record, if it describes exactly these bytes under these checks; else None."""
    try:
        raw: Any = json.loads(record_path(pairs_file).read_text(encoding="utf-8"))
        record = Checked(**raw)
    except (OSError, ValueError, TypeError):
        return None
    if record.version != CHECKS_VERSION or not isinstance(record.sha256, str):
        return None
    return record if file_sha256(pairs_file) == record.sha256 else None


def written_by_import(pairs_file: Path) -> bool:
    """Whether ``pairs_file`` is, byte for byte, what an import's record (of any version) says
    it wrote: the one file ``import --out`` replaces without ``--force``."""
    try:
        raw: Any = json.loads(record_path(pairs_file).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    sha = raw.get("sha256") if isinstance(raw, dict) else None
    return isinstance(sha, str) and file_sha256(pairs_file) == sha


def file_sha256(path: Path) -> str:
    sha = hashlib.sha256()
    try:
        with path.open("rb") as handle:
            while block := handle.read(CHUNK):
                sha.update(block)
    except OSError:
        return ""
    return sha.hexdigest()


__all__ = [
    "Checked",
    "file_sha256",
    "forget_checked",
    "record_path",
    "trusted",
    "write_checked",
    "written_by_import",
]

"""Per-app targets. Each one parses a live file (or refuses), and plans its new content."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

#: Python code an auth command (Codex ``auth``, Claude Code ``apiKeyHelper``) runs to print the
#: key from the environment variable named by its argument, or to say in one line that it is not
#: set (the tool shows that line): a ``key_env`` profile's key never sits in a file.
PRINT_ENV = (
    "import os, sys; v = os.environ.get(sys.argv[1]); "
    'sys.stdout.write(v) if v else sys.exit(sys.argv[1] + " is not set; export it, then start the tool")'
)

#: The kinds of settings file a switch writes (a plan's ``kind``; see ``registry.for_kind``).
FileKind = Literal["claude", "codex", "codex-profile"]


@dataclass
class FilePlan:
    """One file a switch will write: what it held when read, and what it will hold."""

    path: Path
    before: bytes | None  # None: the file does not exist yet
    after: bytes | None  # None: the file is (or stays) absent
    kind: FileKind = "claude"
    secret: bool = False  # holds a key inline: written 0600
    mode: int | None = None  # the permission bits to write; None keeps the file's own
    ledger: dict[str, dict[str, Any]] = field(default_factory=dict)  # what judgeaudit owns
    notes: list[str] = field(default_factory=list)  # user values replaced/removed (no secrets)
    warnings: list[str] = field(default_factory=list)
    save_secrets: dict[str, str] = field(default_factory=dict)  # keyring entry -> user's text
    dropped_secrets: list[str] = field(default_factory=list)
    inline_key_name: str | None = None  # the keyring entry whose key sits inline in ``after``
    held: list[str] = field(default_factory=list)  # user values ``off`` kept out (``heldback``)

    @property
    def changes(self) -> bool:
        return self.before != self.after

    @property
    def owned(self) -> list[str]:
        return sorted(
            k for k, e in self.ledger.items() if not e.get("removed") and not k.startswith("#")
        )

"""The parsed run spec: its records (RunSpec, Endpoint, ModelRef), its error and the constants
parsing and hashing share. :mod:`judgeaudit.audit.spec.runspec` reads TOML into these.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from judgeaudit.audit.spec.templates import Template
from judgeaudit.errors import InputError

EMBEDDED = "embedded"
GAP_SOURCES = ("capability", "judge", "external")
JUDGE_VIEWS = ("transcript", "evidence")
#: Excluded from the spec hash: they change speed, not results.
SPEED_KEYS = ("concurrency", "timeout_s", "rpm", "tpm", "fast_path")
#: Request and token rate limits an endpoint may declare (per minute): (lowest, highest).
RATE_KEYS = {"rpm": (1, 1e9), "tpm": (1, 1e12)}
#: Optional keys added after the first release: left out of the hash while unset, so a spec
#: that does not use them keeps its run id (and resumes) across versions.
UNSET_NOT_HASHED = ("trajectories_from", "lexicon")
#: Roles whose prompt template the spec may name (``prompt = "FILE"``, relative to the spec).
TEMPLATE_ROLES = {"judge": "judge", "user": "user_simulator", "success_check": "success_check"}


class SpecError(InputError):
    """A bad spec, phrased as ``file: key: what is wrong; what to do``."""


@dataclass(frozen=True)
class Endpoint:
    name: str
    base_url: str  # a URL, "embedded", or "" when a profile supplies it
    key_env: str | None = None
    profile: str | None = None  # a judgeaudit profile: its base URL and keyring key
    concurrency: int = 32
    timeout_s: float = 60.0
    rpm: float | None = None  # requests per minute the endpoint allows (client paces itself)
    tpm: float | None = None  # tokens per minute
    #: the direct aiohttp transport (True), the openai SDK (False), or by address (None: local
    #: and private addresses go direct); see judgeaudit.llm.direct
    fast_path: bool | None = None
    price_in: float | None = None  # USD per million input tokens
    price_out: float | None = None

    @property
    def embedded(self) -> bool:
        return self.base_url == EMBEDDED


@dataclass(frozen=True)
class ModelRef:
    role: str
    name: str
    model: str
    endpoint: str
    temperature: float | None = None


@dataclass(frozen=True)
class RunSpec:
    path: str
    name: str
    tasks: str
    imported: str | None
    trials: int
    seed: int
    concurrency: int
    max_turns: int
    language: str
    swap: bool
    judge_view: str
    judge_retries: int
    pairs: list[tuple[str, str]]
    gap_source: str
    bins: list[float] | None
    labels: list[str] | None
    endpoints: dict[str, Endpoint]
    agents: list[ModelRef]
    user_simulator: ModelRef | None
    judge: ModelRef
    success_check: ModelRef | None
    warnings: list[str] = field(default_factory=list)
    #: Hash of a task or pairs file's content (set when the run loads it): an edited file is a
    #: different spec. Empty for the built-in task set, so its run ids stay as they were.
    inputs_hash: str = ""
    #: ``recorded``: audit the verdicts stored in the pairs file, no model call at all.
    judge_source: str = "llm"
    #: Show imported pairs' context (a system prompt or policy) to the judge.
    judge_context: bool = True
    #: Templates the spec names, by kind (judge, user_simulator, success_check); the built-in
    #: en/zh template is used for a kind not listed here.
    templates: dict[str, Template] = field(default_factory=dict)
    #: ``OUT_DIR`` or ``OUT_DIR#RUN_ID``: re-judge that run's stored trajectories.
    trajectories_from: str | None = None
    #: Which run ``trajectories_from`` names (its uid), set when the source is bound by
    #: :func:`judgeaudit.audit.inputs.load_spec`: a key, never an open run, so parsing a spec
    #: touches no other run's database.
    source_key: str | None = field(default=None, compare=False)
    #: ``[run] lexicon``: the content of the marker file the spec names (added to the built-in
    #: English and Chinese lexicons for the style features; the manifest keeps it).
    lexicon: dict[str, list[str]] | None = None
    #: The period every imported pair names (``audit/units/period.py``), set when the run loads
    #: its pairs; the manifest keeps it as the run's point on the trend's x axis.
    period: str = ""

    def spec_hash(self) -> str:
        data = asdict(replace(self, templates={}))
        for key in ("path", "warnings", "templates", "source_key", *SPEED_KEYS):
            data.pop(key, None)
        for key, default in (
            ("inputs_hash", ""),
            ("judge_source", "llm"),
            ("judge_context", True),
            ("period", ""),
        ):
            if data.get(key) == default:
                data.pop(key, None)  # keys added later leave older run ids unchanged
        for key in UNSET_NOT_HASHED:
            if data.get(key) is None:
                data.pop(key, None)
        for endpoint in data["endpoints"].values():
            for key in SPEED_KEYS:
                endpoint.pop(key, None)
        if self.templates:  # the content, not the path: editing the file makes a new run
            data["templates"] = {kind: t.hash for kind, t in sorted(self.templates.items())}
        if self.source_key is not None:  # which run, not where it lies
            data["trajectories_from"] = self.source_key
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]

    def base_dir(self) -> Path:
        return Path(self.path).parent


def recorded_verdicts(manifest: Mapping[str, Any]) -> bool:
    """Whether a stored run's manifest says it audited recorded verdicts (``judge_source``): the
    one reading of the setting every consumer of a finished run shares."""
    settings = manifest.get("settings")
    return isinstance(settings, Mapping) and settings.get("judge_source") == "recorded"

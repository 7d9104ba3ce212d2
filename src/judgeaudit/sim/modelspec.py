"""Model ids → simulated model parameters.

A model id is a preset name (``agent-ace``), a kind with inline parameters
(``agent:skill=0.8,claims=0.6``), or both (``agent-ace:rate_429=0.2``). Unknown ids fall back
to the generic ``chat`` kind so any client (Codex, Claude Code) gets an answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judgeaudit import validate
from judgeaudit.errors import InputError
from judgeaudit.validate import INT64_MAX, read_toml

KINDS = ("agent", "judge", "user", "chat")
API_NAMES = ("chat", "responses", "messages")

#: Defaults per kind. Every key is documented in the README ("Simulated models").
KIND_DEFAULTS: dict[str, dict[str, float]] = {
    "agent": {
        "skill": 0.8,  # probability each required action is done right
        "politeness": 0.5,  # share of replies with courteous filler
        "verbosity": 0.5,  # how much padding a reply carries
        "claims": 0.5,  # probability of claiming success after a failure
    },
    "judge": {
        "evidence": 0.6,  # weight on visible evidence of completion
        "style": 0.4,  # weight on tone, length and confident claims
        "position": 0.15,  # score bonus (0-5 scale) for the first-shown trajectory
        "noise": 0.35,  # std-dev of score noise (0-5 scale)
        "diligence": 0.6,  # probability of cross-checking reported details against the request
        "malformed": 0.0,  # rate of malformed output (fences, prose, broken JSON)
    },
    "user": {
        "gullibility": 0.6,  # probability a bare claim of completion satisfies the user
    },
    "chat": {},
}

FAULT_DEFAULTS: dict[str, float] = {
    "latency_ms": 0.0,
    "jitter_ms": 0.0,
    "rate_429": 0.0,
    "retry_after_s": 0.05,
    "rate_500": 0.0,
    "rate_503": 0.0,
    "rate_hang": 0.0,
    "hang_s": 30.0,
    "rate_truncate": 0.0,
    "rate_empty": 0.0,
    "rate_limit_rps": 0.0,  # a token bucket: 429 above this many requests/s (0 = no limit)
    "rate_limit_burst": 0.0,  # requests the bucket banks (0 = one second's worth)
}

#: Allowed ranges. Behaviour parameters are probabilities or weights in [0, 1], except the two
#: on the judge's 0-5 score scale; fault rates are shares of requests (their sum at most 1).
PARAM_LIMITS: dict[str, tuple[float, float]] = {"position": (0.0, 5.0), "noise": (0.0, 5.0)}
FAULT_LIMITS: dict[str, tuple[float, float]] = {
    "latency_ms": (0.0, 600_000.0),
    "jitter_ms": (0.0, 600_000.0),
    "retry_after_s": (0.0, 3600.0),
    "hang_s": (0.0, 3600.0),
    "rate_limit_rps": (0.0, 1_000_000.0),  # requests per second, not a share
    "rate_limit_burst": (0.0, 1_000_000.0),
}
#: The fault rates that share one draw per request (their sum is at most 1).
SHARED_RATES = ("rate_429", "rate_500", "rate_503", "rate_hang", "rate_truncate", "rate_empty")
CONFIG_KEYS = ("seed", "faults", "models")

BUILTIN_PRESETS: dict[str, dict[str, Any]] = {
    # Agents spread over skill and style so that agent pairs fall in every capability-gap bucket.
    "agent-ace": {
        "kind": "agent",
        "skill": 0.97,
        "politeness": 0.2,
        "verbosity": 0.2,
        "claims": 0.2,
    },
    "agent-pro": {
        "kind": "agent",
        "skill": 0.95,
        "politeness": 0.9,
        "verbosity": 0.8,
        "claims": 0.9,
    },
    "agent-solid": {
        "kind": "agent",
        "skill": 0.88,
        "politeness": 0.3,
        "verbosity": 0.4,
        "claims": 0.4,
    },
    "agent-keen": {
        "kind": "agent",
        "skill": 0.86,
        "politeness": 0.9,
        "verbosity": 0.7,
        "claims": 0.8,
    },
    "agent-fair": {
        "kind": "agent",
        "skill": 0.74,
        "politeness": 0.4,
        "verbosity": 0.4,
        "claims": 0.5,
    },
    "agent-shaky": {
        "kind": "agent",
        "skill": 0.6,
        "politeness": 0.8,
        "verbosity": 0.7,
        "claims": 0.8,
    },
    "agent-weak": {
        "kind": "agent",
        "skill": 0.3,
        "politeness": 0.2,
        "verbosity": 0.2,
        "claims": 0.3,
    },
    "judge-default": {"kind": "judge"},
    "judge-strict": {
        "kind": "judge",
        "evidence": 0.95,
        "style": 0.05,
        "position": 0.05,
        "noise": 0.2,
        "diligence": 0.95,
    },
    "judge-flaky": {"kind": "judge", "malformed": 0.15},
    "user-default": {"kind": "user"},
    "user-skeptic": {"kind": "user", "gullibility": 0.1},
    "sim-chat": {"kind": "chat"},
}


class ModelSpecError(InputError):
    """A model id or sim config that cannot be understood."""


@dataclass(frozen=True)
class ModelSpec:
    """A resolved simulated model: its kind, behaviour parameters and fault settings."""

    model_id: str
    kind: str
    params: dict[str, float] = field(default_factory=dict)
    faults: dict[str, float] = field(default_factory=dict)

    def p(self, name: str) -> float:
        return self.params[name]


@dataclass
class SimConfig:
    """Server-wide settings: default seed, global faults, presets, optional required key."""

    seed: int = 0
    faults: dict[str, float] = field(default_factory=dict)
    presets: dict[str, dict[str, Any]] = field(default_factory=lambda: dict(BUILTIN_PRESETS))
    auth_key: str | None = None
    #: Which APIs the server answers (``--apis``); the others get a 404, like a chat-only gateway.
    apis: frozenset[str] = frozenset(API_NAMES)
    request_log: Path | None = None  # one JSON line per request (``--request-log``)

    @classmethod
    def load(cls, path: Path | None) -> SimConfig:
        """Read a sim config TOML (``seed``, ``[faults]``, ``[models.NAME]``)."""
        cfg = cls()
        if path is None:
            return cfg
        data = read_toml(path, "sim config", ModelSpecError)
        for key in data:
            if key not in CONFIG_KEYS:
                raise ModelSpecError(
                    f"{path}: {key}: unknown key; a sim config has {', '.join(CONFIG_KEYS)}"
                )
        cfg.seed = validate.integer(
            data.get("seed", 0), f"{path}: seed", 0, INT64_MAX, ModelSpecError
        )
        cfg.faults = _check_faults(data.get("faults", {}), f"{path}: faults")
        models = data.get("models", {})
        if not isinstance(models, dict):
            raise ModelSpecError(f"{path}: models: must be a table of [models.NAME] tables")
        for name, body in models.items():
            if not isinstance(body, dict):
                raise ModelSpecError(f"{path}: [models.{name}] must be a table")
            preset = dict(body)
            if preset.get("kind") not in KINDS:
                raise ModelSpecError(
                    f"{path}: [models.{name}] kind must be one of {', '.join(KINDS)}"
                )
            cfg.presets[name] = preset
            try:
                cfg.resolve(name)  # every parameter checked now, not at the first request
            except ModelSpecError as exc:
                raise ModelSpecError(f"{path}: [models.{name}]: {exc}") from None
        return cfg

    def resolve(self, model_id: str) -> ModelSpec:
        """Turn a model id into a spec; raise ModelSpecError on a bad inline parameter."""
        base, _, inline = model_id.partition(":")
        if base in self.presets:
            preset = dict(self.presets[base])
            kind = str(preset.pop("kind"))
        elif base in KINDS:
            preset, kind = {}, base
        else:
            return ModelSpec(model_id, "chat", {}, dict(FAULT_DEFAULTS) | self.faults)
        preset_faults = preset.pop("faults", {})
        params = dict(KIND_DEFAULTS[kind])
        faults = dict(FAULT_DEFAULTS) | self.faults | _check_faults(preset_faults, model_id)
        for key, value in preset.items():
            _assign(params, faults, kind, key, value, model_id)
        for item in filter(None, inline.split(",")):
            key, sep, raw = item.partition("=")
            if not sep:
                raise ModelSpecError(f"model {model_id!r}: expected key=value, got {item!r}")
            try:
                value = float(raw)
            except ValueError:
                raise ModelSpecError(f"model {model_id!r}: {key} must be a number") from None
            _assign(params, faults, kind, key.strip(), value, model_id)
        return ModelSpec(model_id, kind, params, faults)

    def model_ids(self) -> list[str]:
        return sorted(self.presets)


def _assign(
    params: dict[str, float], faults: dict[str, float], kind: str, key: str, value: Any, where: str
) -> None:
    if key in KIND_DEFAULTS[kind]:
        lo, hi = PARAM_LIMITS.get(key, (0.0, 1.0))
        params[key] = validate.number(value, f"model {where!r}: {key}", lo, hi, ModelSpecError)
    elif key in FAULT_DEFAULTS:
        faults[key] = _fault_value(key, value, f"model {where!r}: {key}")
        _check_rate_sum(faults, f"model {where!r}")
    else:
        known = ", ".join([*KIND_DEFAULTS[kind], *FAULT_DEFAULTS])
        raise ModelSpecError(f"model {where!r}: unknown parameter {key!r} (known: {known})")


def _fault_value(key: str, value: Any, where: str) -> float:
    lo, hi = FAULT_LIMITS.get(key, (0.0, 1.0))
    return validate.number(value, where, lo, hi, ModelSpecError)


def _check_rate_sum(faults: dict[str, float], where: str) -> None:
    total = sum(v for k, v in faults.items() if k in SHARED_RATES)
    if total > 1.0 + 1e-9:
        raise ModelSpecError(
            f"{where}: fault rates add up to {total:g}; they are shares of requests, "
            "keep their sum at most 1"
        )


def _check_faults(raw: Any, where: str) -> dict[str, float]:
    if not isinstance(raw, dict):
        raise ModelSpecError(f"{where}: faults must be a table")
    out: dict[str, float] = {}
    for key, value in raw.items():
        if key not in FAULT_DEFAULTS:
            raise ModelSpecError(
                f"{where}: unknown fault {key!r} (known: {', '.join(FAULT_DEFAULTS)})"
            )
        out[key] = _fault_value(key, value, f"{where}.{key}")
    _check_rate_sum(out, where)
    return out

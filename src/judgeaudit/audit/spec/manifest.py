"""The run manifest: everything needed to reproduce a run or explain a difference between two."""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Any, Protocol

from judgeaudit import __version__, credentials
from judgeaudit.audit.spec import RunSpec
from judgeaudit.audit.spec.prompts import PromptSet
from judgeaudit.audit.tasks import Task, task_set_hash


def relative_source(source: str, spec: RunSpec) -> str:
    """A template file's path relative to the spec's directory (``builtin:...`` as is), so a
    manifest does not depend on where the project was checked out and two runs compare."""
    if not source or source.startswith("builtin:"):
        return source
    path = Path(source).resolve()  # a relative source was read relative to the working dir
    return Path(os.path.relpath(path, spec.base_dir().resolve())).as_posix()


class SourceManifest(Protocol):
    """What the manifest needs of a re-judge's source run (an ``inputs.SourceRun``)."""

    @property
    def manifest(self) -> dict[str, Any]: ...

    def lineage(self, reference: str) -> dict[str, Any]: ...


def build_manifest(
    run_id: str,
    spec: RunSpec,
    prompts: PromptSet,
    tasks: list[Task],
    source: SourceManifest | None = None,
) -> dict[str, Any]:
    """The run's manifest; ``source`` is a re-judge's source run (its conversations' origin)."""

    def model(ref: Any) -> dict[str, Any] | None:
        if ref is None:
            return None
        endpoint = spec.endpoints.get(ref.endpoint)
        if endpoint is None:  # a recorded judge: no endpoint, the verdicts come from the file
            base_url = "recorded"
        else:
            base_url = endpoint.base_url or f"profile:{endpoint.profile}"
        return {
            "name": ref.name,
            "model": ref.model,
            "endpoint": ref.endpoint,
            # credentials never reach a manifest
            "base_url": credentials.mask_inline_credentials(base_url),
            "key_env": endpoint.key_env if endpoint else None,  # a variable's name, never a key
            "temperature": ref.temperature,
        }

    models = {
        "agents": [model(a) for a in spec.agents],
        "user_simulator": model(spec.user_simulator),
        "judge": model(spec.judge),
        "success_check": model(spec.success_check),
    }
    described = prompts.manifest()
    for template in described["templates"].values():
        if isinstance(template, dict):
            template["source"] = relative_source(str(template.get("source", "")), spec)
    if spec.judge_source == "recorded":
        # no judge template is rendered: the verdicts carry their own model and prompt hash
        # (audit_pairs.judge_model, judge_logs.prompt_hash), so the built-in one is not claimed
        described["hashes"]["judge"] = None
        described["templates"]["judge"] = None
    run_uid = uuid.uuid4().hex
    lineage: dict[str, Any] = {"from": None, "root": run_uid}
    if source is not None:  # a re-judge: the conversations are the source run's
        lineage = source.lineage(spec.trajectories_from or "")
        source_manifest = source.manifest
        models["agents"] = source_manifest.get("models", {}).get("agents", [])
        models["user_simulator"] = source_manifest.get("models", {}).get("user_simulator")
        for key in ("agent_system", "user_simulator"):
            inherited = source_manifest.get("prompts", {}).get("templates", {}).get(key)
            described["templates"][key] = inherited
            described["hashes"][key] = source_manifest.get("prompts", {}).get("hashes", {}).get(key)
    return {
        "run_id": run_id,
        "run_uid": run_uid,
        "name": spec.name,
        "spec_hash": spec.spec_hash(),
        "spec_path": spec.path,
        "tool_version": __version__,
        "seed": spec.seed,
        "settings": {
            "trials": spec.trials,
            "max_turns": spec.max_turns,
            "language": spec.language,
            "swap": spec.swap,
            "judge_view": spec.judge_view,
            "judge_retries": spec.judge_retries,
            "judge_source": spec.judge_source,
            "judge_context": spec.judge_context,
            "gap_source": spec.gap_source,
            "bins": spec.bins,
            "labels": spec.labels,
            **({"lexicon": spec.lexicon} if spec.lexicon else {}),
        },
        "prompts": described,
        "models": models,
        "pairs": [list(p) for p in spec.pairs],
        "trajectories": lineage,
        **({"period": spec.period} if spec.period else {}),  # older manifests stay as they were
        "task_set": {
            "source": spec.imported or spec.tasks,
            "hash": spec.inputs_hash or task_set_hash(tasks),
            "count": len(tasks),
        },
    }

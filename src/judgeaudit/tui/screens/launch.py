"""Launch: pick a spec file, or build one in a form; one key starts the demo.

The form's spec is a tomlkit document validated by the spec module (`parse_spec`, the same rules
and messages as a spec file) before anything is written, so a model name with a quote in it or a
duplicate agent is refused with one line instead of producing a broken file."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import tomlkit
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Checkbox, Footer, Header, Label, Static
from tomlkit.items import Table

from judgeaudit.audit.spec import parse_spec
from judgeaudit.errors import JudgeauditError
from judgeaudit.fsutil import atomic_write_text
from judgeaudit.tui.messages import StartRun, WrittenSpec
from judgeaudit.tui.widgets.field import Field
from judgeaudit.tui.widgets.note import Note

FORM_DEFAULTS = {
    "endpoint": "embedded",
    "tasks": "builtin:retail",
    "agents": "agent-ace, agent-pro, agent-solid, agent-weak",
    "user": "user-default",
    "judge": "judge-default",
    "concurrency": "16",
    "seed": "7",
}
SPEC_NAME = "tui-spec.toml"


class FormError(JudgeauditError):
    """A form field that cannot become a spec value; the message names the field."""


def whole_number(values: dict[str, str], field: str) -> int:
    try:
        return int(values[field])
    except ValueError:
        raise FormError(f"{field}: {values[field]!r} is not a whole number") from None


def endpoint_table(value: str) -> Table:
    """``embedded`` (the simulated provider), a URL, or a judgeaudit profile's name (its base URL
    and keyring key)."""
    table = tomlkit.table()
    if value in ("", "embedded") or value.startswith(("http://", "https://")):
        table["base_url"] = value or "embedded"
    else:
        table["profile"] = value
    return table


def unknown_models(values: dict[str, str]) -> list[str]:
    """Model ids the embedded provider does not know: it would answer them as a plain chat
    model (no agent, judge or user behaviour), which is rarely what was meant."""
    from judgeaudit.sim.modelspec import SimConfig

    if values["endpoint"] not in ("", "embedded"):
        return []
    config = SimConfig()
    wanted = [a.strip() for a in values["agents"].split(",") if a.strip()]
    wanted += [values["user"], values["judge"]]
    return [m for m in wanted if config.resolve(m).kind == "chat"]


def model_table(model: str, temperature: float | None = None, name: str | None = None) -> Table:
    table = tomlkit.table()
    if name is not None:
        table["name"] = name
    table["model"] = model
    table["endpoint"] = "sim"
    if temperature is not None:
        table["temperature"] = temperature
    return table


def spec_document(values: dict[str, str], swap: bool) -> tomlkit.TOMLDocument:
    """A run spec from the form's fields (the embedded provider unless an endpoint is given)."""
    doc = tomlkit.document()
    doc.add(tomlkit.comment("built by the judgeaudit Launch screen"))
    run = tomlkit.table()
    run["name"] = "tui"
    tasks = values["tasks"] or "builtin:retail"
    # the spec file lives in the output dir: a task file path is kept absolute
    run["tasks"] = tasks if tasks.startswith("builtin:") else str(Path(tasks).resolve())
    run["concurrency"] = whole_number(values, "concurrency")
    run["seed"] = whole_number(values, "seed")
    run["swap"] = swap
    doc["run"] = run
    endpoints = tomlkit.table(is_super_table=True)
    endpoints["sim"] = endpoint_table(values.get("endpoint", "embedded"))
    doc["endpoints"] = endpoints
    agents = tomlkit.aot()
    for model in (a.strip() for a in values["agents"].split(",")):
        if model:
            agents.append(model_table(model, name=model))
    doc["agents"] = agents
    doc["user_simulator"] = model_table(values["user"], 0.7)
    doc["judge"] = model_table(values["judge"], 0.0)
    return doc


def write_form_spec(values: dict[str, str], swap: bool, out: Path) -> Path:
    """Validate the form's spec with the spec module, then write it atomically into `out`."""
    path = out / SPEC_NAME
    doc = spec_document(values, swap)
    parse_spec(doc.unwrap(), path)  # raises SpecError naming the key; nothing is written
    atomic_write_text(path, tomlkit.dumps(doc))
    return path


class LaunchScreen(Screen[None]):
    SUB_TITLE = "Launch"
    AUTO_FOCUS = "#l-spec"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+g", "demo", "Demo", priority=True),
        Binding("ctrl+r", "run_spec", "Run spec", priority=True),
        Binding("ctrl+b", "run_form", "Run form", priority=True),
    ]

    def __init__(self, demo_spec: Path, out_dir: Path) -> None:
        super().__init__(id="launch")
        self.demo_spec, self.out_dir = demo_spec, out_dir
        self.warned: tuple[str, ...] = ()  # unknown models already named: a second ctrl+b runs

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(
            "Launch an audit — ctrl+g runs the demo on the embedded simulated provider",
            classes="title",
        )
        with VerticalScroll(classes="form", id="launch-form", can_focus=False):
            for field, label, value in (
                ("spec", "spec file", str(self.demo_spec)),
                ("out", "output dir", str(self.out_dir)),
            ):
                with Horizontal():
                    yield Label(label)
                    yield Field(value=value, id=f"l-{field}", compact=True)
            yield Static(
                "or build a spec (ctrl+b runs it; an existing output dir resumes):",
                classes="section",
            )
            yield Static(
                "endpoint: embedded (simulated), a URL, or a profile's name (F1 lists them)",
                classes="hint",
            )
            for field, value in FORM_DEFAULTS.items():
                with Horizontal():
                    yield Label(field)
                    yield Field(value=value, id=f"l-{field}", compact=True)
            yield Checkbox("judge both A/B orders (swap)", value=True, id="l-swap", compact=True)
        yield Note("", id="launch-status", classes="hint")
        yield Footer(compact=True)

    def value(self, field: str) -> str:
        return self.query_one(f"#l-{field}", Field).value.strip()

    def status(self, text: str) -> None:
        self.query_one("#launch-status", Note).say(text)

    def out(self) -> Path | None:
        out = self.value("out")
        if not out:
            self.status("output dir: empty; type a directory for the run")
            return None
        return Path(out)

    def action_demo(self) -> None:
        out = self.out()
        if out is not None:
            self.post_message(StartRun(self.demo_spec, out))

    def action_run_spec(self) -> None:
        from judgeaudit.audit.inputs import load_spec

        spec, out = Path(self.value("spec")), self.out()
        if not spec.is_file():
            self.status(f"{spec}: no such spec file")
            return
        try:
            load_spec(spec)  # a spec error is said here, not under a Run title
        except JudgeauditError as exc:
            self.status(f"not started: {exc}")
            return
        if out is not None:
            self.post_message(StartRun(spec, out))

    def action_run_form(self) -> None:
        out = self.out()
        if out is None:
            return
        values = {field: self.value(field) for field in FORM_DEFAULTS}
        unknown = tuple(unknown_models(values))
        if unknown and unknown != self.warned:
            self.warned = unknown
            self.status(
                f"not started: the embedded provider does not know {', '.join(unknown)} and "
                "would answer as a plain chat model; known: agent-ace, agent-pro, agent-solid, "
                "agent-weak, judge-default, user-default… — fix it, or ctrl+b again to run anyway"
            )
            return
        try:
            before = out / SPEC_NAME
            previous = before.read_bytes() if before.is_file() else None
            spec = write_form_spec(values, self.query_one("#l-swap", Checkbox).value, out)
        except JudgeauditError as exc:
            self.status(str(exc))
            return
        except OSError as exc:
            self.status(f"{out}: cannot write the spec there ({exc.strerror})")
            return
        self.status(f"wrote {spec}")
        self.post_message(StartRun(spec, out, WrittenSpec(spec, previous)))

    def focus_field(self, field: str) -> None:
        """The palette's "run spec…" lands here, on the spec file field."""
        self.query_one(f"#l-{field}", Field).focus()

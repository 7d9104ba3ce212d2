"""Launch: pick a spec file, or build one in a form; one key starts the demo."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Checkbox, Footer, Header, Input, Label, Static

from judgeaudit.fsutil import atomic_write_text
from judgeaudit.tui.messages import StartRun
from judgeaudit.tui.widgets.field import Field

FORM_DEFAULTS = {
    "tasks": "builtin:retail",
    "agents": "agent-ace, agent-pro, agent-solid, agent-weak",
    "user": "user-default",
    "judge": "judge-default",
    "concurrency": "16",
    "seed": "7",
}


def spec_from_form(values: dict[str, str], swap: bool) -> str:
    """A run spec on the embedded provider from the form's fields."""
    agents = [a.strip() for a in values["agents"].split(",") if a.strip()]
    lines = [
        "# built by the judgeaudit Launch screen",
        "[run]",
        'name = "tui"',
        f"tasks = {values['tasks']!r}".replace("'", '"'),
        f"concurrency = {int(values['concurrency'])}",
        f"seed = {int(values['seed'])}",
        f"swap = {'true' if swap else 'false'}",
        "",
        "[endpoints.sim]",
        'base_url = "embedded"',
        "",
    ]
    for model in agents:
        lines += ["[[agents]]", f'name = "{model}"', f'model = "{model}"', 'endpoint = "sim"', ""]
    lines += [
        "[user_simulator]",
        f'model = "{values["user"]}"',
        'endpoint = "sim"',
        "temperature = 0.7",
        "",
        "[judge]",
        f'model = "{values["judge"]}"',
        'endpoint = "sim"',
        "temperature = 0.0",
        "",
    ]
    return "\n".join(lines)


class LaunchScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+g", "demo", "Run demo", priority=True),
        Binding("ctrl+r", "run_spec", "Run spec file", priority=True),
        Binding("ctrl+b", "run_form", "Run form", priority=True),
    ]

    def __init__(self, demo_spec: Path, out_dir: Path) -> None:
        super().__init__(id="launch")
        self.demo_spec, self.out_dir = demo_spec, out_dir

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(
            "Launch an audit — ctrl+g runs the demo on the embedded simulated provider",
            classes="title",
        )
        with Vertical(classes="form"):
            for field, label, value in (
                ("spec", "spec file", str(self.demo_spec)),
                ("out", "output dir", str(self.out_dir)),
            ):
                with Horizontal():
                    yield Label(label)
                    yield Field(value=value, id=f"l-{field}")
            yield Static(
                "or build a spec (ctrl+b runs it; an existing output dir resumes):",
                classes="section",
            )
            for field, value in FORM_DEFAULTS.items():
                with Horizontal():
                    yield Label(field)
                    yield Field(value=value, id=f"l-{field}")
            yield Checkbox("judge both A/B orders (swap)", value=True, id="l-swap")
        yield Static("", id="launch-status", classes="hint")
        yield Footer()

    def value(self, field: str) -> str:
        return self.query_one(f"#l-{field}", Input).value.strip()

    def action_demo(self) -> None:
        self.post_message(StartRun(self.demo_spec, Path(self.value("out"))))

    def action_run_spec(self) -> None:
        spec = Path(self.value("spec"))
        if not spec.exists():
            self.query_one("#launch-status", Static).update(f"{spec}: no such file")
            return
        self.post_message(StartRun(spec, Path(self.value("out"))))

    def action_run_form(self) -> None:
        values = {field: self.value(field) for field in FORM_DEFAULTS}
        try:
            text = spec_from_form(values, self.query_one("#l-swap", Checkbox).value)
        except ValueError:
            self.query_one("#launch-status", Static).update(
                "concurrency and seed must be whole numbers"
            )
            return
        out = Path(self.value("out"))
        spec = out / "tui-spec.toml"
        atomic_write_text(spec, text)
        self.post_message(StartRun(spec, out))

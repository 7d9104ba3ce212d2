"""Responses API request (what Codex sends) → one Chat Completions request.

What maps: ``instructions`` and developer/system messages (leading ones merged into one system
message, which every gateway accepts), user/assistant messages with text and images,
``function_call`` / ``function_call_output`` (consecutive calls become one assistant message with
parallel ``tool_calls``), ``custom_tool_call`` (a freeform tool, sent as a function with one
string argument ``input``), function tools inside a ``namespace`` (flattened to
``namespace__name``), ``tool_choice``, ``parallel_tool_calls``, ``temperature``, ``top_p``,
``max_output_tokens``, ``text.format`` (JSON mode / schema) and ``stream``.

What is dropped, on purpose: ``reasoning`` input items (their ``encrypted_content`` belongs to the
provider that made it; a chat upstream has no slot for it), hosted tools a chat upstream cannot
run (``web_search``, ``file_search``, ``local_shell``, ``image_generation``, ``mcp``…), and
request settings with no chat equivalent (``reasoning``, ``store``, ``include``,
``prompt_cache_key``, ``client_metadata``, ``text.verbosity``). ``previous_response_id`` is
refused: the bridge keeps no state, so the client must send the whole conversation.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from judgeaudit.bridge.chatshape import merge_adjacent_users, reminder
from judgeaudit.bridge.errors import BridgeError

SEPARATOR = "__"  # namespace__tool: chat function names allow [A-Za-z0-9_-]
CUSTOM_PARAMETERS = {
    "type": "object",
    "properties": {"input": {"type": "string", "description": "the tool's raw input"}},
    "required": ["input"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class ToolName:
    kind: str  # "function" | "custom"
    name: str
    namespace: str | None = None


@dataclass
class ResponsesContext:
    """What rendering the reply needs to know about the request."""

    model: str
    tools: dict[str, ToolName] = field(default_factory=dict)  # chat name → Responses tool
    echo: dict[str, Any] = field(default_factory=dict)  # request fields the response repeats

    def chat_name(self, name: str, namespace: str | None) -> str:
        return f"{namespace}{SEPARATOR}{name}" if namespace else name


def _bad(message: str) -> BridgeError:
    return BridgeError(400, message, "invalid_request_error")


def _tools(raw_tools: Any, context: ResponsesContext) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if raw_tools is None:
        return out
    if not isinstance(raw_tools, list):
        raise _bad("tools: must be a list")

    def add(tool: dict[str, Any], namespace: str | None) -> None:
        kind, name = tool.get("type"), tool.get("name")
        if kind not in ("function", "custom") or not isinstance(name, str) or not name:
            return
        chat_name = context.chat_name(name, namespace)
        description = str(tool.get("description") or "")
        if kind == "function":
            parameters = tool.get("parameters") or {"type": "object", "properties": {}}
        else:
            parameters = CUSTOM_PARAMETERS
            grammar = tool.get("format") or {}
            if isinstance(grammar, dict) and grammar.get("definition"):
                description += (
                    f"\n\nPut the raw input in `input`; it must follow this "
                    f"{grammar.get('syntax', '')} grammar:\n{grammar['definition']}"
                )
        function: dict[str, Any] = {"name": chat_name, "parameters": parameters}
        if description:
            function["description"] = description
        if kind == "function" and tool.get("strict") is True:
            function["strict"] = True
        context.tools[chat_name] = ToolName(kind, name, namespace)
        out.append({"type": "function", "function": function})

    for tool in raw_tools:
        if not isinstance(tool, dict):
            continue
        if tool.get("type") == "namespace" and isinstance(tool.get("tools"), list):
            for inner in tool["tools"]:
                if isinstance(inner, dict):
                    add(inner, str(tool.get("name") or "") or None)
        else:
            add(tool, None)
    return out


def _tool_choice(raw: Any, context: ResponsesContext) -> Any:
    if raw in ("auto", "none", "required"):
        return raw
    if isinstance(raw, dict) and raw.get("type") in ("function", "custom") and raw.get("name"):
        name = context.chat_name(str(raw["name"]), raw.get("namespace"))
        return {"type": "function", "function": {"name": name}}
    return None  # allowed_tools, hosted tools: leave the upstream its default


def _parts(content: Any, role: str) -> str | list[dict[str, Any]]:
    """Message content as chat content: a string, or parts when there are images."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    texts: list[str] = []
    parts: list[dict[str, Any]] = []
    has_image = False
    for part in content:
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        if kind in ("input_text", "output_text", "text"):
            texts.append(str(part.get("text") or ""))
            parts.append({"type": "text", "text": str(part.get("text") or "")})
        elif kind == "refusal":
            texts.append(str(part.get("refusal") or ""))
            parts.append({"type": "text", "text": str(part.get("refusal") or "")})
        elif kind == "input_image" and role == "user" and isinstance(part.get("image_url"), str):
            has_image = True
            image: dict[str, Any] = {"url": part["image_url"]}
            if part.get("detail") in ("low", "high", "auto"):
                image["detail"] = part["detail"]
            parts.append({"type": "image_url", "image_url": image})
    return parts if has_image else "".join(texts)


def _output_text(output: Any) -> str:
    if isinstance(output, str):
        return output
    if isinstance(output, list):
        return "".join(
            str(p.get("text") or "")
            for p in output
            if isinstance(p, dict) and p.get("type") in ("input_text", "output_text", "text")
        )
    return json.dumps(output, ensure_ascii=False)


class _Messages:
    """Chat messages being built; knows how to fold calls into the last assistant message."""

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []

    def system(self, text: str) -> None:
        if not self.items:
            self.items.append({"role": "system", "content": text})
        elif all(m["role"] == "system" for m in self.items):
            self.items[-1]["content"] += "\n\n" + text
        else:  # a developer message mid-conversation: at its place, as a user reminder
            self.items.append({"role": "user", "content": reminder(text)})

    def add(self, role: str, content: Any) -> None:
        self.items.append({"role": role, "content": content})

    def tool_call(self, call_id: str, name: str, arguments: str) -> None:
        last = self.items[-1] if self.items else None
        call = {
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": arguments},
        }
        if (
            last is not None
            and last["role"] == "assistant"
            and isinstance(last["content"], str | None)
        ):
            last.setdefault("tool_calls", []).append(call)
        else:
            self.items.append({"role": "assistant", "content": None, "tool_calls": [call]})


def _input(raw_input: Any, context: ResponsesContext, messages: _Messages) -> None:
    items = (
        [{"type": "message", "role": "user", "content": raw_input}]
        if isinstance(raw_input, str)
        else raw_input
    )
    if not isinstance(items, list):
        raise _bad("input: must be a string or a list of items")
    for item in items:
        if not isinstance(item, dict):
            raise _bad("input: every item must be an object")
        kind = item.get("type", "message" if "role" in item else None)
        if kind == "message":
            role = item.get("role", "user")
            content = _parts(item.get("content"), role)
            if role in ("system", "developer"):
                messages.system(content if isinstance(content, str) else "")
            elif role in ("user", "assistant"):
                messages.add(role, content)
        elif kind in ("function_call", "custom_tool_call"):
            name = context.chat_name(str(item.get("name") or ""), item.get("namespace"))
            if kind == "custom_tool_call":
                arguments = json.dumps({"input": item.get("input", "")}, ensure_ascii=False)
            else:
                arguments = str(item.get("arguments") or "{}")
            messages.tool_call(str(item.get("call_id") or ""), name, arguments)
        elif kind in ("function_call_output", "custom_tool_call_output"):
            messages.add("tool", _output_text(item.get("output", "")))
            messages.items[-1]["tool_call_id"] = str(item.get("call_id") or "")
        # reasoning, web_search_call, item_reference, ...: dropped (see the module docstring)


def to_chat(
    body: dict[str, Any], default_model: str | None = None
) -> tuple[dict[str, Any], ResponsesContext]:
    """Translate; raise BridgeError(400) for what no chat upstream could answer."""
    model = body.get("model") or default_model
    if not isinstance(model, str) or not model:
        raise _bad("model: required")
    if body.get("previous_response_id"):
        raise _bad(
            "previous_response_id: the bridge keeps no conversation state; send the whole "
            "conversation in input (Codex does, with store = false)"
        )
    context = ResponsesContext(model=model)
    tools = _tools(body.get("tools"), context)
    messages = _Messages()
    if isinstance(body.get("instructions"), str) and body["instructions"]:
        messages.system(body["instructions"])
    _input(body.get("input", []), context, messages)
    if not messages.items:
        raise _bad("input: no message to send")
    chat: dict[str, Any] = {"model": model, "messages": merge_adjacent_users(messages.items)}
    if tools:
        chat["tools"] = tools
        choice = _tool_choice(body.get("tool_choice"), context)
        if choice is not None:
            chat["tool_choice"] = choice
        if isinstance(body.get("parallel_tool_calls"), bool):
            chat["parallel_tool_calls"] = body["parallel_tool_calls"]
    for key in ("temperature", "top_p"):
        if isinstance(body.get(key), int | float) and not isinstance(body.get(key), bool):
            chat[key] = body[key]
    if isinstance(body.get("max_output_tokens"), int):
        chat["max_tokens"] = body["max_output_tokens"]
    fmt = (body.get("text") or {}).get("format") if isinstance(body.get("text"), dict) else None
    if isinstance(fmt, dict) and fmt.get("type") == "json_object":
        chat["response_format"] = {"type": "json_object"}
    elif isinstance(fmt, dict) and fmt.get("type") == "json_schema":
        schema = {k: fmt[k] for k in ("name", "schema", "strict", "description") if k in fmt}
        chat["response_format"] = {"type": "json_schema", "json_schema": schema}
    if body.get("stream"):
        chat["stream"] = True
        chat["stream_options"] = {"include_usage": True}
    context.echo = {
        "tools": body.get("tools") or [],
        "tool_choice": body.get("tool_choice", "auto"),
        "parallel_tool_calls": body.get("parallel_tool_calls", True),
        "instructions": body.get("instructions"),
        # What was sent upstream, not what was asked (a setting of the wrong type is dropped).
        "temperature": chat.get("temperature"),
        "top_p": chat.get("top_p"),
        "max_output_tokens": chat.get("max_tokens"),
        "store": body.get("store", False),
        "metadata": body.get("metadata") or {},
    }
    return chat, context

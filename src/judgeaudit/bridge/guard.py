"""What the bridge accepts, before it translates anything: bounded bodies, strict JSON, and the
shape of every field it forwards; and what it accepts back from the upstream.

Why here and not in the translators: a request the bridge forwards is one the upstream bills
for, so a malformed field is refused with the calling API's own 400 (never a 500, never sent
upstream), and a malformed upstream reply becomes a 502 in the caller's format instead of an
empty "completed" answer. The translators can then assume the shapes checked here.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

from aiohttp import web

from judgeaudit import safeio
from judgeaudit.bridge.errors import BridgeError
from judgeaudit.validate import json_type

MB = 1024 * 1024
MAX_BODY = 64 * MB  # a Claude Code request with many images stays well below
MAX_UPSTREAM_BODY = 32 * MB  # one non-streamed chat completion
MAX_UPSTREAM_STREAM = 64 * MB  # all the events of one streamed reply
MAX_UPSTREAM_ERROR = 1 * MB
BODY_IDLE_S = 30.0  # silence allowed between two pieces of a request body
INT_LIMIT = 2**53  # JSON integers beyond this are not portable (and no field needs them)
TOOL_NAME_RE = re.compile(r"^[a-zA-Z0-9_.:-]{1,128}$")


class CutOff(BridgeError):
    """A body that cannot be read to its end: answered, then the connection is closed."""


def bad(message: str) -> BridgeError:
    return BridgeError(400, message, "invalid_request_error")


class _BadNumber(ValueError):
    pass


def _int(text: str) -> int:
    if len(text) > 20 or abs(value := int(text)) > INT_LIMIT:
        raise _BadNumber(f"the integer {text[:20]}{'...' if len(text) > 20 else ''} is too large")
    return value


def _float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise _BadNumber(f"the number {text[:20]} is too large")
    return value


def _constant(name: str) -> Any:
    raise _BadNumber(f"{name} is not valid JSON")


def parse_body(raw: bytes) -> dict[str, Any]:
    """The request body as a JSON object, or a 400 (deep nesting, huge numbers, NaN, not JSON)."""
    try:
        text = raw.decode("utf-8")
        body = safeio.parse_json(text, parse_int=_int, parse_float=_float, parse_constant=_constant)
    except UnicodeDecodeError:
        raise bad("the request body is not UTF-8") from None
    except safeio.TooDeep as exc:
        raise bad(f"the request body is {exc}") from None
    except _BadNumber as exc:
        raise bad(f"the request body is not accepted: {exc}") from None
    except json.JSONDecodeError as exc:
        raise bad(f"the request body is not JSON: {exc}") from None
    if not isinstance(body, dict):
        raise bad("the request body must be a JSON object")
    return body


async def read_body(request: web.Request, idle_s: float = BODY_IDLE_S) -> bytes:
    """The body, at most :data:`MAX_BODY` bytes (413), each piece within ``idle_s`` seconds
    (408: a client whose ``Content-Length`` promises more than it sends is cut off)."""
    length = request.content_length
    if length is not None and length > MAX_BODY:
        raise CutOff(413, f"the request body is over the {MAX_BODY // MB} MB limit")
    chunks: list[bytes] = []
    size = 0
    while True:
        try:
            chunk = await asyncio.wait_for(request.content.readany(), idle_s)
        except TimeoutError:
            raise CutOff(408, f"the request body stopped arriving for {idle_s:g} s") from None
        except web.HTTPException as exc:  # aiohttp's own size or encoding refusals
            raise CutOff(exc.status, exc.reason) from None
        except Exception as exc:  # a truncated or undecodable body (ContentLengthError...)
            raise CutOff(
                400, f"the request body could not be read ({type(exc).__name__})"
            ) from None
        if not chunk:
            break
        size += len(chunk)
        if size > MAX_BODY:
            raise CutOff(413, f"the request body is over the {MAX_BODY // MB} MB limit")
        chunks.append(chunk)
    if length is not None and size != length:
        raise CutOff(
            400,
            f"the request body has {size} bytes, not the {length} its Content-Length says",
            "invalid_request_error",
        )
    return b"".join(chunks)


# --- field shapes ---------------------------------------------------------------------------


def _str(value: Any, where: str, *, optional: bool = False) -> None:
    if optional and value is None:
        return
    if not isinstance(value, str):
        raise bad(f"{where}: must be a string, got {json_type(value)}")


def _obj(value: Any, where: str, *, optional: bool = False) -> dict[str, Any]:
    if optional and value is None:
        return {}
    if not isinstance(value, dict):
        raise bad(f"{where}: must be an object, got {json_type(value)}")
    return value


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise bad(f"{where}: must be a list, got {json_type(value)}")
    return value


def _bool(value: Any, where: str) -> None:
    if value is not None and not isinstance(value, bool):
        raise bad(f"{where}: must be a boolean, got {json_type(value)}")


def _num(value: Any, where: str, lo: float, hi: float) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int | float) or not lo <= value <= hi:
        raise bad(f"{where}: must be a number from {lo:g} to {hi:g}")


def _count(value: Any, where: str) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 2**31:
        raise bad(f"{where}: must be a positive integer")


def _kind(block: Any, where: str) -> tuple[dict[str, Any], str]:
    block = _obj(block, where)
    kind = block.get("type")
    if not isinstance(kind, str) or not kind:
        raise bad(f"{where}.type: Field required (a string)")
    return block, kind


def _image_source(source: Any, where: str) -> None:
    source = _obj(source, where)
    kind = source.get("type")
    if kind == "base64":
        _str(source.get("media_type"), f"{where}.media_type")
        _str(source.get("data"), f"{where}.data")
    elif kind == "url":
        _str(source.get("url"), f"{where}.url")
    elif kind not in ("file", "text", "content"):
        raise bad(f"{where}.type: must be 'base64', 'url', 'file', 'text' or 'content'")


def _anthropic_block(raw: Any, where: str, *, inner: bool = False) -> None:
    block, kind = _kind(raw, where)
    _obj(block.get("cache_control"), f"{where}.cache_control", optional=True)
    if kind == "text":
        _str(block.get("text"), f"{where}.text")
    elif kind in ("image", "document"):
        _image_source(block.get("source"), f"{where}.source")
    elif kind == "tool_use" and not inner:
        _str(block.get("id"), f"{where}.id")
        _str(block.get("name"), f"{where}.name")
        _obj(block.get("input"), f"{where}.input")
    elif kind == "tool_result" and not inner:
        _str(block.get("tool_use_id"), f"{where}.tool_use_id")
        _bool(block.get("is_error"), f"{where}.is_error")
        content = block.get("content")
        if content is not None and not isinstance(content, str):
            for i, item in enumerate(_list(content, f"{where}.content")):
                _anthropic_block(item, f"{where}.content.{i}", inner=True)
    elif kind == "thinking":
        _str(block.get("thinking"), f"{where}.thinking")
    elif kind == "redacted_thinking":
        _str(block.get("data"), f"{where}.data")


def check_messages(body: dict[str, Any]) -> None:
    """An Anthropic Messages request (and a ``count_tokens`` body) before translation."""
    _str(body.get("model"), "model", optional=True)
    _count(body.get("max_tokens"), "max_tokens")
    system = body.get("system")
    if system is not None and not isinstance(system, (str, list)):
        raise bad(f"system: must be a string or a list of text blocks, got {json_type(system)}")
    if isinstance(system, list):
        for i, block in enumerate(system):
            block, kind = _kind(block, f"system.{i}")
            if kind != "text":
                raise bad(f"system.{i}.type: must be 'text'")
            _str(block.get("text"), f"system.{i}.text")
    messages = body.get("messages")
    for i, message in enumerate(_list(messages, "messages") if messages is not None else []):
        message = _obj(message, f"messages.{i}")
        content = message.get("content")
        if not isinstance(content, str):
            for j, block in enumerate(_list(content, f"messages.{i}.content")):
                _anthropic_block(block, f"messages.{i}.content.{j}")
    tools = body.get("tools")
    for i, tool in enumerate(_list(tools, "tools") if tools is not None else []):
        tool = _obj(tool, f"tools.{i}")
        _str(tool.get("type"), f"tools.{i}.type", optional=True)
        _tool_name(tool.get("name"), f"tools.{i}.name")
        if tool.get("type") in (None, "custom"):
            _obj(tool.get("input_schema"), f"tools.{i}.input_schema")
        _str(tool.get("description"), f"tools.{i}.description", optional=True)
    choice = body.get("tool_choice")
    if choice is not None:
        choice, kind = _kind(choice, "tool_choice")
        if kind not in ("auto", "any", "tool", "none"):
            raise bad("tool_choice.type: must be 'auto', 'any', 'tool' or 'none'")
        if kind == "tool":
            _tool_name(choice.get("name"), "tool_choice.name")
        _bool(choice.get("disable_parallel_tool_use"), "tool_choice.disable_parallel_tool_use")
    stops = body.get("stop_sequences")
    for i, stop in enumerate(_list(stops, "stop_sequences") if stops is not None else []):
        _str(stop, f"stop_sequences.{i}")
    _num(body.get("temperature"), "temperature", 0, 2)
    _num(body.get("top_p"), "top_p", 0, 1)
    _count(body.get("top_k"), "top_k")
    _bool(body.get("stream"), "stream")
    _obj(body.get("metadata"), "metadata", optional=True)


def _tool_name(value: Any, where: str) -> None:
    _str(value, where)
    if not TOOL_NAME_RE.match(value):
        raise bad(f"{where}: must be 1 to 128 letters, digits, '_', '-', '.' or ':'")


def _responses_content(content: Any, where: str) -> None:
    if content is None or isinstance(content, str):
        return
    for i, part in enumerate(_list(content, where)):
        part, kind = _kind(part, f"{where}[{i}]")
        if kind in ("input_text", "output_text", "text"):
            _str(part.get("text"), f"{where}[{i}].text")
        elif kind == "refusal":
            _str(part.get("refusal"), f"{where}[{i}].refusal")
        elif kind == "input_image":
            _str(part.get("image_url"), f"{where}[{i}].image_url", optional=True)


def _responses_item(item: Any, where: str) -> None:
    item = _obj(item, where)
    kind = item.get("type", "message" if "role" in item else None)
    if not isinstance(kind, str):
        raise bad(f"{where}.type: Field required (a string)")
    if kind == "message":
        role = item.get("role", "user")
        if role not in ("user", "assistant", "system", "developer"):
            raise bad(f"{where}.role: must be 'user', 'assistant', 'system' or 'developer'")
        _responses_content(item.get("content"), f"{where}.content")
    elif kind in ("function_call", "custom_tool_call"):
        _str(item.get("call_id"), f"{where}.call_id")
        _str(item.get("name"), f"{where}.name")
        _str(item.get("namespace"), f"{where}.namespace", optional=True)
        field = "arguments" if kind == "function_call" else "input"
        _str(item.get(field), f"{where}.{field}", optional=True)
    elif kind in ("function_call_output", "custom_tool_call_output"):
        _str(item.get("call_id"), f"{where}.call_id")
        output = item.get("output")
        if not isinstance(output, str):
            _responses_content(_list(output, f"{where}.output"), f"{where}.output")


def check_responses(body: dict[str, Any]) -> None:
    """An OpenAI Responses request before translation."""
    _str(body.get("model"), "model", optional=True)
    _str(body.get("instructions"), "instructions", optional=True)
    raw_input = body.get("input")
    if raw_input is not None and not isinstance(raw_input, str):
        for i, item in enumerate(_list(raw_input, "input")):
            _responses_item(item, f"input[{i}]")
    tools = body.get("tools")
    for i, tool in enumerate(_list(tools, "tools") if tools is not None else []):
        tool, kind = _kind(tool, f"tools[{i}]")
        inner = tool.get("tools") if kind == "namespace" else [tool]
        for j, each in enumerate(_list(inner, f"tools[{i}].tools")):
            each, each_kind = _kind(each, f"tools[{i}].tools[{j}]")
            if each_kind in ("function", "custom"):
                _tool_name(each.get("name"), f"tools[{i}].name")
                _obj(each.get("parameters"), f"tools[{i}].parameters", optional=True)
                _str(each.get("description"), f"tools[{i}].description", optional=True)
    choice = body.get("tool_choice")
    if choice is not None and choice not in ("auto", "none", "required"):
        if not isinstance(choice, dict):
            raise bad("tool_choice: must be 'auto', 'none', 'required' or an object")
        _kind(choice, "tool_choice")
        _str(choice.get("name"), "tool_choice.name", optional=True)
    _bool(body.get("parallel_tool_calls"), "parallel_tool_calls")
    _bool(body.get("stream"), "stream")
    _num(body.get("temperature"), "temperature", 0, 2)
    _num(body.get("top_p"), "top_p", 0, 1)
    _count(body.get("max_output_tokens"), "max_output_tokens")
    _obj(body.get("text"), "text", optional=True)
    _obj(body.get("metadata"), "metadata", optional=True)


# --- upstream replies -----------------------------------------------------------------------


def upstream_bad(what: str) -> BridgeError:
    return BridgeError(502, f"the upstream sent a malformed reply: {what}")


def check_completion(body: dict[str, Any]) -> dict[str, Any]:
    """A non-streamed ``chat.completion``: it must carry a choice with a message."""
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices:
        raise upstream_bad("no choices")
    choice = choices[0]
    if not isinstance(choice, dict) or not isinstance(choice.get("message"), dict):
        raise upstream_bad("choices[0] has no message")
    message = choice["message"]
    _upstream_calls(message.get("tool_calls"), "choices[0].message.tool_calls")
    return body


def check_chunk(chunk: dict[str, Any]) -> dict[str, Any]:
    """One ``chat.completion.chunk`` of a stream."""
    choices = chunk.get("choices")
    if choices is None:
        return chunk  # a usage-only chunk
    if not isinstance(choices, list):
        raise upstream_bad("a stream chunk's choices is not a list")
    for i, choice in enumerate(choices):
        if not isinstance(choice, dict):
            raise upstream_bad(f"a stream chunk's choices[{i}] is not an object")
        delta = choice.get("delta")
        if delta is not None and not isinstance(delta, dict):
            raise upstream_bad(f"a stream chunk's choices[{i}].delta is not an object")
        if isinstance(delta, dict):
            _upstream_calls(delta.get("tool_calls"), f"choices[{i}].delta.tool_calls")
    return chunk


def _upstream_calls(calls: Any, where: str) -> None:
    if calls is None:
        return
    if not isinstance(calls, list):
        raise upstream_bad(f"{where} is not a list")
    for i, call in enumerate(calls):
        if not isinstance(call, dict):
            raise upstream_bad(f"{where}[{i}] is not an object")
        function = call.get("function")
        if function is not None and not isinstance(function, dict):
            raise upstream_bad(f"{where}[{i}].function is not an object")

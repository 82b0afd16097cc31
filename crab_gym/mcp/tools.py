"""The MCP tools of a session: the episode's own (``list_tasks``, ``reset``, ``screenshot``, ``marks``) and
one tool per action name, taken from the :class:`~crab_gym.wrappers.tool_table.ToolTable` an LLM gets
through ``FunctionCalls``: same names, same JSON schemas, the acting device in a ``device`` argument (an
enum of the devices having that action), never mangled into the tool's name.

Every result carries the episode's status: reward, return, completion ratio, success and termination, as
structured content (under ``status`` for ``list_tasks``, ``screenshot`` and ``marks``) and as JSON text (but
``list_tasks``' and ``marks``' text is their listing). A call that cannot be done is a tool error
(``isError``) saying why; nothing is stepped and the session goes on.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from mcp import types

from crab_gym.mcp.session import McpSession, ToolError

__all__ = ["EPISODE_TOOLS", "call", "list_tools"]

EPISODE_TOOLS = ("list_tasks", "reset", "screenshot", "marks")
_READ_ONLY = types.ToolAnnotations(readOnlyHint=True, openWorldHint=False)
_STATUS = "Returns the episode's status: reward, return, completion_ratio, success, terminated, truncated."


def _device_arg(session: McpSession) -> dict[str, Any]:
    screens = [n for n, s in session.crab.subenvs.items() if all(s.screen_size)]
    return {"type": "string", "enum": screens, "description": "The device whose screen to read."}


def list_tools(session: McpSession) -> list[types.Tool]:
    """The session's tools: the episode's own, then one per action name of the env's devices."""
    assert session.table is not None
    device = {"type": "object", "properties": {"device": _device_arg(session)}, "required": ["device"]}
    tools = [
        types.Tool(
            name="list_tasks",
            description="The tasks this server offers: id, devices and instruction.",
            inputSchema={"type": "object", "properties": {}},
            annotations=_READ_ONLY,
        ),
        types.Tool(
            name="reset",
            description="Start an episode of a task (ending the running one unfinished); returns the "
            "instruction. " + _STATUS,
            inputSchema={
                "type": "object",
                "properties": {
                    "task": {
                        "type": "string",
                        "description": "A task id from list_tasks (default: the first).",
                    },
                    "seed": {"type": "integer", "minimum": 0, "description": "The episode's seed."},
                },
            },
        ),
        types.Tool(
            name="screenshot",
            description="The device's screen now, as a PNG image.",
            inputSchema=device,
            annotations=_READ_ONLY,
        ),
        types.Tool(
            name="marks",
            description="The interactive elements on the device's screen now (Set-of-Marks), one a line: "
            '[id] role "name" point=[x, y], the point in fractions of the screen for the point arguments.',
            inputSchema=device,
            annotations=_READ_ONLY,
        ),
    ]
    for spec in session.table.openai_tools():
        fn = spec["function"]
        if fn["name"] in EPISODE_TOOLS:
            raise TypeError(f"the action {fn['name']!r} clashes with the MCP tool of that name")
        tools.append(
            types.Tool(
                name=fn["name"], description=f"{fn['description']}\n{_STATUS}", inputSchema=fn["parameters"]
            )
        )
    return tools


def _status(status: dict[str, Any]) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(status, ensure_ascii=False))],
        structuredContent=status,
    )


def _error(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], isError=True)


async def call(session: McpSession, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
    """Carry out one tool call on the session's thread; a ToolError becomes a tool error result."""
    try:
        return await _call(session, name, dict(arguments))
    except ToolError as e:
        return _error(str(e))


async def _call(session: McpSession, name: str, args: dict[str, Any]) -> types.CallToolResult:
    if name == "list_tasks":
        tasks = await session.run(session.list_tasks)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=json.dumps(tasks, ensure_ascii=False))],
            structuredContent={"tasks": tasks, "status": dict(session.status)},
        )
    if name == "reset":
        return _status(await session.run(session.reset, args.get("task"), args.get("seed")))
    if name in ("screenshot", "marks"):
        device = args.get("device")
        if not isinstance(device, str):
            raise ToolError(f"{name}: 'device' is required, a string")
        status = dict(session.status)
        if name == "marks":
            lines = await session.run(session.marks, device)
            text = "\n".join(lines) if lines else "(no marks on this screen)"
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=text)],
                structuredContent={"device": device, "marks": lines, "status": status},
            )
        image = await session.run(session.screenshot, device)
        return types.CallToolResult(
            content=[
                types.ImageContent(type="image", data=base64.b64encode(image).decode(), mimeType="image/png"),
                types.TextContent(type="text", text=json.dumps(status, ensure_ascii=False)),
            ],
            structuredContent={"device": device, "status": status},
        )
    assert session.table is not None
    if name not in session.table.tools:
        raise ToolError(f"unknown tool {name!r}")
    device = args.pop("device", None)
    return _status(await session.run(session.act, device, name, args))

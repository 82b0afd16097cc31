"""`crab-gym mcp` through the official SDK client on both transports: tools listed from our action table,
a phone and a desktop task solved by tool calls, bad arguments answered as tool errors while the session
goes on."""

from __future__ import annotations

import base64
from typing import Any

import anyio
from mcp import ClientSession, types
from mcp_support import http_server, http_session, solve, status, stdio_session

from crab_gym.episode import load_episodes

PHONE_TASK = "camera_take_photo-0"
DESKTOP_TASK = "terminal_create_folder-0"


def text(result: types.CallToolResult) -> str:
    """The text of a result's first content block."""
    block = result.content[0]
    assert isinstance(block, types.TextContent), block
    return block.text


async def _check_tools(session: ClientSession) -> None:
    tools = {t.name: t for t in (await session.list_tools()).tools}
    assert {"list_tasks", "reset", "screenshot", "marks", "tap", "press", "submit", "complete"} <= set(tools)
    for name in ("list_tasks", "screenshot", "marks"):
        annotations = tools[name].annotations
        assert annotations is not None and annotations.readOnlyHint
    assert not any("_in_" in name for name in tools)  # the device is an argument, never in the name
    tap = tools["tap"].inputSchema
    assert tap["properties"]["device"]["enum"] == ["android"] and set(tap["required"]) == {"device", "point"}
    listed = (await session.call_tool("list_tasks", {})).structuredContent
    assert listed is not None and PHONE_TASK in {t["id"] for t in listed["tasks"]}
    assert listed["status"]["episode"] is None  # every result says where the episode is: none yet


async def _bad_arguments_then_solve(session: ClientSession) -> None:
    before = await session.call_tool("tap", {"device": "android", "point": [0.5, 0.5]})
    assert before.isError and "reset" in text(before)
    status(await session.call_tool("reset", {"task": PHONE_TASK, "seed": 0}))
    bad: list[tuple[str, dict[str, Any]]] = [
        ("tap", {"device": "android", "point": [2, 0.5]}),  # off the screen
        ("tap", {"device": "android"}),  # no point
        ("tap", {"device": "ubuntu", "point": [0.5, 0.5]}),  # no such device here
        ("press", {"device": "android", "button": "teleport"}),
        ("tap", {"device": "android", "point": [0.5, 0.5], "force": 9}),  # an unknown argument
        ("reset", {"task": "no_such_task"}),
        ("screenshot", {"device": "toaster"}),
        ("fly", {}),
    ]
    for name, args in bad:
        result = await session.call_tool(name, args)
        assert result.isError, (name, args, result)
    # nothing was stepped: the episode is still at its start
    shot = await session.call_tool("screenshot", {"device": "android"})
    assert not shot.isError and shot.content[0].type == "image"
    image = shot.content[0]
    assert isinstance(image, types.ImageContent) and image.mimeType == "image/png"
    assert base64.b64decode(image.data)[:8] == b"\x89PNG\r\n\x1a\n"
    assert shot.structuredContent is not None and shot.structuredContent["status"]["steps"] == 0
    marks = await session.call_tool("marks", {"device": "android"})
    assert not marks.isError and "point=[" in text(marks)
    last = await solve(session, PHONE_TASK)  # reset ends the first episode, the next one is solved
    assert last["success"] and last["completion_ratio"] == 1.0 and last["terminated"]
    assert last["termination_reason"] == "success" and "reward" in last
    over = await session.call_tool("tap", {"device": "android", "point": [0.5, 0.5]})
    assert over.isError


def test_phone_task_over_stdio() -> None:
    async def main() -> None:
        async with stdio_session("Crab-Android-v0") as session:
            await _check_tools(session)
            await _bad_arguments_then_solve(session)

    anyio.run(main)


def test_phone_task_over_streamable_http_two_sessions(tmp_path) -> None:
    async def main(url: str) -> None:
        async with http_session(url) as one, http_session(url) as two:  # an env each
            await _bad_arguments_then_solve(one)
            first = status(await two.call_tool("reset", {"task": PHONE_TASK, "seed": 0}))
            assert first["steps"] == 0 and not first["success"]

    with http_server("Crab-Android-v0", "--out", str(tmp_path)) as url:
        anyio.run(main, url)
    # with --out every episode is recorded: the one the reset ended and the one the closed session left
    # as incomplete, the solved one as complete and successful
    episodes = list(load_episodes(tmp_path))
    assert sorted(e.meta["status"] for e in episodes) == ["complete", "incomplete", "incomplete"]
    assert all(e.meta["episode_id"].startswith("mcp-camera_take_photo-0-") for e in episodes)


def test_desktop_task_over_stdio_and_http() -> None:
    async def play(session: ClientSession) -> None:
        last = await solve(session, DESKTOP_TASK)
        assert last["success"] and last["completion_ratio"] == 1.0
        marks = await session.call_tool("marks", {"device": "ubuntu"})  # the desktop's tree, as marks
        assert not marks.isError and '"Terminal" point=[' in text(marks)

    async def over_stdio() -> None:
        async with stdio_session("Crab-Desktop-v0") as session:
            await play(session)

    async def over_http(url: str) -> None:
        async with http_session(url) as session:
            await play(session)

    anyio.run(over_stdio)
    with http_server("Crab-Desktop-v0") as url:
        anyio.run(over_http, url)

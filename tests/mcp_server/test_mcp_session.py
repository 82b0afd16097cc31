"""The MCP session without a transport: its rollout's agent waits a bounded time for the next tool call,
and concurrent calls are taken one at a time, in order."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("mcp")

from crab_gym.mcp.session import McpConfig, McpSession, ToolError  # noqa: E402


def test_an_episode_without_actions_ends_as_agent_error_and_the_session_goes_on() -> None:
    async def main() -> None:
        session = McpSession(McpConfig(env_id="Crab-Android-v0", idle_timeout=0.5))
        try:
            await session.run(session.open)
            first = await session.run(session.reset, "camera_take_photo-0", 0)
            assert first["steps"] == 0
            await asyncio.sleep(1.0)  # no action in time: the rollout ends the episode
            assert session.done and session.status["termination_reason"] == "agent_error"
            with pytest.raises(ToolError, match="call reset"):
                await session.run(session.act, "android", "tap", {"point": [0.5, 0.5]})
            again = await session.run(session.reset, "camera_take_photo-0", 1)
            assert again["steps"] == 0 and not session.done
            # two calls at once: both step, one after the other
            a, b = await asyncio.gather(
                session.run(session.act, "android", "tap", {"point": [0.5, 0.04]}),
                session.run(session.act, "root", "wait", {"seconds": 1}),
            )
            assert sorted([a["steps"], b["steps"]]) == [1, 2]
        finally:
            await session.run(session.close)
            session.shutdown()

    asyncio.run(main())


def test_api_actions_are_tools_when_asked() -> None:
    async def main() -> None:
        session = McpSession(McpConfig(env_id="Crab-Android-v0", api_actions=True))
        try:
            await session.run(session.open)
            assert session.table is not None
            names = {t["function"]["name"] for t in session.table.openai_tools()}
            assert {"adb_shell", "send_sms", "add_contact"} <= names
            await session.run(session.reset, "camera_take_photo-0", 0)
            done = await session.run(session.act, "android", "adb_shell", {"command": "echo hi"})
            assert "'output': 'hi\\n'" in done["output"]
        finally:
            await session.run(session.close)
            session.shutdown()

    asyncio.run(main())

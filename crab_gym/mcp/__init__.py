"""``crab-gym mcp``: the env as an MCP server, one env per MCP session, over stdio or streamable HTTP.

Tools: ``list_tasks``, ``reset``, ``screenshot``, ``marks`` and one per device action (the schemas of
``FunctionCalls``' tool table, the device in a ``device`` argument). Each episode is a
:func:`crab_gym.rollout` whose agent waits for the client's next action tool call. Needs ``crab-gym[mcp]``.
"""

from __future__ import annotations

from crab_gym.mcp.session import McpConfig, McpSession

__all__ = ["McpConfig", "McpSession"]

"""A local Chat Completions endpoint for tests: the real HTTP protocol of the OpenAI API, with a Python
function in place of the model (no LLM service exists on these machines)."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    404: "not_found_error",
    429: "rate_limit_exceeded",
}


class _Server(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):  # a client gone
            super().handle_error(request, client_address)


class ChatServer:
    """POST /v1/chat/completions answered by ``reply(request) -> assistant message``; every request body
    is kept in ``requests`` and every usage reported in ``usages``. Token counts are a deterministic
    stand-in (characters / 4). ``fail_next(429, 500, ...)`` makes the next requests fail with those HTTP
    statuses and an API error body, as a real server does (each is kept in ``failures``)."""

    def __init__(self, reply: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
        self.reply = reply
        self.requests: list[dict[str, Any]] = []
        self.usages: list[dict[str, int]] = []
        self.failures: list[int] = []
        self._fail: list[int] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if self.path.rstrip("/") != "/v1/chat/completions":
                    return self._send(
                        404, {"error": {"message": f"no route {self.path}", "type": "invalid_request_error"}}
                    )
                request = json.loads(body)
                server.requests.append(request)
                with server._lock:
                    status = server._fail.pop(0) if server._fail else None
                if status is not None:
                    server.failures.append(status)
                    kind = ERROR_TYPES.get(
                        status, "server_error" if status >= 500 else "invalid_request_error"
                    )
                    return self._send(status, {"error": {"message": f"injected {status}", "type": kind}})
                error = protocol_error(request.get("messages", []))
                if error:
                    return self._send(400, {"error": {"message": error, "type": "invalid_request_error"}})
                try:
                    message = server.reply(request)
                except Exception as e:  # the test's model failed: an API error, as a server would send
                    return self._send(500, {"error": {"message": repr(e), "type": "server_error"}})
                prompt = len(json.dumps(request["messages"])) // 4
                completion = len(json.dumps(message)) // 4
                usage = {
                    "prompt_tokens": prompt,
                    "completion_tokens": completion,
                    "total_tokens": prompt + completion,
                }
                server.usages.append(usage)
                finish = "tool_calls" if message.get("tool_calls") else "stop"
                self._send(
                    200,
                    {
                        "id": f"chatcmpl-{len(server.requests)}",
                        "object": "chat.completion",
                        "created": 0,
                        "model": request["model"],
                        "choices": [
                            {"index": 0, "message": message, "finish_reason": finish, "logprobs": None}
                        ],
                        "usage": usage,
                    },
                )

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = _Server(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def fail_next(self, *statuses: int) -> None:
        """Answer the next ``len(statuses)`` requests with these HTTP error statuses, in order."""
        with self._lock:
            self._fail.extend(statuses)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def protocol_error(messages: list[dict[str, Any]]) -> str | None:
    """What the API rejects in a chat's tool-call bookkeeping: an assistant message with tool calls must be
    followed by one tool message per call id, before any other message."""
    open_ids: set[str] = set()
    for i, m in enumerate(messages):
        role = m.get("role")
        if role == "tool":
            if m.get("tool_call_id") not in open_ids:
                return f"messages[{i}]: a tool message must answer a preceding tool call"
            open_ids.discard(m["tool_call_id"])
            continue
        if open_ids:
            return f"messages[{i}]: tool calls {sorted(open_ids)} were not answered by tool messages"
        if role == "assistant" and m.get("tool_calls"):
            open_ids = {c["id"] for c in m["tool_calls"]}
    return None


def tool_call(i: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """An assistant message carrying one tool call, as the API returns it."""
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": f"call_{i}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
        ],
    }

"""A local HTTP endpoint speaking the OpenAI chat-completions API, for tests of the real litellm path.

Why: the LLM path (credentials, retries, timeouts, cost, parsing) must be tested through litellm's real
``completion`` entry point and its real HTTP client, with the model faked only at the network boundary.
The endpoint listens on 127.0.0.1 (a free port), answers ``POST /v1/chat/completions`` from a script of
:class:`Reply` objects (the last one repeats), and keeps every request body it received.

Use as a context manager::

    with FakeOpenAI([Reply.chat('{"skill": "explore"}')]) as api:
        settings = LLMSettings(model="openai/fake", api_base=api.base_url)
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    """One scripted HTTP answer."""

    status: int = 200
    body: bytes = b""
    content_type: str = "application/json"
    delay_s: float = 0.0

    @classmethod
    def chat(
        cls, text: str, prompt_tokens: int = 11, completion_tokens: int = 7, delay_s: float = 0.0
    ) -> Reply:
        """A chat completion whose message content is ``text``."""
        data = {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": 1700000000,
            "model": "fake",
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
        return cls(200, json.dumps(data).encode(), delay_s=delay_s)

    @classmethod
    def error(cls, status: int, message: str = "error", kind: str = "invalid_request_error") -> Reply:
        """An OpenAI-style JSON error body with ``status``."""
        body = json.dumps({"error": {"message": message, "type": kind, "code": None}}).encode()
        return cls(status, body)

    @classmethod
    def html(cls, status: int = 200) -> Reply:
        """An HTML page (a captive portal or a proxy's login page) instead of JSON."""
        return cls(status, b"<!doctype html><html><body><h1>Sign in</h1></body></html>", "text/html")


@dataclass
class FakeOpenAI:
    """The endpoint (see module docstring)."""

    replies: list[Reply]
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def base_url(self) -> str:
        assert self._server is not None, "start() first"
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def _next(self) -> Reply:
        with self._lock:
            return self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]

    def start(self) -> FakeOpenAI:
        api = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("Content-Length", 0))
                raw = self.rfile.read(length)
                with api._lock:
                    api.requests.append(json.loads(raw or b"{}"))
                    api.headers.append(dict(self.headers))
                reply = api._next()
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", reply.content_type)
                    self.send_header("Content-Length", str(len(reply.body)))
                    self.end_headers()
                    self.wfile.write(reply.body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout tests)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - silence the access log
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="fake-openai", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

"""Recorded-response replay: re-run a real model's episode offline, for debugging.

Recording: give :class:`~mirrorcraft.agents.llm.LLMClient` a ``record_path``; it appends one JSON line
per completed call: ``{"seq", "request_sha256", "request", "response"}``. Replay: build the client with
``backend=ReplayBackend(path)``. The replay backend returns the recorded responses **in order** and checks
that each request equals the recorded one (same SHA-256 of its canonical JSON); on the first difference it
raises :class:`~mirrorcraft.agents.errors.ReplayMismatchError` naming the position, the purpose and the
first differing field or message, and it also fails when the agent asks for more calls than were recorded.
Because the observations are canonical and the agents are deterministic given the model's answers, an
episode replayed against the same observations reproduces every prompt byte for byte.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mirrorcraft.agents.errors import ReplayMismatchError
from mirrorcraft.agents.llm import LLMRequest, LLMResponse


def read_recording(path: Path) -> list[dict[str, Any]]:
    """Read a recording file.

    Raises:
        ReplayMismatchError: missing file or a line that is not a recorded call (file and line named).
    """
    if not path.is_file():
        raise ReplayMismatchError(f"replay: recording {path} does not exist")
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
            LLMRequest.model_validate(entry["request"])
            LLMResponse.model_validate(entry["response"])
        except (json.JSONDecodeError, KeyError, ValueError) as err:
            raise ReplayMismatchError(f"replay: {path}:{n} is not a recorded call: {err}") from err
        out.append(entry)
    return out


def _first_difference(expected: dict[str, Any], actual: dict[str, Any]) -> str:
    for key in ("model", "purpose", "temperature", "max_output_tokens", "reasoning"):
        if expected.get(key) != actual.get(key):
            return f"{key}: recorded {expected.get(key)!r}, now {actual.get(key)!r}"
    em, am = expected.get("messages", []), actual.get("messages", [])
    if len(em) != len(am):
        return f"messages: recorded {len(em)} messages, now {len(am)}"
    for i, (e, a) in enumerate(zip(em, am, strict=True)):
        if e != a:
            ec, ac = e.get("content", ""), a.get("content", "")
            at = next(
                (j for j, (x, y) in enumerate(zip(ec, ac, strict=False)) if x != y), min(len(ec), len(ac))
            )
            return (
                f"messages[{i}] ({e.get('role')}) differs at character {at}: "
                f"recorded {ec[at : at + 60]!r}, now {ac[at : at + 60]!r}"
            )
    return "content differs"


class ReplayBackend:
    """A backend that answers from a recording, in order, and fails loudly on any mismatch.

    Args:
        path: the JSONL file an :class:`~mirrorcraft.agents.llm.LLMClient` wrote with ``record_path``.
    """

    #: What a call past the recording's end raises (a subclass may name it more precisely).
    exhausted_error: type[ReplayMismatchError] = ReplayMismatchError

    def __init__(self, path: Path) -> None:
        self.path = path
        self.entries = read_recording(path)
        self.position = 0

    def matches(self, entry: dict[str, Any], request: LLMRequest) -> bool:
        """Whether ``request`` is the recorded one (here: the whole request, by digest)."""
        return request.digest() == entry["request_sha256"]

    def compared(self, entry: dict[str, Any], request: LLMRequest) -> tuple[Any, Any]:
        """The recorded and the actual request as :meth:`matches` compares them (to name a difference)."""
        return entry["request"], request.model_dump(mode="json")

    def __call__(self, request: LLMRequest) -> LLMResponse:
        if self.position >= len(self.entries):
            raise self.exhausted_error(
                f"replay {self.path}: call {self.position + 1} ({request.purpose}) was not recorded "
                f"(the recording holds {len(self.entries)} calls)"
            )
        entry = self.entries[self.position]
        if not self.matches(entry, request):
            diff = _first_difference(*self.compared(entry, request))
            raise ReplayMismatchError(f"replay {self.path}: call {self.position + 1} differs: {diff}")
        self.position += 1
        return LLMResponse.model_validate(entry["response"])

    @property
    def exhausted(self) -> bool:
        """True once every recorded call has been replayed."""
        return self.position == len(self.entries)

"""Recorded-response replay for team systems, where game time does not wait for the model.

A MirrorCraft episode can run in lockstep, so its replay compares whole requests
(:class:`~mirrorcraft.agents.replay.ReplayBackend`). A team episode runs free by default (the world goes on
while a model thinks, as in the original), so what a player observes at its k-th call — where its team mate
stands, whether the sidebar has counted a pick-up yet — depends on the model's latency, and a replayed request
can differ from the recorded one there and only there. (In a lockstep team episode it cannot: there
``strict=True`` replays exactly; docs/pillagerbench.md "Lockstep".)

The team prompts therefore mark every section built from the game as ``... (observed):`` on its own line, the
section running to the next blank line (:data:`OBSERVED_SECTION`). :class:`TeamReplayBackend` answers from a
recording in order, like the MirrorCraft replay, and compares each request with the recorded one **with the
observed sections masked** (or whole, ``strict=True``): model, purpose, sampling settings, the system message,
the scenario text, the player's own reasoning, the tactics and every instruction must be byte-identical; a
difference names the call, the message and the character. A call past the recording's end raises
:class:`ReplayExhaustedError`: without ``max_steps`` a replayed free-running episode can ask more often than the
recorded one (no model latency), and the team systems then stop that player's asking for the episode (logged)
unless the replay is strict.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mirrorcraft.agents.errors import ReplayMismatchError
from mirrorcraft.agents.llm import LLMRequest
from mirrorcraft.agents.replay import ReplayBackend
from mirrorcraft.contracts.canonical import canonical_json, sha256_hex

#: A section of a team prompt built from the game: a header line ending in ``(observed):`` up to a blank line.
OBSERVED_SECTION = re.compile(r"^([^\n]*\(observed\):)\n.*?(?=\n\n|\Z)", re.MULTILINE | re.DOTALL)
MASK = "<observed: not compared on replay>"


def mask_observed(text: str) -> str:
    """``text`` with the body of every observed section replaced by :data:`MASK` (the headers stay)."""
    return OBSERVED_SECTION.sub(lambda m: f"{m.group(1)}\n{MASK}", text)


def masked_request(data: dict[str, Any]) -> dict[str, Any]:
    """A request (as JSON) with the observed sections of its messages masked."""
    out = dict(data)
    out["messages"] = [
        {**m, "content": mask_observed(str(m.get("content", "")))} for m in data.get("messages", [])
    ]
    return out


def masked_digest(data: dict[str, Any]) -> str:
    """SHA-256 of the canonical JSON of :func:`masked_request`."""
    return sha256_hex(canonical_json(masked_request(data)))


class ReplayExhaustedError(ReplayMismatchError):
    """Every recorded answer was used and the system asks again (a free-running replay can run faster than the
    recording: :class:`~mirrorcraft.agents.team_llm.LLMTeamPolicy` then stops that player's asking, unless strict)."""


class TeamReplayBackend(ReplayBackend):
    """A backend answering from one recording file in order (module docstring): the MirrorCraft replay with the
    observed sections masked in the comparison, unless ``strict``.

    Args:
        path: the JSONL file an :class:`~mirrorcraft.agents.llm.LLMClient` wrote with ``record_path``.
        strict: compare whole requests (as :class:`~mirrorcraft.agents.replay.ReplayBackend` does).
    """

    exhausted_error = ReplayExhaustedError

    def __init__(self, path: Path, *, strict: bool = False) -> None:
        super().__init__(path)
        self.strict = strict

    def matches(self, entry: dict[str, Any], request: LLMRequest) -> bool:
        if self.strict:
            return super().matches(entry, request)
        return masked_digest(entry["request"]) == masked_digest(request.model_dump(mode="json"))

    def compared(self, entry: dict[str, Any], request: LLMRequest) -> tuple[Any, Any]:
        recorded, actual = super().compared(entry, request)
        return (recorded, actual) if self.strict else (masked_request(recorded), masked_request(actual))


__all__ = [
    "MASK",
    "OBSERVED_SECTION",
    "TeamReplayBackend",
    "mask_observed",
    "masked_digest",
    "masked_request",
]

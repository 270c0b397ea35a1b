"""Errors raised by the agents package.

They live here rather than in :mod:`mirrorcraft.errors` because only the agent side raises them; they
still derive from :class:`~mirrorcraft.errors.MirrorCraftError` so a caller can catch every deliberate
failure of the package at once.
"""

from __future__ import annotations

from mirrorcraft.errors import MirrorCraftError


class AgentError(MirrorCraftError):
    """An agent was misused (e.g. ``decide`` before ``reset``, rule cards given to a non-disclosure agent)."""


class LLMError(AgentError):
    """A model call failed for good (non-transient error, or retries exhausted); the message names the
    model, the call's purpose and the last underlying error."""


class ReplayMismatchError(LLMError):
    """Replay mode: the agent asked something other than what the recording holds at that position."""

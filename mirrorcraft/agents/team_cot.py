"""``cot``: the chain-of-thought team system, the original's LLM baseline (shared/spec/pillagerbench.md).

One model call per player step: the system message holds the scenario's public description (from the
briefing) and the skills; the user message the player's :class:`~mirrorcraft.contracts.TeamObservation` and its
own previous reasoning this episode (the last ``reasoning_length`` thoughts with the calls they chose), and asks
to think step by step before answering with one skill call (or ``wait``). The answer is parsed into a
:class:`~mirrorcraft.contracts.SkillCall`; an unusable one is a policy error of that player only
(:class:`~mirrorcraft.agents.team_llm.LLMTeamPolicy`). Nothing is kept across episodes (the original's CoT agent
does not learn between rounds), so its checkpoint is empty.

The original generates JavaScript for Mineflayer; ours answers with one of the same semantic skills every agent
here uses, so it and the MirrorCraft agents share one body and one observation contract.
"""

from __future__ import annotations

from collections import deque
from typing import ClassVar

from pydantic import Field

from mirrorcraft.agents.team_llm import LLMTeamPolicy, TeamLLMSettings, render_call
from mirrorcraft.agents.teams import GameBriefing, register_team_policy
from mirrorcraft.contracts import SkillCall, TeamObservation


class CotSettings(TeamLLMSettings):
    """``cot``'s settings: ``reasoning_length`` — how many of the player's own previous thoughts it is shown."""

    reasoning_length: int = Field(4, ge=0, le=32)


@register_team_policy
class CotTeam(LLMTeamPolicy):
    """Chain of thought, one call per player step (module docstring)."""

    id = "cot"
    configuration = "cot"
    settings_model: ClassVar[type[TeamLLMSettings]] = CotSettings
    settings: CotSettings

    def pre_game(self, briefing: GameBriefing) -> None:
        super().pre_game(briefing)
        n = self.settings.reasoning_length
        self.reasoning: dict[str, deque[str]] = {p: deque(maxlen=n) for p in briefing.players}

    def memory(self, player: str) -> str:
        """The player's own previous reasoning this episode, oldest first."""
        kept = self.reasoning.get(player)
        if not kept:
            return "YOUR PREVIOUS REASONING: (none yet)\n"
        return f"YOUR PREVIOUS REASONING (last {len(kept)}, oldest first):\n" + "\n".join(kept) + "\n"

    def messages(self, view: TeamObservation) -> list[dict[str, str]]:
        """What the next call of ``view.player`` sends."""
        return [
            {"role": "system", "content": self.system_message(view.player)},
            {
                "role": "user",
                "content": self.turn_message(view, self.memory(view.player), "team_instruction_cot"),
            },
        ]

    async def act(self, view: TeamObservation) -> SkillCall | None:
        player = view.player
        if not self.may_act(player):
            return None
        text = await self.ask(player, self.messages(view))
        if text is None:
            return None
        call, thought, ok = self.parse(player, text, view)
        if ok:
            step = self.steps[player]
            self.reasoning[player].append(f"[step {step}] {thought or '-'} -> {render_call(call)}")
        return call


__all__ = ["CotSettings", "CotTeam"]

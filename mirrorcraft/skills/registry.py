"""The skill registry: one :class:`~mirrorcraft.contracts.Skill` per contracts ``SKILL_SPECS`` entry.

Why a registry: the runner and the controls execute agent calls by name; :class:`SkillSet` builds every
skill on one shared :class:`~mirrorcraft.skills.runtime.SkillContext` (so per-episode state such as the
explore counts is shared) and returns each call's report together with its semantic signature σ.
"""

from __future__ import annotations

from typing import Any

from mirrorcraft.contracts import (
    MIRRORCRAFT_SKILL_NAMES,
    SKILL_NAMES,
    SKILL_SPECS,
    ActionLimits,
    OutcomeReport,
    SkillCall,
    SkillSpec,
    signature,
)
from mirrorcraft.contracts.skills import Signature
from mirrorcraft.errors import ContractError
from mirrorcraft.skills.building import BreakAt, PlaceAt
from mirrorcraft.skills.containers import CraftGrid, Enchant, Smelt, Take
from mirrorcraft.skills.escapes import DigUp, PillarUp, Tunnel
from mirrorcraft.skills.farming import Cook, Farm, Use
from mirrorcraft.skills.gather import Attack, Collect, Mine
from mirrorcraft.skills.items import Eat, Equip, Place
from mirrorcraft.skills.movement import DigDown, Explore, GoTo, Recover
from mirrorcraft.skills.runtime import BaseSkill, SkillContext
from mirrorcraft.skills.social import Chat, Give

#: Skill name -> implementing class, in the contracts' order.
SKILL_CLASSES: dict[str, type[BaseSkill]] = {
    cls.name: cls
    for cls in (
        Explore,
        GoTo,
        Mine,
        Collect,
        CraftGrid,
        Smelt,
        Place,
        Attack,
        Enchant,
        Equip,
        DigDown,
        Eat,
        Recover,
        PillarUp,
        DigUp,
        Tunnel,
        Farm,
        Use,
        Give,
        Chat,
        BreakAt,
        PlaceAt,
        Cook,
        Take,
    )
}
if tuple(SKILL_CLASSES) != SKILL_NAMES:  # pragma: no cover - import-time consistency check
    raise ContractError(f"skills implemented {tuple(SKILL_CLASSES)} != contracts {SKILL_NAMES}")


class SkillSet:
    """Every skill, bound to one body.

    Args:
        body: A :class:`~mirrorcraft.mcproto_body.Body` (connected before the first call).
        limits: Caps and tick limits (the contracts' defaults).
        ticks_per_second: Game ticks per wall second when the server announces no rate (see :class:`SkillContext`).
        offered: The skills offered to the agent (:meth:`specs`, the prompts): MirrorCraft's
            (``MIRRORCRAFT_SKILL_NAMES``, without the team skills) unless a team setting passes
            ``SKILL_NAMES``. Every skill can still be executed (scripted team systems, tests).
    """

    def __init__(
        self,
        body: Any,
        limits: ActionLimits | None = None,
        ticks_per_second: float = 20.0,
        offered: tuple[str, ...] = MIRRORCRAFT_SKILL_NAMES,
    ) -> None:
        unknown = sorted(set(offered) - set(SKILL_NAMES))
        if unknown:
            raise ContractError(f"offered skills {unknown} are not skills of the contracts")
        self.ctx = SkillContext(body=body, limits=limits or ActionLimits(), ticks_per_second=ticks_per_second)
        self.skills: dict[str, BaseSkill] = {name: cls(self.ctx) for name, cls in SKILL_CLASSES.items()}
        self.offered = tuple(n for n in SKILL_NAMES if n in offered)

    def specs(self) -> list[SkillSpec]:
        """The specs offered to agents, in prompt order."""
        return [SKILL_SPECS[n] for n in self.offered]

    def get(self, name: str) -> BaseSkill:
        """The skill called ``name``.

        Raises:
            ContractError: unknown skill.
        """
        try:
            return self.skills[name]
        except KeyError:
            raise ContractError(f"unknown skill {name!r}; available: {', '.join(SKILL_NAMES)}") from None

    async def execute(self, call: SkillCall) -> tuple[OutcomeReport, Signature]:
        """Run one validated call; returns its outcome report and σ(call)."""
        report = await self.get(call.name).execute(call)
        return report, signature(call)

    async def run(self, name: str, **args: Any) -> OutcomeReport:
        """Convenience: validate ``name(**args)`` and execute it (ContractError on an invalid call)."""
        report, _ = await self.execute(SkillCall.create(name, args))
        return report

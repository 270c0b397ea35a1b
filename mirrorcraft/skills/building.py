"""Sabotage and construction at exact positions: ``break_at`` and ``place_at``.

``break_at(x, y, z)`` walks within reach of one block (the walking rules of every skill, one obstruction at
most), holds the fastest carried tool (the block breaks without a drop when it needs a tool the player
lacks: vanilla, the block is still gone), breaks it and picks up what drops. Unbreakable blocks and air fail
at once. ``place_at(item, x, y, z)`` is ``place`` at that position for building (``use="build"``).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from mirrorcraft.contracts import FailureReason
from mirrorcraft.skills.items import Place
from mirrorcraft.skills.runtime import AIR_NAMES, LIQUIDS, BaseSkill, Progress, SkillFailed

BREAK_REACH = 4.0
DROP_TICKS = 40


class BreakAt(BaseSkill):
    """Break the block at a position."""

    name = "break_at"

    async def run(self, args: Any, progress: Progress, deadline: float) -> None:
        from mirrorcraft.gamedata import block as block_info

        ctx = self.ctx
        pos = (args.x, args.y, args.z)
        here = ctx.block(pos)
        if here is None:
            raise SkillFailed(FailureReason.UNREACHABLE, f"{pos} is not loaded")
        if here in AIR_NAMES or here in LIQUIDS:
            raise SkillFailed(FailureReason.NOT_FOUND, f"nothing to break at {pos} ({here})")
        if not block_info(here).diggable:
            raise SkillFailed(FailureReason.TOOL_TOO_WEAK, f"{here} at {pos} cannot be broken")
        if not ctx.in_reach(pos, BREAK_REACH) and not await ctx.approach(
            pos, reach=BREAK_REACH, timeout=self.time_left(deadline), progress=progress, what=here
        ):
            raise SkillFailed(
                FailureReason.UNREACHABLE, f"cannot get within reach of {pos}: {ctx.last_way_out}"
            )
        tool, harvest = ctx.best_tool(here)
        await ctx.hold(tool)
        dug = await ctx.body.dig(pos)
        if not dug.broken:
            raise SkillFailed(FailureReason.OTHER, f"could not break {here} at {pos}: {dug.reason}")
        progress.broke(dug.block or here)
        progress.completed = 1
        centre = (pos[0] + 0.5, pos[1] + 0.2, pos[2] + 0.5)
        await ctx.collect_near(centre, 3.0, min(self.time_left(deadline), DROP_TICKS / ctx.tick_rate))
        progress.message = f"broke {here} at {pos}" + (
            "" if harvest else " (no tool that harvests it: no drop)"
        )


class PlaceAt(Place):
    """Place a block at a position (``place`` with ``use="build"`` and coordinates)."""

    name = "place_at"

    async def run(self, args: Any, progress: Progress, deadline: float) -> None:
        here = self.ctx.block((args.x, args.y, args.z))
        if here is not None and here not in AIR_NAMES and here not in LIQUIDS:
            from mirrorcraft.skills.items import PLANTS_REPLACED

            if here not in PLANTS_REPLACED:
                raise SkillFailed(
                    FailureReason.CANNOT_PLACE, f"{(args.x, args.y, args.z)} is taken by {here}"
                )
        place = SimpleNamespace(item=args.item, use="build", x=args.x, y=args.y, z=args.z)
        await super().run(place, progress, deadline)


__all__ = ["BreakAt", "PlaceAt"]

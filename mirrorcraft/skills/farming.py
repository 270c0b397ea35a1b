"""Farm and food skills for team play: ``farm``, ``use`` and ``cook``.

``farm(crop, count)`` harvests ripe plants of one kind near the player. Which plants are ripe is read from
their block state (``age``, :mod:`mirrorcraft.mcproto_body.plants`): a crop at its last age is broken (its
drops, whatever the loot table says, are picked up) and replanted on the same farmland with the crop's seed
when one is carried (vanilla ``ItemNameBlockItem``: the seed item and the block it plants are the cited
mechanics data, ``mirrorcraft.rules.plants``); a sweet berry bush from age 2 is picked by use (vanilla:
the bush goes back to age 1, nothing is broken). Cocoa is broken and not replanted (a pod is placed
against the side of a jungle log, which needs a face choice the skill does not make).

``use(item, target)`` holds the item (or an empty hand) and uses it on a block (the top face when the cell
above is open: seeds on farmland, bone meal, berries, cake) or on an entity (a bucket on a cow). It reports
what changed in the world view and the inventory; what the use does is the server's.

``cook(input, count)`` is ``smelt`` on a furnace already in the world, fuelled with the carried fuel that
burns longest (vanilla burn times); without carried fuel it burns what the furnace's fuel slot holds (and
leaves it there), and fails ``missing_items`` when that is empty too.
"""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

from mirrorcraft.contracts import FailureReason
from mirrorcraft.errors import GameDataError
from mirrorcraft.mcproto_body.inventory import HOTBAR_START
from mirrorcraft.mcproto_body.plants import max_age
from mirrorcraft.rules import plants as plant_rules
from mirrorcraft.skills.containers import BURN_TICKS, COOK_TICKS, Smelt, burn_ticks
from mirrorcraft.skills.navigation import ENTITY_REACH, Target, nearest_entity, reach_target
from mirrorcraft.skills.runtime import (
    AIR_NAMES,
    KEEP_BLOCKS,
    BaseSkill,
    Progress,
    SkillContext,
    SkillFailed,
    require_item,
)

#: Reach within which a block is used or broken (eyes to block centre), as the other skills.
USE_REACH = 4.0
#: Game ticks to pick up a harvest's drops (popped items wait 10 ticks before they can be picked up, then the walk).
DROP_TICKS = 80


def empty_hand(ctx: SkillContext) -> bool:
    """Select an empty hotbar slot (True), so a use is with the bare hand; False when the hotbar is full."""
    inv = ctx.body.inventory
    empty = next((i for i in range(9) if inv.player.slots[HOTBAR_START + i] is None), None)
    if empty is None:
        return False
    inv.select_hotbar(empty)
    return True


def use_face(ctx: SkillContext, pos: tuple[int, int, int]) -> int | None:
    """The top face (1) when the cell above ``pos`` holds no block (planting on farmland needs it), else
    ``None`` (the face towards the eyes)."""
    from mirrorcraft.gamedata import state_tables

    above = ctx.body.world.state_at(pos[0], pos[1] + 1, pos[2])
    return 1 if above is not None and state_tables().no_collision[above] else None


class Farm(BaseSkill):
    """Harvest ripe plants of one kind and replant them."""

    name = "farm"

    async def run(self, args: Any, progress: Progress, deadline: float) -> None:
        ctx = self.ctx
        body = ctx.body
        try:
            last = max_age(args.crop)
        except GameDataError:
            raise SkillFailed(FailureReason.NOT_FOUND, f"{args.crop} is not a block") from None
        if last is None:
            raise SkillFailed(FailureReason.NOT_FOUND, f"{args.crop} is not a plant that ripens (no age)")
        bush = plant_rules.berry_bush()
        rule = plant_rules.crop(args.crop)
        want = min(args.count, ctx.limits.farm_max_count)
        skipped: set[tuple[int, int, int]] = set()
        replanted = 0
        why = ""
        while progress.completed < want:
            self.check_time(deadline)
            ripe = [
                p for p in body.plants.find(args.crop, ctx.feet(), ctx.search_radius) if p.pos not in skipped
            ]
            if not ripe:
                if progress.completed == 0:
                    growing = body.plants.find(args.crop, ctx.feet(), ctx.search_radius, ripe_only=False)
                    if growing:
                        shown = ", ".join(f"{p.age}/{p.max_age}" for p in growing[:6])
                        raise SkillFailed(
                            FailureReason.NOT_FOUND,
                            f"no ripe {args.crop} within {ctx.search_radius} blocks ({len(growing)} growing, "
                            f"ages {shown})" + (f"; {why}" if why else ""),
                        )
                    raise SkillFailed(
                        FailureReason.NOT_FOUND, f"no {args.crop} within {ctx.search_radius} blocks"
                    )
                progress.reason = FailureReason.NOT_FOUND
                why = why or f"no more ripe {args.crop} in reach"
                break
            target = ripe[0]
            pos = target.pos
            if not ctx.in_reach(pos, USE_REACH) and not await ctx.approach(
                pos, reach=USE_REACH, timeout=self.time_left(deadline), progress=progress, what=args.crop
            ):
                skipped.add(pos)
                why = f"cannot reach {pos}: {ctx.last_way_out}"
                continue
            if args.crop == bush.block:
                if not empty_hand(ctx):
                    await ctx.hold(None)
                res = await body.using.use_on_block(pos)
                now = body.plants.plant_at(*pos)
                picked = res.inventory_delta.get(bush.harvest_item, 0) > 0
                if picked or (now is not None and now.block == args.crop and now.age < target.age):
                    progress.completed += 1
                    # vanilla pops the berries out of the bush (item entities), as a break drops its loot
                    centre = (pos[0] + 0.5, pos[1] + 0.2, pos[2] + 0.5)
                    await ctx.collect_near(
                        centre, 3.0, min(self.time_left(deadline), DROP_TICKS / ctx.tick_rate)
                    )
                else:
                    skipped.add(pos)
                    why = f"picking {pos}: {res.reason or 'no berries'}"
                continue
            tool, _ = ctx.best_tool(args.crop)
            await ctx.hold(tool)
            dug = await body.dig(pos)
            if not dug.broken:
                skipped.add(pos)
                why = f"breaking {pos}: {dug.reason}"
                continue
            progress.broke(args.crop)
            progress.completed += 1
            centre = (pos[0] + 0.5, pos[1] + 0.2, pos[2] + 0.5)
            await ctx.collect_near(centre, 3.0, min(self.time_left(deadline), DROP_TICKS / ctx.tick_rate))
            if rule is not None and ctx.has(rule.seed) and ctx.block(pos) in AIR_NAMES:
                soil = (pos[0], pos[1] - 1, pos[2])
                if not ctx.in_reach(soil, USE_REACH):
                    await ctx.approach(
                        soil, reach=USE_REACH, timeout=self.time_left(deadline), what="farmland"
                    )
                res = await body.using.use_on_block(soil, item=rule.seed, face=1)
                if ctx.block(pos) == args.crop:
                    replanted += 1
                    progress.placed(args.crop)
                else:
                    why = f"replanting {pos}: {res.reason or 'the server planted nothing'}"
        progress.message = (
            f"harvested {progress.completed} {args.crop}"
            + (f", replanted {replanted}" if rule is not None else "")
            + (f" ({why})" if why and progress.completed < want else "")
        )


class Use(BaseSkill):
    """Use an item (or the empty hand) on a block or an entity."""

    name = "use"

    async def run(self, args: Any, progress: Progress, deadline: float) -> None:
        ctx = self.ctx
        body = ctx.body
        if args.item is not None:
            require_item(args.item)
            if not ctx.has(args.item):
                raise SkillFailed(FailureReason.MISSING_ITEMS, f"no {args.item} in the inventory")
        if args.entity is not None:
            mob = nearest_entity(ctx, args.entity)
            if mob is None or mob.distance_to(body.movement.position) > 2 * ctx.search_radius:
                raise SkillFailed(
                    FailureReason.NOT_FOUND, f"no {args.entity} within {2 * ctx.search_radius} blocks"
                )
            if mob.distance_to(body.movement.position) > ENTITY_REACH + 1.0:
                cell = tuple(math.floor(c) for c in mob.position)
                ok = await reach_target(
                    ctx, Target("entity", cell, ENTITY_REACH, args.entity), self.time_left(deadline), progress
                )
                if not ok:
                    raise SkillFailed(
                        FailureReason.UNREACHABLE, f"cannot reach the {args.entity}: {ctx.last_way_out}"
                    )
            if args.item is None:
                empty_hand(ctx)
            res = await body.using.use_on_entity(mob.id, item=args.item)
            if not res.changed:
                raise SkillFailed(FailureReason.OTHER, f"using {args.item or 'the hand'} on the {args.entity}: "
                                  f"{res.reason}")  # fmt: skip
            progress.completed = 1
            progress.message = (
                f"used {args.item or 'the hand'} on {args.entity}: inventory {res.inventory_delta}"
            )
            return
        if args.x is not None:
            pos = (args.x, args.y, args.z)
            here = ctx.block(pos)
            if args.block is not None and here is not None and here != args.block:
                raise SkillFailed(FailureReason.NOT_FOUND, f"{pos} holds {here}, not {args.block}")
        else:
            found = ctx.find_blocks(args.block)
            if not found:
                raise SkillFailed(
                    FailureReason.NOT_FOUND, f"no {args.block} within {ctx.search_radius} blocks"
                )
            pos = found[0]
        if ctx.block(pos) is None:
            raise SkillFailed(FailureReason.UNREACHABLE, f"{pos} is not loaded")
        if not ctx.in_reach(pos, USE_REACH) and not await ctx.approach(
            pos, reach=USE_REACH, timeout=self.time_left(deadline), progress=progress, what=f"{pos}"
        ):
            raise SkillFailed(
                FailureReason.UNREACHABLE, f"cannot get within reach of {pos}: {ctx.last_way_out}"
            )
        if args.item is None:
            empty_hand(ctx)
        res = await body.using.use_on_block(pos, item=args.item, face=use_face(ctx, pos))
        if not res.changed:
            raise SkillFailed(FailureReason.OTHER, f"using {args.item or 'the hand'} on {res.before} at {pos}: "
                              f"{res.reason}")  # fmt: skip
        progress.completed = 1
        if res.changed_cell is not None and res.changed_cell != pos:
            now = ctx.block(res.changed_cell)
            if now is not None and now not in AIR_NAMES:
                progress.placed(now)
        what = f"{res.before} -> {res.after}" if res.before != res.after else f"{res.before}"
        if res.changed_cell is not None and res.changed_cell != pos:
            what += f"; {res.changed_cell} now {ctx.block(res.changed_cell)}"
        progress.message = f"used {args.item or 'the hand'} on {pos} ({what})"


class Cook(Smelt):
    """``smelt`` on a furnace in the world with the longest-burning carried fuel."""

    name = "cook"

    async def run(self, args: Any, progress: Progress, deadline: float) -> None:
        ctx = self.ctx
        require_item(args.input)
        have = ctx.inventory()
        fuels = sorted(
            (-burn_ticks(name), name)
            for name in have
            if name != args.input
            and name not in KEEP_BLOCKS
            and (name in BURN_TICKS or burn_ticks(name) != COOK_TICKS)
        )
        # no carried fuel: the furnace's own (the Dash & Dine furnaces hold 64 coal), as the contract says
        fuel = fuels[0][1] if fuels else None
        smelt_args = SimpleNamespace(input=args.input, device="furnace", fuel=fuel, count=args.count)
        await super().run(smelt_args, progress, deadline)
        progress.message = progress.message.replace("smelted", "cooked", 1)


__all__ = ["Cook", "Farm", "Use", "empty_hand", "use_face"]

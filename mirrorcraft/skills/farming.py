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

``cook(input, count)`` is ``smelt`` on a furnace already in the world, on the fuel the furnace holds: vanilla
burns whatever is in the fuel slot (and what is already burning), so the carried fuel is added only for the
shortfall (the longest-burning carried fuel into an empty slot, else more of the slot's own kind), and only
what was added and not burnt is taken back: the furnace's own fuel stays in it (the Dash & Dine arena's
furnaces hold 64 coal each). With no fuel in the furnace and none carried it fails ``missing_items``; with
too little and no more of the slot's kind carried it cooks what the fuel covers.
"""

from __future__ import annotations

import math
from typing import Any

from mirrorcraft.contracts import FailureReason
from mirrorcraft.errors import GameDataError
from mirrorcraft.gamedata import item, item_by_id
from mirrorcraft.mcproto_body.inventory import HOTBAR_START
from mirrorcraft.mcproto_body.plants import max_age
from mirrorcraft.rules import plants as plant_rules
from mirrorcraft.skills.containers import (
    BURN_TICKS,
    COOK_TICKS,
    Smelt,
    burn_ticks,
    clear_slots,
    open_station,
    place_items,
    stow_cursor,
    tend_furnace,
)
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
            await ctx.collect_near(
                centre, 3.0, min(self.time_left(deadline), DROP_TICKS / ctx.tick_rate), expect=True
            )
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


class Cook(BaseSkill):
    """``smelt`` in a furnace already in the world, on the fuel it holds, adding carried fuel only when that
    is not enough (module docstring)."""

    name = "cook"
    STALL_TICKS = Smelt.STALL_TICKS

    async def run(self, args: Any, progress: Progress, deadline: float) -> None:
        ctx = self.ctx
        inv = ctx.body.inventory
        require_item(args.input)
        have = ctx.inventory()
        n = min(args.count, ctx.limits.smelt_max_items, have.get(args.input, 0))
        if n < 1:
            raise SkillFailed(FailureReason.MISSING_ITEMS, f"no {args.input} to cook")
        win = await open_station(ctx, "minecraft:furnace", ("minecraft:furnace",), deadline, progress)
        added: tuple[str, int, int] | None = None  # (fuel, count in the slot before, count added)
        try:
            await clear_slots(ctx, [2])  # output left from before is not this call's product
            if win.slots[0] is not None and win.slots[0].item_id != item(args.input).id:
                await clear_slots(ctx, [0])
            start_input = win.slots[0].count if win.slots[0] is not None else 0
            own = win.slots[1]
            own_name = None if own is None else item_by_id(own.item_id).name
            # vanilla burns whatever is in the fuel slot, and what is already burning (property 0: the
            # burn ticks left); only the shortfall is made up from the carried fuel
            stored = win.properties.get(0, 0) + (0 if own is None else own.count * burn_ticks(own_name))
            need = (start_input + n) * COOK_TICKS - stored
            if need > 0:
                added = self._add_fuel(have, args.input, own_name, 0 if own is None else own.count, need)
                if added is None and stored <= 0:
                    raise SkillFailed(
                        FailureReason.MISSING_ITEMS,
                        "the furnace holds no fuel and none is carried (coal, charcoal, planks, logs...)"
                        if own is None
                        else f"the furnace's {own_name} is not enough and no more of it is carried",
                    )
                if added is None:  # cook what the furnace's own fuel covers
                    n = max(1, min(n, stored // COOK_TICKS - start_input))
            last = place_items(ctx, [(0, args.input)], n)
            if added is not None:
                last = place_items(ctx, [(1, added[0])], added[2]) or last
            if last is not None:
                await last
            loaded = (win.slots[0].count if win.slots[0] is not None else 0) - start_input
            consumed = await tend_furnace(ctx, win, start_input, loaded, progress, deadline, self.STALL_TICKS)
            if not progress.produced:
                raise SkillFailed(FailureReason.NO_OUTPUT, f"the furnace produced nothing from {args.input}")
            progress.completed = max(1, consumed)
            fuel = (
                f"with {added[2]} carried {added[0]}" if added is not None else f"on the furnace's {own_name}"
            )
            progress.message = f"cooked {consumed} {args.input} {fuel}"
            if ctx.now() >= deadline and consumed < loaded:
                progress.reason = FailureReason.TIMEOUT
        finally:
            await clear_slots(ctx, [0, 2])
            if added is not None:
                await self._take_back_fuel(win, added[1])
            await inv.close()

    def _add_fuel(
        self, have: dict[str, int], food: str, own: str | None, own_count: int, need: int
    ) -> tuple[str, int, int] | None:
        """The carried fuel to add for ``need`` more burn ticks: ``(fuel, count in the slot, count to add)``;
        the longest-burning carried fuel when the slot is empty, else only more of the slot's own fuel (a
        slot holds one kind). ``None`` when nothing carried fits."""
        if own is not None:
            room = item(own).stack_size - own_count
            if have.get(own, 0) < 1 or room < 1:
                return None
            return own, own_count, min(math.ceil(need / burn_ticks(own)), have[own], room)
        fuels = sorted(
            (-burn_ticks(name), name)
            for name in have
            if name != food
            and name not in KEEP_BLOCKS
            and (name in BURN_TICKS or burn_ticks(name) != COOK_TICKS)
        )
        if not fuels:
            return None
        name = fuels[0][1]
        return name, 0, min(math.ceil(need / burn_ticks(name)), have[name], item(name).stack_size)

    async def _take_back_fuel(self, win: Any, before: int) -> None:
        """Take back the fuel this call added and the furnace did not burn: all of the slot beyond the
        ``before`` items that were the furnace's own (they stay)."""
        slot = win.slots[1]
        if slot is None or slot.count <= before:
            return
        inv = self.ctx.body.inventory
        if before == 0:
            await clear_slots(self.ctx, [1])
            return
        await inv.click(1, 0, 0)  # the whole stack on the cursor
        for _ in range(before - 1):
            inv.click(1, 1, 0)  # right clicks put one back each
        await inv.click(1, 1, 0)
        await stow_cursor(self.ctx)


__all__ = ["Cook", "Farm", "Use", "empty_hand", "use_face"]

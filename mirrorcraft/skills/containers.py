"""Skills that work through container windows: ``craft_grid``, ``smelt`` and ``enchant``.

Why window clicks and nothing else: the body knows no recipes, cooking outputs or enchantment tables. It
lays out exactly the grid the agent wrote, loads exactly the input and fuel it named, and takes whatever
the server puts into the result / output slot. The report's ``produced`` is read from that slot just
before the take, so a Mirror rule (a recipe yielding another item, raw iron smelting into nuggets) shows
up as the server decided it.

Windows (wiki.vg "Inventory"): the player inventory (window 0) has its 2x2 grid in slots 1..4 and the
result in 0; a crafting table window has the result in 0 and the 3x3 grid in 1..9 (row-major from the
top-left); a furnace / blast furnace window has 0 input, 1 fuel, 2 output; an enchanting table window
has 0 item, 1 lapis, and the three offers' level costs in window properties 0..2; the offer is taken
with ``enchant_item`` (Click Container Button) ids 0..2.

Clicks are sent back-to-back without waiting for each server answer (the body predicts every click and
applies the prediction at once, so the next click starts from the predicted state); only the last click
of a batch is awaited. A server that disagrees resends the window and wins.

Fuel: the amount loaded is the item count times 200 ticks divided by the fuel's vanilla burn time (a
fixed game fact, ``AbstractFurnaceBlockEntity.getFuel``; not data-driven in 1.19.2), rounded up.

Proven end to end on the embedded server (tests/skills): 2x2 and 3x3 crafting, a furnace smelt, an
enchantment. Not exercised: blast furnaces, ``smelt`` stopping at its time limit.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

from twisted.internet import defer

from mirrorcraft.contracts import FailureReason
from mirrorcraft.gamedata import item, item_by_id
from mirrorcraft.mcproto_body.windows import HOTBAR_START, Window
from mirrorcraft.skills.runtime import BaseSkill, Progress, SkillContext, SkillFailed, require_item

#: Vanilla burn times in ticks (AbstractFurnaceBlockEntity.getFuel, 1.19.2) of the usual fuels.
BURN_TICKS: dict[str, int] = {
    "minecraft:coal": 1600,
    "minecraft:charcoal": 1600,
    "minecraft:coal_block": 16000,
    "minecraft:lava_bucket": 20000,
    "minecraft:blaze_rod": 2400,
    "minecraft:stick": 100,
    "minecraft:bamboo": 50,
    "minecraft:dried_kelp_block": 4001,
}
#: Ticks per item in a furnace (a blast furnace cooks twice as fast and burns fuel twice as fast).
COOK_TICKS = 200
RESULT_WAIT = 1.5  #: seconds to wait for the server to fill a result slot


def burn_ticks(fuel: str) -> int:
    """Burn time of ``fuel`` in a furnace (logs/planks/wooden items 300, as vanilla's wood tags)."""
    if fuel in BURN_TICKS:
        return BURN_TICKS[fuel]
    bare = fuel.removeprefix("minecraft:")
    if bare.endswith(("_log", "_planks", "_wood", "_stem", "_hyphae")) or bare in ("crafting_table", "chest"):
        return 300
    if bare.startswith("wooden_"):
        return 200
    return COOK_TICKS  # unknown fuel: load one per item and let the server decide


def player_slots(win: Window) -> range:
    """Slots of ``win`` that belong to the player's main inventory and hotbar."""
    return range(9, 45) if win.id == 0 else range(win.container_slots, len(win.slots))


def _find(win: Window, item_id: int, exclude: set[int] = frozenset()) -> int | None:  # type: ignore[assignment]
    best = None
    for i in player_slots(win):
        s = win.slots[i]
        if s is not None and s.item_id == item_id and i not in exclude:
            if best is None or s.count > win.slots[best].count:  # type: ignore[union-attr]
                best = i
    return best


def _stow_slot(win: Window, item_id: int, nbt: Any) -> int | None:
    """A player slot that can take the cursor stack: a same-item stack with room, else an empty one."""
    limit = item_by_id(item_id).stack_size
    for i in player_slots(win):
        s = win.slots[i]
        if s is not None and s.item_id == item_id and s.nbt == nbt and s.count < limit:
            return i
    for i in player_slots(win):
        if win.slots[i] is None:
            return i
    return None


async def stow_cursor(ctx: SkillContext) -> None:
    """Put the cursor stack into the player inventory (or leave it if there is no room at all)."""
    inv = ctx.body.inventory
    win = inv.active
    while win.cursor is not None:
        dst = _stow_slot(win, win.cursor.item_id, win.cursor.nbt)
        if dst is None:
            raise SkillFailed(FailureReason.INVENTORY_FULL, "no room in the inventory for the taken items")
        await inv.click(dst, 0, 0)


def place_items(ctx: SkillContext, cells: list[tuple[int, str]], per_cell: int) -> defer.Deferred | None:
    """Put ``per_cell`` items into each ``(slot, item)`` of the active window with pickup clicks.

    Sends every click at once (predicted) and returns the Deferred of the last one (``None`` if none).

    Raises:
        SkillFailed: the inventory runs out of an item (``missing_items``).
    """
    inv = ctx.body.inventory
    win = inv.active
    last = None
    by_item: dict[str, list[int]] = defaultdict(list)
    for slot, name in cells:
        by_item[name].append(slot)
    for name in sorted(by_item):
        iid = item(name).id
        origin = None
        for slot in by_item[name]:
            for _ in range(per_cell):
                if win.cursor is None or win.cursor.item_id != iid:
                    origin = _find(win, iid)
                    if origin is None:
                        raise SkillFailed(FailureReason.MISSING_ITEMS, f"not enough {name}")
                    last = inv.click(origin, 0, 0)
                last = inv.click(slot, 1, 0)
        if win.cursor is not None and origin is not None:
            dst = origin if win.slots[origin] is None else _stow_slot(win, win.cursor.item_id, win.cursor.nbt)
            if dst is not None:
                last = inv.click(dst, 0, 0)
    return last


async def clear_slots(ctx: SkillContext, slots: list[int]) -> None:
    """Shift-click every non-empty slot in ``slots`` of the active window back into the player inventory."""
    inv = ctx.body.inventory
    last = None
    for slot in slots:
        if inv.active.slots[slot] is not None:
            last = inv.click(slot, 0, 1)
    if last is not None:
        await last


async def wait_slot(ctx: SkillContext, win: Window, slot: int, seconds: float) -> bool:
    """Wait until ``slot`` of ``win`` holds something; False after ``seconds``."""
    end = ctx.now() + seconds
    while win.slots[slot] is None:
        if ctx.now() > end:
            return False
        await ctx.sleep_ticks(1)
    return True


#: Blocks within which a station the player placed (or saw) is walked back to when none is in view.
STATION_RECALL = 48


async def open_station(
    ctx: SkillContext,
    block: str,
    window_types: tuple[str, ...],
    deadline: float,
    progress: Progress | None = None,
) -> Window:
    """Walk to the nearest placed ``block`` and open its window.

    Raises:
        SkillFailed: none within the search radius or unreachable (``no_workstation``), or the window
            did not open / is another type (``no_workstation``).
    """
    found = ctx.find_blocks(block)
    if not found:
        # one the player placed (or saw) farther away, that it remembers: walk there (a player would)
        memory = ctx.body.memory
        found = memory.placed_near(block, ctx.feet(), STATION_RECALL) or memory.known(
            block, ctx.feet(), radius=STATION_RECALL, height=24
        )
        found = found[:1]
    if not found:
        raise SkillFailed(FailureReason.NO_WORKSTATION, f"no {block} within {ctx.search_radius} blocks")
    inv = ctx.body.inventory
    empty = next((i for i in range(9) if inv.player.slots[HOTBAR_START + i] is None), None)
    if empty is not None:
        inv.select_hotbar(empty)  # use the station with an empty hand, so nothing is placed against it
    way = ""
    for pos in found[:3]:
        if ctx.body.memory.is_unreachable(pos, ctx.feet()) is not None and len(found) > 1:
            continue
        if not await ctx.approach(
            pos, reach=4.0, timeout=max(1.0, deadline - ctx.now()), progress=progress, what=block
        ):
            way = way or ctx.last_way_out
        else:
            try:
                win = await ctx.body.open_container(pos, timeout=3.0)
            except TimeoutError as err:
                raise SkillFailed(
                    FailureReason.NO_WORKSTATION, f"the {block} at {pos} did not open: {err}"
                ) from None
            if win.type not in window_types:
                await ctx.body.inventory.close()
                raise SkillFailed(
                    FailureReason.NO_WORKSTATION, f"the {block} at {pos} opened a {win.type} window"
                )
            await ctx.sleep_ticks(4)  # the window's contents follow the open packet
            return win
    raise SkillFailed(FailureReason.NO_WORKSTATION, f"no reachable {block}" + (f": {way}" if way else ""))


class CraftGrid(BaseSkill):
    """Lay the agent's grid out in the 2x2 or 3x3 grid and take the result slot ``count`` times."""

    name = "craft_grid"

    async def run(self, args: Any, progress: Progress, deadline: float) -> None:
        ctx = self.ctx
        inv = ctx.body.inventory
        size = 2 if args.workstation == "inventory" else 3
        cells = [
            (1 + r * size + c, cell)
            for r, row in enumerate(args.grid)
            for c, cell in enumerate(row)
            if cell is not None
        ]
        for _, name in cells:
            require_item(name)
        need: dict[str, int] = defaultdict(int)
        for _, name in cells:
            need[name] += 1
        have = ctx.inventory()
        reps = min(
            args.count, ctx.limits.craft_max_repetitions, *(have.get(n, 0) // k for n, k in need.items())
        )
        if reps < 1:
            missing = sorted(n for n, k in need.items() if have.get(n, 0) < k)
            raise SkillFailed(FailureReason.MISSING_ITEMS, f"the grid needs {', '.join(missing)}")
        if args.workstation == "crafting_table":
            win = await open_station(
                ctx, "minecraft:crafting_table", ("minecraft:crafting",), deadline, progress
            )
        else:
            await inv.close()
            win = inv.player
        grid_slots = list(range(1, 1 + size * size))
        try:
            per_cell = min(reps, min(item(n).stack_size for n in need))
            last = place_items(ctx, cells, per_cell)
            if last is not None:
                await last
            taken = 0
            while taken < reps:
                self.check_time(deadline)
                if not await wait_slot(ctx, win, 0, RESULT_WAIT):
                    break
                res = win.slots[0]
                name = item_by_id(res.item_id).name  # type: ignore[union-attr]
                await inv.click(0, 0, 0)
                got = win.cursor
                if got is None or got.item_id != res.item_id:  # type: ignore[union-attr]
                    break
                await stow_cursor(ctx)
                progress.produced.append((name, got.count))
                taken += 1
                progress.completed = taken
            if taken == 0:
                raise SkillFailed(FailureReason.NO_OUTPUT, "the result slot stayed empty")
            progress.message = f"took the result {taken} times"
        finally:
            await clear_slots(ctx, grid_slots)
            if win.id != 0:
                await inv.close()


class Smelt(BaseSkill):
    """Load a furnace / blast furnace with ``count`` input items and enough fuel; take the output."""

    name = "smelt"
    STALL_TICKS = 280  #: no cooking progress for this long (> one furnace item, 200 ticks) = no output

    async def run(self, args: Any, progress: Progress, deadline: float) -> None:
        ctx = self.ctx
        inv = ctx.body.inventory
        require_item(args.input)
        own_fuel = args.fuel is None  # ``cook`` without carried fuel: the device's own (its fuel slot)
        if not own_fuel:
            require_item(args.fuel)
        have = ctx.inventory()
        n = min(args.count, ctx.limits.smelt_max_items, have.get(args.input, 0))
        if n < 1:
            raise SkillFailed(FailureReason.MISSING_ITEMS, f"no {args.input} to smelt")
        fuel_n = 0
        if not own_fuel:
            fuel_n = min(math.ceil(n * COOK_TICKS / burn_ticks(args.fuel)), have.get(args.fuel, 0))
            if args.fuel == args.input:
                fuel_n = min(fuel_n, have.get(args.fuel, 0) - n)
            if fuel_n < 1:
                raise SkillFailed(FailureReason.MISSING_ITEMS, f"no {args.fuel} left to burn")
        device = f"minecraft:{args.device}"
        win = await open_station(ctx, device, (device,), deadline, progress)
        if own_fuel and win.slots[1] is None and win.properties.get(0, 0) <= 0:
            await inv.close()
            raise SkillFailed(
                FailureReason.MISSING_ITEMS, f"the {args.device} has no fuel and you carry none"
            )
        try:
            await clear_slots(ctx, [2])  # output left from before is not this call's product
            if win.slots[0] is not None and win.slots[0].item_id != item(args.input).id:
                await clear_slots(ctx, [0])
            start_input = win.slots[0].count if win.slots[0] is not None else 0
            last = place_items(ctx, [(0, args.input)], n)
            if not own_fuel:
                last = place_items(ctx, [(1, args.fuel)], fuel_n) or last
            if last is not None:
                await last
            loaded = (win.slots[0].count if win.slots[0] is not None else 0) - start_input
            consumed = await tend_furnace(ctx, win, start_input, loaded, progress, deadline, self.STALL_TICKS)
            if not progress.produced:
                raise SkillFailed(
                    FailureReason.NO_OUTPUT, f"the {args.device} produced nothing from {args.input}"
                )
            progress.completed = max(1, consumed)
            progress.message = f"smelted {consumed} {args.input}"
            if ctx.now() >= deadline and consumed < loaded:
                progress.reason = FailureReason.TIMEOUT
        finally:
            await clear_slots(ctx, [0, 2] if own_fuel else [0, 1, 2])  # the device's own fuel stays in it
            await inv.close()


async def tend_furnace(
    ctx: SkillContext,
    win: Window,
    start_input: int,
    loaded: int,
    progress: Progress,
    deadline: float,
    stall_ticks: float,
) -> int:
    """Take the output of an open furnace window as it appears until the input loaded is used up, nothing
    cooks for ``stall_ticks`` or ``deadline``; returns how many input items were consumed (the products
    go to ``progress.produced``)."""
    inv = ctx.body.inventory
    stall_since = ctx.now()
    last_left = win.slots[0].count if win.slots[0] is not None else 0
    while ctx.now() < deadline:
        out = win.slots[2]
        if out is not None:
            name = item_by_id(out.item_id).name
            await inv.click(2, 0, 1)
            if win.slots[2] is None:
                progress.produced.append((name, out.count))
        left = win.slots[0].count if win.slots[0] is not None else 0
        if left < last_left or win.properties.get(2, 0) > 0:
            stall_since = ctx.now()
        last_left = left
        if left <= start_input and win.slots[2] is None and win.properties.get(2, 0) == 0:
            await ctx.sleep_ticks(6)
            if win.slots[2] is None:
                break
        if ctx.now() - stall_since > stall_ticks / ctx.tick_rate:
            break
        await ctx.sleep_ticks(5)
    left = win.slots[0].count if win.slots[0] is not None else 0
    return max(0, loaded - max(0, left - start_input))


class Enchant(BaseSkill):
    """Put the item and lapis lazuli into an enchanting table and take offer ``option``."""

    name = "enchant"
    LAPIS = "minecraft:lapis_lazuli"

    async def run(self, args: Any, progress: Progress, deadline: float) -> None:
        ctx = self.ctx
        inv = ctx.body.inventory
        require_item(args.item)
        have = ctx.inventory()
        if have.get(args.item, 0) < 1:
            raise SkillFailed(FailureReason.MISSING_ITEMS, f"no {args.item} to enchant")
        if have.get(self.LAPIS, 0) < args.option:
            raise SkillFailed(
                FailureReason.NOT_ENOUGH_LEVELS, f"offer {args.option} costs {args.option} lapis lazuli"
            )
        if ctx.body.health.level < args.option:
            raise SkillFailed(
                FailureReason.NOT_ENOUGH_LEVELS, f"offer {args.option} needs at least {args.option} levels"
            )
        win = await open_station(
            ctx, "minecraft:enchanting_table", ("minecraft:enchantment",), deadline, progress
        )
        try:
            last = place_items(ctx, [(0, args.item)], 1)
            lapis = min(have[self.LAPIS], 64)
            last = place_items(ctx, [(1, self.LAPIS)], lapis) or last
            if last is not None:
                await last
            prop = args.option - 1
            end = min(deadline, ctx.now() + 2.0)
            while win.properties.get(prop, 0) <= 0 and ctx.now() < end:
                await ctx.sleep_ticks(1)
            cost = win.properties.get(prop, 0)
            if cost <= 0:
                raise SkillFailed(
                    FailureReason.NO_OUTPUT, f"the table offers no enchantment {args.option} for {args.item}"
                )
            if ctx.body.health.level < cost:
                raise SkillFailed(FailureReason.NOT_ENOUGH_LEVELS, f"offer {args.option} needs level {cost}")
            before = win.slots[0]
            ctx.body.inventory.enchant(win, prop)
            end = min(deadline, ctx.now() + 2.0)
            while win.slots[0] == before and ctx.now() < end:
                await ctx.sleep_ticks(1)
            after = win.slots[0]
            if after is None or after == before:
                raise SkillFailed(FailureReason.NO_OUTPUT, "the item was not enchanted")
            progress.produced.append((item_by_id(after.item_id).name, after.count))
            progress.completed = 1
            progress.message = f"enchanted {args.item} with offer {args.option} (level {cost})"
        finally:
            await clear_slots(ctx, [0, 1])
            await inv.close()


class Take(BaseSkill):
    """Open the container at a position and take up to ``count`` of one item out of it (team play: the Dash &
    Dine chests of eggs, buckets and bowls, the furnaces' coal).

    Whole stacks move with a shift click; the last, partial stack is picked up onto the cursor, ``k`` items
    are right-clicked one by one into a player slot and the rest is put back. What the container holds is
    only known once it is open (a player cannot see into a chest), so an empty one is ``not_found``.
    """

    name = "take"
    REACH = 4.0

    async def run(self, args: Any, progress: Progress, deadline: float) -> None:
        ctx = self.ctx
        inv = ctx.body.inventory
        require_item(args.item)
        pos = (args.x, args.y, args.z)
        here = ctx.block(pos)
        if here is None:
            raise SkillFailed(FailureReason.UNREACHABLE, f"{pos} is not loaded")
        if not ctx.in_reach(pos, self.REACH) and not await ctx.approach(
            pos, reach=self.REACH, timeout=self.time_left(deadline), progress=progress, what=here
        ):
            raise SkillFailed(
                FailureReason.UNREACHABLE, f"cannot get within reach of {pos}: {ctx.last_way_out}"
            )
        empty = next((i for i in range(9) if inv.player.slots[HOTBAR_START + i] is None), None)
        if empty is not None:
            inv.select_hotbar(empty)  # open it with an empty hand, so nothing is placed against it
        try:
            win = await ctx.body.open_container(pos, timeout=3.0)
        except TimeoutError:
            raise SkillFailed(FailureReason.NOT_FOUND, f"{here} at {pos} is not a container") from None
        try:
            await ctx.sleep_ticks(4)  # the window's contents follow the open packet
            iid = item(args.item).id
            taken = 0
            for slot in range(win.container_slots):
                self.check_time(deadline)
                s = win.slots[slot]
                want = args.count - taken
                if want <= 0:
                    break
                if s is None or s.item_id != iid:
                    continue
                if s.count <= want:
                    await inv.click(slot, 0, 1)  # shift click: the whole stack
                    left = win.slots[slot]
                    moved = s.count - (left.count if left is not None and left.item_id == iid else 0)
                else:
                    await inv.click(slot, 0, 0)  # the stack onto the cursor
                    dst = _stow_slot(win, iid, s.nbt)
                    if dst is None:
                        await inv.click(slot, 0, 0)
                        raise SkillFailed(FailureReason.INVENTORY_FULL, "no room in the inventory")
                    last = None
                    for _ in range(want):
                        last = inv.click(dst, 1, 0)  # one item each
                    if last is not None:
                        await last
                    await inv.click(slot, 0, 0)  # the rest back
                    moved = want
                if moved <= 0:
                    raise SkillFailed(FailureReason.INVENTORY_FULL, "no room in the inventory")
                taken += moved
                progress.completed = taken
            if taken == 0:
                raise SkillFailed(FailureReason.NOT_FOUND, f"the {here} at {pos} holds no {args.item}")
            progress.message = f"took {taken} {args.item} from the {here} at {pos}"
        finally:
            await inv.close()


__all__ = [
    "BURN_TICKS",
    "CraftGrid",
    "Enchant",
    "Smelt",
    "Take",
    "burn_ticks",
    "clear_slots",
    "open_station",
    "place_items",
    "stow_cursor",
    "tend_furnace",
]

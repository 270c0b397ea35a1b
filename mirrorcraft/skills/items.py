"""Item skills: ``place``, ``equip`` and ``eat``.

``place`` without coordinates picks the nearest free spot around the player (air, two blocks from the
feet at most, on solid ground, never a cell the player stands in) in a fixed scan order, so the same state
gives the same spot; water cells come after every dry one (vanilla replaces water with a placed block: a
player standing in a sunken pond places the table into the pond). ``pour`` empties a bucket with
use-item-on against the block under the spot; ``light`` places a torch like a block. ``equip`` with
``auto`` wears armour (by the item's name suffix, a fact of the game version) and holds anything else.
``eat`` holds the food and sends Use Item (wiki.vg "Use Item") for the vanilla 32 ticks, then checks that
one item was consumed.
"""

from __future__ import annotations

import math
from typing import Any

from mirrorcraft.contracts import FailureReason
from mirrorcraft.errors import GameDataError
from mirrorcraft.gamedata import food, item, state_tables
from mirrorcraft.skills.runtime import AIR_NAMES, KEEP_BLOCKS, BaseSkill, Progress, SkillFailed, require_item

#: Dry plants a placed block replaces (vanilla ``Material.REPLACEABLE_PLANT`` and snow layers): in a savanna
#: or a meadow every free spot may hold grass.
PLANTS_REPLACED = frozenset(
    "minecraft:" + n for n in ("grass", "fern", "dead_bush", "snow", "tall_grass", "large_fern")
)

#: Liquids a placed block replaces (vanilla: water is a replaceable material). A spot in water comes after
#: every dry spot: the taiga-2 catalogue run cut sugar cane from the floor of a pond sunk three blocks below
#: the land, where no dry spot was within two blocks and ``recover`` (one obstruction) could not climb out.
#: Lava is never a spot.
WATER_REPLACED = frozenset({"minecraft:water"})

ARMOUR_SLOTS = {"head": 5, "chest": 6, "legs": 7, "feet": 8}
OFF_HAND = 45
_SUFFIX = {"_helmet": "head", "_chestplate": "chest", "_leggings": "legs", "_boots": "feet"}
EAT_TICKS = 32


def armour_slot(name: str) -> str | None:
    """The armour slot an item is worn in, by vanilla's naming (``None`` for non-armour)."""
    bare = name.removeprefix("minecraft:")
    if bare in ("turtle_helmet", "carved_pumpkin"):
        return "head"
    if bare == "elytra":
        return "chest"
    return next((slot for suffix, slot in _SUFFIX.items() if bare.endswith(suffix)), None)


class Place(BaseSkill):
    """Place one block/item from the inventory at (x, y, z) or at the nearest free spot (air, or a plant
    that placing replaces: :data:`PLANTS_REPLACED`; water, :data:`WATER_REPLACED`, after every dry spot)."""

    name = "place"

    def _spots(self) -> list[tuple[int, int, int]]:
        ctx = self.ctx
        fx, fy, fz = ctx.feet()
        tables = state_tables()
        out = []
        for dy in (0, -1, 1):
            for dx in range(-2, 3):
                for dz in range(-2, 3):
                    c = (fx + dx, fy + dy, fz + dz)
                    if dx == 0 and dz == 0:
                        continue
                    here = ctx.body.world.state_at(*c)
                    under = ctx.body.world.state_at(c[0], c[1] - 1, c[2])
                    if (
                        here is None
                        or under is None
                        or not tables.no_collision[here]
                        or tables.no_collision[under]
                    ):
                        continue
                    name = ctx.block(c)
                    if name not in AIR_NAMES and name not in PLANTS_REPLACED and name not in WATER_REPLACED:
                        continue
                    if self._touches_player(c):
                        continue
                    out.append(c)
        # The player's walkable exits (feet and head free beside it): a spot that is the last one would
        # wall the player in (a table then a furnace placed in the two free sides of a pit corner did, and
        # the next walk found no path) — such a spot comes last.
        exits = set()
        for dx, dz in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            feet_s = ctx.body.world.state_at(fx + dx, fy, fz + dz)
            head_s = ctx.body.world.state_at(fx + dx, fy + 1, fz + dz)
            if (
                feet_s is not None
                and head_s is not None
                and tables.no_collision[feet_s]
                and tables.no_collision[head_s]
            ):
                exits.add((fx + dx, fy, fz + dz))
        me = ctx.body.movement.position
        return sorted(
            out,
            key=lambda c: (
                ctx.block(c) in WATER_REPLACED,
                exits == {c},
                math.dist(me, (c[0] + 0.5, c[1] + 0.5, c[2] + 0.5)),
                c,
            ),
        )

    async def _clear_spot(self, progress: Progress) -> list[tuple[int, int, int]]:
        """No free spot (a one-wide tunnel, a pit): break the one block beside the feet that opens a spot.

        The body may clear one local obstruction: a solid, breakable block next to the player at feet level
        (else at head level), standing on solid ground and not touching a liquid (breaking it must not let
        water in). Counted in ``blocks_broken``; returns ``[that cell]`` once it is air, else ``[]``.
        """
        from mirrorcraft.skills.runtime import LIQUIDS

        ctx = self.ctx
        tables = state_tables()
        fx, fy, fz = ctx.feet()
        sides = ((1, 0), (-1, 0), (0, 1), (0, -1))
        # beside the feet first, then beside the head (standing on the block beside the feet)
        for dy, dx, dz in [(0, *d) for d in sides] + [(1, *d) for d in sides]:
            c = (fx + dx, fy + dy, fz + dz)
            name = ctx.block(c)
            under = ctx.body.world.state_at(c[0], c[1] - 1, c[2])
            if name is None or name in AIR_NAMES or name in LIQUIDS:
                continue
            state = ctx.body.world.state_at(*c)
            if state is None or not ctx.way_diggable(state):
                continue  # a workstation, or too slow to break with the tools carried
            if under is None or tables.no_collision[under]:
                continue
            around = [(c[0] + a, c[1] + b, c[2] + d) for a, b, d in
                      ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, 0, 1), (0, 0, -1))]  # fmt: skip
            if any(ctx.block(n) in LIQUIDS for n in around):
                continue
            await ctx.hold(ctx.way_tool(state)[0])
            res = await ctx.body.dig(c)
            if res.broken:
                progress.broke(res.block)
                return [c]
        return []

    def _touches_player(self, c: tuple[int, int, int]) -> bool:
        x, y, z = self.ctx.body.movement.position
        # player box 0.6 wide, 1.8 high (vanilla), against the unit cell c
        return (c[0] < x + 0.3 and c[0] + 1 > x - 0.3 and c[2] < z + 0.3 and c[2] + 1 > z - 0.3
                and c[1] < y + 1.8 and c[1] + 1 > y)  # fmt: skip

    async def run(self, args: Any, progress: Progress, deadline: float) -> None:
        ctx = self.ctx
        require_item(args.item)
        if not ctx.has(args.item):
            raise SkillFailed(FailureReason.MISSING_ITEMS, f"no {args.item} in the inventory")
        if args.x is not None and args.y is not None and args.z is not None:
            targets = [(args.x, args.y, args.z)]
            if not await ctx.approach(
                targets[0],
                reach=4.0,
                timeout=self.time_left(deadline),
                progress=progress,
                what=f"{targets[0]}",
            ):
                raise SkillFailed(
                    FailureReason.UNREACHABLE, f"cannot get within reach of {targets[0]}: {ctx.last_way_out}"
                )
        elif args.x is not None or args.y is not None or args.z is not None:
            raise SkillFailed(FailureReason.CANNOT_PLACE, "give all of x, y, z or none of them")
        else:
            targets = self._spots()
            if not targets and args.use != "pour":
                targets = await self._clear_spot(progress)
        if not targets:
            raise SkillFailed(FailureReason.CANNOT_PLACE, "no free spot with solid ground within 2 blocks")
        if not await ctx.hold(args.item):
            raise SkillFailed(FailureReason.MISSING_ITEMS, f"no {args.item} in the inventory")
        last = ""
        for target in targets[:4]:
            self.check_time(deadline)
            if args.use == "pour":
                ctx.body.placer.use_on((target[0], target[1] - 1, target[2]), 1)
                await ctx.sleep(max(0.05, 12 / ctx.tick_rate))  # 12 ticks for the fluid to flow
                after = ctx.block(target)
                if after not in AIR_NAMES:
                    progress.completed = 1
                    progress.placed(after or args.item)
                    progress.message = f"poured {args.item} at {target}: now {after}"
                    return
                last = "nothing flowed out"
                continue
            res = await ctx.body.place(target, args.item)
            if res.placed:
                progress.completed = 1
                progress.placed(res.new_block or args.item)
                if res.new_block in KEEP_BLOCKS:
                    ctx.body.memory.note_placed(target, res.new_block)
                progress.message = f"placed {res.new_block} at {target}"
                return
            last = res.reason
        raise SkillFailed(FailureReason.CANNOT_PLACE, f"could not place {args.item}: {last}")


class Equip(BaseSkill):
    """Hold or wear an item."""

    name = "equip"

    async def run(self, args: Any, progress: Progress, deadline: float) -> None:
        ctx = self.ctx
        inv = ctx.body.inventory
        require_item(args.item)
        slot = args.slot
        if slot == "auto":
            slot = armour_slot(args.item) or "hand"
        iid = item(args.item).id
        if slot == "hand":
            if not await inv.equip(args.item):
                raise SkillFailed(FailureReason.MISSING_ITEMS, f"no {args.item} in the inventory")
            await ctx.sleep_ticks(6)
            held = inv.held_item
            if held is None or held.item_id != iid:
                raise SkillFailed(FailureReason.OTHER, "the server did not keep the item in the hand")
        else:
            target = OFF_HAND if slot == "off_hand" else ARMOUR_SLOTS[slot]
            if slot not in ("off_hand", "hand") and armour_slot(args.item) != slot:
                raise SkillFailed(FailureReason.OTHER, f"{args.item} cannot be worn on the {slot}")
            await inv.close()
            win = inv.player
            current = win.slots[target]
            if current is not None and current.item_id == iid:
                progress.completed = 1
                progress.message = f"{args.item} already on the {slot}"
                return
            src = inv.find(args.item, win)
            if src is None or src == target:
                raise SkillFailed(FailureReason.MISSING_ITEMS, f"no {args.item} in the inventory")
            inv.click(src, 0, 0)
            if win.slots[target] is not None and slot != "off_hand":
                inv.click(target, 0, 0)  # swap: old armour on the cursor
                await inv.click(src, 0, 0)
            else:
                await inv.click(target, 0, 0)
                if win.cursor is not None:
                    await inv.click(src, 0, 0)
            await ctx.sleep_ticks(6)
            now = win.slots[target]
            if now is None or now.item_id != iid:
                raise SkillFailed(FailureReason.OTHER, f"the server did not keep {args.item} on the {slot}")
        progress.completed = 1
        progress.message = f"equipped {args.item} ({slot})"


class Eat(BaseSkill):
    """Eat a food item (or the most nourishing one carried)."""

    name = "eat"

    async def run(self, args: Any, progress: Progress, deadline: float) -> None:
        ctx = self.ctx
        body = ctx.body
        have = ctx.inventory()
        if args.item is not None:
            try:
                food(args.item)
            except GameDataError:
                raise SkillFailed(FailureReason.MISSING_ITEMS, f"{args.item} is not a food") from None
            choice = args.item if have.get(args.item, 0) > 0 else None
        else:
            foods = []
            for name in sorted(have):
                try:
                    foods.append((-food(name).food_points, name))
                except GameDataError:
                    continue
            choice = min(foods)[1] if foods else None
        if choice is None:
            raise SkillFailed(FailureReason.MISSING_ITEMS, f"no {args.item or 'food'} in the inventory")
        if body.health.food >= 20 and choice not in (
            "minecraft:golden_apple",
            "minecraft:enchanted_golden_apple",
            "minecraft:chorus_fruit",
        ):
            raise SkillFailed(FailureReason.OTHER, "not hungry: the food bar is full")
        if not await ctx.hold(choice):
            raise SkillFailed(FailureReason.MISSING_ITEMS, f"no {choice} in the inventory")
        before = have.get(choice, 0)
        food_before = body.health.food
        body.inventory.activate_item()
        end = min(deadline, ctx.now() + (EAT_TICKS + 10) / ctx.tick_rate)
        while ctx.now() < end:
            await ctx.sleep_ticks(2)
            if ctx.inventory().get(choice, 0) < before:
                break
        if ctx.inventory().get(choice, 0) >= before:
            raise SkillFailed(FailureReason.OTHER, f"the server did not consume {choice}")
        progress.completed = 1
        progress.message = f"ate {choice} (food {food_before} -> {body.health.food})"


__all__ = ["Eat", "Equip", "Place", "armour_slot"]

"""Furnaces, blast furnaces and smokers: their block entities, ticked every game tick, and their window.

Why the device is separate from the window: a furnace keeps cooking after its window closes (vanilla
``AbstractFurnaceBlockEntity.serverTick`` runs for every loaded furnace) and several players may look at
the same one; the menu is only a view. Each furnace-family block has one
:class:`~mirrorcraft.rules.cooking.CookingDevice` (the world's recipes, cooking yields and fuels), created
the first time it is used, ticked by the ``furnaces`` tick phase up to the game tick (skipped ticks are
caught up, at most 200, so cook times stay in ticks at any tick rate); the block's ``lit`` state follows
the device like vanilla's ``setBlock(... LIT ...)``. Persistence is the block-entities feature's.

Window (wiki.vg "Inventory"; menu types furnace 13, blast furnace 9, smoker 21): 0 input, 1 fuel (fuels and
an empty bucket), 2 output, 3-38 inventory; properties 0-3 (fuel left, fuel total, progress, progress
total). Taking from the output slot is traced to the cooked units it holds: it is published as a ``smelt``
outcome with its vanilla outcome, and its stored experience is given (rounded with the seeded ``xp``
stream).
"""

from __future__ import annotations

from mirrorcraft.rules.cooking import FUEL, INPUT, OUTPUT, CookingDevice, Take
from mirrorcraft.rules.devices import DEVICE_RECIPE_TYPES, fuel_slot_accepts
from mirrorcraft.server import facts, outcomes
from mirrorcraft.server.features.experience import Experience
from mirrorcraft.server.features.windows import Menu, Windows
from mirrorcraft.server.kernel import Behaviour, Kernel, Player
from mirrorcraft.server.kernel.stacks import Stack, max_stack_of, same_kind, with_count
from mirrorcraft.server.world_rules import WorldRules

#: The furnace-family blocks (bare names): the cooking devices of ``rules/data/cooking.json``.
DEVICES = frozenset(DEVICE_RECIPE_TYPES)
MAX_CATCH_UP = 200  # device ticks replayed after a reactor stall

Pos = tuple[int, int, int]


class FurnaceMenu(Menu):
    """Furnace, blast furnace or smoker window over a :class:`CookingDevice` block entity."""

    n = 3
    result_slot = OUTPUT

    def __init__(
        self, furnaces: Furnaces, player: Player, window_id: int, device: CookingDevice, pos: Pos
    ) -> None:
        super().__init__(player, window_id)
        self.furnaces = furnaces
        self.device = device
        self.pos = pos
        self.kind = device.device

    def cget(self, i: int) -> Stack | None:
        return self.device.slots[i]

    def cset(self, i: int, s: Stack | None) -> None:
        self.device.put(i, s)

    def can_place(self, i: int, s: Stack) -> bool:
        if i == OUTPUT:
            return False
        if i == FUEL:
            return fuel_slot_accepts(s.item, self.device.fuels.is_fuel)  # type: ignore[union-attr]
        return True

    def quick_move(self, i: int) -> None:
        if i < 3:
            self.move_into(i, 3, 39)
            return
        s = self.get(i)
        name = s.item if s else None
        if name and self.device.book.cooking_recipe(self.device.recipe_type, name) is not None:  # type: ignore[union-attr]
            if self.move_into(i, INPUT, INPUT + 1):
                return
        if name and self.device.fuels.is_fuel(name):  # type: ignore[union-attr]
            if self.move_into(i, FUEL, FUEL + 1):
                return
        if i < 30:
            self.move_into(i, 30, 39)
        else:
            self.move_into(i, 3, 30)

    def take_result(self, shift: bool, button: int) -> None:
        out = self.get(OUTPUT)
        if out is None:
            return
        if shift:
            room = 0
            for idx in range(3, 39):
                t = self.get(idx)
                if t is None:
                    room += max_stack_of(out)
                elif same_kind(t, out):
                    room += max_stack_of(out) - t.count
            n = min(room, out.count)
        else:
            c = self.inv.cursor
            n = out.count if button == 0 else (out.count + 1) // 2
            if c is not None:
                if not same_kind(c, out):
                    return
                n = min(n, max_stack_of(c) - c.count)
        if n <= 0:
            return
        take = self.device.take_output(n, rng=self.furnaces.xp_rng)
        if take is None:
            return
        stack = out._replace(count=take.count)
        if shift:
            self._put_inventory(stack)
        else:
            c = self.inv.cursor
            self.inv.cursor = stack if c is None else with_count(c, c.count + take.count)
        self.furnaces.smelted(self.player, self.device.device, take)

    def _put_inventory(self, s: Stack) -> None:
        count = s.count
        order = list(range(38, 2, -1))  # moveItemStackTo(3, 39, reverse=true)
        for idx in order:
            t = self.get(idx)
            if count and t is not None and same_kind(t, s) and t.count < max_stack_of(s):
                put = min(count, max_stack_of(s) - t.count)
                self.set(idx, with_count(t, t.count + put))
                count -= put
        for idx in order:
            if count and self.get(idx) is None:
                put = min(count, max_stack_of(s))
                self.set(idx, with_count(s, put))
                count -= put

    def properties(self) -> dict[int, int]:
        return self.device.properties()


class Furnaces:
    """The cooking block entities of one world, by block position."""

    def __init__(self, kernel: Kernel, rules: WorldRules, windows: Windows, experience: Experience) -> None:
        self.kernel = kernel
        self.rules = rules
        self.windows = windows
        self.experience = experience
        self.devices: dict[Pos, CookingDevice] = {}
        self.last_tick = 0
        self.xp_rng = kernel.rng.stream("xp")
        kernel.events.before("use_block", self._on_use_block)

    def new_device(self, device: str) -> CookingDevice:
        """A fresh device of kind ``device`` on the world's rules (the shared recipe book and fuels)."""
        r = self.rules
        return CookingDevice(device, r.packs, book=r.oracle.book, fuels=r.fuels)  # type: ignore[arg-type]

    def device_at(self, pos: Pos) -> CookingDevice | None:
        """The device of the furnace-family block at ``pos`` (created on first use), or ``None``."""
        name = facts.block_name(self.kernel.world.get_block(*pos))
        if name not in DEVICES:
            self.devices.pop(pos, None)
            return None
        dev = self.devices.get(pos)
        if dev is None or dev.device != name:
            dev = self.new_device(name)
            self.devices[pos] = dev
        return dev

    def removed(self, pos: Pos) -> list[Stack] | None:
        """The block at ``pos`` was broken: forget its device; returns its contents (``None``: no device)."""
        dev = self.devices.pop(pos, None)
        if dev is None:
            return None
        return [s for s in dev.slots if s is not None]

    def _on_use_block(self, b: Behaviour) -> None:
        self.windows.open_on_use(b, DEVICES, "furnaces", self._open)

    def _open(self, p: Player, pos: Pos) -> None:
        dev = self.device_at(pos)
        assert dev is not None  # the block is a furnace-family block (open_on_use checked it)
        self.windows.open(p, dev.device, pos, lambda wid: FurnaceMenu(self, p, wid, dev, pos))

    def tick(self) -> None:
        """Run every device up to the game tick; a device whose ``lit`` state changed relights its block."""
        now = self.kernel.tick_count
        steps = max(0, min(now - self.last_tick, MAX_CATCH_UP))
        self.last_tick = now
        world = self.kernel.world
        for pos, dev in list(self.devices.items()):
            was = dev.lit
            for _ in range(steps):
                dev.tick()
            if dev.lit == was:
                continue
            state = world.get_block(*pos)
            props = facts.state_props(state)
            if "lit" in props:
                props["lit"] = "true" if dev.lit else "false"
                self.kernel.set_block(pos, facts.state_id(facts.block_name(state), props))

    def smelted(self, p: Player, device: str, take: Take) -> None:
        """Items were taken from an output slot: publish the ``smelt`` outcome, give the experience."""
        outcome = self.rules.oracle.cook_take(device, take)
        self.kernel.report(outcomes.smelt_event(device, take, outcome, player=p.display_name))
        if take.experience:
            self.experience.add_points(p, take.experience)
        self.kernel.emit("smelt", player=p.display_name, item=take.item, count=take.count, xp=take.experience)

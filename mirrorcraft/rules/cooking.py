"""Cooking devices (furnace, blast furnace, smoker) as a pure, tick-driven state machine.

Why: smelting is where two suites change rules (M01, M03, M05), including changes vanilla's recipe format
cannot express (more than one item per input: the cooking-yield sidecar of ``docs/smelting_yields.md``).
Keeping the device a plain object with ``tick()`` makes timing testable in ticks without a server, and
lets the server and the evaluator share one implementation.

Vanilla 1.19.2 ``AbstractFurnaceBlockEntity.serverTick`` is followed step by step:

* each tick: if lit, ``lit_time -= 1``. If lit, or fuel and input are both present: find the recipe for
  the input (first match in recipe-id order, see :mod:`~mirrorcraft.rules.recipes`); if not lit and
  the output can take the result (``canBurn``), burn one fuel item (``lit_time = lit_duration =`` its
  burn time; a consumed bucket of lava leaves its crafting remainder). Then if lit and ``canBurn``:
  ``cooking_progress += 1`` and at ``cooking_total_time`` one input item is cooked (output grows by the
  result count, input shrinks by one, the recipe is remembered for experience); otherwise progress resets
  to 0. When neither lit nor loaded, progress decays by 2 per tick.
* ``cooking_total_time`` is 0 in a new device (the block entity's field default: a client opening an
  empty furnace sees a total of 0, as in the vanilla capture) and is taken from the recipe's
  ``cookingtime`` (200 smelting, 100 blasting/smoking; 200 when no recipe matches, also after the input is
  taken out) when the input slot receives a different item, as ``setItem`` does.
* burn times come from ``rules/data/fuels.json`` (vanilla's hard-coded fuel table, tags resolved with
  the loaded packs, :class:`~mirrorcraft.rules.fuels.FuelTable`); blast furnace and smoker halve them;
  which recipe type a device runs is ``rules/data/cooking.json`` (:mod:`~mirrorcraft.rules.devices`).
* slots hold :class:`~mirrorcraft.rules.stack.Stack` values (immutable): a cook replaces the stack.
* window properties (wiki.vg "Window Property", furnace): 0 = fuel left (``lit_time``), 1 = fuel burn
  time (``lit_duration``), 2 = ``cooking_progress``, 3 = ``cooking_total_time``.
* experience: every cooked item records its recipe; taking from the output slot awards **all** stored
  experience (``awardUsedRecipesAndPopExperience``): per recipe ``count x experience`` (float), its whole
  part plus one more with probability equal to the fraction.

Mirror yield sidecars (furnace and blast furnace only) are applied exactly as ``docs/smelting_yields.md``
specifies: when the matched recipe is the sidecar's ``recipe`` and gives its ``result.item``, each cooked
input adds ``result.count`` items, and ``canBurn`` requires room for that many. Each cooked unit is
recorded in an output ledger with the recipe and the rule ids it traces to, so the evaluator can tell
what a later "take" was made of.

Partial: the wet sponge + bucket special case of ``burn`` and the campfire (a different block entity)
are not modelled; hoppers are the server's business (call :meth:`CookingDevice.put` / :meth:`take_output`).
"""

from __future__ import annotations

import math
import random
import struct
from collections import deque
from dataclasses import dataclass, field

from mirrorcraft import gamedata
from mirrorcraft.errors import ContractError, DatapackError
from mirrorcraft.rules.datapacks import DatapackSet
from mirrorcraft.rules.devices import DEVICE_RECIPE_TYPES
from mirrorcraft.rules.fuels import FuelTable, crafting_remainder
from mirrorcraft.rules.recipe_book import RecipeBook
from mirrorcraft.rules.recipes import CookingRecipe
from mirrorcraft.rules.stack import Stack

__all__ = [
    "DEVICE_RECIPE_TYPES",
    "FUEL",
    "INPUT",
    "OUTPUT",
    "CookedUnit",
    "CookingDevice",
    "Device",
    "FuelTable",
    "Stack",
    "Take",
    "vanilla_cook_result",
]

Device = str
"""A cooking device's name: a key of :data:`~mirrorcraft.rules.devices.DEVICE_RECIPE_TYPES`."""
_DEFAULT_COOK_TIME = 200  # AbstractFurnaceBlockEntity.BURN_TIME_STANDARD, used when no recipe matches
_CONTAINER_MAX = 64  # Container.getMaxStackSize()

INPUT, FUEL, OUTPUT = 0, 1, 2  # furnace slots (wiki.vg "Inventory": Furnace 0 input, 1 fuel, 2 output)


def _f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


@dataclass(frozen=True)
class CookedUnit:
    """One input item cooked: what went in, which recipe, what came out, and why.

    Attributes:
        input: The input item.
        recipe: The matched recipe id.
        item / count: What was added to the output slot.
        rules: Rule ids the outcome traces to (the recipe's and the yield sidecar's), empty in vanilla.
        tick: The device tick at which it finished.
    """

    input: str
    recipe: str
    item: str
    count: int
    rules: tuple[str, ...]
    tick: int


@dataclass(frozen=True)
class Take:
    """What one take from the output slot removed.

    Attributes:
        item / count: The stack taken.
        units: The cooked units those items came from (a unit counts when its first item is taken; items
            already in the slot when the device was created have no unit).
        experience: Experience points awarded (all stored experience, vanilla).
    """

    item: str
    count: int
    units: tuple[CookedUnit, ...]
    experience: int


@dataclass
class CookingDevice:
    """One furnace / blast furnace / smoker block entity.

    Args:
        device: ``furnace``, ``blast_furnace`` or ``smoker``.
        packs: The loaded packs (recipes, yield sidecars).
        book: A :class:`RecipeBook` over ``packs`` (built if omitted; share one per server).
        fuels: A :class:`FuelTable` over ``packs`` (built if omitted).
    """

    device: Device
    packs: DatapackSet = field(repr=False)
    book: RecipeBook | None = field(default=None, repr=False)
    fuels: FuelTable | None = field(default=None, repr=False)
    slots: list[Stack | None] = field(default_factory=lambda: [None, None, None])
    lit_time: int = 0
    lit_duration: int = 0
    cooking_progress: int = 0
    cooking_total_time: int = 0  # a new block entity's field: 0 until an input arrives (setItem)
    ticks: int = 0
    recipes_used: dict[str, int] = field(default_factory=dict)
    ledger: deque[list] = field(default_factory=deque)  # [CookedUnit, items not yet taken]

    def __post_init__(self) -> None:
        if self.device not in DEVICE_RECIPE_TYPES:
            raise ContractError(
                f"unknown cooking device {self.device!r}; expected {sorted(DEVICE_RECIPE_TYPES)}"
            )
        self.book = self.book or RecipeBook(self.packs)
        self.fuels = self.fuels or FuelTable(self.packs)
        self.recipe_type = DEVICE_RECIPE_TYPES[self.device]

    # -- state --------------------------------------------------------------------------------------
    @property
    def lit(self) -> bool:
        """Whether the device burns (the block's ``lit`` state)."""
        return self.lit_time > 0

    def properties(self) -> dict[int, int]:
        """Window properties 0-3 (fuel left, fuel total, progress, progress total), as vanilla sends them."""
        return {0: self.lit_time, 1: self.lit_duration, 2: self.cooking_progress, 3: self.cooking_total_time}

    def recipe(self) -> CookingRecipe | None:
        """The recipe for the current input (first in recipe-id order), or ``None``."""
        stack = self.slots[INPUT]
        return self.book.cooking_recipe(self.recipe_type, stack.item if stack else None)  # type: ignore[union-attr]

    def result_of(
        self, recipe: CookingRecipe | None, item: str | None
    ) -> tuple[str, int, tuple[str, ...]] | None:
        """(item, count, rule ids) one ``item`` cooked by ``recipe`` yields here (sidecar applied)."""
        if recipe is None or item is None:
            return None
        rules = self.packs.rule_ids("recipes", recipe.id)
        y = self.packs.cooking_yields.get((self.device, item))
        if y is not None and y.recipe == recipe.id and y.item == recipe.result:
            return recipe.result, y.count, tuple(dict.fromkeys((*rules, y.rule)))
        return recipe.result, 1, rules

    # -- slots --------------------------------------------------------------------------------------
    def put(self, slot: int, stack: Stack | None) -> None:
        """Set a slot (vanilla ``setItem``): a different input item restarts the cook with its recipe's time.

        For player takes from the output slot use :meth:`take_output`, which also reports what the taken
        items were made of; setting the output here keeps the ledger consistent (oldest units leave first).

        Raises:
            ContractError: Bad slot, or more than a stack in a slot.
        """
        if slot not in (INPUT, FUEL, OUTPUT):
            raise ContractError(f"furnace slot {slot} does not exist (0 input, 1 fuel, 2 output)")
        if stack is not None and not 1 <= stack.count <= _max_stack(stack.item):
            raise ContractError(f"furnace slot {slot}: {stack.count} x {stack.item} is not a valid stack")
        old = self.slots[slot]
        self.slots[slot] = stack
        if slot == OUTPUT:
            self._trim_ledger()
        if slot == INPUT and not (stack is not None and old is not None and stack.item == old.item):
            recipe = self.recipe()
            self.cooking_total_time = recipe.cookingtime if recipe else _DEFAULT_COOK_TIME
            self.cooking_progress = 0

    def _trim_ledger(self) -> None:
        """Keep the ledger consistent with an output slot set from outside (oldest units leave first)."""
        out = self.slots[OUTPUT]
        if out is None or any(entry[0].item != out.item for entry in self.ledger):
            self.ledger.clear()
            if out is None:
                return
        excess = sum(entry[1] for entry in self.ledger) - out.count
        while excess > 0 and self.ledger:
            used = min(excess, self.ledger[0][1])
            self.ledger[0][1] -= used
            excess -= used
            if self.ledger[0][1] == 0:
                self.ledger.popleft()

    def _can_burn(self, recipe: CookingRecipe | None) -> bool:
        src = self.slots[INPUT]
        made = self.result_of(recipe, src.item if src else None)
        if src is None or made is None:
            return False
        item, count, _ = made
        out = self.slots[OUTPUT]
        if out is None:
            return True
        if out.item != item:
            return False
        # Vanilla 1.19.2 tests `out.count < limit` (room for its one item); with a yield sidecar the room
        # needed is `count` items (docs/smelting_yields.md point 3), which is the same test for count 1.
        if out.count + count <= _CONTAINER_MAX and out.count + count <= _max_stack(out.item):
            return True
        return out.count + count <= _max_stack(item)

    def _burn(self, recipe: CookingRecipe) -> CookedUnit:
        src = self.slots[INPUT]
        assert src is not None
        item, count, rules = self.result_of(recipe, src.item)  # type: ignore[misc]
        out = self.slots[OUTPUT]
        self.slots[OUTPUT] = Stack(item, count) if out is None else out.with_count(out.count + count)
        unit = CookedUnit(src.item, recipe.id, item, count, rules, self.ticks)
        self.ledger.append([unit, count])
        self.slots[INPUT] = src.with_count(src.count - 1)
        self.recipes_used[recipe.id] = self.recipes_used.get(recipe.id, 0) + 1
        return unit

    # -- ticking ------------------------------------------------------------------------------------
    def tick(self) -> list[CookedUnit]:
        """Advance one game tick (vanilla ``serverTick``).

        Returns:
            The units cooked during this tick (at most one).
        """
        self.ticks += 1
        done: list[CookedUnit] = []
        if self.lit:
            self.lit_time -= 1
        fuel = self.slots[FUEL]
        if self.lit or (fuel is not None and self.slots[INPUT] is not None):
            recipe = self.recipe()
            if not self.lit and self._can_burn(recipe):
                self.lit_time = self.fuels.burn_time(fuel.item if fuel else None, self.device)  # type: ignore[union-attr]
                self.lit_duration = self.lit_time
                if self.lit and fuel is not None:
                    left = fuel.with_count(fuel.count - 1)
                    if left is None:
                        rest = crafting_remainder(fuel.item)
                        left = Stack(rest, 1) if rest else None
                    self.slots[FUEL] = left
            if self.lit and self._can_burn(recipe):
                self.cooking_progress += 1
                if self.cooking_progress == self.cooking_total_time:
                    self.cooking_progress = 0
                    assert recipe is not None
                    done.append(self._burn(recipe))
                    # getTotalCookTime with the (possibly emptied) input
                    nxt = self.recipe()
                    self.cooking_total_time = nxt.cookingtime if nxt else _DEFAULT_COOK_TIME
            else:
                self.cooking_progress = 0
        elif not self.lit and self.cooking_progress > 0:
            self.cooking_progress = max(0, min(self.cooking_progress - 2, self.cooking_total_time))
        return done

    def run(self, ticks: int) -> list[CookedUnit]:
        """Tick ``ticks`` times; every unit cooked, in order."""
        out: list[CookedUnit] = []
        for _ in range(ticks):
            out += self.tick()
        return out

    # -- taking -------------------------------------------------------------------------------------
    def take_output(self, count: int | None = None, rng: random.Random | None = None) -> Take | None:
        """Take from the output slot (a player's click on the result slot).

        Args:
            count: How many (default: the whole stack).
            rng: Draws the experience fraction (vanilla ``Math.random()``); required if any stored
                recipe gives fractional experience.

        Returns:
            What was taken, or ``None`` if the slot is empty.

        Raises:
            ContractError: ``count`` is not positive, or experience needs an ``rng``.
        """
        out = self.slots[OUTPUT]
        if out is None:
            return None
        n = out.count if count is None else count
        if n <= 0:
            raise ContractError(f"take_output: count must be positive, got {n}")
        n = min(n, out.count)
        units: list[CookedUnit] = []
        left = n
        unknown = out.count - sum(e[1] for e in self.ledger)  # items of no recorded unit come first
        left -= min(left, max(unknown, 0))
        while left > 0 and self.ledger:
            entry = self.ledger[0]
            unit, remaining = entry
            if remaining == unit.count:
                units.append(unit)
            used = min(left, remaining)
            entry[1] -= used
            left -= used
            if entry[1] == 0:
                self.ledger.popleft()
        self.slots[OUTPUT] = out.with_count(out.count - n)
        if self.slots[OUTPUT] is None:
            self.ledger.clear()
        return Take(out.item, n, tuple(units), self._pop_experience(rng))

    def _pop_experience(self, rng: random.Random | None) -> int:
        total = 0
        for recipe_id, times in sorted(self.recipes_used.items()):
            recipe = self.packs.recipes.get(recipe_id)
            xp = recipe.experience if isinstance(recipe, CookingRecipe) else 0.0
            f = _f32(_f32(float(times)) * _f32(xp))
            whole = math.floor(f)
            frac = _f32(f - whole)
            if frac != 0.0:
                if rng is None:
                    raise ContractError("take_output: fractional experience needs an rng")
                if rng.random() < frac:
                    whole += 1
            total += whole
        self.recipes_used.clear()
        return total


def _max_stack(item: str) -> int:
    try:
        return gamedata.item(item).stack_size
    except KeyError as err:
        raise DatapackError(f"unknown item {item!r} in a cooking device") from err


def vanilla_cook_result(book: RecipeBook, device: str, item: str) -> tuple[str, int] | None:
    """(item, 1) a vanilla device yields for one ``item`` (no sidecars), or ``None``; for the evaluator."""
    recipe = book.cooking_recipe(DEVICE_RECIPE_TYPES[device], item)
    return (recipe.result, 1) if recipe else None

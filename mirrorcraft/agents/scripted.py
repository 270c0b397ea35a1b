"""The offline scripted policy: a knowledgeable vanilla player that adapts only from observed outcomes.

No model, no API key, fully deterministic. It is meant to be the default agent of ``python -m mirrorcraft.run``
(the runner wires that).

**What it knows** is standard vanilla 1.19.2 knowledge, written below as data (:data:`METHODS`): how
each item is usually obtained (mine a block with a minimum pickaxe tier, craft an explicit grid, smelt
an input, attack a mob, unpack a storage block), with the yields a player expects. It holds no suite
knowledge and never receives rule text or world identity: its constructor takes only settings, and
:meth:`ScriptedAgent.reset` refuses an :class:`~mirrorcraft.contracts.AgentContext` that carries rule
cards.

**How it plays.** Each task is an ordered list of goals (:data:`TASK_GOALS`: stock up logs, planks,
sticks, wooden pickaxe, stone, stone pickaxe, a smelter, raw iron, ingots, then the task's items). A
goal is latched once met. The next action comes from a recursive planner: to obtain ``n`` of a
resource it picks the best usable method, works out how many units to run from the *effective* yield,
and first obtains missing inputs, the pickaxe tier, the workstation (crafting table / furnace or blast
furnace, placed nearby), fuel, or a block in view (exploring or digging down when none is).

**How it adapts** (only from the outcome reports and inventory changes of its own calls):

* A method that yielded fewer units than expected gets its *learned* yield; the planner then runs it
  more often (e.g. 2 planks per log instead of 4 → it crafts again and mines more logs).
* A method that yielded none of its target (a recipe produced another item, mining dropped something
  else) is marked *diverted* for that target; what it did produce is registered as a learned method
  for those items, so they are used (planks dropped by logs satisfy the planks goal; a raw-iron block
  is unpacked into raw iron; nuggets from smelting are crafted into ingots). When a craft was diverted,
  an *experiment* route is added: process the unexpected product in a smelter, hoping for the target.
* Failures: ``tool_too_weak`` raises the tier it asks for that block; ``not_found`` marks the block as
  absent until it explores or digs; ``no_workstation`` forgets the placed station; a method failing 3
  times in a row is dropped.

* Getting unstuck: a failure that names a way out (the body's walking skills say which escape would
  work when no walk exists: ``"... 6 blocks up (y=65); try dig_up or pillar_up"``) is followed by that
  escape — ``dig_up`` to that height (a tower, ``pillar_up``, if the staircase fails and blocks are
  carried), ``dig_down``, or ``tunnel`` in the named direction — and then the interrupted plan resumes
  (:func:`way_out_call`). A station that fails with ``no_workstation`` is forgotten without counting
  against the recipe, walked to once (``go_to`` the block seen), then placed anew; a refused ``place`` is
  followed by ``recover``; unreachable stone triggers a short ``dig_down`` (not after two failed moves in a
  row: the unstick cycle then); after a failed move, ``recover`` / a short ``dig_down`` / ``explore any``
  alternate. Exploration is ``explore any``: the body
  walks towards its frontier (the direction with the most unseen terrain).

End-to-end (tests/agents/test_agents_scripted_e2e.py): Diamond in the sandbox, Iron Armor and Diamond
in ``plains-1`` (slow tier), Vanilla only, at 100 ticks/s within the 50-action budget.

Partial: digging targets fixed heights (the body remembers where it saw blocks, the policy does not
plan with it); Mirror suites are checked on outcome tables and by the reliability benchmark
(``benchmarks/scripted_reliability.py``, Vanilla worlds), not by a server test per suite.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from mirrorcraft.agents.errors import AgentError
from mirrorcraft.contracts import (
    Agent,
    AgentContext,
    Observation,
    OutcomeReport,
    PolicyError,
    SkillCall,
    TaskId,
    Usage,
)

M = "minecraft:"
PICKAXE_TIER: dict[str, int] = {
    M + "wooden_pickaxe": 1,
    M + "golden_pickaxe": 1,
    M + "stone_pickaxe": 2,
    M + "iron_pickaxe": 3,
    M + "diamond_pickaxe": 4,
    M + "netherite_pickaxe": 5,
}
TIER_ITEM = {1: "wooden_pickaxe", 2: "stone_pickaxe", 3: "iron_pickaxe", 4: "diamond_pickaxe"}
FUELS = ("coal", "charcoal", "coal_block", "planks", "log")  # resource names, best first
FUEL_ITEMS_PER_UNIT = {"coal": 8, "charcoal": 8, "coal_block": 80, "planks": 1.5, "log": 1.5}


def matches(resource: str, item: str) -> bool:
    """Whether inventory item ``item`` counts as ``resource`` (a class name or a bare item name)."""
    bare = item.removeprefix(M)
    if resource == "log":
        return bare.endswith("_log") and not bare.startswith("stripped_")
    if resource == "planks":
        return bare.endswith("_planks")
    if resource == "stone_material":
        return bare in {"cobblestone", "cobbled_deepslate", "blackstone"}
    if resource == "smelter":
        return bare in {"furnace", "blast_furnace"}
    if resource.startswith("pickaxe:"):
        return PICKAXE_TIER.get(item, 0) >= int(resource.split(":")[1])
    return bare == resource.removeprefix(M)


@dataclass
class Method:
    """One way to obtain a resource (vanilla knowledge, or learned from an outcome)."""

    id: str
    target: str
    kind: Literal["craft", "smelt", "mine", "attack", "repeat"]
    yields: float
    inputs: dict[str, float] = field(default_factory=dict)
    grid: list[list[str | None]] | None = None
    workstation: Literal["inventory", "crafting_table"] = "inventory"
    blocks: tuple[str, ...] = ()
    tool: int = 0
    smelt_input: str = ""
    mob: str = ""
    call: SkillCall | None = None  # kind "repeat": the exact call that produced the target
    learned: bool = False


def _craft(mid: str, target: str, grid: list[list[str | None]], yields: float) -> Method:
    inputs: dict[str, float] = {}
    for row in grid:
        for cell in row:
            if cell:
                inputs[cell] = inputs.get(cell, 0) + 1
    ws: Literal["inventory", "crafting_table"] = "inventory" if len(grid) == 2 else "crafting_table"
    return Method(mid, target, "craft", yields, inputs, grid, ws)


def _mine(mid: str, target: str, blocks: tuple[str, ...], tool: int, yields: float = 1) -> Method:
    return Method(mid, target, "mine", yields, blocks=tuple(M + b for b in blocks), tool=tool)


def _smelt(mid: str, target: str, source: str) -> Method:
    return Method(mid, target, "smelt", 1, {source: 1}, smelt_input=source)


def _unpack(target: str, block: str) -> Method:
    return _craft(f"unpack_{block}", target, [[block, None], [None, None]], 9)


_ = None  # an empty grid cell in the grids below (reads like the crafting window)
#: Standard vanilla knowledge: how a player expects to obtain each resource, best first.
METHODS: dict[str, list[Method]] = {
    "log": [
        _mine(
            "mine_log",
            "log",
            tuple(f"{w}_log" for w in ("oak", "birch", "spruce", "jungle", "acacia", "dark_oak", "mangrove")),
            0,
        )
    ],
    "planks": [_craft("planks", "planks", [["log", _], [_, _]], 4)],
    "stick": [_craft("sticks", "stick", [["planks", _], ["planks", _]], 4)],
    "crafting_table": [
        _craft("crafting_table", "crafting_table", [["planks", "planks"], ["planks", "planks"]], 1)
    ],
    "wooden_pickaxe": [
        _craft("wooden_pickaxe", "wooden_pickaxe", [["planks"] * 3, [_, "stick", _], [_, "stick", _]], 1)
    ],
    "stone_material": [_mine("mine_stone", "stone_material", ("stone", "deepslate"), 1)],
    "stone_pickaxe": [
        _craft(
            "stone_pickaxe", "stone_pickaxe", [["stone_material"] * 3, [_, "stick", _], [_, "stick", _]], 1
        )
    ],
    "smelter": [
        _craft(
            "furnace",
            "smelter",
            [["stone_material"] * 3, ["stone_material", _, "stone_material"], ["stone_material"] * 3],
            1,
        )
    ],
    "coal": [
        _mine("mine_coal", "coal", ("coal_ore", "deepslate_coal_ore"), 1),
        _unpack("coal", "coal_block"),
    ],
    "raw_iron": [
        _mine("mine_iron", "raw_iron", ("iron_ore", "deepslate_iron_ore"), 2),
        _unpack("raw_iron", "raw_iron_block"),
    ],
    "iron_ingot": [
        _smelt("smelt_iron", "iron_ingot", "raw_iron"),
        _unpack("iron_ingot", "iron_block"),
        _craft("ingot_from_nuggets", "iron_ingot", [["iron_nugget"] * 3] * 3, 1),
    ],
    "iron_pickaxe": [
        _craft("iron_pickaxe", "iron_pickaxe", [["iron_ingot"] * 3, [_, "stick", _], [_, "stick", _]], 1)
    ],
    "iron_boots": [
        _craft(
            "iron_boots",
            "iron_boots",
            [[_, _, _], ["iron_ingot", _, "iron_ingot"], ["iron_ingot", _, "iron_ingot"]],
            1,
        )
    ],
    "iron_helmet": [
        _craft(
            "iron_helmet", "iron_helmet", [["iron_ingot"] * 3, ["iron_ingot", _, "iron_ingot"], [_, _, _]], 1
        )
    ],
    "diamond": [
        _mine("mine_diamond", "diamond", ("diamond_ore", "deepslate_diamond_ore"), 3),
        _unpack("diamond", "diamond_block"),
    ],
    "diamond_pickaxe": [
        _craft("diamond_pickaxe", "diamond_pickaxe", [["diamond"] * 3, [_, "stick", _], [_, "stick", _]], 1)
    ],
    "obsidian": [_mine("mine_obsidian", "obsidian", ("obsidian",), 4)],
    "sugar_cane": [_mine("mine_sugar_cane", "sugar_cane", ("sugar_cane",), 0)],
    "paper": [_craft("paper", "paper", [[_, _, _], [_, _, _], ["sugar_cane"] * 3], 3)],
    "leather": [Method("kill_cow", "leather", "attack", 1, mob=M + "cow")],
    "book": [_craft("book", "book", [["paper", "paper"], ["paper", "leather"]], 1)],
    "enchanting_table": [
        _craft(
            "enchanting_table",
            "enchanting_table",
            [[_, "book", _], ["diamond", "obsidian", "diamond"], ["obsidian"] * 3],
            1,
        )
    ],
    "lapis_lazuli": [
        _mine("mine_lapis", "lapis_lazuli", ("lapis_ore", "deepslate_lapis_ore"), 2, yields=4),
        _unpack("lapis_lazuli", "lapis_block"),
    ],
}
for _tier, _name in TIER_ITEM.items():
    METHODS[f"pickaxe:{_tier}"] = [
        Method(f"via_{_name}", f"pickaxe:{_tier}", "craft", 1, {_name: 1}, None)  # marker: obtain the item
    ]

#: Ordered goals per task: (resource, count, milestone it serves or None for a stock-up hint).
TASK_GOALS: dict[TaskId, list[tuple[str, int]]] = {}
_COMMON = [
    ("log", 6),
    ("planks", 16),
    ("stick", 4),
    ("wooden_pickaxe", 1),
    ("stone_material", 11),
    ("stone_pickaxe", 1),
    ("smelter", 1),
]
TASK_GOALS[TaskId.IRON_ARMOR] = [*_COMMON, ("raw_iron", 4), ("iron_ingot", 4), ("iron_boots", 1)]
TASK_GOALS[TaskId.DIAMOND] = [
    *_COMMON,
    ("raw_iron", 3),
    ("iron_ingot", 3),
    ("iron_pickaxe", 1),
    ("diamond", 1),
]
TASK_GOALS[TaskId.ENCHANTMENT] = [
    *_COMMON, ("raw_iron", 3), ("iron_ingot", 3), ("iron_pickaxe", 1), ("diamond", 5), ("pickaxe:4", 1),
    ("obsidian", 4), ("sugar_cane", 3), ("paper", 3), ("leather", 1), ("book", 1), ("enchanting_table", 1),
    ("lapis_lazuli", 1),
]  # fmt: skip
STOCK_GOALS = {
    "log",
    "planks",
    "stick",
    "stone_material",
    "sugar_cane",
}  # efficiency hints, skipped if infeasible
SHALLOW_BLOCKS = {"stone", "deepslate"}  # found by digging a few blocks down, not by exploring
DIG_TARGET_Y = {"iron_ore": 16, "coal_ore": 40, "lapis_ore": 0, "diamond_ore": -54, "obsidian": -40}


#: The escape skills (one action each; a failure elsewhere that names one is followed by it).
ESCAPES = frozenset({"dig_up", "pillar_up", "tunnel"})
#: Blocks the body builds with by default (the escape skills' list; planks count too).
BUILDING_ITEMS = frozenset(
    M + n for n in ("dirt", "cobblestone", "cobbled_deepslate", "netherrack", "coarse_dirt", "rooted_dirt",
                    "andesite", "diorite", "granite", "tuff", "stone", "deepslate", "blackstone", "basalt",
                    "calcite", "sandstone", "mud", "packed_mud", "end_stone", "moss_block", "clay")
)  # fmt: skip
_UP_DOWN = re.compile(r"(\d+) blocks (up|down) \(y=(-?\d+)\); try (dig_up|dig_down)")
_ACROSS = re.compile(
    r"(\d+) blocks (north|south|east|west), the way is shut; try tunnel (north|south|east|west)"
)


def way_out_call(message: str) -> SkillCall | None:
    """The escape a failure message names, as a call (``None`` when it names none).

    The body's walking skills fail with the way out when no walk exists (docs/skills.md "Escapes"):
    ``"... 6 blocks up (y=65); try dig_up or pillar_up"`` → ``dig_up(target_y=65)`` (a staircase needs no
    blocks; the tower is the fallback after a failed staircase), ``"... try dig_down"`` →
    ``dig_down(target_y)``, ``"... 5 blocks east, the way is shut; try tunnel east"`` → ``tunnel(east, 6)``.
    Read from the outcome report only, as any agent reads it.
    """
    m = _UP_DOWN.search(message)
    if m:
        way, y = m.group(2), int(m.group(3))
        if way == "up":
            return SkillCall.create("dig_up", {"target_y": max(-63, min(319, y))})
        return SkillCall.create("dig_down", {"target_y": max(-59, y)})
    m = _ACROSS.search(message)
    if m:
        return SkillCall.create(
            "tunnel", {"direction": m.group(3), "length": max(1, min(16, int(m.group(1)) + 1))}
        )
    return None


def other_escape(failed: SkillCall, message: str, y: int, building_blocks: int) -> SkillCall | None:
    """After a failed escape: the other way up (a tower instead of a staircase when blocks are carried, a
    staircase instead of a tower), else the way its own failure names."""
    if failed.name == "dig_up" and building_blocks >= 1:
        height = max(1, min(8, failed.args["target_y"] - y))
        return SkillCall.create("pillar_up", {"height": height})
    if failed.name == "pillar_up":
        return SkillCall.create("dig_up", {"target_y": min(319, y + failed.args["height"])})
    return way_out_call(message)


#: Blocks a player mines to build with when it carries none, best first (what the ground is made of).
GATHER_BLOCKS = tuple(
    M + n for n in ("grass_block", "dirt", "cobblestone", "stone", "cobbled_deepslate", "deepslate", "netherrack",
                    "andesite", "diorite", "granite", "tuff", "sandstone", "coarse_dirt")
)  # fmt: skip


def needs_blocks(call: SkillCall, report: OutcomeReport) -> bool:
    """Whether an escape failed for want of blocks to build with (a tower or a bridge)."""
    if call.name not in {"pillar_up", "tunnel"} or report.status != "failure":
        return False
    return (
        report.reason is not None and report.reason.value == "missing_items"
    ) or "no block" in report.message


def gather_call(obs: Observation, count: int) -> SkillCall | None:
    """``mine`` of the most common building block in view (dirt, grass, stone...): blocks to build with."""
    seen = {b.block for b in obs.nearby_blocks}
    block = next((b for b in GATHER_BLOCKS if b in seen), None)
    if block is None:
        return None
    return SkillCall.create("mine", {"block": block, "count": max(1, min(8, count))})


def building_blocks(obs: Observation) -> int:
    """Carried blocks the body builds towers and bridges with (the escape skills' defaults)."""
    return sum(s.count for s in obs.inventory if s.item in BUILDING_ITEMS or s.item.endswith("_planks"))


class ReachPolicy:
    """The scripted policy's way to a place (the predicament benchmark's player, benchmarks/escape.py).

    ``go_to`` the goal; a failure that names a way out is followed by that escape (after a failed escape,
    the other way up; a tower or a bridge that lacked blocks, after mining some from the ground in view), a
    failure that names none by ``recover``, and then ``go_to`` again; a failure saying there is no way out
    ends it (:meth:`next` returns ``None``). Deterministic; it reads only its observations (the outcome
    reports of its own calls, the inventory, the blocks in view), as :class:`ScriptedAgent` does.

    Args:
        goal: The block position to stand at.
    """

    def __init__(self, goal: tuple[int, int, int]) -> None:
        self.goal = goal
        self.last: SkillCall | None = None
        self.escape_failures = 0
        self.resume: SkillCall | None = None  # an escape to retry once blocks are gathered

    def go_to(self) -> SkillCall:
        """The call to the goal."""
        x, y, z = self.goal
        return SkillCall.create("go_to", {"x": x, "y": y, "z": z})

    def next(self, obs: Observation) -> SkillCall | None:
        """The next call, from the observation after the previous one (``None``: give up)."""
        call = self._next(obs)
        self.last = call
        return call

    def _next(self, obs: Observation) -> SkillCall | None:
        last = self.last
        report = obs.last_result.report if obs.last_result is not None else None
        if report is None or last is None:
            return self.go_to()
        if report.status == "success":
            if self.resume is not None and last.name == "mine":
                call, self.resume = self.resume, None
                return call
            return self.go_to()
        if "no way out" in report.message:
            return None
        if needs_blocks(last, report) and self.resume is None:
            gather = gather_call(obs, last.args.get("height") or last.args.get("length") or 4)
            if gather is not None:
                self.resume = last
                return gather
        if last.name in ESCAPES:
            self.escape_failures += 1
            if self.escape_failures < 2:
                other = other_escape(last, report.message, int(obs.position.y), building_blocks(obs))
                if other is not None:
                    return other
        way = way_out_call(report.message)
        if way is not None and (way.name != last.name or way.args != last.args):
            return way
        return SkillCall.create("recover", {}) if last.name != "recover" else self.go_to()


class ScriptedSettings(BaseModel):
    """Knobs of the scripted policy."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_method_failures: int = Field(3, ge=1, description="Failures in a row before a method is dropped.")
    explore_distance: int = Field(32, ge=8, le=64)
    max_depth: int = Field(10, ge=2, description="Planner recursion limit.")


@dataclass
class Pending:
    call: SkillCall
    method: Method | None
    target: str | None


class ScriptedAgent(Agent):
    """The offline scripted policy (module docstring). Deterministic; no model, no rule knowledge."""

    configuration = "scripted"
    prompt_template_version = "scripted/none"

    def __init__(self, settings: ScriptedSettings | None = None) -> None:
        self.settings = settings or ScriptedSettings()
        self.context: AgentContext | None = None

    def usage(self) -> Usage:
        """No model calls."""
        return Usage()

    # -- Agent interface ------------------------------------------------------------------------------
    def reset(self, context: AgentContext) -> None:
        """Clear all state; refuse rule cards (the scripted policy plays with standard knowledge only)."""
        if context.rule_cards:
            raise AgentError("the scripted policy must not receive rule cards")
        self.context = context
        self.obs: Observation | None = None
        self.pending: Pending | None = None
        self.goal_index = 0
        self.skipped: list[str] = []
        self.learned_yield: dict[str, float] = {}
        self.learned: dict[str, list[Method]] = {}
        self.failures: dict[str, int] = {}
        self.dropped: set[str] = set()
        self.tool_need: dict[str, int] = {}
        self.absent: set[str] = set()
        self.stations_forgotten: set[str] = set()
        self.explore_turn = 0
        self.log: list[str] = []
        # station block -> failed uses/placements since its last success
        self.station_trouble: dict[str, int] = {}
        self.move_failures = 0  # explore/go_to failures in a row (stuck: recover, dig, turn)
        self.escape: SkillCall | None = None  # the way out a failure named, taken next
        self.escape_failures = 0  # escapes that failed in a row (then the other one, then the old ways)
        self.resume_escape: SkillCall | None = None  # an escape to retry once blocks are gathered
        self.place_refused: set[str] = set()  # stations whose last placement failed (then recover first)

    def observe(self, observation: Observation) -> None:
        """Learn from the outcome of our own previous call (inventory delta and report)."""
        if self.context is None:
            raise AgentError("scripted policy: reset(context) before observe()")
        self.obs = observation
        last = observation.last_result
        if self.pending is None or last is None or last.call != self.pending.call:
            return
        p, self.pending = self.pending, None
        report = last.report
        ok = report.status != "failure"
        if last.call.name in ESCAPES:
            self.escape_failures = 0 if ok else self.escape_failures + 1
            if needs_blocks(last.call, report) and self.resume_escape is None:
                height = last.call.args.get("height") or last.call.args.get("length") or 4
                self.escape = gather_call(observation, height)
                self.resume_escape = last.call if self.escape is not None else None
            elif not ok and self.escape_failures < 2:
                self.escape = self._other_escape(last.call, report.message)
        elif self.resume_escape is not None and last.call.name == "mine" and ok:
            self.escape, self.resume_escape = self.resume_escape, None
        elif not ok or (report.reason is not None and report.reason.value == "unreachable"):
            # a failure, or a partial success that stopped for want of a walk ("mined 6 minecraft:stone;
            # no more reachable: ... 4 blocks down (y=68); try dig_down"): take the way out it names
            self.escape = way_out_call(report.message)
        if last.call.name in {"explore", "dig_down", "recover", "go_to", *ESCAPES}:
            if ok or report.completed:
                self.absent.clear()
            self.move_failures = 0 if ok else self.move_failures + 1
        if last.call.name == "place":
            item = last.call.args["item"]
            if ok:
                self.stations_forgotten.discard(item)
                self.station_trouble.pop(item, None)
                self.place_refused.discard(item)
            else:
                self.station_trouble[item] = self.station_trouble.get(item, 0) + 1
                self.place_refused.add(item)
        if last.call.name == "go_to" and p.target is not None and ok:
            self.stations_forgotten.discard(p.target)  # walked up to the station seen: try it again
        if p.method is None:
            return
        if ok and last.call.name in {"craft_grid", "smelt"}:
            used = self._station_of(last.call)
            if used is not None:
                self.station_trouble.pop(used, None)
        m = p.method
        if report.status == "failure":
            self._on_failure(m, last.call, report.reason.value if report.reason else "other")
            return
        self.failures[m.id] = 0
        units = max(report.completed, 1)
        gains = {k: v / units for k, v in report.inventory_delta.items() if v > 0}
        used = {k: -v / units for k, v in report.inventory_delta.items() if v < 0}
        got_target = sum(v for k, v in gains.items() if matches(m.target, k))
        if got_target != m.yields or m.id in self.learned_yield:
            self.learned_yield[m.id] = got_target
            if got_target < m.yields:
                self.log.append(f"{m.id}: expected {m.yields:g} {m.target} per unit, observed {got_target:g}")
        for item, per in gains.items():
            if not matches(m.target, item):
                self._learn_method(item, per, used, last.call, m)
        if got_target == 0 and m.kind == "craft" and gains:
            for item in gains:
                self._learn_experiment(m.target, item)

    async def decide(self) -> SkillCall | PolicyError:
        """The next action from the goal list and the planner (module docstring)."""
        if self.context is None or self.obs is None:
            raise AgentError("scripted policy: reset() and observe() before decide()")
        call, self.escape = self.escape, None
        y = math.floor(self.obs.position.y)
        # a height named before the player got there (a partial mine's last walk dropped into a hole):
        # the target is still below, so a short staircase down from here; a way up is moot
        if call is not None and call.name == "dig_down" and call.args["target_y"] >= y:
            call = SkillCall.create("dig_down", {"target_y": max(-59, y - 4)})
        elif call is not None and call.name == "dig_up" and call.args["target_y"] <= y:
            call = None
        if call is not None:
            self.pending = Pending(call, None, None)
            self.log.append(f"escape: {call.name} {call.args}")
            return call
        call, method, target = self._next()
        self.pending = Pending(call, method, target)
        return call

    # -- learning -------------------------------------------------------------------------------------
    def _on_failure(self, m: Method, call: SkillCall, reason: str) -> None:
        if reason == "no_workstation":
            # the station failed, not the method: forget that station (placed again or walked to)
            station = self._station_of(call)
            stations = {station} if station else {M + "crafting_table", M + "furnace", M + "blast_furnace"}
            self.stations_forgotten |= stations
            for st in stations:
                self.station_trouble[st] = self.station_trouble.get(st, 0) + 1
            return
        self.failures[m.id] = self.failures.get(m.id, 0) + 1
        if self.failures[m.id] >= self.settings.max_method_failures:
            self.dropped.add(m.id)
            self.log.append(f"{m.id}: dropped after {self.failures[m.id]} failures")
        if reason == "tool_too_weak" and call.name == "mine":
            block = call.args["block"]
            self.tool_need[block] = max(self.tool_need.get(block, m.tool), m.tool) + 1
        elif reason in {"not_found", "unreachable"} and call.name in {"mine", "attack"}:
            self.absent.add(call.args.get("block") or call.args.get("mob"))

    @staticmethod
    def _station_of(call: SkillCall) -> str | None:
        if call.name == "craft_grid":
            return M + "crafting_table" if call.args.get("workstation") == "crafting_table" else None
        if call.name == "smelt":
            return M + str(call.args.get("device", "furnace"))
        return None

    def _learn_method(
        self, item: str, per: float, used: dict[str, float], call: SkillCall, src: Method
    ) -> None:
        bare = item.removeprefix(M)
        mid = f"learned:{src.id}->{bare}"
        for lst in self.learned.values():
            for lm in lst:
                if lm.id == mid:
                    lm.yields = per
                    return
        resource = next((r for r in ("log", "planks", "stone_material", "smelter") if matches(r, item)), bare)
        inputs = {k.removeprefix(M): v for k, v in used.items()}
        method = Method(mid, resource, "repeat", per, inputs, src.grid, src.workstation, src.blocks, src.tool,
                        src.smelt_input, src.mob, call=call, learned=True)  # fmt: skip
        self.learned.setdefault(resource, []).append(method)
        self.log.append(f"learned: {src.id} yields {per:g} {bare} per unit")

    def _learn_experiment(self, target: str, product: str) -> None:
        bare = product.removeprefix(M)
        mid = f"experiment:smelt_{bare}->{target}"
        if any(lm.id == mid for lm in self.learned.get(target, [])):
            return
        method = Method(mid, target, "smelt", 1, {bare: 1}, smelt_input=bare, learned=True)
        self.learned.setdefault(target, []).append(method)
        self.log.append(f"experiment: smelt {bare} hoping for {target}")

    # -- state helpers --------------------------------------------------------------------------------
    def count(self, resource: str) -> int:
        """How many inventory items count as ``resource``."""
        assert self.obs is not None
        return sum(s.count for s in self.obs.inventory if matches(resource, s.item))

    def _item_for(self, resource: str) -> str:
        assert self.obs is not None
        best = max(
            (s for s in self.obs.inventory if matches(resource, s.item)),
            key=lambda s: (s.count, s.item),
            default=None,
        )
        if best is not None:
            return best.item
        return M + resource

    def _near(self, block: str) -> bool:
        assert self.obs is not None
        return block not in self.stations_forgotten and any(b.block == block for b in self.obs.nearby_blocks)

    def _tier(self) -> int:
        assert self.obs is not None
        return max((PICKAXE_TIER.get(s.item, 0) for s in self.obs.inventory), default=0)

    def _yield(self, m: Method) -> float:
        return self.learned_yield.get(m.id, m.yields)

    def methods(self, resource: str) -> list[Method]:
        """Usable methods for ``resource``: vanilla knowledge then learned ones, minus diverted/dropped."""
        out = [
            m for m in METHODS.get(resource, []) + self.learned.get(resource, []) if m.id not in self.dropped
        ]
        return [m for m in out if self._yield(m) > 0]

    # -- planner --------------------------------------------------------------------------------------
    def _next(self) -> tuple[SkillCall, Method | None, str | None]:
        assert self.context is not None and self.obs is not None
        goals = TASK_GOALS[self.context.task.id]
        while self.goal_index < len(goals):
            resource, n = goals[self.goal_index]
            if self.count(resource) >= n:
                self.goal_index += 1
                continue
            step = self._obtain(resource, n - self.count(resource), 0, frozenset())
            if step is not None:
                return step
            if resource in STOCK_GOALS or self.goal_index < len(goals) - 1:
                self.skipped.append(resource)
                self.log.append(f"goal {resource} x{n}: no usable method, skipped")
                self.goal_index += 1
                continue
            break
        if self.context.task.id == TaskId.ENCHANTMENT:
            step = self._enchant()
            if step is not None:
                return step
        return self._explore(), None, None

    def _enchant(self) -> tuple[SkillCall, Method | None, str | None] | None:
        if not self._near(M + "enchanting_table"):
            if self.count("enchanting_table"):
                return (
                    SkillCall.create("place", {"item": "enchanting_table", "use": "workstation"}),
                    None,
                    None,
                )
            return self._obtain("enchanting_table", 1, 0, frozenset())
        if self.count("lapis_lazuli") < 1:
            return self._obtain("lapis_lazuli", 1, 0, frozenset())
        assert self.obs is not None
        enchantable = [
            s.item for s in self.obs.inventory if s.item.endswith(("_pickaxe", "_boots", "_helmet", "_sword"))
        ]
        if not enchantable:
            return self._obtain("wooden_pickaxe", 1, 0, frozenset())
        item = max(enchantable, key=lambda i: (PICKAXE_TIER.get(i, 0), i))
        return SkillCall.create("enchant", {"item": item, "option": 1}), None, None

    def _obtain(
        self, resource: str, need: int, depth: int, seen: frozenset[str]
    ) -> tuple[SkillCall, Method | None, str | None] | None:
        if depth > self.settings.max_depth or resource in seen or need <= 0:
            return None
        seen = seen | {resource}
        methods = self.methods(resource)

        # Prefer methods whose inputs are already at hand, then vanilla order, then learned ones.
        def missing(m: Method) -> int:
            return sum(1 for inp, per in m.inputs.items() if self.count(inp) < per)

        for m in sorted(methods, key=lambda m: (missing(m), m.learned)):
            step = self._try(m, resource, need, depth, seen)
            if step is not None:
                return step
        return None

    def _try(
        self, m: Method, resource: str, need: int, depth: int, seen: frozenset[str]
    ) -> tuple[SkillCall, Method | None, str | None] | None:
        if m.id.startswith("via_"):
            item = next(iter(m.inputs))
            return self._obtain(item, 1, depth + 1, seen)
        y = self._yield(m)
        cap = {"craft": 16, "smelt": 16, "mine": 8, "attack": 4, "repeat": 8}[m.kind]
        units = max(1, min(cap, math.ceil(need / y)))
        tool = max(m.tool, max((self.tool_need.get(b, 0) for b in m.blocks), default=0))
        if tool and self._tier() < tool:
            return self._obtain(f"pickaxe:{tool}", 1, depth + 1, seen)
        for inp, per in m.inputs.items():
            required = math.ceil(per * units)
            have = self.count(inp)
            if have < required:
                if have >= per and m.kind in {"craft", "smelt", "repeat"}:
                    units = int(have // per)  # run what we can now; the goal loop asks again
                    continue
                return self._obtain(inp, required - have, depth + 1, seen)
        units = (
            max(1, min(units, *(int(self.count(i) // p) for i, p in m.inputs.items()))) if m.inputs else units
        )
        kind = m.call.name if m.kind == "repeat" and m.call is not None else m.kind
        if kind == "craft_grid":
            kind = "craft"
        if kind == "craft":
            ws = m.call.args["workstation"] if m.kind == "repeat" and m.call else m.workstation
            if ws == "crafting_table" and not self._near(M + "crafting_table"):
                return self._station("crafting_table", depth, seen)
            if m.kind == "repeat" and m.call is not None:
                args = dict(m.call.args, count=min(16, units))
                return SkillCall.create("craft_grid", args), m, resource
            assert m.grid is not None
            grid = [[self._item_for(c) if c else None for c in row] for row in m.grid]
            return (
                SkillCall.create("craft_grid", {"workstation": ws, "grid": grid, "count": units}),
                m,
                resource,
            )
        if kind == "smelt":
            device = self._device()
            if device is None:
                return self._station("smelter", depth, seen)
            fuel = self._fuel(units)
            if fuel is None:
                return self._obtain("coal", max(1, math.ceil(units / 8)), depth + 1, seen) or self._obtain(
                    "planks", math.ceil(units / 1.5), depth + 1, seen
                )
            source = m.smelt_input or (m.call.args["input"] if m.call else "")
            args = {"input": self._item_for(source), "device": device, "fuel": fuel, "count": min(16, units)}
            return SkillCall.create("smelt", args), m, resource
        if kind == "mine":
            blocks = m.blocks or ((m.call.args["block"],) if m.call else ())
            present = [b for b in blocks if b not in self.absent and self._near(b)]
            if not present:
                return self._search(blocks)
            return SkillCall.create("mine", {"block": present[0], "count": min(8, units)}), m, resource
        if kind == "attack":
            mob = m.mob or (m.call.args["mob"] if m.call else "")
            assert self.obs is not None
            if mob in self.absent or not any(e.entity == mob for e in self.obs.nearby_entities):
                return self._explore(), None, None
            return SkillCall.create("attack", {"mob": mob, "count": min(4, units)}), m, resource
        return None

    def _device(self) -> str | None:
        for dev in ("furnace", "blast_furnace"):
            if self._near(M + dev):
                return dev
        return None

    def _fuel(self, units: int) -> str | None:
        for fuel in FUELS:
            if self.count(fuel) * FUEL_ITEMS_PER_UNIT[fuel] >= units:
                return self._item_for(fuel)
        return None

    def _station(
        self, resource: str, depth: int, seen: frozenset[str]
    ) -> tuple[SkillCall, Method | None, str | None] | None:
        """Get a usable station: walk to one seen that failed to open, else place one, else make one.

        A station seen but not usable (``no_workstation``: out of reach from here) is walked to once; a
        refused placement is followed by ``recover`` (a hole or an enclosure) before placing again.
        """
        assert self.obs is not None
        blocks = [M + "furnace", M + "blast_furnace"] if resource == "smelter" else [M + resource]
        for block in blocks:
            trouble = self.station_trouble.get(block, 0)
            seen_at = next((b for b in self.obs.nearby_blocks if b.block == block), None)
            if block in self.stations_forgotten and seen_at is not None and trouble == 1:
                self.station_trouble[block] = trouble + 1
                pos = seen_at.nearest
                args = {"x": pos.x, "y": pos.y, "z": pos.z, "block": block}  # stand within reach of it
                return SkillCall.create("go_to", args), None, block
        held = [s.item for s in self.obs.inventory if matches(resource, s.item)]
        if held:
            item = sorted(held)[0]
            if (
                item in self.place_refused
                and self.station_trouble.get(item, 0) % 3 == 2
                and self.move_failures < 2
            ):
                self.station_trouble[item] += 1
                return self._unstick(), None, None
            return SkillCall.create("place", {"item": item, "use": "workstation"}), None, None
        return self._obtain(resource, 1, depth + 1, seen)

    def _unstick(self) -> SkillCall:
        """One action to get out of a hole or enclosure: ``recover`` (whose failure names the escape)."""
        return SkillCall.create("recover", {})

    def _other_escape(self, failed: SkillCall, message: str) -> SkillCall | None:
        assert self.obs is not None
        return other_escape(failed, message, int(self.obs.position.y), building_blocks(self.obs))

    def _search(self, blocks: tuple[str, ...]) -> tuple[SkillCall, Method | None, str | None]:
        assert self.obs is not None
        y = int(self.obs.position.y)
        targets = [DIG_TARGET_Y[b.removeprefix(M).removeprefix("deepslate_")] for b in blocks
                   if b.removeprefix(M).removeprefix("deepslate_") in DIG_TARGET_Y]  # fmt: skip
        # after two failed moves in a row (a staircase refused on every side: water all round the spawn),
        # the unstick cycle (recover, a short dig_down, explore) instead of the same refused dig_down again:
        # savanna-1 Iron Armor seed 0 called it 43 times to the end of its budget
        if self.move_failures >= 2:
            return self._explore(), None, None
        if targets and y - 3 > targets[0]:
            return SkillCall.create("dig_down", {"target_y": max(targets[0], y - 32, -59)}), None, None
        if any(b.removeprefix(M) in SHALLOW_BLOCKS for b in blocks) and y > -50:
            # stone lies under the soil nearly everywhere: a short staircase down exposes it
            return SkillCall.create("dig_down", {"target_y": y - 6}), None, None
        return self._explore(), None, None

    def _explore(self) -> SkillCall:
        """Explore the frontier (``explore any``: the body picks the direction with the most unseen terrain);
        after failed moves, ``recover`` (its failure names the escape) and a short ``dig_down``."""
        assert self.obs is not None
        if self.move_failures >= 1:
            phase = self.move_failures % 3
            if phase == 1:
                return self._unstick()
            if phase == 2 and self.obs.position.y > -50:
                return SkillCall.create("dig_down", {"target_y": int(self.obs.position.y) - 4})
        self.explore_turn += 1
        return SkillCall.create("explore", {"direction": "any", "distance": self.settings.explore_distance})

    def describe(self) -> dict[str, Any]:
        """Learned state for debugging and tests (yields, learned methods, dropped methods, log)."""
        return {
            "learned_yield": dict(self.learned_yield),
            "learned": {k: [m.id for m in v] for k, v in self.learned.items()},
            "dropped": sorted(self.dropped),
            "skipped": list(self.skipped),
            "log": list(self.log),
        }

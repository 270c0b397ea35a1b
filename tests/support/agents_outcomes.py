"""Test data for the scripted-policy tests: outcome tables, not a game simulation.

:class:`OutcomeTable` answers each skill call from small tables the test chooses — crafting grid →
result, block → drops, (input, device) → smelting output, mob → loot — and keeps the inventory, placed
workstations and milestones consistent so the policy sees a coherent sequence of real contract
observations. :func:`vanilla_tables` holds standard vanilla outcomes; a test changes entries to play a
hidden-rule variant (e.g. 2 planks per log). Pathing, mob AI, tool speeds and everything else a real
server does are out of scope: the end-to-end episode on the embedded server needs the skills layer.
"""

from __future__ import annotations

from typing import Any

from mirrorcraft.contracts import Observation, OutcomeReport, SkillCall
from support.agents_support import observation, report

M = "minecraft:"
TIER = {
    "wooden_pickaxe": 1,
    "stone_pickaxe": 2,
    "iron_pickaxe": 3,
    "diamond_pickaxe": 4,
    "netherite_pickaxe": 5,
}
ARMOR = {"iron_helmet", "iron_chestplate", "iron_leggings", "iron_boots"}
MILESTONE_ITEMS = {
    "mine_stone": {"cobblestone"},
    "upgrade_tools": {"stone_pickaxe"},
    "smelt_iron": {"iron_ingot"},
    "obtain_armor": ARMOR,
    "iron_tools": {"iron_pickaxe"},
    "mine_diamond": {"diamond"},
    "form_obsidian": {"obsidian"},
    "enchant_item": set(),  # granted by a successful enchant
}


class OutcomeTable:
    """Answers calls from tables (module docstring)."""

    def __init__(self, task: str, recipes: dict, drops: dict, need_tier: dict, smelting: dict, loot: dict):
        self.task = task
        self.recipes, self.drops, self.need_tier, self.smelting, self.loot = (
            recipes,
            drops,
            need_tier,
            smelting,
            loot,
        )
        self.inv: dict[str, int] = {}
        self.ever: set[str] = set()
        self.placed: dict[str, list[int]] = {}  # workstation → heights it was placed at
        self.enchanted = False
        self.actions = 0
        self.last: tuple[int, SkillCall, OutcomeReport] | None = None
        self.y = 64

    def done(self) -> int:
        from mirrorcraft.contracts import TASKS

        n = 0
        for m in TASKS[self.task].milestones:
            code = m.advancement.removeprefix("minecraft:story/")
            ok = self.enchanted if code == "enchant_item" else bool(MILESTONE_ITEMS[code] & self.ever)
            if not ok:
                break
            n += 1
        return n

    def observe(self) -> Observation:
        blocks = {"oak_log": 4.0, "stone": 1.0, "coal_ore": 5.0, "sugar_cane": 7.0}
        if self.y <= 20:
            blocks |= {"iron_ore": 6.0, "lapis_ore": 8.0}
        if self.y <= -40:
            blocks |= {"deepslate_diamond_ore": 5.0, "obsidian": 9.0, "deepslate": 1.0}
        blocks |= {p: 2.0 for p in self.placed if self.near(p)}
        return observation(task=self.task, actions_used=self.actions, done=self.done(), inventory=self.inv,
                           blocks=blocks, entities={"minecraft:cow": 6.0}, last=self.last, y=self.y)  # fmt: skip

    def near(self, station: str) -> bool:
        """A placed workstation is in view (and usable) within 16 blocks of height (digging leaves it)."""
        return any(abs(self.y - y) <= 16 for y in self.placed.get(station, []))

    def _tier(self) -> int:
        return max([TIER.get(k.removeprefix(M), 0) for k in self.inv] + [0])

    def _apply(self, skill: str, delta: dict[str, int], completed: int, **kw: Any) -> OutcomeReport:
        for k, v in delta.items():
            self.inv[k] = self.inv.get(k, 0) + v
            if v > 0:
                self.ever.add(k.removeprefix(M))
        self.inv = {k: v for k, v in self.inv.items() if v > 0}
        return report(skill, completed=completed, delta={k: v for k, v in delta.items() if v}, **kw)

    def _fail(self, skill: str, reason: str) -> OutcomeReport:
        return report(skill, "failure", reason=reason)

    def execute(self, call: SkillCall) -> OutcomeReport:
        self.actions += 1
        rep = self._execute(call)
        self.last = (self.actions, call, rep)
        return rep

    def _execute(self, call: SkillCall) -> OutcomeReport:
        a = call.args
        if call.name == "mine":
            b = a["block"].removeprefix(M)
            if b not in self.drops or b.removeprefix("deepslate_") not in {
                x.removeprefix("deepslate_") for x in self._visible()
            }:
                return self._fail("mine", "not_found")
            if self._tier() < self.need_tier.get(b, 0):
                return self._fail("mine", "tool_too_weak")
            return self._apply("mine", {M + k: v * a["count"] for k, v in self.drops[b].items()}, a["count"])
        if call.name == "craft_grid":
            if a["workstation"] == "crafting_table" and not self.near("crafting_table"):
                return self._fail("craft_grid", "no_workstation")
            cells = tuple((c or "").removeprefix(M) for row in a["grid"] for c in row)
            out = self.recipes.get(cells) or self.recipes.get(tuple(sorted(c for c in cells if c)))
            use: dict[str, int] = {}
            for c in cells:
                if c:
                    use[M + c] = use.get(M + c, 0) - a["count"]
            if out is None:
                return self._fail("craft_grid", "no_output")
            if any(self.inv.get(k, 0) < -v for k, v in use.items()):
                return self._fail("craft_grid", "missing_items")
            return self._apply("craft_grid", use | {M + out[0]: out[1] * a["count"]}, a["count"])
        if call.name == "place":
            item = a["item"].removeprefix(M)
            if self.inv.get(a["item"], 0) < 1:
                return self._fail("place", "missing_items")
            self.placed.setdefault(item, []).append(self.y)
            return self._apply("place", {a["item"]: -1}, 1)
        if call.name == "smelt":
            if not self.near(a["device"]):
                return self._fail("smelt", "no_workstation")
            out = self.smelting.get((a["input"].removeprefix(M), a["device"]))
            if out is None:
                return self._fail("smelt", "no_output")
            if self.inv.get(a["input"], 0) < a["count"] or self.inv.get(a["fuel"], 0) < 1:
                return self._fail("smelt", "missing_items")
            return self._apply(
                "smelt", {a["input"]: -a["count"], a["fuel"]: -1, M + out[0]: out[1] * a["count"]}, a["count"]
            )
        if call.name == "attack":
            loot = self.loot.get(a["mob"].removeprefix(M), {})
            return self._apply("attack", {M + k: v * a["count"] for k, v in loot.items()}, a["count"])
        if call.name == "enchant":
            if not self.near("enchanting_table"):
                return self._fail("enchant", "no_workstation")
            if self.inv.get(M + "lapis_lazuli", 0) < 1 or self.inv.get(a["item"], 0) < 1:
                return self._fail("enchant", "missing_items")
            self.enchanted = True
            return self._apply("enchant", {M + "lapis_lazuli": -1}, 1)
        if call.name == "dig_down":
            self.y = a["target_y"]
            return report("dig_down")
        return report(call.name)

    def _visible(self) -> set[str]:
        return {b.block.removeprefix(M) for b in self.observe().nearby_blocks}


def vanilla_tables(task: str) -> OutcomeTable:
    """Standard vanilla outcomes for the recipes, drops and smelting the three tasks use."""
    P, S, C, IG, D, OB, e = "oak_planks", "stick", "cobblestone", "iron_ingot", "diamond", "obsidian", ""
    pick = lambda x: (x, x, x, e, S, e, e, S, e)  # noqa: E731
    recipes = {
        ("oak_log", e, e, e): ("oak_planks", 4),
        (P, e, P, e): ("stick", 4),
        (P, P, P, P): ("crafting_table", 1),
        pick(P): ("wooden_pickaxe", 1),
        pick(C): ("stone_pickaxe", 1),
        pick(IG): ("iron_pickaxe", 1),
        pick(D): ("diamond_pickaxe", 1),
        (C, C, C, C, e, C, C, C, C): ("furnace", 1),
        (e, e, e, IG, e, IG, IG, e, IG): ("iron_boots", 1),
        ("iron_nugget",) * 9: ("iron_ingot", 1),
        ("raw_iron_block", e, e, e): ("raw_iron", 9),
        ("diamond_block", e, e, e): ("diamond", 9),
        ("coal_block", e, e, e): ("coal", 9),
        ("lapis_block", e, e, e): ("lapis_lazuli", 9),
        (e, e, e, e, e, e, "sugar_cane", "sugar_cane", "sugar_cane"): ("paper", 3),
        ("leather", "paper", "paper", "paper"): ("book", 1),  # shapeless: sorted key
        (e, "book", e, D, OB, D, OB, OB, OB): ("enchanting_table", 1),
    }
    drops = {
        "oak_log": {"oak_log": 1}, "stone": {"cobblestone": 1}, "deepslate": {"cobbled_deepslate": 1},
        "coal_ore": {"coal": 1}, "iron_ore": {"raw_iron": 1}, "lapis_ore": {"lapis_lazuli": 4},
        "deepslate_diamond_ore": {"diamond": 1}, "obsidian": {"obsidian": 1}, "sugar_cane": {"sugar_cane": 1},
    }  # fmt: skip
    need_tier = {"stone": 1, "deepslate": 1, "coal_ore": 1, "iron_ore": 2, "lapis_ore": 2,
                 "deepslate_diamond_ore": 3, "obsidian": 4}  # fmt: skip
    smelting = {("raw_iron", "furnace"): ("iron_ingot", 1), ("raw_iron", "blast_furnace"): ("iron_ingot", 1)}
    return OutcomeTable(task, recipes, drops, need_tier, smelting, {"cow": {"leather": 1, "beef": 2}})


def changed_tables(task: str, suite: str) -> OutcomeTable:
    """Vanilla tables with the outcome changes the spec lists for ``suite`` (test data; the policy is never
    told which, it only sees the outcomes)."""
    t = vanilla_tables(task)
    pick = lambda x: (x, x, x, "", "stick", "", "", "stick", "")  # noqa: E731
    paper = ("", "", "", "", "", "", "sugar_cane", "sugar_cane", "sugar_cane")
    if suite == "M01":
        t.recipes[("oak_log", "", "", "")] = ("oak_planks", 2)
        t.recipes[("oak_planks", "", "oak_planks", "")] = ("stick", 1)
        t.smelting[("raw_iron", "furnace")] = ("iron_nugget", 3)
        t.recipes[paper] = ("paper", 1)
    elif suite == "M02":
        t.drops["oak_log"] = {"oak_planks": 4}
        t.drops["iron_ore"] = {"raw_iron": 1, "iron_ingot": 1}
        t.drops["deepslate_diamond_ore"] = {"diamond": 1, "obsidian": 1}
        t.drops["sugar_cane"] = {"sugar_cane": 1, "leather": 1}
        t.recipes[("leather", "paper", "paper", "paper")] = ("enchanting_table", 1)
    elif suite == "M03":
        t.recipes[("oak_log", "", "", "")] = ("oak_planks", 6)
        t.smelting[("raw_iron", "furnace")] = ("iron_ingot", 2)
        t.smelting[("raw_iron", "blast_furnace")] = ("iron_ingot", 2)
        t.recipes[pick("diamond")] = ("netherite_pickaxe", 1)
        t.recipes[paper] = ("book", 1)
        t.drops["deepslate_diamond_ore"] = {"diamond": 2, "lapis_lazuli": 1}
    elif suite == "M04":
        t.drops |= {"coal_ore": {"coal_block": 1}, "iron_ore": {"raw_iron_block": 1},
                    "deepslate_diamond_ore": {"diamond_block": 1}, "lapis_ore": {"lapis_block": 1}}  # fmt: skip
        t.loot["cow"] = {"leather": 1, "beef": 1, "bookshelf": 1}
    elif suite == "M05":
        c = "cobblestone"
        t.recipes[(c, c, c, c, "", c, c, c, c)] = ("blast_furnace", 1)
        t.recipes[pick("iron_ingot")] = ("iron_hoe", 1)
        t.recipes[pick("diamond")] = ("diamond_hoe", 1)
        t.smelting |= {("iron_hoe", "furnace"): ("iron_pickaxe", 1), ("iron_hoe", "blast_furnace"): ("iron_pickaxe", 1),
                       ("diamond_hoe", "blast_furnace"): ("diamond_pickaxe", 1)}  # fmt: skip
    elif suite == "M06":
        t.drops |= {"oak_log": {"oak_planks": 4, "stick": 2}, "iron_ore": {"raw_iron": 1, "paper": 1},
                    "deepslate_diamond_ore": {"diamond": 1, "lapis_lazuli": 1},
                    "lapis_ore": {"lapis_lazuli": 4, "obsidian": 2}}  # fmt: skip
        t.loot["cow"] = {"leather": 1, "beef": 2, "paper": 2}
    else:
        raise ValueError(f"unknown suite {suite!r}")
    return t

"""``ServerControl`` and an ``Evaluator`` over RCON, for any server that speaks it (embedded or vanilla).

Why: the paper's harness controls vanilla servers the way admins do — commands over RCON for effects,
experience, time, weather, difficulty and game rules, and advancement queries for milestones. This module
is the one owner of the runtime controls (:class:`~mirrorcraft.contracts.episodes.Controls`): the embedded
server's own defaults only mirror it. Every reply is checked against vanilla's reply text (the
``language.json`` formats), and what :meth:`RconServerControl.apply_controls` returns is read back from the
server with query commands where vanilla has one (time, difficulty, game rules, experience); weather and
effects have no query command in 1.19.2, so those are recorded from the success replies.

Milestones: vanilla has no ``advancement test``; the query is
``execute if entity @a[name=<player>,advancements={<id>=true}]``, whose reply starts ``Test passed`` or is
``Test failed``. RCON replies arrive after the server ran the command on its main thread, between ticks,
so every effect of earlier ticks is visible (the tick barrier).

:class:`RconEvaluator` derives rule encounters *harness-side* from the suite manifest and the outcome
reports (no server-side attribution exists over RCON); :attr:`RconEvaluator.encounter_basis` says so and
docs/control.md lists what that detects and what it cannot.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Awaitable, Callable, Sequence
from functools import cache
from typing import Any, Protocol

from mirrorcraft import gamedata
from mirrorcraft.contracts.episodes import (
    EFFECT_SECONDS,
    Controls,
    EpisodeIdentity,
    MilestoneEvent,
    SpawnInfo,
    StatusEffect,
)
from mirrorcraft.contracts.interfaces import Evaluator, ServerControl
from mirrorcraft.contracts.rules import (
    BlockDropAddRule,
    BlockDropReplaceRule,
    CookingOutputRule,
    EntityLootAddRule,
    EntityLootReplaceRule,
    RecipeResultRule,
    RuleEncounter,
    SuiteManifest,
    load_suite,
)
from mirrorcraft.contracts.skills import ItemStack, OutcomeReport, SkillCall, signature
from mirrorcraft.errors import GameDataError, MirrorCraftError
from mirrorcraft.server.commands.texts import lang

#: The 16 story advancements of vanilla 1.19.2 (the benchmark's milestones are among them).
STORY_ADVANCEMENTS: tuple[str, ...] = tuple(
    f"minecraft:story/{a}"
    for a in (
        "root", "mine_stone", "upgrade_tools", "smelt_iron", "obtain_armor", "lava_bucket", "iron_tools",
        "deflect_arrow", "form_obsidian", "mine_diamond", "enter_the_nether", "shiny_gear", "enchant_item",
        "cure_zombie_villager", "follow_ender_eye", "enter_the_end",
    )
)  # fmt: skip


class ControlError(MirrorCraftError):
    """The server did not accept a control command; the message names the command and the reply."""


class Rcon(Protocol):
    """What the control needs of an RCON connection (``RconClientProtocol`` has it)."""

    def command(self, text: str) -> Awaitable[str]: ...


Connect = Callable[[], Awaitable[Rcon]]
Restart = Callable[[EpisodeIdentity], Awaitable[SpawnInfo]]


@cache
def _reply_pattern(key: str) -> re.Pattern[str]:
    """A regex matching vanilla's text for ``key`` with each ``%s`` captured."""
    text = lang()[key]
    parts = re.split(r"%(?:\d+\$)?s", text)
    return re.compile("^" + "(.*?)".join(re.escape(p) for p in parts) + "$", re.S)


def match_reply(key: str, reply: str) -> tuple[str, ...] | None:
    """The ``%s`` values if ``reply`` is vanilla's text for ``key``, else None."""
    m = _reply_pattern(key).match(reply)
    return m.groups() if m else None


def _difficulty_of(name: str) -> str | None:
    for d in ("peaceful", "easy", "normal", "hard"):
        if lang()[f"options.difficulty.{d}"] == name:
            return d
    return None


def _java_bool(value: bool | int) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


class RconServerControl(ServerControl):
    """The contracts' ``ServerControl`` over RCON.

    Args:
        connect: opens a logged-in RCON connection (e.g. ``lambda: connect_rcon(reactor, host, port, pw)``);
            called lazily and again after every restart.
        restart: loads a fresh world copy and restarts the server for an episode, returning the spawn
            (provided by whoever launched the server: the embedded server or :mod:`vanilla`).
        player: the agent player's name; None targets ``@a`` (every online player).
        advancements: the advancement ids :meth:`query_milestones` tests.
        deterministic_server: whether the server seeds its randomness from the episode (the embedded
            server does; a vanilla jar cannot), so the returned ``Controls.deterministic`` is true only when
            both the request and the server are.
    """

    def __init__(
        self,
        connect: Connect,
        restart: Restart | None = None,
        player: str | None = None,
        advancements: Sequence[str] = STORY_ADVANCEMENTS,
        deterministic_server: bool = False,
    ) -> None:
        self._connect = connect
        self.deterministic_server = deterministic_server
        self._restart = restart
        self.player = player
        self.advancements = tuple(advancements)
        self._rcon: Rcon | None = None
        self.log: list[tuple[str, str]] = []

    async def command(self, text: str) -> str:
        """Send one command (connecting first if needed) and return the reply; every exchange is kept
        in :attr:`log`."""
        if self._rcon is None:
            self._rcon = await self._connect()
        reply = await self._rcon.command(text)
        self.log.append((text, reply))
        return reply

    async def _expect(self, text: str, *keys: str) -> tuple[str, tuple[str, ...]]:
        reply = await self.command(text)
        for key in keys:
            groups = match_reply(key, reply)
            if groups is not None:
                return key, groups
        raise ControlError(f"RCON {text!r}: unexpected reply {reply!r} (expected {' or '.join(keys)})")

    def _close(self) -> None:
        close = getattr(self._rcon, "close", None)
        if callable(close):
            close()
        self._rcon = None

    # -- ServerControl ------------------------------------------------------------------------------
    async def reset(self, identity: EpisodeIdentity) -> SpawnInfo:
        """Drop the RCON connection, run the restart callback (fresh world copy + restart), return the
        spawn it reports; the next command reconnects.

        Raises:
            ControlError: no restart callback was given.
        """
        if self._restart is None:
            raise ControlError(
                "RconServerControl.reset: no restart callback; whoever launched the server "
                "must provide one (fresh world copy + restart)"
            )
        self._close()
        result = self._restart(identity)
        spawn = await result if inspect.isawaitable(result) else result
        return spawn

    async def online_players(self) -> list[str]:
        """Names from ``list``."""
        _, groups = await self._expect("list", "commands.list.players")
        names = groups[2]
        return [n for n in names.split(", ") if n] if names else []

    async def _targets(self) -> tuple[str, list[str]]:
        online = await self.online_players()
        if self.player is not None:
            if self.player not in online:
                raise ControlError(
                    f"apply_controls: player {self.player!r} is not online (online: {online}); effects and "
                    "experience need the agent's player: connect the body before applying controls"
                )
            return self.player, [self.player]
        if not online:
            raise ControlError(
                "apply_controls: no player online; effects and experience need the agent's "
                "player: connect the body before applying controls"
            )
        return "@a", online

    async def apply_controls(self, controls: Controls) -> Controls:
        """Apply the controls with vanilla commands, then read back what the server reports.

        Raises:
            ControlError: a command was refused (the message quotes the reply), or no player is online.
        """
        target, names = await self._targets()  # fail before changing anything when nobody is online
        rules: dict[str, bool | int] = {}
        for rule, value in controls.game_rules.items():
            await self._expect(f"gamerule {rule} {_java_bool(value)}", "commands.gamerule.set")
            _, g = await self._expect(f"gamerule {rule}", "commands.gamerule.query")
            text = g[1]
            rules[rule] = text == "true" if text in ("true", "false") else int(text)
        await self._expect(
            f"difficulty {controls.difficulty}", "commands.difficulty.success", "commands.difficulty.failure"
        )
        _, g = await self._expect("difficulty", "commands.difficulty.query")
        difficulty = _difficulty_of(g[0])
        if difficulty is None:
            raise ControlError(f"RCON 'difficulty': unknown difficulty name {g[0]!r} in the reply")
        await self._expect(f"time set {controls.time_of_day}", "commands.time.set")
        _, g = await self._expect("time query daytime", "commands.time.query")
        day_time = int(g[0])
        await self._expect(f"weather {controls.weather}", f"commands.weather.set.{controls.weather}")

        await self._expect(
            f"effect clear {target}",
            "commands.effect.clear.everything.success.single",
            "commands.effect.clear.everything.success.multiple",
            "commands.effect.clear.everything.failed",
        )
        applied: list[StatusEffect] = []
        for eff in controls.effects:
            await self._expect(
                f"effect give {target} {eff.effect} {EFFECT_SECONDS} {eff.amplifier} "
                f"{_java_bool(eff.hide_particles)}",
                "commands.effect.give.success.single",
                "commands.effect.give.success.multiple",
            )
            applied.append(eff)
        await self._expect(
            f"experience set {target} {controls.xp_level} levels",
            "commands.experience.set.levels.success.single",
            "commands.experience.set.levels.success.multiple",
        )
        levels = []
        for name in names:
            _, g = await self._expect(f"experience query {name} levels", "commands.experience.query.levels")
            levels.append(int(g[1]))
        return Controls(
            difficulty=difficulty,  # type: ignore[arg-type]
            time_of_day=day_time,
            weather=controls.weather,
            effects=tuple(applied),
            xp_level=min(levels),
            game_rules=rules,
            deterministic=controls.deterministic and self.deterministic_server,
        )

    def _selector(self, advancement: str) -> str:
        who = f"@a[name={self.player}," if self.player is not None else "@p["
        return f"{who}advancements={{{advancement}=true}}]"

    async def has_advancement(self, advancement: str) -> bool:
        """``execute if entity <player>[advancements={id=true}]`` → True on ``Test passed``."""
        text = f"execute if entity {self._selector(advancement)}"
        key, _ = await self._expect(
            text, "commands.execute.conditional.pass_count", "commands.execute.conditional.pass",
            "commands.execute.conditional.fail",
        )  # fmt: skip
        return key != "commands.execute.conditional.fail"

    async def query_milestones(self) -> list[str]:
        """The tested advancements the player has completed, in :attr:`advancements` order."""
        return [a for a in self.advancements if await self.has_advancement(a)]

    async def game_time(self) -> int:
        """``time query gametime`` (the tick recorded with milestones)."""
        _, g = await self._expect("time query gametime", "commands.time.query")
        return int(g[0])


# -- evaluator -----------------------------------------------------------------------------------------


class RconEvaluator(Evaluator):
    """An ``Evaluator`` for servers reachable only over RCON (a user's vanilla jar).

    Milestones come from advancement queries after every action; rule encounters are derived
    harness-side (:attr:`encounter_basis`, :func:`detect_encounters`).

    Args:
        control: the RCON control of the same server.
        suites: suite id → manifest loader (default: the shipped manifests).
    """

    kind = "rcon"
    #: Where encounters come from (recorded so nobody mistakes them for server-side attribution).
    encounter_basis = "harness: suite manifest + outcome reports (no server-side attribution over RCON)"

    def __init__(
        self, control: RconServerControl, suites: Callable[[str], SuiteManifest] = load_suite
    ) -> None:
        self.control = control
        self._suites = suites
        self._manifest: SuiteManifest | None = None
        self._events: list[MilestoneEvent] = []
        self._encounters: list[RuleEncounter] = []

    async def begin(self, identity: EpisodeIdentity) -> None:
        self._manifest = self._suites(identity.suite) if identity.suite else None
        self._events = []
        self._encounters = []
        await self._poll(0)

    async def _poll(self, index: int) -> None:
        seen = {e.advancement for e in self._events}
        done = await self.control.query_milestones()
        new = [a for a in done if a not in seen and a.startswith("minecraft:story/")]
        if new:
            tick = await self.control.game_time()
            self._events.extend(MilestoneEvent(advancement=a, action_index=index, tick=tick) for a in new)

    async def after_action(self, index: int, call: SkillCall, report: OutcomeReport) -> None:
        await self._poll(index)
        if self._manifest is not None:
            known = {e.rule_id for e in self._encounters}
            for enc in detect_encounters(self._manifest, index, call, report):
                if enc.rule_id not in known:
                    self._encounters.append(enc)
                    known.add(enc.rule_id)

    async def milestones(self) -> list[MilestoneEvent]:
        return list(self._events)

    async def encounters(self) -> list[RuleEncounter]:
        return list(self._encounters)


def _stacks(counts: dict[str, int]) -> list[ItemStack]:
    return [ItemStack(item=k, count=v) for k, v in sorted(counts.items()) if v > 0]


def _counts(stacks: Sequence[ItemStack]) -> dict[str, int]:
    out: dict[str, int] = {}
    for s in stacks:
        out[s.item] = out.get(s.item, 0) + s.count
    return out


@cache
def _vanilla_recipe(recipe_id: str) -> dict[str, Any] | None:
    path = gamedata.VANILLA_PACK_DIR / "data" / "minecraft" / "recipes" / f"{recipe_id.split(':', 1)[1]}.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def _ingredient_items(ing: Any) -> set[str]:
    if isinstance(ing, list):
        return set().union(*(_ingredient_items(i) for i in ing)) if ing else set()
    if "item" in ing:
        return {ing["item"]}
    try:
        return set(gamedata.tag("item", ing["tag"]))
    except GameDataError:
        return set()


def _recipe_items(recipe: dict[str, Any]) -> set[str]:
    if "key" in recipe:
        return set().union(*(_ingredient_items(v) for v in recipe["key"].values()))
    if "ingredients" in recipe:
        return set().union(*(_ingredient_items(v) for v in recipe["ingredients"]))
    return _ingredient_items(recipe.get("ingredient", []))


def _result(recipe: dict[str, Any]) -> tuple[str, int]:
    r = recipe["result"]
    return (r, 1) if isinstance(r, str) else (r["item"], int(r.get("count", 1)))


@cache
def _vanilla_cooking() -> dict[tuple[str, str], tuple[str, int]]:
    """``(device, input item) -> (result, count)`` of vanilla smelting and blasting recipes."""
    out: dict[tuple[str, str], tuple[str, int]] = {}
    folder = gamedata.VANILLA_PACK_DIR / "data" / "minecraft" / "recipes"
    devices = {"minecraft:smelting": "furnace", "minecraft:blasting": "blast_furnace"}
    for path in sorted(folder.glob("*.json")):
        recipe = json.loads(path.read_text(encoding="utf-8"))
        device = devices.get(recipe.get("type", ""))
        if device:
            for item in _ingredient_items(recipe["ingredient"]):
                out[(device, item)] = _result(recipe)
    return out


def _encounter(
    rule_id: str, index: int, call: SkillCall, vanilla: dict[str, int], actual: dict[str, int]
) -> RuleEncounter | None:
    v, a = _stacks(vanilla), _stacks(actual)
    if sorted((s.item, s.count) for s in v) == sorted((s.item, s.count) for s in a):
        return None
    return RuleEncounter(
        rule_id=rule_id,
        action_index=index,
        signature=list(signature(call)),
        vanilla_outcome=v,
        actual_outcome=a,
    )


def detect_encounters(
    manifest: SuiteManifest, index: int, call: SkillCall, report: OutcomeReport
) -> list[RuleEncounter]:
    """Rules of ``manifest`` the action visibly triggered, judged from its call and outcome report.

    A rule counts as encountered when the action touched one of its targets and the report shows the
    Mirror outcome, which differs from the vanilla outcome:

    * ``recipe_result``: a ``craft_grid`` whose items all belong to the vanilla recipe (and to ``inputs``)
      produced exactly the changed result per craft; vanilla = the vanilla recipe's result per craft.
    * ``cooking_output``: a ``smelt`` of the changed ``input`` in the changed ``device`` produced the changed
      result per item; vanilla = the vanilla cooking result (nothing if vanilla has no recipe).
    * ``block_drop_add`` / ``entity_loot_add``: a ``mine`` / ``attack`` of the target collected at least the
      added stacks; vanilla = the collected drops minus the added ones.
    * ``block_drop_replace`` / ``entity_loot_replace``: the collected drops contain the replacement
      stacks; vanilla = one of each usual vanilla drop per block (minecraft-data's block ``drops``) or
      per mob (the vendored vanilla loot table's items). This vanilla side is approximate (fortune and
      random counts are not modelled) — docs/control.md.
    """
    out: list[RuleEncounter] = []
    if report.status != "success":
        return out
    produced = _counts(report.produced)
    drops = _counts(report.drops_collected)
    broken = {b.block: b.count for b in report.blocks_broken}
    n = report.completed
    for rule in manifest.rules:
        enc: RuleEncounter | None = None
        if isinstance(rule, RecipeResultRule) and call.name == "craft_grid":
            grid = {c for row in call.args["grid"] for c in row if c}
            for ch in rule.changes:
                recipe = _vanilla_recipe(ch.recipe)
                if recipe is None or not grid <= _recipe_items(recipe):
                    continue
                if ch.inputs is not None and not grid <= set(ch.inputs):
                    continue
                if produced != {ch.result.item: ch.result.count * n}:
                    continue
                item, count = _result(recipe)
                enc = _encounter(rule.id, index, call, {item: count * n}, produced)
                break
        elif isinstance(rule, CookingOutputRule) and call.name == "smelt":
            for ch in rule.changes:
                if call.args["input"] != ch.input or call.args["device"] != ch.device:
                    continue
                if produced != {ch.result.item: ch.result.count * n}:
                    continue
                vanilla = _vanilla_cooking().get((ch.device, ch.input))
                enc = _encounter(
                    rule.id, index, call, {vanilla[0]: vanilla[1] * n} if vanilla else {}, produced
                )
                break
        elif isinstance(rule, (BlockDropAddRule, BlockDropReplaceRule)) and call.name == "mine":
            for ch in rule.changes:
                k = broken.get(ch.block, 0)
                if not k or any(drops.get(d.item, 0) < d.min * k for d in ch.drops):
                    continue
                if isinstance(rule, BlockDropAddRule):
                    vanilla = dict(drops)
                    for d in ch.drops:
                        vanilla[d.item] -= min(drops[d.item], d.max * k)
                else:
                    vanilla = {item: k for item in gamedata.block(ch.block).drops}
                enc = _encounter(rule.id, index, call, vanilla, drops)
                break
        elif isinstance(rule, (EntityLootAddRule, EntityLootReplaceRule)) and call.name == "attack":
            for ch in rule.changes:
                if call.args["mob"] != ch.entity or any(drops.get(d.item, 0) < d.min * n for d in ch.drops):
                    continue
                if isinstance(rule, EntityLootAddRule):
                    vanilla = dict(drops)
                    for d in ch.drops:
                        vanilla[d.item] -= min(drops[d.item], d.max * n)
                else:
                    vanilla = {item: n for item in _vanilla_entity_items(ch.entity)}
                enc = _encounter(rule.id, index, call, vanilla, drops)
                break
        if enc is not None:
            out.append(enc)
    return out


@cache
def _vanilla_entity_items(entity: str) -> tuple[str, ...]:
    path = (
        gamedata.VANILLA_PACK_DIR
        / "data"
        / "minecraft"
        / "loot_tables"
        / "entities"
        / (entity.split(":", 1)[1] + ".json")
    )
    if not path.exists():
        return ()
    table = json.loads(path.read_text(encoding="utf-8"))
    items = [
        e["name"]
        for pool in table.get("pools", [])
        for e in pool.get("entries", [])
        if e.get("type") == "minecraft:item"
    ]
    return tuple(sorted(set(items)))

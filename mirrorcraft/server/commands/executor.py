"""Run typed commands against a :class:`CommandHost`, with vanilla's success/failure components.

Why: one executor serves the embedded server (players typing commands, and the RCON console) so the
harness controls it with exactly the command text a user's vanilla server accepts. Each ``_run_*`` method
follows the matching vanilla command class (``GiveCommand``, ``EffectCommands`` ...): the same checks in
the same order, the same reply keys and arguments, the same return value. The world and player commands
are here; ``execute`` is :mod:`~mirrorcraft.server.commands.execute`, chat, titles and operators are
:mod:`~mirrorcraft.server.commands.messaging`, teams, team chat and display slots
:mod:`~mirrorcraft.server.commands.teams` (mixins over :class:`~mirrorcraft.server.commands.base.
ExecutorBase`).

Replies are vanilla's text components (:mod:`~mirrorcraft.server.commands.components`), in order, as the
source receives them: a player gets each as system chat (a failure wrapped red, as ``sendFailure`` does);
RCON joins their English renderings with no separator, as vanilla's ``RconConsoleSource`` appends
``getString()`` of every message to one buffer (:attr:`CommandResult.text`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from typing import Any

from mirrorcraft import gamedata
from mirrorcraft.server.commands import components as C
from mirrorcraft.server.commands import model as m
from mirrorcraft.server.commands.base import (
    CommandFailure,
    ExecutorBase,
    fail,
    format_list,
)
from mirrorcraft.server.commands.components import Component
from mirrorcraft.server.commands.execute import ExecuteCommands
from mirrorcraft.server.commands.grammar import parse_command
from mirrorcraft.server.commands.host import CommandHost, CommandSource, EntityRef
from mirrorcraft.server.commands.ops import OpsList
from mirrorcraft.server.commands.reader import CommandSyntaxError
from mirrorcraft.server.commands.scoreboard import Objective, Scoreboard
from mirrorcraft.server.commands.teams import TeamCommands
from mirrorcraft.server.commands.texts import advancement_title, java_str
from mirrorcraft.server.commands.vocabulary import GAME_RULES

log = logging.getLogger(__name__)

FILL_LIMIT = 32768  # vanilla's fill/clone volume limit
T = C.translatable
_err = fail
_Fail = CommandFailure


@dataclass
class CommandResult:
    """What running one command did.

    Attributes:
        success: False when the command failed (parse error or a failure message).
        result: the command's integer result (vanilla's return value; ``execute store`` reads it).
        components: the messages the source receives, in order, as vanilla's text components (failures
            already wrapped red, as ``sendFailure`` sends them).
    """

    success: bool
    result: int = 0
    components: list[Component] = field(default_factory=list)

    @property
    def messages(self) -> list[str]:
        """The messages' English renderings (``Component.getString``), in order."""
        return C.render_all(self.components)

    @property
    def text(self) -> str:
        """The RCON reply: messages concatenated (vanilla ``RconConsoleSource`` adds no separators)."""
        return rcon_text(self.messages)


def rcon_text(messages: list[str]) -> str:
    """Messages joined as vanilla's RCON reply buffer joins them (no separator)."""
    return "".join(messages)


class CommandExecutor(ExecuteCommands, TeamCommands, ExecutorBase):
    """Parses and runs vanilla command text against a host.

    Args:
        host: the game (:class:`CommandHost`).
        ops: ops list for player sources (default: nobody is an op).
        scoreboard: score storage (default: a new empty one).
    """

    def __init__(
        self, host: CommandHost, ops: OpsList | None = None, scoreboard: Scoreboard | None = None
    ) -> None:
        self.host = host
        self.ops = ops or OpsList()
        self.scoreboard = scoreboard or Scoreboard()

    # -- sources -----------------------------------------------------------------------------------
    def console_source(self, name: str = "Rcon") -> CommandSource:
        """The RCON/console source: level 4 at the world spawn (vanilla ``RconConsoleSource``)."""
        return CommandSource(name=name, permission_level=4, position=self.host.spawn_point())

    def player_source(self, player: EntityRef) -> CommandSource:
        """A player's source: their ops level (0 for non-ops and agent players), at their position."""
        return CommandSource(
            name=player.name,
            permission_level=self.ops.level(player.name),
            position=player.position,
            entity=player,
        )

    def rcon_handler(self, name: str = "Rcon"):
        """The command handler for :class:`~mirrorcraft.server.rcon.RconServerFactory`: runs each command
        as the RCON console and returns vanilla's reply text."""
        source = self.console_source(name)

        def handle(command: str) -> str:
            return self.run(replace(source, position=self.host.spawn_point()), command).text

        return handle

    # -- entry points ------------------------------------------------------------------------------
    def run(self, source: CommandSource, text: str) -> CommandResult:
        """Parse ``text`` as ``source`` may and run it; never raises for a bad command."""
        try:
            command = parse_command(text, source.permission_level)
        except CommandSyntaxError as err:
            return CommandResult(False, 0, err.components())
        return self.execute(source, command)

    def execute(self, source: CommandSource, command: m.Command) -> CommandResult:
        """Run an already parsed command."""
        out: list[Component] = []
        self._quiet: set[int] = set()
        try:
            result = self._dispatch(source, command, out)
        except CommandFailure as f:
            out.append(C.failure(f.component))
            return CommandResult(False, 0, self._visible(source, out, failed=True))
        except CommandSyntaxError as err:
            out.extend(err.components())
            return CommandResult(False, 0, out)
        except Exception as err:  # noqa: BLE001 - vanilla answers any unexpected exception the same way
            # Commands.performCommand: log it and send command.failed (the message is only a hover text).
            log.error("command %r failed: %s: %s", command, type(err).__name__, err, exc_info=True)
            hover = {"action": "show_text", "contents": C.text(str(err))}
            return CommandResult(False, 0, [C.failure(T("command.failed", hoverEvent=hover))])
        self._inform_admins(source, [c for i, c in enumerate(out) if i not in self._quiet])
        return CommandResult(True, result, self._visible(source, out, failed=False))

    def _visible(self, source: CommandSource, out: list[Component], failed: bool) -> list[Component]:
        # A player source only sees success feedback with sendCommandFeedback (ServerPlayer.acceptsSuccess).
        if source.is_player and not failed and not self.host.game_rule("sendCommandFeedback"):
            return []
        return out

    def _dispatch(self, source: CommandSource, c: Any, out: list[Component]) -> int:
        handler = getattr(self, "_run_" + type(c).__name__.lower())
        start = len(out)
        try:
            return handler(source, c, out)
        finally:
            if _quiet(c):
                self._quiet.update(range(start, len(out)))

    def _inform_admins(self, source: CommandSource, messages: list[Component]) -> None:
        """``CommandSourceStack.broadcastToAdmins``: every success a command logs (``sendSuccess(...,
        true)``) goes, as gray italic ``[<source>: <message>]``, to the other online ops while
        ``sendCommandFeedback`` is on."""
        if not messages or not self.host.game_rule("sendCommandFeedback"):
            return
        me = source.entity.uuid if source.entity is not None else None
        ops = [p for p in self.host.players() if p.uuid != me and self.ops.is_op(p.name)]
        for message in messages:
            line = T("chat.type.admin", self._source_display(source), message, italic=True, color="gray")
            for p in ops:
                self.host.tell(p, line)

    # -- commands ----------------------------------------------------------------------------------
    def _run_give(self, source: CommandSource, c: m.Give, out: list[Component]) -> int:
        targets = self._players(c.targets, source)
        info = gamedata.item(c.item)
        limit = info.stack_size * 100
        shown = C.item_name(c.item)
        if c.count > limit:
            raise _err("commands.give.failed.toomanyitems", limit, shown)
        for p in targets:
            self.host.give(p, c.item, c.count)
        if len(targets) == 1:
            out.append(T("commands.give.success.single", c.count, shown, self._display(targets[0])))
        else:
            out.append(T("commands.give.success.multiple", c.count, shown, len(targets)))
        return len(targets)

    def _run_functioncmd(self, source: CommandSource, c: m.FunctionCmd, out: list[Component]) -> int:
        """``FunctionCommand``: run the function's lines with the source's output suppressed and its
        permission capped at ``functionPermissionLevel`` 2 (``withSuppressedOutput().withMaximumPermission(2)``);
        the reply counts the commands run (at most ``maxCommandChainLength``). A function with a line that
        does not parse is unknown, as vanilla drops a function that fails to load (the error is logged)."""
        lines = self.host.function(c.name)
        commands: list[m.Command] = []
        if lines is not None:
            try:
                commands = [parse_command(line, min(source.permission_level, 2)) for line in lines]
            except CommandSyntaxError as err:
                log.error("function %s: %s", c.name, "; ".join(err.messages()))
                lines = None
        if lines is None:
            raise _err("arguments.function.unknown", c.name)
        inner = replace(source, permission_level=min(source.permission_level, 2))
        limit = int(self.host.game_rule("maxCommandChainLength"))
        run = 0
        for command in commands[:limit]:
            run += 1
            try:
                self._dispatch(inner, command, [])  # suppressed output
            except (CommandFailure, CommandSyntaxError):
                pass  # a failing command in a function is skipped, the function goes on
        out.append(T("commands.function.success.single", run, c.name))
        return run

    def _run_clear(self, source: CommandSource, c: m.Clear, out: list[Component]) -> int:
        targets = self._players(c.targets, source) if c.targets else [self._self_player(source)]
        total = sum(self.host.clear(p, c.item, c.max_count) for p in targets)
        single = len(targets) == 1
        if total == 0:
            if single:
                raise _err("clear.failed.single", self._display(targets[0]))
            raise _err("clear.failed.multiple", len(targets))
        kind = "test" if c.max_count == 0 else "success"
        if single:
            out.append(T(f"commands.clear.{kind}.single", total, self._display(targets[0])))
        else:
            out.append(T(f"commands.clear.{kind}.multiple", total, len(targets)))
        return total

    def _run_teleport(self, source: CommandSource, c: m.Teleport, out: list[Component]) -> int:
        targets = self._entities(c.targets, source) if c.targets else [self._self_entity(source)]
        if c.destination is not None:
            found = self._entities(c.destination, source)
            dest = found[0]
            for e in targets:
                self.host.teleport(e, *dest.position)
            if len(targets) == 1:
                out.append(
                    T(
                        "commands.teleport.success.entity.single",
                        self._display(targets[0]),
                        self._display(dest),
                    )
                )
            else:
                out.append(T("commands.teleport.success.entity.multiple", len(targets), self._display(dest)))
            return len(targets)
        assert c.location is not None
        x, y, z = c.location.resolve(source.position)
        yaw = pitch = None
        if c.rotation is not None:
            yaw, pitch = c.rotation[0].resolve(0.0), c.rotation[1].resolve(0.0)
        # Level.isInSpawnableBounds; TeleportCommand.formatDouble prints String.format("%f").
        if not (abs(x) < 30_000_000 and abs(z) < 30_000_000 and -20_000_000 <= y < 20_000_000):
            raise _err("commands.teleport.invalidPosition")
        for e in targets:
            self.host.teleport(e, x, y, z, yaw, pitch)
        fx, fy, fz = f"{x:f}", f"{y:f}", f"{z:f}"
        if len(targets) == 1:
            out.append(T("commands.teleport.success.location.single", self._display(targets[0]), fx, fy, fz))
        else:
            out.append(T("commands.teleport.success.location.multiple", len(targets), fx, fy, fz))
        return len(targets)

    def _run_setblock(self, source: CommandSource, c: m.SetBlock, out: list[Component]) -> int:
        x, y, z = c.pos.block(source.position)
        if not self.host.is_loaded(x, y, z):
            raise _err("argument.pos.unloaded")
        if not self.host.set_block(x, y, z, c.block.block, dict(c.block.properties), c.mode):
            raise _err("commands.setblock.failed")
        out.append(T("commands.setblock.success", x, y, z))
        return 1

    def _run_fill(self, source: CommandSource, c: m.Fill, out: list[Component]) -> int:
        a = c.start.block(source.position)
        b = c.end.block(source.position)
        lo = tuple(min(p, q) for p, q in zip(a, b, strict=True))
        hi = tuple(max(p, q) for p, q in zip(a, b, strict=True))
        volume = (hi[0] - lo[0] + 1) * (hi[1] - lo[1] + 1) * (hi[2] - lo[2] + 1)
        if volume > FILL_LIMIT:
            raise _err("commands.fill.toobig", FILL_LIMIT, volume)
        if not (self.host.is_loaded(*lo) and self.host.is_loaded(*hi)):
            raise _err("argument.pos.unloaded")
        count = 0
        props = dict(c.block.properties)
        for x in range(lo[0], hi[0] + 1):
            for y in range(lo[1], hi[1] + 1):
                for z in range(lo[2], hi[2] + 1):
                    edge = x in (lo[0], hi[0]) or y in (lo[1], hi[1]) or z in (lo[2], hi[2])
                    block, bprops, mode = c.block.block, props, "replace"
                    if c.mode in ("hollow", "outline") and not edge:
                        if c.mode == "outline":
                            continue
                        block, bprops = "minecraft:air", {}
                    elif c.mode in ("destroy", "keep"):
                        mode = c.mode
                    if c.filter is not None and self.host.block_at(x, y, z) != c.filter.block:
                        continue
                    if self.host.set_block(x, y, z, block, bprops, mode):  # type: ignore[arg-type]
                        count += 1
        if count == 0:
            raise _err("commands.fill.failed")
        out.append(T("commands.fill.success", count))
        return count

    def _run_kill(self, source: CommandSource, c: m.Kill, out: list[Component]) -> int:
        targets = self._entities(c.targets, source) if c.targets else [self._self_entity(source)]
        for e in targets:
            self.host.kill(e)
        if len(targets) == 1:
            out.append(T("commands.kill.success.single", self._display(targets[0])))
        else:
            out.append(T("commands.kill.success.multiple", len(targets)))
        return len(targets)

    def _run_gamemodeset(self, source: CommandSource, c: m.GameModeSet, out: list[Component]) -> int:
        targets = self._players(c.targets, source) if c.targets else [self._self_player(source)]
        mode_name = T(f"gameMode.{c.mode}")  # GameType.getLongDisplayName
        count = 0
        for p in targets:
            if p.game_mode == c.mode:
                continue
            self.host.set_game_mode(p, c.mode)  # type: ignore[arg-type]
            count += 1
            if source.entity is not None and source.entity.uuid == p.uuid:
                out.append(T("commands.gamemode.success.self", mode_name))
            else:
                if self.host.game_rule("sendCommandFeedback"):
                    self.host.tell(p, T("gameMode.changed", mode_name))
                out.append(T("commands.gamemode.success.other", self._display(p), mode_name))
        return count

    def _run_effectgive(self, source: CommandSource, c: m.EffectGive, out: list[Component]) -> int:
        targets = self._entities(c.targets, source)
        seconds = c.seconds if c.seconds is not None else 30
        count = sum(
            1 for e in targets if self.host.add_effect(e, c.effect, seconds, c.amplifier, c.hide_particles)
        )
        if count == 0:
            raise _err("commands.effect.give.failed")
        name = _effect_name(c.effect)
        if len(targets) == 1:
            out.append(T("commands.effect.give.success.single", name, self._display(targets[0])))
        else:
            out.append(T("commands.effect.give.success.multiple", name, len(targets)))
        return count

    def _run_effectclear(self, source: CommandSource, c: m.EffectClear, out: list[Component]) -> int:
        targets = self._entities(c.targets, source) if c.targets else [self._self_entity(source)]
        count = sum(1 for e in targets if self.host.remove_effects(e, c.effect))
        what = "everything" if c.effect is None else "specific"
        if count == 0:
            raise _err(f"commands.effect.clear.{what}.failed")
        args: list[object] = [] if c.effect is None else [_effect_name(c.effect)]
        if len(targets) == 1:
            out.append(T(f"commands.effect.clear.{what}.success.single", *args, self._display(targets[0])))
        else:
            out.append(T(f"commands.effect.clear.{what}.success.multiple", *args, len(targets)))
        return count

    def _run_experience(self, source: CommandSource, c: m.Experience, out: list[Component]) -> int:
        targets = self._players(c.targets, source)
        if c.action == "query":
            value = self.host.experience(targets[0], c.unit)  # type: ignore[arg-type]
            out.append(T(f"commands.experience.query.{c.unit}", self._display(targets[0]), value))
            return value
        assert c.amount is not None
        if c.action == "add":
            for p in targets:
                self.host.add_experience(p, c.amount, c.unit)  # type: ignore[arg-type]
        else:
            ok = sum(1 for p in targets if self.host.set_experience(p, c.amount, c.unit))  # type: ignore[arg-type]
            if ok == 0:
                raise _err("commands.experience.set.points.invalid")
        if len(targets) == 1:
            out.append(
                T(
                    f"commands.experience.{c.action}.{c.unit}.success.single",
                    c.amount,
                    self._display(targets[0]),
                )
            )
        else:
            out.append(T(f"commands.experience.{c.action}.{c.unit}.success.multiple", c.amount, len(targets)))
        return len(targets)

    def _run_timeset(self, source: CommandSource, c: m.TimeSet, out: list[Component]) -> int:
        self.host.set_day_time(c.ticks)
        day = self.host.day_time() % 24000
        out.append(T("commands.time.set", day))
        return day

    def _run_timeadd(self, source: CommandSource, c: m.TimeAdd, out: list[Component]) -> int:
        self.host.set_day_time(self.host.day_time() + c.ticks)
        day = self.host.day_time() % 24000
        out.append(T("commands.time.set", day))
        return day

    def _run_timequery(self, source: CommandSource, c: m.TimeQuery, out: list[Component]) -> int:
        big = 2**31 - 1
        if c.what == "daytime":
            value = self.host.day_time() % 24000
        elif c.what == "gametime":
            value = self.host.game_time() % big
        else:
            value = self.host.day_time() // 24000 % big
        out.append(T("commands.time.query", value))
        return value

    def _run_weatherset(self, source: CommandSource, c: m.WeatherSet, out: list[Component]) -> int:
        ticks = c.seconds * 20 if c.seconds is not None else 6000
        self.host.set_weather(c.weather, ticks)  # type: ignore[arg-type]
        out.append(T(f"commands.weather.set.{c.weather}"))
        return ticks

    def _run_gamerule(self, source: CommandSource, c: m.GameRule, out: list[Component]) -> int:
        if c.value is None:
            value = self.host.game_rule(c.rule)
            out.append(T("commands.gamerule.query", c.rule, java_str(value)))
        else:
            self.host.set_game_rule(c.rule, c.value)
            value = c.value
            out.append(T("commands.gamerule.set", c.rule, java_str(value)))
        if isinstance(GAME_RULES[c.rule], bool):
            return 1 if value else 0
        return int(value)

    def _run_difficultycmd(self, source: CommandSource, c: m.DifficultyCmd, out: list[Component]) -> int:
        current = self.host.difficulty()
        order = ("peaceful", "easy", "normal", "hard")
        if c.level is None:
            out.append(T("commands.difficulty.query", T(f"options.difficulty.{current}")))
            return order.index(current)
        if c.level == current:
            raise _err("commands.difficulty.failure", T(f"options.difficulty.{c.level}"))
        self.host.set_difficulty(c.level)  # type: ignore[arg-type]
        out.append(T("commands.difficulty.success", T(f"options.difficulty.{c.level}")))
        return 0

    def _advancement_component(self, adv: str) -> Component:
        """``Advancement.getChatComponent``: the bracketed title coloured by frame with the description on
        hover; without a display, the id as text."""
        info = self.host.advancements().get(adv)
        if info is not None and info.display is not None:
            return C.advancement_chat(info.display)
        if info is not None and info.title:
            return C.square_brackets(C.text(info.title))
        title = advancement_title(adv)
        return C.square_brackets(C.text(title)) if title != adv else C.text(adv)

    def _selected_advancements(self, c: m.AdvancementCmd) -> list[str]:
        table = self.host.advancements()
        if c.mode == "everything":
            return list(table)
        assert c.advancement is not None
        if c.advancement not in table:
            raise _err("advancement.advancementNotFound", c.advancement)
        chosen = [c.advancement]
        if c.mode in ("until", "through"):
            parent = table[c.advancement].parent
            while parent is not None and parent in table:
                chosen.insert(0, parent)
                parent = table[parent].parent
        if c.mode in ("from", "through"):
            frontier = [c.advancement]
            while frontier:
                kids = [a for a, info in table.items() if info.parent in frontier and a not in chosen]
                chosen.extend(kids)
                frontier = kids
        return chosen

    def _run_advancementcmd(self, source: CommandSource, c: m.AdvancementCmd, out: list[Component]) -> int:
        targets = self._players(c.targets, source)
        table = self.host.advancements()
        grant = c.action == "grant"
        advs = self._selected_advancements(c)
        key = f"commands.advancement.{c.action}"
        if c.criterion is not None:
            adv = advs[0]
            if c.criterion not in table[adv].criteria:
                raise _err(
                    "commands.advancement.criterionNotFound", self._advancement_component(adv), c.criterion
                )
            op = self.host.grant_criterion if grant else self.host.revoke_criterion
            changed = sum(1 for p in targets if op(p, adv, c.criterion))
            comp = self._advancement_component(adv)
            tail = "one" if len(targets) == 1 else "many"
            who: object = self._display(targets[0]) if len(targets) == 1 else len(targets)
            if changed == 0:
                raise _err(f"{key}.criterion.to.{tail}.failure", c.criterion, comp, who)
            out.append(T(f"{key}.criterion.to.{tail}.success", c.criterion, comp, who))
            return changed
        changed = 0
        for p in targets:
            for adv in advs:
                done = self.host.advancement_criteria(p, adv)
                crits = table[adv].criteria
                if grant:
                    # AdvancementCommands.Action.GRANT: done → unchanged, else award every remaining criterion
                    if table[adv].is_done(done):
                        continue
                    for crit in crits:
                        if crit not in done:
                            self.host.grant_criterion(p, adv, crit)
                else:
                    if not done:
                        continue
                    for crit in sorted(done):
                        self.host.revoke_criterion(p, adv, crit)
                changed += 1
        adv_part = "one" if len(advs) == 1 else "many"
        tgt_part = "one" if len(targets) == 1 else "many"
        first: object = self._advancement_component(advs[0]) if len(advs) == 1 else len(advs)
        who = self._display(targets[0]) if len(targets) == 1 else len(targets)
        outcome = "success" if changed else "failure"
        text = T(f"{key}.{adv_part}.to.{tgt_part}.{outcome}", first, who)
        if not changed:
            raise CommandFailure(text)
        out.append(text)
        return changed

    def _run_listplayers(self, source: CommandSource, c: m.ListPlayers, out: list[Component]) -> int:
        players = self.host.players()
        if c.uuids:
            names = [T("commands.list.nameAndId", C.text(p.name), p.uuid) for p in players]
        else:
            names = [self._display(p) for p in players]
        out.append(T("commands.list.players", len(players), self.host.max_players(), format_list(names)))
        return len(players)

    def _run_saveall(self, source: CommandSource, c: m.SaveAll, out: list[Component]) -> int:
        out.append(T("commands.save.saving"))
        if not self.host.save(c.flush):
            raise _err("commands.save.failed")
        out.append(T("commands.save.success"))
        return 1

    def _run_stop(self, source: CommandSource, c: m.Stop, out: list[Component]) -> int:
        out.append(T("commands.stop.stopping"))
        self.host.stop()
        return 1

    # -- scoreboard --------------------------------------------------------------------------------
    def _run_objectivesadd(self, source: CommandSource, c: m.ObjectivesAdd, out: list[Component]) -> int:
        if c.name in self.scoreboard.objectives:
            raise _err("commands.scoreboard.objectives.add.duplicate")
        obj = Objective(c.name, c.criterion, c.display_name if c.display_name is not None else c.name)
        self.scoreboard.add_objective(obj)
        out.append(T("commands.scoreboard.objectives.add.success", obj.formatted))
        return len(self.scoreboard.objectives)

    def _run_objectivesremove(
        self, source: CommandSource, c: m.ObjectivesRemove, out: list[Component]
    ) -> int:
        obj = self._objective(c.name)
        self.scoreboard.remove_objective(c.name)
        out.append(T("commands.scoreboard.objectives.remove.success", obj.formatted))
        return len(self.scoreboard.objectives)

    def _run_objectiveslist(self, source: CommandSource, c: m.ObjectivesList, out: list[Component]) -> int:
        objs = list(self.scoreboard.objectives.values())
        if not objs:
            out.append(T("commands.scoreboard.objectives.list.empty"))
        else:
            out.append(
                T(
                    "commands.scoreboard.objectives.list.success",
                    len(objs),
                    format_list([o.formatted for o in objs]),
                )
            )
        return len(objs)

    def _run_playersscore(self, source: CommandSource, c: m.PlayersScore, out: list[Component]) -> int:
        obj = self._objective(c.objective, writable=True)
        holders = self._holders(c.targets, source)
        total = 0
        for h in holders:
            old = self.scoreboard.score(h, obj.name) or 0
            new = c.score if c.action == "set" else old + c.score if c.action == "add" else old - c.score
            new = (new + 2**31) % 2**32 - 2**31  # Java int overflow
            self.scoreboard.set_score(h, obj.name, new)
            total += new
        key = f"commands.scoreboard.players.{c.action}.success"
        if len(holders) == 1:
            if c.action == "set":
                out.append(T(key + ".single", obj.formatted, holders[0], c.score))
            else:
                out.append(T(key + ".single", c.score, obj.formatted, holders[0], total))
        else:
            if c.action == "set":
                out.append(T(key + ".multiple", obj.formatted, len(holders), c.score))
            else:
                out.append(T(key + ".multiple", c.score, obj.formatted, len(holders)))
        return total

    def _run_playersget(self, source: CommandSource, c: m.PlayersGet, out: list[Component]) -> int:
        obj = self._objective(c.objective)
        holder = self._holders(c.target, source)[0]
        value = self.scoreboard.score(holder, obj.name)
        if value is None:
            raise _err("commands.scoreboard.players.get.null", obj.name, holder)
        out.append(T("commands.scoreboard.players.get.success", holder, value, obj.formatted))
        return value

    def _run_playersreset(self, source: CommandSource, c: m.PlayersReset, out: list[Component]) -> int:
        holders = self._holders(c.targets, source)
        obj = self._objective(c.objective) if c.objective is not None else None
        for h in holders:
            self.scoreboard.reset_score(h, obj.name if obj is not None else None)
        if obj is None:
            key = "commands.scoreboard.players.reset.all"
            out.append(
                T(key + ".single", holders[0]) if len(holders) == 1 else T(key + ".multiple", len(holders))
            )
        else:
            key = "commands.scoreboard.players.reset.specific"
            out.append(
                T(key + ".single", obj.formatted, holders[0])
                if len(holders) == 1
                else T(key + ".multiple", obj.formatted, len(holders))
            )
        return len(holders)

    def _run_playerslist(self, source: CommandSource, c: m.PlayersList, out: list[Component]) -> int:
        if c.target is None:
            holders = self.scoreboard.holders()
            if not holders:
                out.append(T("commands.scoreboard.players.list.empty"))
            else:
                out.append(
                    T(
                        "commands.scoreboard.players.list.success",
                        len(holders),
                        format_list([C.text(h) for h in holders]),
                    )
                )
            return len(holders)
        holder = self._holders(c.target, source)[0]
        entries = [(o, v) for (h, o), v in self.scoreboard.scores.items() if h == holder]
        if not entries:
            out.append(T("commands.scoreboard.players.list.entity.empty", holder))
        else:
            out.append(T("commands.scoreboard.players.list.entity.success", holder, len(entries)))
            for o, v in entries:
                out.append(
                    T(
                        "commands.scoreboard.players.list.entity.entry",
                        self.scoreboard.objectives[o].formatted,
                        v,
                    )
                )
        return len(entries)


def _effect_name(effect: str) -> Component:
    """``MobEffect.getDisplayName``: the effect's translatable name."""
    ns, _, path = effect.partition(":")
    return T(f"effect.{ns}.{path}")


def _quiet(c: Any) -> bool:
    """Whether a command's messages are ``sendSuccess(..., false)``: queries and tests, which vanilla does
    not broadcast to the other ops (``list``, ``time query``, a ``gamerule`` / ``difficulty`` query, ``xp
    query``, ``scoreboard ... list|get``, ``execute if|unless`` tests, the sender's copy of ``msg``)."""
    if isinstance(c, m.ListPlayers | m.TimeQuery | m.EntityTest | m.ConditionTest | m.Message):
        return True
    if isinstance(c, m.PlayersGet | m.PlayersList | m.ObjectivesList):
        return True
    if isinstance(c, m.TeamList | m.TeamMsg):
        return True
    if isinstance(c, m.TeamModify):
        return c.option in ("prefix", "suffix")
    if isinstance(c, m.GameRule):
        return c.value is None
    if isinstance(c, m.DifficultyCmd):
        return c.level is None
    return isinstance(c, m.Experience) and c.action == "query"

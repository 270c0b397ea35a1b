"""Run typed commands against a :class:`CommandHost`, with vanilla's success/failure texts.

Why: one executor serves the embedded server (players typing commands, and the RCON console) so the
harness controls it with exactly the command text a user's vanilla server accepts. Each ``_run_*`` method
follows the matching vanilla command class (``GiveCommand``, ``EffectCommands`` ...): the same checks in
the same order, the same reply keys and arguments, the same return value.

Replies: a command's messages are returned in order; RCON joins them with no separator, as vanilla's
``RconConsoleSource`` appends every message to one buffer (see :func:`rcon_text`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from typing import Any

from mirrorcraft import gamedata
from mirrorcraft.server.commands import model as m
from mirrorcraft.server.commands.grammar import parse_command
from mirrorcraft.server.commands.host import CommandHost, CommandSource, EntityRef
from mirrorcraft.server.commands.ops import OpsList
from mirrorcraft.server.commands.reader import CommandSyntaxError
from mirrorcraft.server.commands.scoreboard import Objective, Scoreboard
from mirrorcraft.server.commands.selectors import Selector
from mirrorcraft.server.commands.texts import advancement_title, display_name, java_str, tr
from mirrorcraft.server.commands.vocabulary import GAME_RULES, READ_ONLY_CRITERIA

log = logging.getLogger(__name__)

FILL_LIMIT = 32768  # vanilla's fill/clone volume limit


@dataclass
class CommandResult:
    """What running one command did.

    Attributes:
        success: False when the command failed (parse error or a failure message).
        result: the command's integer result (vanilla's return value; ``execute store`` would read it).
        messages: the lines the source receives, in order (failures included).
    """

    success: bool
    result: int = 0
    messages: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        """The RCON reply: messages concatenated (vanilla ``RconConsoleSource`` adds no separators)."""
        return rcon_text(self.messages)


def rcon_text(messages: list[str]) -> str:
    """Messages joined as vanilla's RCON reply buffer joins them (no separator)."""
    return "".join(messages)


class _Fail(Exception):
    """A failure message the command sends (``sendFailure`` / ``CommandRuntimeException``)."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


def _err(key: str, *args: object) -> _Fail:
    return _Fail(tr(key, *args))


def _name(e: EntityRef) -> str:
    return e.name


class CommandExecutor:
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
            return CommandResult(False, 0, err.messages())
        return self.execute(source, command)

    def execute(self, source: CommandSource, command: m.Command) -> CommandResult:
        """Run an already parsed command."""
        out: list[str] = []
        try:
            result = self._dispatch(source, command, out)
        except _Fail as f:
            out.append(f.text)
            return CommandResult(False, 0, self._visible(source, out, failed=True))
        except CommandSyntaxError as err:
            out.extend(err.messages())
            return CommandResult(False, 0, out)
        except Exception as err:  # noqa: BLE001 - vanilla answers any unexpected exception the same way
            # Commands.performCommand: log it and send command.failed (the message is only a hover text).
            log.error("command %r failed: %s: %s", command, type(err).__name__, err, exc_info=True)
            return CommandResult(False, 0, [tr("command.failed")])
        return CommandResult(True, result, self._visible(source, out, failed=False))

    def _visible(self, source: CommandSource, out: list[str], failed: bool) -> list[str]:
        # A player source only sees success feedback with sendCommandFeedback (ServerPlayer.acceptsSuccess).
        if source.is_player and not failed and not self.host.game_rule("sendCommandFeedback"):
            return []
        return out

    # -- helpers -----------------------------------------------------------------------------------
    def _score_of(self, holder: str, objective: str) -> int | None:
        return self.scoreboard.score(holder, objective)

    def _resolve(self, sel: Selector, source: CommandSource) -> list[EntityRef]:
        return sel.resolve(self.host, source, self._score_of)

    def _entities(self, sel: Selector, source: CommandSource) -> list[EntityRef]:
        found = self._resolve(sel, source)
        if not found:
            raise _err("argument.entity.notfound.entity")
        return found

    def _players(self, sel: Selector, source: CommandSource) -> list[EntityRef]:
        found = [e for e in self._resolve(sel, source) if e.is_player]
        if not found:
            raise _err("argument.entity.notfound.player")
        return found

    @staticmethod
    def _self_entity(source: CommandSource) -> EntityRef:
        if source.entity is None:
            raise _err("permissions.requires.entity")
        return source.entity

    @staticmethod
    def _self_player(source: CommandSource) -> EntityRef:
        if source.entity is None or not source.entity.is_player:
            raise _err("permissions.requires.player")
        return source.entity

    def _dispatch(self, source: CommandSource, c: Any, out: list[str]) -> int:
        handler = getattr(self, "_run_" + type(c).__name__.lower())
        return handler(source, c, out)

    # -- commands ----------------------------------------------------------------------------------
    def _run_give(self, source: CommandSource, c: m.Give, out: list[str]) -> int:
        targets = self._players(c.targets, source)
        info = gamedata.item(c.item)
        limit = info.stack_size * 100
        shown = f"[{display_name('item', c.item)}]"
        if c.count > limit:
            raise _err("commands.give.failed.toomanyitems", limit, shown)
        for p in targets:
            self.host.give(p, c.item, c.count)
        if len(targets) == 1:
            out.append(tr("commands.give.success.single", c.count, shown, _name(targets[0])))
        else:
            out.append(tr("commands.give.success.multiple", c.count, shown, len(targets)))
        return len(targets)

    def _run_clear(self, source: CommandSource, c: m.Clear, out: list[str]) -> int:
        targets = self._players(c.targets, source) if c.targets else [self._self_player(source)]
        total = sum(self.host.clear(p, c.item, c.max_count) for p in targets)
        single = len(targets) == 1
        if total == 0:
            if single:
                raise _err("clear.failed.single", _name(targets[0]))
            raise _err("clear.failed.multiple", len(targets))
        kind = "test" if c.max_count == 0 else "success"
        if single:
            out.append(tr(f"commands.clear.{kind}.single", total, _name(targets[0])))
        else:
            out.append(tr(f"commands.clear.{kind}.multiple", total, len(targets)))
        return total

    def _run_teleport(self, source: CommandSource, c: m.Teleport, out: list[str]) -> int:
        targets = self._entities(c.targets, source) if c.targets else [self._self_entity(source)]
        if c.destination is not None:
            found = self._entities(c.destination, source)
            dest = found[0]
            for e in targets:
                self.host.teleport(e, *dest.position)
            if len(targets) == 1:
                out.append(tr("commands.teleport.success.entity.single", _name(targets[0]), _name(dest)))
            else:
                out.append(tr("commands.teleport.success.entity.multiple", len(targets), _name(dest)))
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
            out.append(tr("commands.teleport.success.location.single", _name(targets[0]), fx, fy, fz))
        else:
            out.append(tr("commands.teleport.success.location.multiple", len(targets), fx, fy, fz))
        return len(targets)

    def _run_setblock(self, source: CommandSource, c: m.SetBlock, out: list[str]) -> int:
        x, y, z = c.pos.block(source.position)
        if not self.host.is_loaded(x, y, z):
            raise _err("argument.pos.unloaded")
        if not self.host.set_block(x, y, z, c.block.block, dict(c.block.properties), c.mode):
            raise _err("commands.setblock.failed")
        out.append(tr("commands.setblock.success", x, y, z))
        return 1

    def _run_fill(self, source: CommandSource, c: m.Fill, out: list[str]) -> int:
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
        out.append(tr("commands.fill.success", count))
        return count

    def _run_kill(self, source: CommandSource, c: m.Kill, out: list[str]) -> int:
        targets = self._entities(c.targets, source) if c.targets else [self._self_entity(source)]
        for e in targets:
            self.host.kill(e)
        if len(targets) == 1:
            out.append(tr("commands.kill.success.single", _name(targets[0])))
        else:
            out.append(tr("commands.kill.success.multiple", len(targets)))
        return len(targets)

    def _run_gamemodeset(self, source: CommandSource, c: m.GameModeSet, out: list[str]) -> int:
        targets = self._players(c.targets, source) if c.targets else [self._self_player(source)]
        mode_name = tr(f"gameMode.{c.mode}")
        count = 0
        for p in targets:
            if p.game_mode == c.mode:
                continue
            self.host.set_game_mode(p, c.mode)  # type: ignore[arg-type]
            count += 1
            if source.entity is not None and source.entity.uuid == p.uuid:
                out.append(tr("commands.gamemode.success.self", mode_name))
            else:
                if self.host.game_rule("sendCommandFeedback"):
                    self.host_tell(p, tr("gameMode.changed", mode_name))
                out.append(tr("commands.gamemode.success.other", _name(p), mode_name))
        return count

    def host_tell(self, player: EntityRef, text: str) -> None:
        """Send a message to one player when the host supports it (``tell`` is optional)."""
        tell = getattr(self.host, "tell", None)
        if callable(tell):
            tell(player, text)

    def _run_effectgive(self, source: CommandSource, c: m.EffectGive, out: list[str]) -> int:
        targets = self._entities(c.targets, source)
        seconds = c.seconds if c.seconds is not None else 30
        count = sum(
            1 for e in targets if self.host.add_effect(e, c.effect, seconds, c.amplifier, c.hide_particles)
        )
        if count == 0:
            raise _err("commands.effect.give.failed")
        name = display_name("effect", c.effect)
        if len(targets) == 1:
            out.append(tr("commands.effect.give.success.single", name, _name(targets[0])))
        else:
            out.append(tr("commands.effect.give.success.multiple", name, len(targets)))
        return count

    def _run_effectclear(self, source: CommandSource, c: m.EffectClear, out: list[str]) -> int:
        targets = self._entities(c.targets, source) if c.targets else [self._self_entity(source)]
        count = sum(1 for e in targets if self.host.remove_effects(e, c.effect))
        what = "everything" if c.effect is None else "specific"
        if count == 0:
            raise _err(f"commands.effect.clear.{what}.failed")
        args: list[object] = [] if c.effect is None else [display_name("effect", c.effect)]
        if len(targets) == 1:
            out.append(tr(f"commands.effect.clear.{what}.success.single", *args, _name(targets[0])))
        else:
            out.append(tr(f"commands.effect.clear.{what}.success.multiple", *args, len(targets)))
        return count

    def _run_experience(self, source: CommandSource, c: m.Experience, out: list[str]) -> int:
        targets = self._players(c.targets, source)
        if c.action == "query":
            value = self.host.experience(targets[0], c.unit)  # type: ignore[arg-type]
            out.append(tr(f"commands.experience.query.{c.unit}", _name(targets[0]), value))
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
                tr(f"commands.experience.{c.action}.{c.unit}.success.single", c.amount, _name(targets[0]))
            )
        else:
            out.append(
                tr(f"commands.experience.{c.action}.{c.unit}.success.multiple", c.amount, len(targets))
            )
        return len(targets)

    def _run_timeset(self, source: CommandSource, c: m.TimeSet, out: list[str]) -> int:
        self.host.set_day_time(c.ticks)
        day = self.host.day_time() % 24000
        out.append(tr("commands.time.set", day))
        return day

    def _run_timeadd(self, source: CommandSource, c: m.TimeAdd, out: list[str]) -> int:
        self.host.set_day_time(self.host.day_time() + c.ticks)
        day = self.host.day_time() % 24000
        out.append(tr("commands.time.set", day))
        return day

    def _run_timequery(self, source: CommandSource, c: m.TimeQuery, out: list[str]) -> int:
        big = 2**31 - 1
        if c.what == "daytime":
            value = self.host.day_time() % 24000
        elif c.what == "gametime":
            value = self.host.game_time() % big
        else:
            value = self.host.day_time() // 24000 % big
        out.append(tr("commands.time.query", value))
        return value

    def _run_weatherset(self, source: CommandSource, c: m.WeatherSet, out: list[str]) -> int:
        ticks = c.seconds * 20 if c.seconds is not None else 6000
        self.host.set_weather(c.weather, ticks)  # type: ignore[arg-type]
        out.append(tr(f"commands.weather.set.{c.weather}"))
        return ticks

    def _run_gamerule(self, source: CommandSource, c: m.GameRule, out: list[str]) -> int:
        if c.value is None:
            value = self.host.game_rule(c.rule)
            out.append(tr("commands.gamerule.query", c.rule, java_str(value)))
        else:
            self.host.set_game_rule(c.rule, c.value)
            value = c.value
            out.append(tr("commands.gamerule.set", c.rule, java_str(value)))
        if isinstance(GAME_RULES[c.rule], bool):
            return 1 if value else 0
        return int(value)

    def _run_difficultycmd(self, source: CommandSource, c: m.DifficultyCmd, out: list[str]) -> int:
        current = self.host.difficulty()
        order = ("peaceful", "easy", "normal", "hard")
        if c.level is None:
            out.append(tr("commands.difficulty.query", tr(f"options.difficulty.{current}")))
            return order.index(current)
        if c.level == current:
            raise _err("commands.difficulty.failure", tr(f"options.difficulty.{c.level}"))
        self.host.set_difficulty(c.level)  # type: ignore[arg-type]
        out.append(tr("commands.difficulty.success", tr(f"options.difficulty.{c.level}")))
        return 0

    def _advancement_component(self, adv: str) -> str:
        info = self.host.advancements().get(adv)
        if info is not None and info.title:
            return f"[{info.title}]"
        title = advancement_title(adv)
        return f"[{title}]" if title != adv else adv

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

    def _run_advancementcmd(self, source: CommandSource, c: m.AdvancementCmd, out: list[str]) -> int:
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
            who: object = _name(targets[0]) if len(targets) == 1 else len(targets)
            if changed == 0:
                raise _err(f"{key}.criterion.to.{tail}.failure", c.criterion, comp, who)
            out.append(tr(f"{key}.criterion.to.{tail}.success", c.criterion, comp, who))
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
        who = _name(targets[0]) if len(targets) == 1 else len(targets)
        outcome = "success" if changed else "failure"
        text = tr(f"{key}.{adv_part}.to.{tgt_part}.{outcome}", first, who)
        if not changed:
            raise _Fail(text)
        out.append(text)
        return changed

    def _run_execute(self, source: CommandSource, c: m.Execute, out: list[str]) -> int:
        sources = [source]
        for step in c.steps:
            nxt: list[CommandSource] = []
            for s in sources:
                found = self._resolve(step.selector, s)
                if step.kind == "if" and found or step.kind == "unless" and not found:
                    nxt.append(s)
                elif step.kind == "as":
                    nxt.extend(replace(s, entity=e) for e in found)
                elif step.kind == "at":
                    nxt.extend(replace(s, position=e.position) for e in found)
            sources = nxt
        total = 0
        for s in sources:
            total += self._dispatch(s, c.run, out)
        return total

    def _run_entitytest(self, source: CommandSource, c: m.EntityTest, out: list[str]) -> int:
        # ExecuteCommand.createNumericConditionalHandler: `if` reports the count, `unless` fails with it.
        n = len(self._resolve(c.selector, source))
        if not c.negate:
            if n > 0:
                out.append(tr("commands.execute.conditional.pass_count", n))
                return n
            raise _err("commands.execute.conditional.fail")
        if n == 0:
            out.append(tr("commands.execute.conditional.pass"))
            return 1
        raise _err("commands.execute.conditional.fail_count", n)

    def _run_say(self, source: CommandSource, c: m.Say, out: list[str]) -> int:
        # MessageArgument.Message.toComponent: each selector span becomes the entities' names joined ", ".
        text, last = [], 0
        for start, end, sel in c.selectors:
            text.append(c.message[last:start])
            text.append(", ".join(_name(e) for e in self._resolve(sel, source)))
            last = end
        text.append(c.message[last:])
        self.host.broadcast(tr("chat.type.announcement", source.name, "".join(text)))
        return 1

    def _run_listplayers(self, source: CommandSource, c: m.ListPlayers, out: list[str]) -> int:
        players = self.host.players()
        if c.uuids:
            names = [tr("commands.list.nameAndId", p.name, p.uuid) for p in players]
        else:
            names = [p.name for p in players]
        out.append(tr("commands.list.players", len(players), self.host.max_players(), ", ".join(names)))
        return len(players)

    def _run_saveall(self, source: CommandSource, c: m.SaveAll, out: list[str]) -> int:
        out.append(tr("commands.save.saving"))
        if not self.host.save(c.flush):
            raise _err("commands.save.failed")
        out.append(tr("commands.save.success"))
        return 1

    def _run_stop(self, source: CommandSource, c: m.Stop, out: list[str]) -> int:
        out.append(tr("commands.stop.stopping"))
        self.host.stop()
        return 1

    # -- scoreboard --------------------------------------------------------------------------------
    def _objective(self, name: str, writable: bool = False) -> Objective:
        obj = self.scoreboard.objectives.get(name)
        if obj is None:
            raise _err("arguments.objective.notFound", name)
        if writable and obj.criterion in READ_ONLY_CRITERIA:
            raise _err("arguments.objective.readonly", name)
        return obj

    def _holders(self, h: m.ScoreHolders, source: CommandSource) -> list[str]:
        if h.wildcard:
            names = self.scoreboard.holders()
        elif h.selector is not None:
            names = [e.name if e.is_player else e.uuid for e in self._resolve(h.selector, source)]
        else:
            names = [h.name or ""]
        if not names:
            raise _err("argument.scoreHolder.empty")
        return names

    def _run_objectivesadd(self, source: CommandSource, c: m.ObjectivesAdd, out: list[str]) -> int:
        if c.name in self.scoreboard.objectives:
            raise _err("commands.scoreboard.objectives.add.duplicate")
        obj = Objective(c.name, c.criterion, c.display_name if c.display_name is not None else c.name)
        self.scoreboard.objectives[c.name] = obj
        out.append(tr("commands.scoreboard.objectives.add.success", obj.formatted))
        return len(self.scoreboard.objectives)

    def _run_objectivesremove(self, source: CommandSource, c: m.ObjectivesRemove, out: list[str]) -> int:
        obj = self._objective(c.name)
        self.scoreboard.remove_objective(c.name)
        out.append(tr("commands.scoreboard.objectives.remove.success", obj.formatted))
        return len(self.scoreboard.objectives)

    def _run_objectiveslist(self, source: CommandSource, c: m.ObjectivesList, out: list[str]) -> int:
        objs = list(self.scoreboard.objectives.values())
        if not objs:
            out.append(tr("commands.scoreboard.objectives.list.empty"))
        else:
            out.append(
                tr(
                    "commands.scoreboard.objectives.list.success",
                    len(objs),
                    ", ".join(o.formatted for o in objs),
                )
            )
        return len(objs)

    def _run_playersscore(self, source: CommandSource, c: m.PlayersScore, out: list[str]) -> int:
        obj = self._objective(c.objective, writable=True)
        holders = self._holders(c.targets, source)
        total = 0
        for h in holders:
            old = self.scoreboard.score(h, obj.name) or 0
            new = c.score if c.action == "set" else old + c.score if c.action == "add" else old - c.score
            new = (new + 2**31) % 2**32 - 2**31  # Java int overflow
            self.scoreboard.scores[(h, obj.name)] = new
            total += new
        key = f"commands.scoreboard.players.{c.action}.success"
        if len(holders) == 1:
            if c.action == "set":
                out.append(tr(key + ".single", obj.formatted, holders[0], c.score))
            else:
                out.append(tr(key + ".single", c.score, obj.formatted, holders[0], total))
        else:
            if c.action == "set":
                out.append(tr(key + ".multiple", obj.formatted, len(holders), c.score))
            else:
                out.append(tr(key + ".multiple", c.score, obj.formatted, len(holders)))
        return total

    def _run_playersget(self, source: CommandSource, c: m.PlayersGet, out: list[str]) -> int:
        obj = self._objective(c.objective)
        holder = self._holders(c.target, source)[0]
        value = self.scoreboard.score(holder, obj.name)
        if value is None:
            raise _err("commands.scoreboard.players.get.null", obj.name, holder)
        out.append(tr("commands.scoreboard.players.get.success", holder, value, obj.formatted))
        return value

    def _run_playersreset(self, source: CommandSource, c: m.PlayersReset, out: list[str]) -> int:
        holders = self._holders(c.targets, source)
        obj = self._objective(c.objective) if c.objective is not None else None
        for h in holders:
            for key in [k for k in self.scoreboard.scores if k[0] == h and (obj is None or k[1] == obj.name)]:
                del self.scoreboard.scores[key]
        if obj is None:
            key = "commands.scoreboard.players.reset.all"
            out.append(
                tr(key + ".single", holders[0]) if len(holders) == 1 else tr(key + ".multiple", len(holders))
            )
        else:
            key = "commands.scoreboard.players.reset.specific"
            out.append(
                tr(key + ".single", obj.formatted, holders[0])
                if len(holders) == 1
                else tr(key + ".multiple", obj.formatted, len(holders))
            )
        return len(holders)

    def _run_playerslist(self, source: CommandSource, c: m.PlayersList, out: list[str]) -> int:
        if c.target is None:
            holders = self.scoreboard.holders()
            if not holders:
                out.append(tr("commands.scoreboard.players.list.empty"))
            else:
                out.append(tr("commands.scoreboard.players.list.success", len(holders), ", ".join(holders)))
            return len(holders)
        holder = self._holders(c.target, source)[0]
        entries = [(o, v) for (h, o), v in self.scoreboard.scores.items() if h == holder]
        if not entries:
            out.append(tr("commands.scoreboard.players.list.entity.empty", holder))
        else:
            out.append(tr("commands.scoreboard.players.list.entity.success", holder, len(entries)))
            for o, v in entries:
                out.append(
                    tr(
                        "commands.scoreboard.players.list.entity.entry",
                        self.scoreboard.objectives[o].formatted,
                        v,
                    )
                )
        return len(entries)

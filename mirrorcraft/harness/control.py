"""``ServerControl`` over RCON, for any server that speaks it (embedded or vanilla).

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

The evaluator over the same connection is :class:`~mirrorcraft.harness.report_evaluators.RconEvaluator`
(milestones from :meth:`RconServerControl.query_milestones`, rule encounters derived harness-side).
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Awaitable, Callable, Sequence
from functools import cache
from typing import Protocol

from mirrorcraft.contracts.episodes import (
    EFFECT_SECONDS,
    Controls,
    EpisodeIdentity,
    SpawnInfo,
    StatusEffect,
)
from mirrorcraft.contracts.interfaces import ServerControl
from mirrorcraft.errors import MirrorCraftError
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

    def close(self) -> None:
        """Drop the RCON connection (an episode's end: a connection left open keeps the server's side of
        it registered in the reactor, and with it the whole game, after the server stopped)."""
        self._close()

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

"""``CommandHost`` over the embedded server's public API — **partial**, until the server grows the rest.

Why: the control plane must drive the embedded server through exactly the commands a vanilla server
accepts (docs/control.md). This adapter maps the operations the embedded server already exposes
(``EmbeddedServer.player_names/player/give_item/teleport/set_block/block_at/save/stop`` and the level's
spawn) onto :class:`CommandHost`, so ``give``, ``tp``, ``setblock``, ``fill``, ``list``, ``save-all``,
``stop`` and selector queries work over RCON today.

Not available yet (each raises :class:`HostUnsupported` naming the method, and the command then answers
vanilla's ``command.failed``): effects, experience, time, weather, game rules, difficulty,
advancements, kill, game mode, clear, broadcast. The embedded server's owner implements those (the
contract is in docs/control.md); ``@e`` sees players only (mobs are not exposed by the server's API).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from mirrorcraft.server.commands.host import AdvancementInfo, EntityRef, HostUnsupported

_OVERWORLD_MIN_Y, _OVERWORLD_MAX_Y = -64, 320


class EmbeddedCommandHost:
    """The embedded server as a (partial) :class:`CommandHost`.

    Args:
        server: a started :class:`~mirrorcraft.server.embedded.EmbeddedServer`.
        seed: seed of ``@r`` / ``sort=random`` choices.
    """

    def __init__(self, server: Any, seed: int = 0) -> None:
        self.server = server
        self._rng = random.Random(seed)

    def _missing(self, method: str) -> HostUnsupported:
        return HostUnsupported(
            f"EmbeddedCommandHost.{method}: the embedded server does not expose this yet (docs/control.md)"
        )

    # -- implemented -------------------------------------------------------------------------------
    def players(self) -> list[EntityRef]:
        out = []
        for name in self.server.player_names():
            p = self.server.player(name)
            out.append(EntityRef(uuid=str(p.uuid), name=name, type="minecraft:player",
                                 position=tuple(p.pos), is_player=True))  # fmt: skip
        return out

    def entities(self) -> list[EntityRef]:
        return self.players()

    def spawn_point(self) -> tuple[float, float, float]:
        x, y, z = self.server.game.world.level.spawn
        return (float(x), float(y), float(z))

    def max_players(self) -> int:
        return self.server.config.max_players

    def random_int(self, bound: int) -> int:
        return self._rng.randrange(bound)

    def give(self, player: EntityRef, item: str, count: int) -> None:
        given = self.server.give_item(player.name, item.removeprefix("minecraft:"), count)
        if given < count:
            raise self._missing("give (dropping the overflow at the player's feet)")

    def teleport(self, entity: EntityRef, x: float, y: float, z: float, yaw=None, pitch=None) -> None:
        self.server.teleport(entity.name, x, y, z)

    def is_loaded(self, x: int, y: int, z: int) -> bool:
        return _OVERWORLD_MIN_Y <= y < _OVERWORLD_MAX_Y and self.server.game.world.inside_border(
            x + 0.5, z + 0.5
        )

    def block_at(self, x: int, y: int, z: int) -> str:
        return "minecraft:" + self.server.block_at(x, y, z)

    def set_block(self, x: int, y: int, z: int, block: str, properties: Mapping[str, str], mode: str) -> bool:
        old = self.block_at(x, y, z)
        if mode == "keep" and old != "minecraft:air":
            return False
        if mode == "destroy":
            raise self._missing("set_block(mode='destroy')")
        if old == block and not properties:
            return False
        self.server.set_block(x, y, z, block.removeprefix("minecraft:"), **dict(properties))
        return True

    def save(self, flush: bool) -> bool:
        self.server.save()
        return True

    def stop(self) -> None:
        self.server.stop(save=True)

    # -- not exposed by the embedded server yet ------------------------------------------------------
    def clear(self, player, item, max_count) -> int:
        raise self._missing("clear")

    def kill(self, entity) -> None:
        raise self._missing("kill")

    def set_game_mode(self, player, mode) -> None:
        raise self._missing("set_game_mode")

    def add_effect(self, entity, effect, seconds, amplifier, hide_particles) -> bool:
        raise self._missing("add_effect")

    def remove_effects(self, entity, effect) -> bool:
        raise self._missing("remove_effects")

    def experience(self, player, unit) -> int:
        raise self._missing("experience")

    def add_experience(self, player, amount, unit) -> None:
        raise self._missing("add_experience")

    def set_experience(self, player, amount, unit) -> bool:
        raise self._missing("set_experience")

    def day_time(self) -> int:
        raise self._missing("day_time")

    def game_time(self) -> int:
        raise self._missing("game_time")

    def set_day_time(self, ticks) -> None:
        raise self._missing("set_day_time")

    def set_weather(self, weather, duration_ticks) -> None:
        raise self._missing("set_weather")

    def game_rule(self, name):
        if name == "sendCommandFeedback":
            return True  # vanilla default; the server has no game-rule storage yet
        raise self._missing("game_rule")

    def set_game_rule(self, name, value) -> None:
        raise self._missing("set_game_rule")

    def difficulty(self):
        raise self._missing("difficulty")

    def set_difficulty(self, difficulty) -> None:
        raise self._missing("set_difficulty")

    def advancements(self) -> Mapping[str, AdvancementInfo]:
        raise self._missing("advancements")

    def advancement_criteria(self, player, advancement) -> frozenset[str]:
        raise self._missing("advancement_criteria")

    def grant_criterion(self, player, advancement, criterion) -> bool:
        raise self._missing("grant_criterion")

    def revoke_criterion(self, player, advancement, criterion) -> bool:
        raise self._missing("revoke_criterion")

    def broadcast(self, text: str) -> None:
        raise self._missing("broadcast")

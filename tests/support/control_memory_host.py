"""An in-memory :class:`CommandHost` for the control-plane tests (a test fixture, not a game).

It keeps exactly the state the commands read and write (players, entities, inventories as item counts,
blocks in a dict, effects, experience, time, weather, game rules, difficulty, advancement criteria) so
the executor's checks, state changes and vanilla reply texts can be tested without a server. Item and
block ids are checked against the vendored 1.19.2 game data; advancements are the 16 vanilla story
advancements read from the vendored vanilla datapack (their real parents and criteria).
"""

from __future__ import annotations

import json
import random
import uuid
from collections.abc import Mapping
from dataclasses import replace

from mirrorcraft import gamedata
from mirrorcraft.server.commands import GAME_RULES, AdvancementInfo, EntityRef
from mirrorcraft.server.commands.components import render

STORY_DIR = gamedata.VANILLA_PACK_DIR / "data" / "minecraft" / "advancements" / "story"


def story_advancements() -> dict[str, AdvancementInfo]:
    """The vanilla story advancements (id, parent, criteria) from the vendored vanilla datapack."""
    out: dict[str, AdvancementInfo] = {}
    for path in sorted(STORY_DIR.glob("*.json")):
        data = json.loads(path.read_text())
        out[f"minecraft:story/{path.stem}"] = AdvancementInfo(
            id=f"minecraft:story/{path.stem}",
            parent=data.get("parent"),
            criteria=tuple(sorted(data["criteria"])),
        )
    return out


class MemoryHost:
    """Game state in dictionaries; ``spawn`` is the console's command position."""

    def __init__(self, spawn: tuple[float, float, float] = (8.0, 65.0, 8.0), seed: int = 0) -> None:
        self.spawn = spawn
        self._entities: dict[str, EntityRef] = {}
        self.inventories: dict[str, dict[str, int]] = {}
        self.effects: dict[str, dict[str, tuple[int, int, bool]]] = {}
        self.xp: dict[str, tuple[int, int]] = {}
        self.blocks: dict[tuple[int, int, int], tuple[str, dict[str, str]]] = {}
        self.criteria: dict[tuple[str, str], set[str]] = {}
        self.day = 0
        self.game = 0
        self.weather = ("clear", -1)
        self.rules: dict[str, bool | int] = dict(GAME_RULES)
        self.diff = "easy"
        self.broadcasts: list[str] = []  # rendered English; the components in broadcast_components
        self.told: list[tuple[str, str]] = []
        self.broadcast_components: list[dict] = []
        self.told_components: list[tuple[str, dict]] = []
        self.titles: list[tuple[str, str, dict | None, tuple[int, int, int] | None]] = []
        self.levels: list[tuple[str, int]] = []
        self.default_mode = "survival"
        self.saved = 0
        self.stopped = False
        self.rng = random.Random(seed)
        self.adv = story_advancements()

    # -- fixture helpers ----------------------------------------------------------------------------
    def add_player(self, name: str, pos: tuple[float, float, float]) -> EntityRef:
        e = EntityRef(str(uuid.uuid3(uuid.NAMESPACE_OID, name)), name, "minecraft:player", pos, True,
                      game_mode="survival", xp_level=0)  # fmt: skip
        self._entities[e.uuid] = e
        self.inventories[e.uuid] = {}
        self.effects[e.uuid] = {}
        self.xp[e.uuid] = (0, 0)
        return e

    def add_mob(self, type_: str, pos: tuple[float, float, float]) -> EntityRef:
        gamedata.entity(type_)
        u = str(uuid.UUID(int=self.rng.getrandbits(128)))
        e = EntityRef(u, _type_name(type_), type_, pos, False, name_key="entity." + type_.replace(":", "."))
        self._entities[u] = e
        self.effects[u] = {}
        return e

    def get(self, name: str) -> EntityRef:
        return next(e for e in self._entities.values() if e.name == name)

    def _update(self, e: EntityRef, **changes: object) -> None:
        self._entities[e.uuid] = replace(self._entities[e.uuid], **changes)

    # -- CommandHost --------------------------------------------------------------------------------
    def players(self) -> list[EntityRef]:
        return [e for e in self._entities.values() if e.is_player]

    def entities(self) -> list[EntityRef]:
        return list(self._entities.values())

    def spawn_point(self) -> tuple[float, float, float]:
        return self.spawn

    def max_players(self) -> int:
        return 20

    def random_int(self, bound: int) -> int:
        return self.rng.randrange(bound)

    def give(self, player: EntityRef, item: str, count: int) -> None:
        inv = self.inventories[player.uuid]
        inv[item] = inv.get(item, 0) + count

    def clear(self, player: EntityRef, item: str | None, max_count: int) -> int:
        inv = self.inventories[player.uuid]
        keys = [k for k in inv if item is None or k == item]
        total = sum(inv[k] for k in keys)
        if max_count == 0:
            return total
        left = total if max_count < 0 else min(max_count, total)
        removed = 0
        for k in keys:
            take = min(inv[k], left - removed)
            inv[k] -= take
            removed += take
            if inv[k] == 0:
                del inv[k]
        return removed

    def teleport(self, entity, x, y, z, yaw=None, pitch=None) -> None:
        self._update(entity, position=(x, y, z))

    def is_loaded(self, x: int, y: int, z: int) -> bool:
        return -64 <= y < 320 and abs(x) < 256 and abs(z) < 256

    def set_block(self, x, y, z, block, properties, mode) -> bool:
        gamedata.block(block)
        old = self.blocks.get((x, y, z), ("minecraft:air", {}))
        if mode == "keep" and old[0] != "minecraft:air":
            return False
        new = (block, dict(properties))
        if old == new:
            return False
        if block == "minecraft:air":
            self.blocks.pop((x, y, z), None)
        else:
            self.blocks[(x, y, z)] = new
        return True

    def block_at(self, x: int, y: int, z: int) -> str:
        return self.blocks.get((x, y, z), ("minecraft:air", {}))[0]

    def kill(self, entity: EntityRef) -> None:
        if entity.is_player:
            self._update(entity, position=self.spawn)
        else:
            del self._entities[entity.uuid]

    def set_game_mode(self, player, mode) -> None:
        self._update(player, game_mode=mode)

    def add_effect(self, entity, effect, seconds, amplifier, hide_particles) -> bool:
        current = self.effects[entity.uuid].get(effect)
        if current is not None and current[1] > amplifier:
            return False
        self.effects[entity.uuid][effect] = (seconds * 20, amplifier, hide_particles)
        return True

    def remove_effects(self, entity, effect) -> bool:
        eff = self.effects[entity.uuid]
        if effect is None:
            had = bool(eff)
            eff.clear()
            return had
        return eff.pop(effect, None) is not None

    def experience(self, player, unit) -> int:
        level, points = self.xp[player.uuid]
        return level if unit == "levels" else points

    def add_experience(self, player, amount, unit) -> None:
        level, points = self.xp[player.uuid]
        self.xp[player.uuid] = (
            (max(0, level + amount), points) if unit == "levels" else (level, points + amount)
        )
        self._update(player, xp_level=self.xp[player.uuid][0])

    def set_experience(self, player, amount, unit) -> bool:
        level, points = self.xp[player.uuid]
        if unit == "levels":
            self.xp[player.uuid] = (amount, points)
        else:
            need = 2 * level + 7 if level < 16 else 5 * level - 38 if level < 31 else 9 * level - 158
            if amount > need:
                return False
            self.xp[player.uuid] = (level, amount)
        self._update(player, xp_level=self.xp[player.uuid][0])
        return True

    def day_time(self) -> int:
        return self.day

    def game_time(self) -> int:
        return self.game

    def set_day_time(self, ticks: int) -> None:
        self.day = ticks

    def set_weather(self, weather, duration_ticks) -> None:
        self.weather = (weather, duration_ticks)

    def game_rule(self, name: str) -> bool | int:
        return self.rules[name]

    def set_game_rule(self, name: str, value: bool | int) -> None:
        self.rules[name] = value

    def difficulty(self):
        return self.diff

    def set_difficulty(self, difficulty) -> None:
        self.diff = difficulty

    def advancements(self) -> Mapping[str, AdvancementInfo]:
        return self.adv

    def advancement_criteria(self, player, advancement) -> frozenset[str]:
        return frozenset(self.criteria.get((player.uuid, advancement), set()))

    def grant_criterion(self, player, advancement, criterion) -> bool:
        done = self.criteria.setdefault((player.uuid, advancement), set())
        if criterion in done:
            return False
        done.add(criterion)
        return True

    def revoke_criterion(self, player, advancement, criterion) -> bool:
        done = self.criteria.setdefault((player.uuid, advancement), set())
        if criterion not in done:
            return False
        done.discard(criterion)
        return True

    def broadcast(self, message) -> None:
        self.broadcasts.append(render(message))
        self.broadcast_components.append(dict(message))

    def tell(self, player: EntityRef, message) -> None:
        self.told.append((player.name, render(message)))
        self.told_components.append((player.name, dict(message)))

    def title(self, player, action, message, times) -> None:
        self.titles.append((player.name, action, message, times))

    def dimensions(self) -> list[str]:
        return ["minecraft:overworld"]

    def default_game_mode(self):
        return self.default_mode

    def set_default_game_mode(self, mode) -> None:
        self.default_mode = mode

    def profile(self, name: str) -> str | None:
        return next(
            (e.name for e in self._entities.values() if e.is_player and e.name.lower() == name.lower()), None
        )

    def permission_level_changed(self, name: str, level: int) -> None:
        self.levels.append((name, level))

    def block_properties(self, x: int, y: int, z: int) -> dict[str, str]:
        return dict(self.blocks.get((x, y, z), ("minecraft:air", {}))[1])

    def save(self, flush: bool) -> bool:
        self.saved += 1
        return True

    def stop(self) -> None:
        self.stopped = True


def _type_name(type_: str) -> str:
    from mirrorcraft.server.commands.texts import display_name

    return display_name("entity", type_)

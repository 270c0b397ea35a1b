"""The ``CommandHost`` interface: what a game must offer for the vanilla commands to run against it.

Why an interface: the parser and executor in this package implement vanilla's command syntax, permission
checks and reply texts once; the embedded server implements :class:`CommandHost` over its game state (see
docs/control.md for the contract, method by method). A user's vanilla jar needs no host: RCON sends the
same command text to the real server. Scoreboard storage lives in this package
(:mod:`mirrorcraft.server.commands.scoreboard`), so a host need not store it.

All methods are called on the host's thread (the reactor thread for the embedded server) and must not
block on network I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from mirrorcraft.errors import MirrorCraftError


class HostUnsupported(MirrorCraftError):
    """A host does not (yet) implement an operation a command needs; the message names the method.

    The executor answers such a command like vanilla answers an unexpected exception
    (``command.failed``) and logs the message.
    """


GameMode = Literal["survival", "creative", "adventure", "spectator"]
Difficulty = Literal["peaceful", "easy", "normal", "hard"]
Weather = Literal["clear", "rain", "thunder"]
XpUnit = Literal["points", "levels"]
BlockMode = Literal["replace", "destroy", "keep"]

GAME_MODES: tuple[GameMode, ...] = ("survival", "creative", "adventure", "spectator")
DIFFICULTIES: tuple[Difficulty, ...] = ("peaceful", "easy", "normal", "hard")


@dataclass(frozen=True, slots=True)
class EntityRef:
    """A snapshot of one entity as selectors see it.

    Attributes:
        uuid: canonical hyphenated UUID text (the score holder name of non-players).
        name: the player name, or the entity's display name (custom name or type name).
        type: entity type id (``minecraft:player``, ``minecraft:cow``).
        position: feet position.
        is_player: whether this is a player.
        alive: False for dead players (only ``@e`` skips them, as vanilla's selector parser).
        game_mode: a player's game mode (``None`` for non-players).
        xp_level: a player's experience level (``None`` for non-players).
        tags: scoreboard tags (``/tag``); MirrorCraft hosts may leave it empty.
        name_key: the language key of a non-player's name (``entity.minecraft.cow``, an item entity's
            ``item.minecraft.diamond``), for its display-name component; ``None``: ``name`` is literal.
    """

    uuid: str
    name: str
    type: str
    position: tuple[float, float, float]
    is_player: bool
    alive: bool = True
    game_mode: GameMode | None = None
    xp_level: int | None = None
    tags: frozenset[str] = field(default_factory=frozenset)
    name_key: str | None = None


@dataclass(frozen=True, slots=True)
class AdvancementInfo:
    """One loaded advancement: parent (``None`` for a root), criteria and requirements.

    ``requirements`` is the advancement JSON's ``requirements``: the advancement is done when every group
    has at least one completed criterion (vanilla ``AdvancementProgress.isDone``; ``obtain_armor`` is one
    group of four armour pieces). Empty means vanilla's default, every criterion its own group. ``title``
    is the display title (``None``: the vanilla language text of the id is used); ``display`` the
    advancement JSON's ``display`` object (title and description components, frame, announce_to_chat),
    from which replies build vanilla's ``Advancement.getChatComponent``.
    """

    id: str
    parent: str | None
    criteria: tuple[str, ...]
    title: str | None = None
    requirements: tuple[tuple[str, ...], ...] = ()
    display: Mapping[str, Any] | None = field(default=None, compare=False, hash=False)

    @property
    def groups(self) -> tuple[tuple[str, ...], ...]:
        return self.requirements or tuple((c,) for c in self.criteria)

    def is_done(self, completed: AbstractSet[str]) -> bool:
        """Whether ``completed`` criteria complete the advancement."""
        groups = self.groups
        return bool(groups) and all(any(c in completed for c in g) for g in groups)


@dataclass(frozen=True, slots=True)
class CommandSource:
    """Who runs a command: name, permission level (0-4), position, and the entity if any.

    The console and RCON have level 4 and stand at the world spawn (vanilla ``RconConsoleSource``); a
    player's level comes from the ops list (0 when not an op). ``dimension`` is the level the source is
    in (``execute in`` changes it); ``entity`` is ``@s`` (``execute as`` changes it).
    """

    name: str
    permission_level: int
    position: tuple[float, float, float]
    entity: EntityRef | None = None
    dimension: str = "minecraft:overworld"

    @property
    def is_player(self) -> bool:
        return self.entity is not None and self.entity.is_player


@runtime_checkable
class CommandHost(Protocol):
    """Operations the vanilla commands need (docs/control.md lists the contract of each)."""

    # -- world and entities ------------------------------------------------------------------------
    def players(self) -> list[EntityRef]:
        """Online players in join order (vanilla ``PlayerList`` order)."""
        ...

    def entities(self) -> list[EntityRef]:
        """Every entity, players included, in a stable world order (``@e`` without ``sort``)."""
        ...

    def spawn_point(self) -> tuple[float, float, float]:
        """World spawn (the console's command position)."""
        ...

    def max_players(self) -> int:
        """``max-players`` (for ``list``)."""
        ...

    def random_int(self, bound: int) -> int:
        """A seeded random integer in ``[0, bound)`` (``@r``; keeps episodes deterministic)."""
        ...

    # -- inventory ---------------------------------------------------------------------------------
    def give(self, player: EntityRef, item: str, count: int) -> None:
        """Put ``count`` of ``item`` into the player's inventory, dropping what does not fit at the
        player's feet (vanilla ``give``). ``item`` is a known ``minecraft:`` item id."""
        ...

    def clear(self, player: EntityRef, item: str | None, max_count: int) -> int:
        """Remove up to ``max_count`` (``-1`` = all) of ``item`` (``None`` = any item) and return the
        number removed; with ``max_count == 0`` remove nothing and return how many match."""
        ...

    # -- movement and blocks -----------------------------------------------------------------------
    def teleport(
        self,
        entity: EntityRef,
        x: float,
        y: float,
        z: float,
        yaw: float | None = None,
        pitch: float | None = None,
    ) -> None:
        """Move an entity (``None`` rotation keeps the current one)."""
        ...

    def is_loaded(self, x: int, y: int, z: int) -> bool:
        """Whether the block position is in a loaded chunk inside the world height."""
        ...

    def set_block(
        self, x: int, y: int, z: int, block: str, properties: Mapping[str, str], mode: BlockMode
    ) -> bool:
        """Set a block (``destroy`` drops the old block's items first, ``keep`` only replaces air).

        Returns:
            False when nothing changed (same state already there, or ``keep`` over a non-air block).
        """
        ...

    def block_at(self, x: int, y: int, z: int) -> str:
        """The block id at a position (``minecraft:air`` ...)."""
        ...

    def block_properties(self, x: int, y: int, z: int) -> Mapping[str, str]:
        """The block state's properties at a position (``{"axis": "y"}``; ``execute if block``)."""
        ...

    # -- entities, modes, effects, experience ------------------------------------------------------
    def kill(self, entity: EntityRef) -> None:
        """Kill an entity (players die and respawn as vanilla does)."""
        ...

    def set_game_mode(self, player: EntityRef, mode: GameMode) -> None:
        """Change a player's game mode."""
        ...

    def add_effect(
        self, entity: EntityRef, effect: str, seconds: int, amplifier: int, hide_particles: bool
    ) -> bool:
        """Apply a status effect; False when not applied (immune, or a stronger one is active)."""
        ...

    def remove_effects(self, entity: EntityRef, effect: str | None) -> bool:
        """Remove one effect (or every effect when ``None``); False when there was nothing to remove."""
        ...

    def experience(self, player: EntityRef, unit: XpUnit) -> int:
        """The player's level, or the points into the current level."""
        ...

    def add_experience(self, player: EntityRef, amount: int, unit: XpUnit) -> None:
        """Add (or with a negative amount remove) points or levels."""
        ...

    def set_experience(self, player: EntityRef, amount: int, unit: XpUnit) -> bool:
        """Set points (within the current level) or levels; False when points exceed the level's need."""
        ...

    # -- world state -------------------------------------------------------------------------------
    def day_time(self) -> int:
        """The level's day time (not wrapped; ``time query daytime`` wraps it at 24000)."""
        ...

    def game_time(self) -> int:
        """Ticks since the world was created (``time query gametime``)."""
        ...

    def set_day_time(self, ticks: int) -> None:
        """Set the day time (``time set`` / ``time add``)."""
        ...

    def set_weather(self, weather: Weather, duration_ticks: int) -> None:
        """Set the weather for a duration (``-1`` = vanilla's default random duration)."""
        ...

    def game_rule(self, name: str) -> bool | int:
        """A game rule's value (names from :data:`rules.GAME_RULES`)."""
        ...

    def function(self, name: str) -> tuple[str, ...] | None:
        """The command lines of datapack function ``name`` (``ns:path``), or ``None`` if no loaded pack has it."""
        ...

    def set_game_rule(self, name: str, value: bool | int) -> None:
        """Set a game rule."""
        ...

    def difficulty(self) -> Difficulty:
        """The world difficulty."""
        ...

    def set_difficulty(self, difficulty: Difficulty) -> None:
        """Change the world difficulty."""
        ...

    # -- advancements ------------------------------------------------------------------------------
    def advancements(self) -> Mapping[str, AdvancementInfo]:
        """Every loaded advancement by id (the datapacks' advancements included)."""
        ...

    def advancement_criteria(self, player: EntityRef, advancement: str) -> frozenset[str]:
        """The criteria of ``advancement`` the player has completed."""
        ...

    def grant_criterion(self, player: EntityRef, advancement: str, criterion: str) -> bool:
        """Grant one criterion; False when the player already had it."""
        ...

    def revoke_criterion(self, player: EntityRef, advancement: str, criterion: str) -> bool:
        """Revoke one criterion; False when the player did not have it."""
        ...

    def dimensions(self) -> list[str]:
        """The levels this server runs (``execute in``; the embedded server: the overworld only)."""
        ...

    def default_game_mode(self) -> GameMode:
        """The game mode new players get (``server.properties`` ``gamemode``; ``defaultgamemode``)."""
        ...

    def set_default_game_mode(self, mode: GameMode) -> None:
        """``defaultgamemode``: the game mode of players joining from now on."""
        ...

    # -- chat and messages ---------------------------------------------------------------------------
    def broadcast(self, message: Mapping[str, Any]) -> None:
        """Send a system chat message (a JSON text component) to every player (``say``, ``me``) and log it."""
        ...

    def tell(self, player: EntityRef, message: Mapping[str, Any]) -> None:
        """Send one system chat message (a JSON text component) to one player."""
        ...

    def title(
        self,
        player: EntityRef,
        action: str,
        message: Mapping[str, Any] | None,
        times: tuple[int, int, int] | None,
    ) -> None:
        """``title``: ``action`` is ``title``/``subtitle``/``actionbar`` (with ``message``), ``times`` (with
        fade-in, stay, fade-out ticks), ``clear`` or ``reset``."""
        ...

    def profile(self, name: str) -> str | None:
        """The game-profile name a typed name stands for (a player who joined this server; case as they
        joined), or ``None`` for an unknown name (vanilla's profile cache; ``op`` / ``deop``)."""
        ...

    def permission_level_changed(self, name: str, level: int) -> None:
        """``op`` / ``deop`` changed a player's permission level (vanilla tells the client: entity event
        ``24 + level``); ``name`` may be offline."""
        ...

    # -- server ------------------------------------------------------------------------------------

    def save(self, flush: bool) -> bool:
        """Save the world; False on failure."""
        ...

    def stop(self) -> None:
        """Stop the server after the current command (``stop``)."""
        ...

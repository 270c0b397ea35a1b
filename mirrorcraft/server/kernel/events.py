"""Events of the running game: published facts for observers, and behaviour hooks between modules.

Two channels, for two audiences:

* **Published events** (:meth:`Events.subscribe` / :meth:`Events.emit`): what happened, as plain data —
  ``("block_broken", {"player": "alex", "pos": (1, 64, 2), "block": "minecraft:stone", "drops": [...]})``.
  Observers outside the game read them: the harness's evaluator (the ``"outcome"`` events, whose ``outcome``
  is a :class:`~mirrorcraft.server.outcomes.OutcomeEvent`), tests, tools. Players are named, never passed as
  objects, so an observer cannot reach into the game.
* **Behaviour hooks** (:meth:`Events.before` / :meth:`Events.after`, run with :meth:`Events.behaviour` and
  :meth:`Events.notify`), modelled on flying-squid's ``player.behavior(name, data, action)``: a module that
  is about to do something (``"dig"``, ``"place"``, ``"use_block"``, ``"click"``...) asks first; every
  *before* hook sees a :class:`Behaviour` carrying the live objects (the :class:`~mirrorcraft.server.kernel.
  players.Player`, positions, stacks) and may :meth:`~Behaviour.cancel` it — a scenario judge refusing a dig,
  a crafting table consuming the click that would otherwise place a block. After the fact, *after* hooks
  observe (``"block_broken"`` drops a furnace's contents and costs the breaker exhaustion). Hooks run in
  registration order, which the composition root (:mod:`mirrorcraft.server.game`) fixes by building the
  features in a declared order.

Why hooks instead of calls: the module that acts need not know who cares (the digging feature does not
import the food feature to make breaking blocks tiring), and no module finds a player by the name in a
published event.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Listener = Callable[[str, dict[str, Any]], None]
Hook = Callable[["Behaviour"], None]


@dataclass
class Behaviour:
    """One occurrence of a behaviour, as its hooks see it.

    Attributes:
        name: The behaviour (``"dig"``, ``"place"``...).
        player: The player doing it, if any.
        data: What the behaviour is about (live objects; hooks may read them).
        cancelled: Set by :meth:`cancel`; the acting module then refuses or skips its default action.
        by: Who cancelled (for logs), ``None`` until cancelled.
    """

    name: str
    player: Any
    data: dict[str, Any] = field(default_factory=dict)
    cancelled: bool = False
    by: str | None = None

    def cancel(self, by: str = "") -> None:
        """Stop the default action (meaningful for *before* hooks; the acting module decides what that is)."""
        self.cancelled = True
        self.by = by or self.by

    def __getitem__(self, key: str) -> Any:
        return self.data[key]


class Events:
    """The game's event bus (one per kernel)."""

    def __init__(self) -> None:
        self.listeners: list[Listener] = []
        self._before: dict[str, list[Hook]] = {}
        self._after: dict[str, list[Hook]] = {}

    # ---- published events ----------------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> None:
        """Call ``listener(event, data)`` for every published event from now on."""
        self.listeners.append(listener)

    def unsubscribe(self, listener: Listener) -> None:
        """Stop calling ``listener`` (no error if it was not subscribed)."""
        if listener in self.listeners:
            self.listeners.remove(listener)

    def emit(self, event: str, **data: Any) -> None:
        """Publish an event to every subscribed listener."""
        for fn in self.listeners:
            fn(event, data)

    # ---- behaviour hooks -----------------------------------------------------------------------------

    def before(self, name: str, hook: Hook) -> None:
        """Run ``hook`` before the behaviour ``name``; it may cancel it."""
        self._before.setdefault(name, []).append(hook)

    def after(self, name: str, hook: Hook) -> None:
        """Run ``hook`` after the behaviour ``name`` happened."""
        self._after.setdefault(name, []).append(hook)

    def remove(self, name: str, hook: Hook) -> None:
        """Stop running ``hook`` for behaviour ``name`` (before or after; no error if it was not there)."""
        for table in (self._before, self._after):
            if hook in table.get(name, ()):
                table[name].remove(hook)

    def behaviour(self, name: str, player: Any = None, **data: Any) -> Behaviour:
        """Ask the *before* hooks of ``name``; the caller checks :attr:`Behaviour.cancelled`.

        A hook that cancels stops the remaining hooks from running (the behaviour will not happen).
        """
        b = Behaviour(name, player, data)
        for hook in self._before.get(name, ()):
            hook(b)
            if b.cancelled:
                break
        return b

    def notify(self, name: str, player: Any = None, **data: Any) -> None:
        """Run the *after* hooks of ``name``."""
        hooks = self._after.get(name)
        if hooks:
            b = Behaviour(name, player, data)
            for hook in hooks:
                hook(b)

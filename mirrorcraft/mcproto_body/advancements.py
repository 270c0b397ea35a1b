"""The player's own advancement progress, from the ``advancements`` packet.

Why: the benchmark's milestones are the server's ``minecraft:story/*`` advancements; the agent may see its
own progress the way a player sees the advancement screen (titles and whether each is done), and nothing
about how the server decides them. Each packet adds/removes advancements and sends criterion progress
(``achieved`` time or none, wiki.vg "Update Advancements"); ``reset`` clears everything first.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mirrorcraft.mcproto_body.connection import Connection


class Advancements:
    """Known advancements and their progress.

    Attributes:
        titles: ``{advancement id: display title (chat JSON) or None for hidden/recipe advancements}``.
        requirements: ``{advancement id: requirements (OR-lists AND-ed together)}``.
        progress: ``{advancement id: {criterion: achieved-at ms or None}}``.
    """

    def __init__(self, conn: Connection) -> None:
        self.titles: dict[str, str | None] = {}
        self.requirements: dict[str, list[list[str]]] = {}
        self.progress: dict[str, dict[str, int | None]] = {}
        self._listeners: list[Callable[[str], None]] = []
        conn.on_reset(self._clear)
        conn.on("advancements", self._on_advancements)

    def _clear(self) -> None:
        self.titles.clear()
        self.requirements.clear()
        self.progress.clear()

    def on_done(self, listener: Callable[[str], None]) -> None:
        """Call ``listener(advancement id)`` when an advancement becomes done."""
        self._listeners.append(listener)

    def is_done(self, adv_id: str) -> bool:
        """All requirement groups have at least one achieved criterion (vanilla AdvancementProgress.isDone)."""
        reqs = self.requirements.get(adv_id)
        prog = self.progress.get(adv_id, {})
        if not reqs:
            return bool(prog) and all(v is not None for v in prog.values())
        return all(any(prog.get(c) is not None for c in group) for group in reqs)

    def done(self) -> list[str]:
        """Ids of completed advancements, sorted."""
        return sorted(a for a in set(self.requirements) | set(self.progress) if self.is_done(a))

    def _on_advancements(self, pkt: Any) -> None:
        before = set(self.done())
        if pkt.reset:
            self._clear()
        for adv in pkt.advancements:
            self.titles[adv.id] = adv.display.title if adv.display is not None else None
            self.requirements[adv.id] = [list(g) for g in adv.requirements]
        for adv_id in pkt.removed:
            self.titles.pop(adv_id, None)
            self.requirements.pop(adv_id, None)
            self.progress.pop(adv_id, None)
        for adv_id, crit in pkt.progress.items():
            self.progress.setdefault(adv_id, {}).update(crit)
        for adv_id in sorted(set(self.done()) - before):
            for listener in list(self._listeners):
                listener(adv_id)

"""Advancements: each player's progress, the triggers the server fires, and the ``advancements`` packet.

The rules (which advancements exist, their criteria and triggers, visibility, the tab layout) are
:mod:`mirrorcraft.rules.advancements`, read from the world's datapacks; this feature feeds it the player's
actions and tells the client. Triggers fired here: ``tick`` (every tick, as vanilla), ``inventory_changed``
(checked every tick against a snapshot of the 41 slots vanilla's trigger looks at: armour, main, hotbar,
off hand) and ``enchanted_item`` (from the enchanting feature). Every completion is published as a
``milestone`` outcome (the ``minecraft:story/*`` ones are the benchmark's milestones) and an
``advancement`` event, runs the ``"advancement_made"`` after-hooks (the admin feature announces it in chat,
``chat.type.advancement.<frame>``, as vanilla's ``PlayerAdvancements.award`` does) and the tree is resent.
A completion by command is announced too but is not a milestone.

Information integrity: the packet carries only the advancement tree, which Mirror packs do not change;
nothing here sends recipes or tags.
"""

from __future__ import annotations

from mirrorcraft.rules.advancements import ItemView, PlayerAdvancements, layout_tree
from mirrorcraft.server import outcomes, wire
from mirrorcraft.server.kernel import Behaviour, Kernel, Player
from mirrorcraft.server.kernel.stacks import Stack, enchantments_of
from mirrorcraft.server.world_rules import WorldRules

ADV_SLOTS = range(5, 46)  # armour, main, hotbar, off hand: the 41 slots vanilla's trigger looks at


class PlayerProgress:
    """One player's advancements and the inventory snapshot the ``inventory_changed`` trigger compares."""

    def __init__(self, advancements: PlayerAdvancements, snapshot: list[Stack | None]) -> None:
        self.advancements = advancements
        self.snapshot = snapshot


def view(s: Stack | None) -> ItemView | None:
    """The rules' view of a stack (item, count, enchantments)."""
    if not s:
        return None
    return ItemView(item=s.item, count=s.count, enchantments=enchantments_of(s))


class Advancements:
    """Advancement progress of every player (kept by name)."""

    def __init__(self, kernel: Kernel, rules: WorldRules) -> None:
        self.kernel = kernel
        self.rules = rules
        self.players: dict[str, PlayerProgress] = {}
        kernel.events.after("forget", lambda b: self.players.pop(b["who"], None))  # Join: bounded
        self._layout: dict[str, tuple[float, float]] | None = None
        kernel.events.after("joined", self._joined)

    def state(self, p: Player) -> PlayerProgress:
        """``p``'s progress (created empty on first use)."""
        st = self.players.get(p.display_name)
        if st is None:
            st = PlayerProgress(PlayerAdvancements(self.rules.packs), list(p.inventory.slots))
            self.players[p.display_name] = st
        return st

    def of(self, p: Player) -> PlayerAdvancements:
        """``p``'s :class:`~mirrorcraft.rules.advancements.PlayerAdvancements`."""
        return self.state(p).advancements

    def _joined(self, b: Behaviour) -> None:
        p = b.player
        st = self.state(p)
        self.send(p, reset=True)
        st.snapshot = list(p.inventory.slots)

    def layout(self) -> dict[str, tuple[float, float]]:
        """Tab positions of the world's advancements (the same for every player; computed once)."""
        if self._layout is None:
            adv = PlayerAdvancements(self.rules.packs)
            self._layout = layout_tree(adv.defs, adv.children)
        return self._layout

    def send(self, p: Player, reset: bool = True) -> None:
        """Send ``p``'s advancement tree and progress (the ``advancements`` packet)."""
        ms = int(round(1000 / self.kernel.config.tick_rate))
        body = wire.advancements(self.of(p), self.layout(), p.protocol_version, reset=reset, ms_per_tick=ms)
        p.send("advancements", body)

    # ---- triggers ----------------------------------------------------------------------------------------

    def tick(self) -> None:
        """The ``tick`` trigger and the ``inventory_changed`` check, for every player."""
        for p in self.kernel.players.values():
            self._inventory_triggers(p, self.state(p))

    def _inventory_triggers(self, p: Player, st: PlayerProgress) -> None:
        now = self.kernel.tick_count
        ticked = st.advancements.tick(now)  # the "tick" trigger fires every tick in vanilla
        if ticked:
            self.completed(p, ticked)
        slots = p.inventory.slots
        changed = [i for i in ADV_SLOTS if slots[i] != st.snapshot[i]]
        st.snapshot = list(slots)
        if not changed:
            return
        views = [view(slots[i]) for i in ADV_SLOTS]
        done: list[str] = []
        for i in changed:
            done += st.advancements.inventory_changed(views, view(slots[i]), now)
        if done:
            self.completed(p, done)

    def enchanted(self, p: Player, item: ItemView, levels: int) -> None:
        """The ``enchanted_item`` trigger (the enchanting feature calls it after a successful enchant)."""
        done = self.of(p).enchanted_item(item, levels, self.kernel.tick_count)
        if done:
            self.completed(p, done)

    def completed(self, p: Player, advancements: list[str]) -> None:
        """Publish completions (milestone outcome + ``advancement`` event each) and resend the tree."""
        for adv in advancements:
            self.kernel.report(outcomes.milestone_event(adv, player=p.display_name))
            self.kernel.emit("advancement", player=p.display_name, advancement=adv)
            self._made(p, adv)
        self.send(p, reset=True)

    def _made(self, p: Player, adv: str) -> None:
        self.kernel.events.notify(
            "advancement_made", p, advancement=adv, display=self.of(p).defs[adv].display
        )

    # ---- commands ------------------------------------------------------------------------------------------

    def grant(self, p: Player, advancement: str, criterion: str) -> bool:
        """``advancement grant ... only <adv> <criterion>``: False when ``p`` already had it. A completion by
        command is published as an ``advancement`` event (``source="command"``), not as a milestone."""
        adv = self.of(p)
        if criterion in adv.progress.get(advancement, {}):
            return False
        if adv.award(advancement, criterion, self.kernel.tick_count):
            self.kernel.emit("advancement", player=p.display_name, advancement=advancement, source="command")
            self._made(p, advancement)
        self.send(p, reset=True)
        return True

    def revoke(self, p: Player, advancement: str, criterion: str) -> bool:
        """``advancement revoke ... only <adv> <criterion>``: False when ``p`` did not have it."""
        adv = self.of(p)
        progress = adv.progress.get(advancement, {})
        if criterion not in progress:
            return False
        del progress[criterion]
        if advancement in adv.completed and not adv.is_done(advancement):
            del adv.completed[advancement]
        self.send(p, reset=True)
        return True

"""Sweet berry bush thorns on the embedded server, against vanilla ``SweetBerryBushBlock.entityInside``: a
player who moves (at least 0.003 along x or z in a tick) inside a bush of age >= 1 is hurt for 1.0, at most
once per 10 ticks (``LivingEntity.invulnerableTime``, shared with every other damage); standing still, an
age-0 bush, creative mode and spawn invulnerability deal nothing; a death says ``death.attack.sweetBerryBush``.
The player moves by real ``position`` packets through the server's movement handler."""

from __future__ import annotations

import json

from support.fakeplayer import FakePlayer, join, send
from support.farm_plots import PLOT_Y, Plot

from mirrorcraft.server.commands import components as C

Y = PLOT_Y


def _ready(plot: Plot) -> list[tuple[int, dict]]:
    """Clear the controls' effects, wait out the spawn invulnerability; returns the (tick, player_hurt) log."""
    g = plot.game
    ex = g.commands.executor
    for cmd in ("effect clear @a", "gamerule naturalRegeneration false"):  # health moves by thorns only
        assert ex.run(ex.console_source(), cmd).success, cmd
    plot.floor(16, 16, 31, 31, "grass_block", y=Y - 1, snowy=False)
    plot.tick(61)
    hurts: list[tuple[int, dict]] = []
    g.listeners.append(lambda e, d: hurts.append((g.tick_count, d)) if e == "player_hurt" else None)
    return hurts


def _walk(plot: Plot, p: FakePlayer, x0: float, x1: float, step: float = 0.1) -> None:
    """One ``position`` packet per tick along x from ``x0`` to ``x1`` at z 20.5."""
    x = x0
    while (x1 - x) * (1 if step > 0 else -1) > 1e-9:
        x = round(x + step, 6)
        send(plot.game, p, "position", x=x, y=float(Y), z=20.5, on_ground=True)
        plot.tick()


def test_walking_through_a_grown_bush_hurts_once_every_ten_ticks(plot: Plot) -> None:
    hurts = _ready(plot)
    p = plot.player
    for x in range(21, 25):
        plot.put((x, Y, 20), "sweet_berry_bush", age=3)
    _walk(plot, p, 20.5, 25.5)  # 50 ticks, 2.6..4.6 blocks of them inside the bush cells
    assert [d["cause"] for _, d in hurts] and {d["cause"] for _, d in hurts} == {"sweetBerryBush"}
    assert all(d["damage"] == 1.0 and d["attacker"] is None for _, d in hurts)
    ticks = [t for t, _ in hurts]
    assert all(b - a == 10 for a, b in zip(ticks, ticks[1:], strict=False)), (
        ticks
    )  # walking on: one hit per cooldown
    # the box overlaps a bush cell for x in (20.7, 25.3): x = 20.8 .. 25.2, 45 ticks → hits on 1st, 11th ... 41st
    assert len(hurts) == 5 and p.health == 15.0
    # standing still inside: nothing
    before = p.health
    plot.put((25, Y, 20), "sweet_berry_bush", age=3)
    plot.tick(40)
    assert p.health == before


def test_young_bushes_creative_players_and_spawn_invulnerability_are_spared(plot: Plot) -> None:
    hurts = _ready(plot)
    p = plot.player
    for x in range(21, 25):
        plot.put((x, Y, 20), "sweet_berry_bush", age=0)
    _walk(plot, p, 20.5, 25.5)
    assert not hurts and p.health == 20.0  # age 0 slows (client physics) but does not hurt
    for x in range(21, 25):
        plot.put((x, Y, 20), "sweet_berry_bush", age=1)
    plot.game.admin.set_game_mode(p, "creative")
    _walk(plot, p, 25.5, 20.5, step=-0.1)
    assert not hurts
    plot.game.admin.set_game_mode(p, "survival")
    late = join(plot.game, FakePlayer("late"), (20.5, float(Y), 20.5))
    _walk(plot, late, 20.5, 23.5)  # 30 ticks: inside its 60 ticks of spawn invulnerability
    assert not hurts
    _walk(plot, late, 23.5, 24.5)  # ticks 31-40 after its join: still spared
    assert not [d for _, d in hurts if d["player"] == "late"]


def test_a_hit_just_taken_covers_the_thorns_and_thorns_can_kill(plot: Plot) -> None:
    hurts = _ready(plot)
    g, p = plot.game, plot.player
    for x in range(21, 25):
        plot.put((x, Y, 20), "sweet_berry_bush", age=2)
    other = join(g, FakePlayer("other"), (20.5, float(Y), 21.5))
    plot.tick(61)
    assert g.pvp.attack(other, p)  # an empty hand deals 1.0 ...
    _walk(plot, p, 20.5, 21.3)  # ... so the thorns' 1.0 inside the same 10 ticks deals nothing
    assert [d["cause"] for _, d in hurts] == ["player"]
    p.health = 1.0
    _walk(plot, p, 21.3, 22.5)
    assert hurts[-1][1]["cause"] == "sweetBerryBush" and g.admin.is_dead(p)
    line = json.loads(other.packets("system_message")[-1].content)
    assert line["translate"] == "death.attack.sweetBerryBush"
    assert C.render(line) == "farmer was poked to death by a sweet berry bush"

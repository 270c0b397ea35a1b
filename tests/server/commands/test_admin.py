"""The admin feature without the network: the controls' game rules are validated when the world loads, and the
day time and effect durations follow the game time, catch-up ticks included (a late reactor)."""

from __future__ import annotations

import shutil

import pytest
from support.fakeplayer import new_game

from mirrorcraft.contracts.episodes import Controls
from mirrorcraft.errors import ContractError
from mirrorcraft.server.game import Game


def _game(sandbox_template, tmp_path, **controls) -> Game:  # noqa: ANN001
    world = tmp_path / "world"
    shutil.copytree(sandbox_template, world)
    return new_game(world, controls=Controls(**controls))


def test_unknown_or_mistyped_game_rules_are_refused(sandbox_template, tmp_path) -> None:
    with pytest.raises(ContractError, match="unknown game rule 'doDaylightCycles'"):
        _game(sandbox_template, tmp_path, game_rules={"doDaylightCycles": False})
    shutil.rmtree(tmp_path / "world")
    with pytest.raises(ContractError, match="randomTickSpeed: True has the wrong type"):
        _game(sandbox_template, tmp_path, game_rules={"randomTickSpeed": True})


def test_day_time_follows_game_time_including_catch_up(sandbox_template, tmp_path) -> None:
    game = _game(sandbox_template, tmp_path, time_of_day=1000, game_rules={"doDaylightCycle": True})
    admin = game.admin
    assert admin.game_rules["doDaylightCycle"] is True and admin.game_rules["keepInventory"] is False
    start = game.tick_count
    game.tick()
    game.kernel.clock.count += 7  # what the clock adds for skipped ticks before running one
    game.tick()
    assert admin.day_time == 1000 + (game.tick_count - start)
    admin.set_game_rule("doDaylightCycle", False)
    game.tick()
    assert admin.day_time == 1000 + (game.tick_count - 1 - start)

"""Lockstep pieces without a server: the body's game-time clock, the CLI's refusals, old run notes.

The live behaviour (barrier, stall bound, equality) is in ``tests/server/test_lockstep.py``; here the body's
:class:`~mirrorcraft.mcproto_body.lockstep.GameTime` is driven by hand on a deterministic Twisted clock.
"""

from __future__ import annotations

from pathlib import Path

from twisted.internet import task

from mirrorcraft.mcproto_body.lockstep import GameTime


def test_game_time_fires_on_ticks_and_moves_pending_calls_back_to_the_reactor() -> None:
    wall = task.Clock()
    wall.advance(100.0)
    gt = GameTime(wall)
    assert gt.seconds() == 100.0 and gt.callLater(1.0, lambda: None) in wall.getDelayedCalls()
    gt.enter()
    gt.rate = 20.0
    fired: list[str] = []
    gt.callLater(0.1, fired.append, "2 ticks")  # 0.1 s of game time at 20 t/s
    cancelled = gt.callLater(0.05, fired.append, "cancelled")
    cancelled.cancel()
    loop = task.LoopingCall(lambda: fired.append(f"loop {gt.seconds():.2f}"))
    loop.clock = gt
    loop.start(0.05, now=False)
    wall.advance(10.0)  # wall time passes, game time does not
    assert gt.seconds() == 100.0 and fired == []
    for n in (7, 8, 9):  # the server announces ticks 7, 8, 9 (the first one is game time's origin)
        gt.advance(n)
        gt.fire_due()
    assert fired[0] == "loop 100.05" and sorted(fired[1:]) == ["2 ticks", "loop 100.10"]
    loop.stop()
    later = gt.callLater(0.25, fired.append, "after lockstep")  # 5 ticks of game time left
    gt.leave()  # evicted or disconnected: back to the reactor, continuing from game time
    assert gt.seconds() == 100.1
    wall.advance(0.2)
    assert "after lockstep" not in fired and later.active()
    wall.advance(0.06)
    assert fired[-1] == "after lockstep" and not later.active()


def test_a_looping_call_a_hair_before_its_interval_waits_for_the_next_tick() -> None:
    wall = task.Clock()
    gt = GameTime(wall)
    gt.enter()
    gt.rate = 20.0
    runs: list[float] = []
    loop = task.LoopingCall(lambda: runs.append(gt.seconds()))
    loop.clock = gt
    loop.start(0.05, now=False)
    for n in range(1, 301):
        gt.advance(n)
        assert gt.fire_due() <= 2  # never a pass that re-fires without end
    loop.stop()
    assert 290 <= len(runs) <= 300


def test_episode_cli_refuses_lockstep_where_it_cannot_work(tmp_path: Path, capsys) -> None:
    from mirrorcraft.run import main

    out = tmp_path / "out"
    assert main(["episode", "--clock", "lockstep", "--server", "vanilla", "--out", str(out)]) == 2
    capsys.readouterr()  # (the vanilla preflight names the missing jar first)
    assert main(["episode", "--agent", "external", "--clock", "lockstep", "--out", str(out)]) == 2
    assert main(["episode", "--unpaced", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "an external agent's client cannot take part" in err and "--unpaced needs --clock lockstep" in err
    assert not out.exists()


def test_old_run_notes_load_as_free_running() -> None:
    from mirrorcraft.study.runner import RunnerSettings, RunNotes, _clock_mode

    notes = RunNotes.model_validate({"episode_id": "e", "world_id": "w"})
    assert notes.clock == "free" and notes.lockstep == {}
    assert _clock_mode(RunnerSettings()) == "free"
    assert _clock_mode(RunnerSettings(clock="lockstep", lockstep_paced=False)) == "lockstep-unpaced"


def test_the_clock_mode_from_the_environment(monkeypatch) -> None:
    import pytest

    from mirrorcraft.study.runner import ENV_CLOCK, RunnerSettings

    monkeypatch.setenv(ENV_CLOCK, "lockstep-unpaced")
    s = RunnerSettings.from_env()
    assert s.clock == "lockstep" and not s.lockstep_paced
    monkeypatch.setenv(ENV_CLOCK, "lockstep")
    assert RunnerSettings.from_env().lockstep_paced
    monkeypatch.setenv(ENV_CLOCK, "fast")
    with pytest.raises(ValueError, match=ENV_CLOCK):
        RunnerSettings.from_env()

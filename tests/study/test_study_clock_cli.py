"""The study CLI's clock and concurrency flags (issue 23, phase 2).

Episodes are the synthetic ones of ``study_episode_fn`` (not games: the game side is
tests/study/test_study_concurrency.py); the CLI, the run folder's manifest, the store and the driver are
the real ones. What the runner would be given is read back with the runner's own
``RunnerSettings.from_env`` inside the episode function.
"""

from __future__ import annotations

import json
import os

import pytest
from support.study_episode_fn import synthetic_episode

from mirrorcraft.contracts import StudyGrid
from mirrorcraft.study import report_cli, run_study
from mirrorcraft.study.grid import RUN_SETTINGS_FILE
from mirrorcraft.study.report_cli import main as cli_main
from mirrorcraft.study.runner import ENV_CLOCK, ENV_MODEL_CALLS, ENV_TICK_RATE, RunnerSettings

FN = ["--episode-fn", "support.study_episode_fn:synthetic_episode", "--no-progress"]


@pytest.fixture
def seen(monkeypatch) -> list[RunnerSettings]:
    """Run the synthetic episode through a callable that records the runner settings of the environment."""
    out: list[RunnerSettings] = []

    def episode(identity):
        out.append(RunnerSettings.from_env())
        return synthetic_episode(identity)

    real = report_cli.resolve_callable
    monkeypatch.setattr(
        report_cli, "resolve_callable", lambda spec: episode if "synthetic" in spec else real(spec)
    )
    for name in (ENV_CLOCK, ENV_TICK_RATE, ENV_MODEL_CALLS):
        monkeypatch.delenv(name, raising=False)
    return out


def test_a_study_runs_in_lockstep_unpaced_by_default_and_records_it(tmp_path, seen) -> None:
    run = tmp_path / "run"
    assert cli_main(["study", "smoke", "--run-dir", str(run), "--workers", "0", *FN]) == 0
    assert json.loads((run / RUN_SETTINGS_FILE).read_text()) == {
        "clock": "lockstep-unpaced",
        "tick_rate": 20.0,
    }
    assert len(seen) == 3
    assert all(s.clock == "lockstep" and not s.lockstep_paced and s.max_model_calls == 16 for s in seen)
    assert ENV_CLOCK not in os.environ  # the session's settings are not left behind


@pytest.mark.parametrize(
    ("argv", "clock", "paced", "stored"),
    [
        (["--clock", "lockstep"], "lockstep", True, "lockstep"),
        (["--clock", "lockstep", "--unpaced"], "lockstep", False, "lockstep-unpaced"),
        (["--clock", "free"], "free", True, "free"),
    ],
)
def test_the_clock_flags_reach_the_runner(tmp_path, seen, argv, clock, paced, stored) -> None:
    run = tmp_path / "run"
    argv = ["study", "smoke", "--run-dir", str(run), "--workers", "0", "--tick-rate", "40", *argv, *FN]
    assert cli_main(argv) == 0
    assert {(s.clock, s.lockstep_paced, s.tick_rate) for s in seen} == {(clock, paced, 40.0)}
    assert json.loads((run / RUN_SETTINGS_FILE).read_text()) == {"clock": stored, "tick_rate": 40.0}


def test_concurrency_and_model_calls_reach_the_executor_and_the_runner(tmp_path, seen) -> None:
    run = tmp_path / "run"
    argv = ["study", "smoke", "--run-dir", str(run), "--workers", "0", "--concurrency", "3"]
    assert cli_main([*argv, "--max-model-calls", "5", *FN]) == 0
    assert len(seen) == 3 and {s.max_model_calls for s in seen} == {5}
    assert len((run / "results.jsonl").read_text().splitlines()) == 3


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--concurrency", "0"], "--concurrency 0: at least 1 episode per process"),
        (["--max-model-calls", "0"], "--max-model-calls 0: at least 1"),
        (["--clock", "free", "--unpaced"], "--unpaced needs --clock lockstep"),
        (["--clock", "lockstep", "--server", "vanilla"], "--clock lockstep needs the embedded server"),
        (["--tick-rate", "0"], "--tick-rate 0: expected 0 < N <= 1000"),
        (["--lockstep-timeout", "-1"], "--lockstep-timeout -1: expected seconds > 0"),
        (["--workers", "-1"], "--workers -1: 0 (in the driver) or more"),
    ],
)
def test_usage_errors_exit_2_before_anything_is_written(tmp_path, capsys, seen, argv, message) -> None:
    run = tmp_path / "run"
    assert cli_main(["study", "smoke", "--run-dir", str(run), *argv, *FN]) == 2
    assert message in capsys.readouterr().err
    assert not run.exists() and seen == []


def test_a_resume_with_another_clock_is_refused(tmp_path, capsys, seen) -> None:
    run = tmp_path / "run"
    assert cli_main(["study", "smoke", "--run-dir", str(run), "--workers", "0", *FN]) == 0
    before = (run / "results.jsonl").read_bytes()
    capsys.readouterr()
    assert cli_main(["study", "smoke", "--run-dir", str(run), "--resume", "--clock", "free", *FN]) == 1
    err = capsys.readouterr().err
    assert "started with other settings (clock: started with 'lockstep-unpaced', now 'free')" in err
    assert "--tick-rate" not in err and (run / "results.jsonl").read_bytes() == before
    argv = ["study", "smoke", "--run-dir", str(run), "--resume", "--clock", "lockstep", *FN]
    assert cli_main(argv) == 1  # paced is another clock too
    assert cli_main(["study", "smoke", "--run-dir", str(run), "--resume", "--tick-rate", "100", *FN]) == 1
    assert "tick_rate: started with 20.0, now 100.0" in capsys.readouterr().err
    assert cli_main(["study", "smoke", "--run-dir", str(run), "--resume", *FN]) == 0  # the same settings


def test_a_folder_from_before_the_manifest_resumes_only_free_running(tmp_path, capsys, seen) -> None:
    run = tmp_path / "old"
    grid = StudyGrid.smoke()
    # A first session as before this change: no run_settings.json, the runner's default clock (free).
    run_study(run, grid, synthetic_episode, progress=False, max_attempts=1)
    (run / "results.jsonl").write_text((run / "results.jsonl").read_text().splitlines()[0] + "\n")
    assert cli_main(["study", "smoke", "--run-dir", str(run), "--resume", *FN]) == 1
    assert "clock: started with 'free', now 'lockstep-unpaced'" in capsys.readouterr().err
    assert cli_main(["study", "smoke", "--run-dir", str(run), "--resume", "--clock", "free", *FN]) == 0
    assert json.loads((run / RUN_SETTINGS_FILE).read_text())["clock"] == "free"


def test_a_threaded_worker_that_dies_faults_its_episodes_which_are_retried(tmp_path, monkeypatch) -> None:
    from support.study_episode_fn import crashing_episode

    from mirrorcraft.metrics.results import load_final_records
    from mirrorcraft.study.executors import LocalExecutor

    grid = StudyGrid.smoke()
    ids = [i.episode_id for i in grid.expand()]
    monkeypatch.setenv("MC_TEST_CRASH_ID", ids[1])
    monkeypatch.setenv("MC_TEST_FAULT_DIR", str(tmp_path))
    monkeypatch.setenv("MC_TEST_EPISODE_SLEEP", "1.0")  # the three are in flight together when it dies
    run = tmp_path / "run"
    summary = run_study(run, grid, crashing_episode, executor=LocalExecutor(1, concurrency=3), progress=False)
    assert summary.finished and summary.final_faults == 0
    lines = (run / "results.jsonl").read_text().splitlines()
    faults = [json.loads(x) for x in lines if json.loads(x)["infrastructure_faults"]]
    assert ids[1] in {f["episode_id"] for f in faults} and summary.retried == len(faults) >= 1
    assert all(
        "worker process died (exit code 3)" in f["infrastructure_faults"][0]["message"] for f in faults
    )
    records, _ = load_final_records(run)
    assert sorted(r.model_dump_json() for r in records) == sorted(
        synthetic_episode(i).model_dump_json() for i in grid.expand()
    )

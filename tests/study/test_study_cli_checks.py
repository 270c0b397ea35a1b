"""Validation before spending, model runtimes in grids, all-fault studies and the study cost cap.

Episodes are the synthetic ones of ``study_episode_fn`` (not games); the CLI, the grid loader, the store and
the driver are the real ones.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from support.study_episode_fn import synthetic_episode

from mirrorcraft.contracts import EpisodeIdentity, ModelSettings, StudyGrid
from mirrorcraft.errors import ContractError
from mirrorcraft.metrics.results import scan_results
from mirrorcraft.metrics.synthetic import fault_record
from mirrorcraft.study import expand_grid, run_study
from mirrorcraft.study.grid import GridError, load_study, validate_grid
from mirrorcraft.study.report_cli import COST_CAP_EXIT
from mirrorcraft.study.report_cli import main as cli_main
from mirrorcraft.study.runner import ENV_LLM, RunnerSettings, RunNotes, build_agent

BASE = {
    "name": "checks",
    "worlds": ["plains-1"],
    "tasks": ["diamond"],
    "models": [{"name": "model-a", "api_base": "http://127.0.0.1:9/v1"}],
    "configurations": ["react"],
    "repetitions": 1,
    "suites": ["M01", "M02"],
    "disclosed_configurations": [],
}
FN = ["--episode-fn", "support.study_episode_fn:synthetic_episode", "--no-progress"]


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    monkeypatch.delenv(ENV_LLM, raising=False)  # the study CLI exports it; restore after each test


def _yaml(tmp_path: Path, **fields) -> Path:
    path = tmp_path / "grid.yaml"
    path.write_text(yaml.safe_dump(BASE | fields))
    return path


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"worlds": ["nowhere-1"]}, "worlds: 'nowhere-1' is not a catalogue world"),
        ({"configurations": ["reactt"]}, "configurations: unknown configuration 'reactt'"),
        (
            {"configurations": ["voyager"], "disclosed_configurations": ["voyager"]},
            "disclosed_configurations: rule disclosure is defined for ReAct only",
        ),
        ({"disclosed_configurations": ["adam"]}, "disclosed_configurations: 'adam' is not in configurations"),
        ({"tasks": ["nether"]}, "tasks.0: Input should be 'iron_armor', 'diamond' or 'enchantment'"),
        ({"suites": ["M09"]}, "suites.0: Input should be"),
    ],
)
def test_a_grid_naming_what_does_not_exist_is_refused_before_anything_runs(tmp_path, capsys, fields, message):
    run = tmp_path / "run"
    code = cli_main(["study", str(_yaml(tmp_path, **fields)), "--run-dir", str(run), *FN])
    err = capsys.readouterr().err
    assert code == 2 and message in err and err.count("\n") == 1, err
    assert not run.exists()


def test_presets_validate():
    for preset in ("main", "smoke", "horizon"):
        validate_grid(load_study(preset)[0])
    with pytest.raises(GridError, match="worlds"):
        validate_grid(StudyGrid.model_validate(BASE | {"models": [{"name": "m"}], "worlds": ["sandbox"]}))


def test_model_runtime_fields_of_a_grid(tmp_path, capsys):
    models = [
        {
            "name": "openai/qwen",
            "temperature": 0.3,
            "api_base": "http://127.0.0.1:8000/v1",
            "timeout_s": 30,
            "max_retries": 1,
            "max_cost_usd": 0.5,
            "input_cost_per_token": 0,
            "output_cost_per_token": 0,
        }
    ]
    grid, runtimes = load_study(_yaml(tmp_path, models=models))
    assert grid.models == [ModelSettings(name="openai/qwen", temperature=0.3)]  # the identity is unchanged
    assert runtimes["openai/qwen"].overrides() == {
        k: v for k, v in models[0].items() if k not in ("name", "temperature")
    }
    run = tmp_path / "run"
    assert (
        cli_main(["study", str(tmp_path / "grid.yaml"), "--run-dir", str(run), "--llm-retries", "0", *FN])
        == 0
    )
    stored = json.loads((run / "grid.json").read_text())
    assert "api_base" not in json.dumps(stored)  # grid.json keeps the grid only
    # What the workers read (RunnerSettings.from_env), CLI flags over the grid's fields:
    settings = RunnerSettings.from_env()
    assert settings.llm["openai/qwen"]["api_base"] == "http://127.0.0.1:8000/v1"
    assert settings.llm["openai/qwen"]["max_retries"] == 0 and settings.llm["openai/qwen"]["timeout_s"] == 30
    # ... and the runner builds the agent's client with them.
    ident = expand_grid(grid)[1]
    agent, _ = build_agent(ident, settings, RunNotes(episode_id=ident.episode_id, world_id=ident.world_id))
    s = agent.llm.settings
    assert (s.api_base, s.timeout_s, s.max_retries, s.max_cost_usd) == (
        "http://127.0.0.1:8000/v1",
        30,
        0,
        0.5,
    )
    with pytest.raises(ContractError, match=r"models\.0 \(openai/qwen\): timeout_s"):
        load_study(_yaml(tmp_path, models=[{"name": "openai/qwen", "timeout_s": -1}]))


def test_a_missing_key_or_price_is_a_usage_error_before_anything_starts(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    run = tmp_path / "run"
    grid = _yaml(tmp_path, models=[{"name": "openai/gpt-4o-mini"}])
    assert cli_main(["study", str(grid), "--run-dir", str(run), *FN]) == 2
    err = capsys.readouterr().err
    assert err == (
        "study: model openai/gpt-4o-mini: environment variable OPENAI_API_KEY is not set; export it, or give "
        "--api-base for a local endpoint\n"
    )
    assert not run.exists()
    # A local endpoint needs no key, but a cost cap needs its price.
    local = _yaml(tmp_path, models=[{"name": "openai/qwen", "api_base": "http://127.0.0.1:8000/v1"}])
    assert cli_main(["study", str(local), "--run-dir", str(run), "--max-cost", "1", *FN]) == 2
    assert "litellm knows no price for it, so --max-cost cannot be enforced" in capsys.readouterr().err
    assert not run.exists()
    assert cli_main(["study", str(local), "--run-dir", str(run), "--dry-run"]) == 0  # a dry run checks no key


def test_a_study_whose_episodes_all_fault_exits_non_zero(tmp_path, capsys):
    run = tmp_path / "run"
    fn = [
        "--episode-fn",
        "support.study_episode_fn:always_faulting_episode",
        "--no-progress",
        "--max-attempts",
        "1",
    ]
    assert cli_main(["study", str(_yaml(tmp_path)), "--run-dir", str(run), *fn]) == 1
    assert "every episode ended in an infrastructure fault" in capsys.readouterr().err
    assert len(scan_results(run / "results.jsonl").final()) == 3


GRID = StudyGrid.model_validate(BASE | {"models": [{"name": "model-a"}], "worlds": ["plains-1", "taiga-1"]})


def test_the_study_cost_cap_stops_cleanly_and_resumes(tmp_path):
    costs = [r.usage.cost_usd for r in map(synthetic_episode, expand_grid(GRID))]
    run = tmp_path / "run"
    # Without a per-episode cap: no episode starts once the cap is reached.
    first = run_study(run, GRID, synthetic_episode, progress=False, max_cost_usd=costs[0] + 1e-9)
    assert first.stopped_by_cost and first.completed == 2 and not first.finished
    assert first.cost_usd == pytest.approx(costs[0] + costs[1])
    again = run_study(run, GRID, synthetic_episode, resume=True, progress=False, max_cost_usd=costs[0])
    assert again.stopped_by_cost and again.completed == 0  # the same cap: nothing more
    rest = run_study(run, GRID, synthetic_episode, resume=True, progress=False, max_cost_usd=100.0)
    assert rest.finished and not rest.stopped_by_cost and rest.cost_usd == pytest.approx(sum(costs))
    # With a per-episode cap the study never exceeds its own: an episode starts only if the cap still holds
    # when it spends its whole episode cap.
    capped = run_study(
        tmp_path / "capped", GRID, synthetic_episode, progress=False, max_cost_usd=0.5, episode_cost_usd=0.2
    )
    assert capped.stopped_by_cost and capped.cost_usd <= 0.5


def test_the_study_cli_exits_3_at_its_cost_cap(tmp_path, capsys):
    run = tmp_path / "run"
    grid = _yaml(tmp_path)
    assert (
        cli_main(["study", str(grid), "--run-dir", str(run), "--max-study-cost", "0.0001", *FN])
        == COST_CAP_EXIT
    )
    err = capsys.readouterr().err
    assert "cost cap reached" in err and "Resume later with --resume and a higher --max-study-cost" in err
    assert cli_main(["study", str(grid), "--run-dir", str(run), "--resume", *FN]) == 0


def test_a_cost_capped_episode_is_final_at_once(tmp_path):
    ident: EpisodeIdentity = expand_grid(GRID)[0]
    attempts = []

    def capped(identity):
        attempts.append(identity.episode_id)
        rec = fault_record(identity, "other", "model call failed: CostCapError: cost cap reached: $0.5 spent")
        return rec.model_copy(update={"usage": rec.usage.model_copy(update={"cost_usd": 0.5})})

    one = StudyGrid.model_validate(GRID.model_dump() | {"worlds": ["plains-1"], "suites": []})
    summary = run_study(tmp_path / "run", one, capped, progress=False, max_attempts=3)
    assert attempts == [ident.episode_id]  # not retried: a retry would spend the cap again
    assert summary.final_faults == 1 and summary.cost_usd == 0.5 and summary.all_faults

"""The ``episode`` command's parser and identities, and the one-reactor-per-process entry point.

The blocking entry (:func:`mirrorcraft.study.runner.make_episode_fn`) is exercised in a fresh Python process
(this test process already runs pytest-twisted's reactor): several episodes go through the same reactor
thread. The fast form uses episodes that fault before any server starts (missing world); the slow form plays
two real one-action episodes on the embedded server one after the other on that one reactor.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from runner_support import build_worlds

from mirrorcraft.contracts import derive_seed
from mirrorcraft.study.episode_cli import _identity, add_episode_parser, default_grid


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_episode_parser(parser.add_subparsers())
    return parser.parse_args(["episode", *argv])


def test_episode_arguments_build_the_identity() -> None:
    args = _parse(
        ["--world", "plains-1/M03", "--task", "iron_armor", "--budget", "7", "--seed", "5", "--rep", "2"]
    )
    ident = _identity(args)
    assert (ident.world, ident.suite, ident.task.value, ident.budget) == ("plains-1", "M03", "iron_armor", 7)
    assert ident.agent == "scripted" and ident.model.name == "scripted"
    assert ident.seed == derive_seed(5, "plains-1", "*", "iron_armor", 2)
    assert _identity(_parse(["--task", "enchantment"])).budget == 75  # the task's default budget


def test_llm_agent_needs_a_model_and_disclosure_needs_a_suite() -> None:
    from mirrorcraft.errors import MirrorCraftError

    with pytest.raises(MirrorCraftError, match="--model"):
        _identity(_parse(["--agent", "react"]))
    with pytest.raises(ValueError, match="Mirror-only"):
        _identity(_parse(["--agent", "react", "--model", "gpt-4o-mini", "--disclosed"]))


def test_default_job_grid_is_scripted_diamond_in_plains_1_and_six_mirror_copies() -> None:
    ids = default_grid().expand()
    assert [i.world_id for i in ids] == ["plains-1"] + [f"plains-1/M0{k}" for k in range(1, 7)]
    assert {i.task.value for i in ids} == {"diamond"} and {i.budget for i in ids} == {50}
    assert len({i.seed for i in ids}) == 1


SCRIPT = textwrap.dedent(
    """
    import json, sys, threading
    from pathlib import Path
    from mirrorcraft.contracts import EpisodeIdentity, ModelSettings
    from mirrorcraft.study import runner_reactor
    from mirrorcraft.study.runner import RunnerSettings, make_episode_fn

    worlds, suites, build = Path(sys.argv[1]), sys.argv[2].split(","), sys.argv[3] == "1"
    fn = make_episode_fn(RunnerSettings(worlds_dir=worlds, build_missing=build, work_dir=worlds.parent))
    out = []
    for s in suites:
        ident = EpisodeIdentity(world="plains-1", suite=None if s == "V" else s, task="diamond", budget=1,
                                agent="scripted", model=ModelSettings(name="scripted", temperature=0.0),
                                repetition=0, study_seed=0)
        rec = fn(ident)
        out.append({"id": rec.episode_id, "faults": [f.kind for f in rec.infrastructure_faults],
                    "actions": rec.outcome.actions_used, "thread": runner_reactor.reactor_thread().ident})
    # The reactor thread refuses to block on itself.
    from twisted.internet import reactor, threads
    async def inner():
        return 1
    def on_reactor():
        try:
            runner_reactor.call_on_reactor(inner)
        except Exception as err:
            return type(err).__name__
        return "no error"
    out.append(threads.blockingCallFromThread(reactor, on_reactor))
    print(json.dumps(out))
    """
)


def _run_script(worlds: Path, suites: str, build: bool, timeout: float) -> list:
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(worlds), suites, "1" if build else "0"],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_one_reactor_thread_serves_many_episodes_in_a_process(tmp_path) -> None:
    out = _run_script(tmp_path / "no-worlds", "V,M01,M02", build=False, timeout=120)
    *episodes, refusal = out
    assert [e["faults"] for e in episodes] == [["server_error"]] * 3
    assert len({e["thread"] for e in episodes}) == 1
    assert refusal == "ContractError"


@pytest.mark.slow
def test_two_real_episodes_on_one_reactor_thread(tmp_path) -> None:
    worlds = build_worlds(tmp_path / "worlds", ["plains-1", "plains-1/M02"])
    *episodes, refusal = _run_script(worlds, "V,M02", build=False, timeout=600)
    assert [e["faults"] for e in episodes] == [[], []] and [e["actions"] for e in episodes] == [1, 1]
    assert len({e["thread"] for e in episodes}) == 1 and refusal == "ContractError"


def test_agent_choice_for_llm_and_scripted_identities() -> None:
    from mirrorcraft.agents import ReactRulesAgent, ScriptedAgent
    from mirrorcraft.contracts import EpisodeIdentity, ModelSettings, load_suite
    from mirrorcraft.study.runner import RunnerSettings, RunNotes, build_agent

    def ident(model: str, disclosure: str) -> EpisodeIdentity:
        return EpisodeIdentity(world="plains-1", suite="M01", task="diamond", budget=3, agent="react",
                               model=ModelSettings(name=model), disclosure=disclosure, repetition=0,
                               study_seed=0)  # fmt: skip

    notes = RunNotes(episode_id="x", world_id="plains-1/M01")
    agent, cards = build_agent(ident("openai/gpt-4o-mini", "disclosed"), RunnerSettings(), notes)
    assert isinstance(agent, ReactRulesAgent) and cards == [load_suite("M01").card_text()]
    assert notes.agent_registry_id == "react-rules" and notes.rule_cards_given
    # The smoke grid's model "scripted" selects the offline policy, which plays without rule cards.
    notes = RunNotes(episode_id="y", world_id="plains-1/M01")
    agent, cards = build_agent(ident("scripted", "disclosed"), RunnerSettings(), notes)
    assert isinstance(agent, ScriptedAgent) and cards is None and not notes.rule_cards_given
    assert notes.notes == ["scripted policy refuses rule cards: disclosed episode played without them"]

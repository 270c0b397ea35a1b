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
from support.runner_support import build_worlds

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


# -- the CLI without traps (issue 22, part 2) -------------------------------------------------------------------


def _walk(parser: argparse.ArgumentParser):
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _walk(sub)


def test_no_parser_accepts_abbreviations(capsys) -> None:
    from mirrorcraft.run import build_parser, main

    parsers = list(_walk(build_parser()))
    assert len(parsers) > 15 and all(p.allow_abbrev is False for p in parsers), [
        p.prog for p in parsers if p.allow_abbrev
    ]
    # serve --rcon-password X used to mean --rcon-password-file X (argparse's prefix matching).
    with pytest.raises(SystemExit) as info:
        main(["serve", "--world", "sandbox", "--rcon-password", "X"])
    assert info.value.code == 2 and "unrecognized arguments: --rcon-password" in capsys.readouterr().err


def test_usage_errors_of_episode_write_nothing_and_start_nothing(tmp_path, capsys, monkeypatch) -> None:
    from mirrorcraft.run import main

    out = tmp_path / "out"
    assert main(["episode", "--world", "sandbox", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert (
        err.startswith("episode: --world sandbox: the sandbox is a debug world for `serve`")
        and err.count("\n") == 1
    )
    assert main(["episode", "--world", "plains-9/M01", "--out", str(out)]) == 2
    assert "not a catalogue world" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        main(["episode", "--agent", "reactt", "--out", str(out)])
    assert info.value.code == 2 and "invalid choice: 'reactt'" in capsys.readouterr().err
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert main(["episode", "--agent", "react", "--model", "openai/gpt-4o-mini", "--out", str(out)]) == 2
    assert capsys.readouterr().err == (
        "episode: model openai/gpt-4o-mini: environment variable OPENAI_API_KEY is not set; export it, or give "
        "--api-base for a local endpoint\n"
    )
    assert main(["episode", "--agent", "react", "--model", "openai/qwen", "--api-base", "http://127.0.0.1:9/v1",
                 "--max-cost", "1", "--out", str(out)]) == 2  # fmt: skip
    assert "--input-cost-per-token" in capsys.readouterr().err
    assert not out.exists()


def test_episode_help_and_list_name_every_configuration(capsys) -> None:
    from mirrorcraft.run import list_lines, main
    from mirrorcraft.study.grid import configuration_ids

    with pytest.raises(SystemExit):
        main(["episode", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert (
        "agent configuration: direct, react, reflexion, voyager, xenon, adam, direct_llm, scripted"
        in help_text
    )
    assert "--api-base" in help_text and "(default 60)" in help_text and "3 attempts" in help_text
    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == list_lines()
    kinds = [line.split()[0] for line in lines]
    assert kinds.count("configuration") == len(configuration_ids()) + 1  # + react_w_rules
    assert (kinds.count("task"), kinds.count("world"), kinds.count("suite")) == (3, 10, 6)
    assert "suite         M03             Yield expansion (5 rules)" in lines
    assert main(["list", "worlds"]) == 0 and len(capsys.readouterr().out.splitlines()) == 10


def test_episode_llm_flags_reach_the_runner(tmp_path) -> None:
    from mirrorcraft.study.episode_cli import _settings

    args = _parse(["--agent", "react", "--model", "openai/qwen", "--api-base", "http://127.0.0.1:9/v1",
                   "--timeout", "7", "--retries", "0"])  # fmt: skip
    settings = _settings(args, tmp_path, _identity(args))
    assert settings.llm == {
        "openai/qwen": {"api_base": "http://127.0.0.1:9/v1", "timeout_s": 7.0, "max_retries": 0}
    }

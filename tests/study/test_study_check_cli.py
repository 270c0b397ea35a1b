"""The ``check`` command's parser (:mod:`mirrorcraft.study.check_cli`): subcommands, flags and handlers."""

from __future__ import annotations

import argparse


def test_check_parser() -> None:
    from mirrorcraft.study.check_cli import add_check_parser, cmd_observations, cmd_reachability

    parser = argparse.ArgumentParser()
    add_check_parser(parser.add_subparsers())
    args = parser.parse_args(
        ["check", "reachability", "--world", "sandbox", "--task", "diamond", "--kinds", "M02"]
    )
    assert args.handler is cmd_reachability and args.task == "diamond" and args.kinds == "M02"
    args = parser.parse_args(["check", "observations"])
    assert args.handler is cmd_observations and args.world == "sandbox"


def test_reachability_runs_accelerated_by_default() -> None:
    # issue 21: at 20 t/s the sandbox table took about an hour; real time stays one flag away
    from mirrorcraft.study.check_cli import REACHABILITY_TICK_RATE, add_check_parser

    parser = argparse.ArgumentParser()
    add_check_parser(parser.add_subparsers())
    assert parser.parse_args(["check", "reachability"]).tick_rate == REACHABILITY_TICK_RATE == 400.0
    assert parser.parse_args(["check", "reachability", "--tick-rate", "20"]).tick_rate == 20.0

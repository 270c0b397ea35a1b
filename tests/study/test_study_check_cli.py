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

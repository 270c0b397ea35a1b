"""A random agent in a MirrorCraft Gymnasium env (issue 27): reset and step wall times, game ticks per second.

Builds the catalogue world ``plains-1`` with ``--radius`` (48: about a second) under ``--worlds`` if it is
missing, then plays ``--episodes`` full-budget episodes of ``--env`` in discrete mode with uniformly random
menu actions (seeded: episode k uses seed k), lockstep unpaced. Prints per episode the end reason, Score and
actions, then the mean reset time (after the first, which includes the reactor start), the step times, and
the game ticks the steps used (from the records, since observations hide ``ticks_used``) per wall second.

    python benchmarks/env_random_agent.py [--env MirrorCraft-Diamond-v0] [--episodes 2] [--worlds DIR]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--env", default="MirrorCraft-Diamond-v0")
    ap.add_argument("--episodes", type=int, default=2)
    ap.add_argument("--worlds", type=Path, default=None, help="catalogue folder (default: a temporary one)")
    ap.add_argument("--radius", type=int, default=48)
    args = ap.parse_args()

    import gymnasium as gym

    import mirrorcraft.envs  # noqa: F401 - registers the ids

    worlds = args.worlds or Path(tempfile.mkdtemp(prefix="env-bench-"))
    env = gym.make(args.env, worlds_dir=worlds, world_radius=args.radius, action_mode="discrete")
    resets: list[float] = []
    steps: list[float] = []
    ticks = 0
    for ep in range(args.episodes):
        t = time.monotonic()
        env.reset(seed=ep)
        resets.append(time.monotonic() - t)
        env.action_space.seed(ep)
        while True:
            t = time.monotonic()
            _, _, terminated, truncated, info = env.step(env.action_space.sample())
            steps.append(time.monotonic() - t)
            if terminated or truncated:
                record = env.unwrapped.last_record
                ticks += sum(s.report.ticks_used for s in record.trajectory)
                print(
                    f"episode {ep}: {info['end_reason']}, Score {info['score']}, {info['actions_used']} actions"
                )
                break
    env.close()
    later = resets[1:] or resets
    print(
        f"reset {statistics.mean(later):.2f} s (first {resets[0]:.2f} s, world build included if missing); "
        f"{len(steps)} steps: mean {statistics.mean(steps):.2f} s, median {statistics.median(steps):.2f} s, "
        f"max {max(steps):.2f} s; {ticks} game ticks in {sum(steps):.1f} s of steps = "
        f"{ticks / sum(steps):.0f} ticks/s (real time: 20)"
    )


if __name__ == "__main__":
    main()

"""mirrorcraft.envs — the benchmark's tasks as Gymnasium environments (docs/envs.md).

Importing this package registers, with ``gymnasium.register``:

* ``MirrorCraft-IronArmor-v0`` (:class:`~mirrorcraft.envs.core.IronArmorEnv`),
* ``MirrorCraft-Diamond-v0`` (:class:`~mirrorcraft.envs.core.DiamondEnv`),
* ``MirrorCraft-Enchantment-v0`` (:class:`~mirrorcraft.envs.core.EnchantmentEnv`);
* the team scenarios ``PillagerBench-MushroomWar-v0`` and ``PillagerBench-DashAndDine-v0``
  (:mod:`mirrorcraft.envs.team`: one player controlled, the others by named built-in systems).

``gymnasium.make("mirrorcraft.envs:MirrorCraft-Diamond-v0", ...)`` imports it on the way (useful in the
spawned workers of ``AsyncVectorEnv``); :func:`~mirrorcraft.envs.vector.make_vector` builds that vector env
with the two settings it needs (spawn, no shared memory). No time limit wrapper is registered: the env truncates at its own
action budget, which invalid actions do not consume.
"""

from __future__ import annotations

import gymnasium

from mirrorcraft.envs.core import (
    DiamondEnv,
    EnchantmentEnv,
    EnvSetupError,
    IronArmorEnv,
    MirrorCraftEnv,
    check_world_id,
)
from mirrorcraft.envs.menu import MenuEntry, action_menu
from mirrorcraft.envs.spaces import JSON_CHARSET, item_vocabulary, max_observation_chars
from mirrorcraft.envs.team import DashAndDineEnv, MushroomWarEnv, TeamEnv
from mirrorcraft.envs.vector import make_vector

#: Registered id → env class.
ENV_IDS: dict[str, type[MirrorCraftEnv]] = {
    "MirrorCraft-IronArmor-v0": IronArmorEnv,
    "MirrorCraft-Diamond-v0": DiamondEnv,
    "MirrorCraft-Enchantment-v0": EnchantmentEnv,
}

#: The team-scenario envs (PillagerBench): free-running, so registered as nondeterministic.
TEAM_ENV_IDS: dict[str, type[TeamEnv]] = {
    "PillagerBench-MushroomWar-v0": MushroomWarEnv,
    "PillagerBench-DashAndDine-v0": DashAndDineEnv,
}

for _id, _cls in (ENV_IDS | TEAM_ENV_IDS).items():
    if _id not in gymnasium.registry:
        gymnasium.register(
            id=_id,
            entry_point=f"{_cls.__module__}:{_cls.__name__}",
            nondeterministic=_id in TEAM_ENV_IDS,
            order_enforce=True,
        )

__all__ = [
    "ENV_IDS",
    "TEAM_ENV_IDS",
    "DashAndDineEnv",
    "MushroomWarEnv",
    "TeamEnv",
    "JSON_CHARSET",
    "DiamondEnv",
    "EnchantmentEnv",
    "EnvSetupError",
    "IronArmorEnv",
    "MenuEntry",
    "MirrorCraftEnv",
    "action_menu",
    "check_world_id",
    "item_vocabulary",
    "make_vector",
    "max_observation_chars",
]

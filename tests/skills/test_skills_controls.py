"""Information integrity in a Mirror copy and the paired-observation control, on the embedded server.

The Mirror copy is made the catalogue's way (:func:`~mirrorcraft.worlds.copies.make_world_copy`: the M02
pack built from ``load_suite("M02")`` into ``datapacks/`` and enabled in ``level.dat``); the controls get
their copies from :class:`~mirrorcraft.worlds.copies.WorldCopies` and their servers from the ``check``
command's embedded launcher. The M02 rule
"a log drops 4 planks" is triggered on purpose to prove the pack is live; then every serialized
observation, every outcome report and every string reachable from the body's attributes is searched for
suite ids, the pack, datapack/loot-table words, the ``mirrorcraft`` namespace and the world's folder name.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import pytest_twisted
from support.skills_support import session
from twisted.internet import defer

from mirrorcraft.contracts import find_leaks
from mirrorcraft.mcproto_body import DROPPED_PACKETS
from mirrorcraft.skills import ActionHistory
from mirrorcraft.skills.controls import NEUTRAL_SEQUENCE, paired_observations
from mirrorcraft.study.check_cli import embedded_launcher
from mirrorcraft.worlds.copies import WorldCopies, make_world_copy

SECRET_FOLDER = "sandbox-mirror-M02-secret"
FORBIDDEN = ("M02", "mirrorcraft", "datapack", "loot", "rules.zip", SECRET_FOLDER, "log_drops_four_planks")


@pytest.fixture
def sandbox(sandbox_template: Path) -> Path:
    return sandbox_template  # read only: every control plays in a fresh copy


def _strings(obj: Any, seen: set[int], depth: int = 0) -> list[str]:
    """Every string reachable from ``obj`` through attributes, dicts and sequences (bounded depth)."""
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, bytes):
        return [obj.decode("latin-1")]
    if depth > 6 or id(obj) in seen or obj is None or isinstance(obj, int | float | bool | np.ndarray):
        return []
    seen.add(id(obj))
    out: list[str] = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _strings(k, seen, depth + 1) + _strings(v, seen, depth + 1)
    elif isinstance(obj, list | tuple | set | frozenset):
        for v in obj:
            out += _strings(v, seen, depth + 1)
    elif hasattr(obj, "__dict__") and type(obj).__module__.startswith("mirrorcraft"):
        for k, v in vars(obj).items():
            if k in ("clock", "_protocol", "_factory", "transport"):
                continue  # the reactor and the Twisted transport are not game state
            out += _strings(v, seen, depth + 1)
    return out


@pytest_twisted.ensureDeferred
async def test_mirror_copy_never_reaches_the_agent(sandbox: Path, tmp_path: Path) -> None:
    world = make_world_copy(sandbox, "M02", tmp_path / SECRET_FOLDER)
    assert (world / "datapacks" / "mirrorcraft_rules.zip").is_file()
    from mirrorcraft.server.config import ServerConfig
    from mirrorcraft.server.embedded import EmbeddedServer

    srv = EmbeddedServer(ServerConfig(world=world, port=0, tick_rate=20, view_distance=4, episode_seed=1))
    srv.start()
    body, skills, builder = await session(srv)
    try:
        history = ActionHistory()
        texts = [builder.serialize(history).decode()]
        for name, args in (("mine", {"block": "oak_log", "count": 1}), ("mine", {"block": "stone"})):
            report = await skills.run(name, **args)
            from mirrorcraft.contracts import SkillCall

            history.record(SkillCall.create(name, args), report)
            texts += [report.model_dump_json(), builder.serialize(history).decode()]
        mined = history.steps[0].report
        # the M02 pack is live: the log dropped planks, and the report says what happened, nothing more
        assert mined.status == "success" and mined.blocks_broken[0].block == "minecraft:oak_log"
        assert [(d.item, d.count) for d in mined.drops_collected] == [("minecraft:oak_planks", 4)]
        body_strings = _strings(body, set())
        assert len(body_strings) > 50  # the walk really visited the body's state
        for text in texts + body_strings:
            assert find_leaks(text) == [] or text in body_strings and not find_leaks(text), text[:200]
            for word in FORBIDDEN:
                assert word not in text, (word, text[:300])
        assert {"declare_recipes", "tags", "unlock_recipes"} <= set(DROPPED_PACKETS)
        assert not any(k in body.conn._handlers for k in DROPPED_PACKETS)
    finally:
        await body.disconnect()
        await defer.maybeDeferred(srv.stop)


@pytest_twisted.ensureDeferred
async def test_paired_observations_are_byte_identical_across_mirror_copies(
    sandbox: Path, tmp_path: Path
) -> None:
    # M02 and M04 change log/ore drops and M05 recipes; the neutral sequence triggers none of them
    res = await paired_observations(
        WorldCopies(sandbox, tmp_path),
        embedded_launcher(freeze_random_ticks=True),
        ["vanilla", "M02", "M04"],
        NEUTRAL_SEQUENCE,
    )
    assert [r.kind for r in res.runs] == ["vanilla", "M02", "M04"]
    assert all(len(r.observations) == len(NEUTRAL_SEQUENCE) + 1 for r in res.runs)
    assert res.runs[0].reports == res.runs[1].reports == res.runs[2].reports
    assert res.identical, res.mismatches
    last = json.loads(res.runs[0].observations[-1])
    assert last["task"]["actions_used"] == len(NEUTRAL_SEQUENCE)
    assert any(i["item"] == "minecraft:dirt" for i in last["inventory"])


@pytest_twisted.ensureDeferred
async def test_paired_control_detects_a_triggered_rule(sandbox: Path, tmp_path: Path) -> None:
    """The control is not vacuous: mining a log (M02 replaces its drop) makes the observations differ."""
    res = await paired_observations(
        WorldCopies(sandbox, tmp_path),
        embedded_launcher(freeze_random_ticks=True),
        ["vanilla", "M02"],
        [("mine", {"block": "oak_log", "count": 1})],
    )
    assert not res.identical
    assert "M02 step 1" in res.mismatches[0] and "inventory" in res.mismatches[0]


@pytest.mark.slow
@pytest_twisted.ensureDeferred
async def test_reachability_diamond_route_completes_in_the_vanilla_sandbox(
    sandbox: Path, tmp_path: Path
) -> None:
    """The scripted Diamond route, through the real skills, within its budget (about 4 minutes)."""
    from mirrorcraft.contracts import TaskId
    from mirrorcraft.skills.controls import reachability

    rows = await reachability(
        WorldCopies(sandbox, tmp_path),
        embedded_launcher(freeze_random_ticks=True),
        [TaskId.DIAMOND],
        ["vanilla"],
    )
    (row,) = rows
    assert row.completed, (row.stopped_at, row.detail)
    assert row.actions <= row.budget == 50
    assert row.milestones == ["mine_stone", "upgrade_tools", "smelt_iron", "iron_tools", "mine_diamond"]
    assert all(rep.status in ("success", "failure") for _, rep in row.calls)


@pytest_twisted.ensureDeferred
async def test_in_lockstep_the_pairs_match_with_mobs_and_random_ticks_on(
    sandbox: Path, tmp_path: Path
) -> None:
    """``check observations``' mode: a lockstep server takes each observation at a fixed game tick, so the
    saved cows and vanilla's random ticks (not frozen) still give byte-identical Vanilla/Mirror pairs — and
    the same control still sees a triggered rule."""
    res = await paired_observations(
        WorldCopies(sandbox, tmp_path / "same"),
        embedded_launcher(lockstep=True),
        ["vanilla", "M02"],
        NEUTRAL_SEQUENCE,
        keep_mobs=True,
    )
    assert res.identical, res.mismatches
    assert res.runs[0].reports == res.runs[1].reports
    seen = [json.loads(o) for o in res.runs[0].observations]
    cows = {(e["position"]["x"], e["position"]["z"]) for o in seen for e in o["nearby_entities"]
            if e["entity"] == "minecraft:cow"}  # fmt: skip
    assert len(cows) > 1  # the saved cows were there to see (more than one cow position observed)
    res = await paired_observations(
        WorldCopies(sandbox, tmp_path / "differ"),
        embedded_launcher(lockstep=True),
        ["vanilla", "M02"],
        [("mine", {"block": "oak_log", "count": 1})],
        keep_mobs=True,
    )
    assert not res.identical and "M02 step 1" in res.mismatches[0]

"""The viewer without a browser: the map snapshot (top block and height per column, from a save), the map
colours, the pairing of Mirror pages, old records, and where ``study`` puts the run notes.

The save is written here with the project's Anvil writer, block by block known: a stone pillar on grass, a
water pool, a chunk left out (unknown columns). The colours are checked against the wiki's base colours the
table cites (https://minecraft.wiki/w/Map_item_format#Base_colors).
"""

from __future__ import annotations

import base64
import re
import zlib

import numpy as np
import pytest
from support.contract_samples import load_fixture
from support.viewer_support import PROBE_FILE

from mirrorcraft.contracts import read_record
from mirrorcraft.errors import WorldError
from mirrorcraft.metrics.pages.colours import block_colour, map_image, shade_multipliers
from mirrorcraft.metrics.pages.episode import Episode, render_episode_page
from mirrorcraft.worlds.anvil import Chunk, LevelData, Save, make_state
from mirrorcraft.worlds.map_snapshot import MAX_SIDE, MapSnapshot, explored_area, snapshot_from_save

AIR, GRASS, STONE, WATER, DIRT = (
    make_state("air"),
    make_state("grass_block", {"snowy": "false"}),
    make_state("stone"),
    make_state("water", {"level": "0"}),
    make_state("dirt"),
)
PALETTE = [AIR, GRASS, STONE, WATER, DIRT]


def _chunk(cx: int, cz: int) -> Chunk:
    blocks = np.zeros((384, 16, 16), dtype=np.uint16)  # [y - (-64), z, x]
    blocks[: 64 + 64] = 4  # dirt up to y=63
    blocks[64 + 64] = 1  # grass at y=64
    if (cx, cz) == (0, 0):
        blocks[64 + 65 : 64 + 71, 5, 3] = 2  # a stone pillar at (3, 5), top y=70
        blocks[64 + 64, 10:12, 10:12] = 3  # a 2x2 pool at x,z 10..11, y=64
    return Chunk.from_dense(
        cx, cz, blocks, PALETTE, np.zeros((96, 4, 4), dtype=np.uint16), ["minecraft:plains"]
    )


@pytest.fixture
def save(tmp_path):  # noqa: ANN001, ANN201
    s = Save.create(tmp_path / "world", LevelData(level_name="t", seed=1, spawn=(0, 65, 0)))
    s.write_chunks([_chunk(0, 0), _chunk(1, 0), _chunk(0, -1)])  # (1, -1) and (-1, *) left out
    return s


def test_snapshot_reads_top_block_and_height_per_column(save) -> None:  # noqa: ANN001
    snap = snapshot_from_save(save.path, (-4, -8, 28, 20))
    assert snap.top_block(3, 5) == ("minecraft:stone", 70)
    assert snap.top_block(10, 11) == ("minecraft:water", 64)
    assert (
        snap.top_block(0, 0) == ("minecraft:grass_block", 64) and snap.top_block(20, -3) is None
    )  # absent chunk
    assert snap.top_block(-1, 0) is None and snap.top_block(24, 0) is None  # absent chunk; outside the area
    assert snap.palette[0] == "" and set(snap.palette) == {
        "",
        "minecraft:grass_block",
        "minecraft:stone",
        "minecraft:water",
    }
    again = MapSnapshot.model_validate_json(snap.model_dump_json())  # the run notes' JSON round trip
    assert again == snap and again.block_array().shape == (20, 28)
    with pytest.raises(ValueError, match="must hold"):
        MapSnapshot.model_validate(
            snap.model_dump() | {"heights": base64.b64encode(zlib.compress(b"\0\0")).decode()}
        )
    with pytest.raises(ValueError, match="zlib"):
        MapSnapshot.model_validate(snap.model_dump() | {"blocks": base64.b64encode(b"\0\0").decode()})
    with pytest.raises(WorldError, match="not a world save"):
        snapshot_from_save(save.path / "region", (0, 0, 4, 4))


def test_explored_area_adds_the_margin_and_caps_the_side() -> None:
    assert explored_area([]) is None
    assert explored_area([(0.5, 0.5), (10.2, -3.7)]) == (-16, -20, 43, 37)
    x0, z0, w, d = explored_area([(-400.0, 0.0), (400.0, 2.0)])
    assert w == MAX_SIDE and -MAX_SIDE <= x0 < 0 < x0 + w and d == 35


def test_colours_follow_the_cited_table_and_vanilla_shading(save) -> None:  # noqa: ANN001
    assert block_colour("minecraft:grass_block") == (127, 178, 56)  # GRASS
    assert block_colour("minecraft:water") == (64, 64, 255)  # WATER
    assert block_colour("minecraft:birch_leaves") == (0, 124, 0)  # PLANT, by the _leaves rule
    assert block_colour("minecraft:not_a_block") == (128, 128, 128)  # unknown
    heights = np.array([[64, 64], [65, 64], [64, 64]])
    expected = np.array([[220, 220], [255, 220], [180, 220]]) / 255  # level, higher, lower than the north
    assert np.allclose(shade_multipliers(heights), expected)
    img = map_image(snapshot_from_save(save.path, (0, 0, 16, 16)))
    assert img.shape == (16, 16, 3) and tuple(img[5, 3]) == (112, 112, 112)  # stone, higher than its north
    assert tuple(img[5, 4]) == tuple(np.rint(np.array([127, 178, 56]) * 220 / 255).astype(int))


def test_a_record_before_schema_4_renders_without_a_path() -> None:
    rec = read_record(load_fixture("episode_record_v3.json"))
    html = render_episode_page(Episode(rec))
    assert 'class="action' not in html and 'class="path"' not in html
    assert f"{len(rec.trajectory)} of {len(rec.trajectory)} actions have no recorded position" in html
    assert "No map snapshot with this record" in html


def test_study_puts_the_run_notes_in_the_run_folder(tmp_path, monkeypatch) -> None:  # noqa: ANN001
    # With the default runner (here a stand-in that reports what it sees), `study` points the runner's
    # per-episode files — where the map snapshot goes — at RUN_DIR/episodes, and takes the variable back.
    import os

    from mirrorcraft.study import report_cli

    probe = tmp_path / "seen.txt"
    monkeypatch.setenv(PROBE_FILE, str(probe))
    monkeypatch.delenv("MIRRORCRAFT_EPISODE_DIR", raising=False)
    monkeypatch.setattr(report_cli, "DEFAULT_EPISODE_FN", "support.viewer_support:records_dir_probe")
    run = tmp_path / "run"
    assert report_cli.main(["study", "smoke", "--run-dir", str(run), "--workers", "0", "--no-progress"]) == 0
    assert probe.read_text().splitlines() == [str(run.resolve() / "episodes")] * 3
    assert "MIRRORCRAFT_EPISODE_DIR" not in os.environ


def test_mirror_pages_pair_with_the_vanilla_episode_of_their_cell(tmp_path) -> None:  # noqa: ANN001
    from support.study_episode_fn import synthetic_episode

    from mirrorcraft.contracts import ModelSettings, StudyGrid
    from mirrorcraft.metrics.pages.episode import write_episode_pages

    grid = StudyGrid(
        name="pairs", worlds=["plains-1"], tasks=["iron_armor"], models=[ModelSettings(name="m")],
        configurations=["react"], repetitions=2, suites=["M01", "M02"],
    )  # fmt: skip
    records = [synthetic_episode(i) for i in grid.expand()]  # Vanilla, M01, M02 hidden; M01, M02 disclosed
    pages = write_episode_pages([Episode(r) for r in records], [], tmp_path)
    assert [p.name for p in pages] == [f"{r.episode_id}.html" for r in records]
    vanilla = {r.identity.repetition: r for r in records if r.identity.suite is None}
    for r, page in zip(records, pages, strict=True):
        html = page.read_text()
        panels = re.findall(r'data-episode="(ep-[0-9a-f]+)" data-role="(\w+)"', html)
        if r.identity.suite is None:  # alone, linking to its four Mirror pages of the same repetition
            assert panels == [(r.episode_id, "Vanilla")]
            mirrors = [
                m for m in records if m.identity.suite and m.identity.repetition == r.identity.repetition
            ]
            assert len(mirrors) == 4 and all(f'href="{m.episode_id}.html"' in html for m in mirrors)
        else:  # the Vanilla episode of its cell and repetition on the left (disclosed ones too)
            assert panels == [
                (vanilla[r.identity.repetition].episode_id, "Vanilla"),
                (r.episode_id, "Mirror"),
            ]

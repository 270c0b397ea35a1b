"""The packaged id tables and chunk facts equal minecraft-data's, agree with quarry's tables in size,
and every vanilla capture's leading VarInt is the id our table gives its packet name."""

from __future__ import annotations

import csv
import json
from importlib import resources
from pathlib import Path

import pytest
import quarry

from mirrorcraft.protocol import packet_id, packet_name
from mirrorcraft.protocol._generate_data import build
from mirrorcraft.protocol.buffer import Reader


def test_packaged_tables_equal_minecraft_data(node_modules: Path) -> None:
    for name, content in build(node_modules).items():
        packaged = json.loads(resources.files("mirrorcraft.protocol").joinpath(f"data/{name}").read_text())
        assert packaged == json.loads(json.dumps(content)), name


def test_chunk_facts() -> None:
    facts = json.loads(resources.files("mirrorcraft.protocol").joinpath("data/chunk_facts.json").read_text())
    assert facts["760"]["block_states"] == 21448 and facts["760"]["air_states"] == [0, 10546, 10547]


@pytest.mark.parametrize(("version", "proto"), [("1.19.2", 760), ("1.19", 759)])
def test_capture_ids_match_table(packets_dir: Path, packets_dir_1_19: Path, version: str, proto: int) -> None:
    base = packets_dir if version == "1.19.2" else packets_dir_1_19
    checked = 0
    for raw in sorted((base / "from-server").glob("*/*.raw")):
        pid = Reader(raw.read_bytes()).varint()
        assert packet_name(pid, proto) == raw.parent.name
        assert packet_id(raw.parent.name, proto) == pid
        checked += 1
    assert checked > 200


@pytest.mark.parametrize(("csv_name", "proto"), [("0759_1.19.csv", 759), ("0760_1.19.1.csv", 760)])
def test_quarry_tables_have_the_same_play_packets(csv_name: str, proto: int) -> None:
    path = Path(quarry.__file__).parent / "data" / "packets" / csv_name
    rows = list(csv.DictReader(path.open()))
    for direction, quarry_dir in (("clientbound", "downstream"), ("serverbound", "upstream")):
        quarry_play = [
            r["packet_name"]
            for r in rows
            if r["protocol_mode"] == "play" and r["packet_direction"] == quarry_dir
        ]
        ours = json.loads(
            resources.files("mirrorcraft.protocol").joinpath("data/packet_ids.json").read_text()
        )
        assert len(quarry_play) == len(ours[str(proto)][direction])


def test_quarry_name_bridge() -> None:
    from mirrorcraft.protocol.quarry_names import our_name, quarry_name

    assert our_name("chunk_data", 760, "clientbound") == "map_chunk"
    assert our_name("join_game", 759, "clientbound") == "login"
    assert quarry_name("block_place", 760, "serverbound") == "player_block_placement"
    for proto in (759, 760):
        for direction in ("clientbound", "serverbound"):
            ours = json.loads(
                resources.files("mirrorcraft.protocol").joinpath("data/packet_ids.json").read_text()
            )
            for name in ours[str(proto)][direction]:
                assert our_name(quarry_name(name, proto, direction), proto, direction) == name

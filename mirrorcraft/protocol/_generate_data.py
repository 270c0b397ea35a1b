"""Regenerate ``mirrorcraft/protocol/data/*.json`` from npm ``minecraft-data`` (development-time only).

Run ``python -m mirrorcraft.protocol._generate_data node_modules``. The runtime never reads node_modules: it
loads the small JSON files written here, and ``tests/protocol/test_protocol_data_tables.py`` checks that they still
match minecraft-data and the vanilla captures (every captured packet's leading VarInt).

Written files:
* ``packet_ids.json``: per protocol (759, 760), per direction, play-state packet name → id, using
  node-minecraft-protocol names (the names of the captures' folders).
* ``chunk_facts.json``: per protocol, the global block-state count (→ 15-bit direct palette), the
  biome count (→ 6-bit direct palette) and the air state ids (air, void_air, cave_air), which vanilla
  excludes from a section's non-air count.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

VERSIONS = {759: "1.19", 760: "1.19.2"}
OUT = Path(__file__).resolve().parent / "data"


def _mcdata(node_modules: Path, version: str, key: str) -> object:
    base = node_modules / "minecraft-data" / "minecraft-data" / "data"
    folder = json.loads((base / "dataPaths.json").read_text())["pc"][version][key]
    return json.loads((base / folder / f"{key}.json").read_text())


def build(node_modules: Path) -> dict[str, dict]:
    """Compute the table contents (returned so tests can compare without writing)."""
    ids: dict[str, dict] = {}
    facts: dict[str, dict] = {}
    for proto, version in VERSIONS.items():
        protocol = _mcdata(node_modules, version, "protocol")
        per_dir = {}
        for direction, key in (("clientbound", "toClient"), ("serverbound", "toServer")):
            mapper = protocol["play"][key]["types"]["packet"][1][0]["type"][1]["mappings"]
            per_dir[direction] = {name: int(hex_id, 16) for hex_id, name in mapper.items()}
        ids[str(proto)] = per_dir
        blocks = _mcdata(node_modules, version, "blocks")
        biomes = _mcdata(node_modules, version, "biomes")
        air = sorted(b["minStateId"] for b in blocks if b["name"] in ("air", "cave_air", "void_air"))
        facts[str(proto)] = {
            "block_states": max(b["maxStateId"] for b in blocks) + 1,
            "biomes": len(biomes),
            "air_states": air,
        }
    return {"packet_ids.json": ids, "chunk_facts.json": facts}


def main(argv: list[str] | None = None) -> None:
    """Write the data files."""
    args = sys.argv[1:] if argv is None else argv
    node_modules = Path(args[0] if args else "node_modules")
    for name, content in build(node_modules).items():
        (OUT / name).write_text(json.dumps(content, indent=1, sort_keys=True) + "\n")
        print(f"wrote {OUT / name}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Regenerate every derivable vendored file of ``mirrorcraft.gamedata`` from the pinned npm packages.

Sources (pinned by package-lock.json, both MIT licensed):

* minecraft-data 3.119.0, ``data/pc/1.19.2`` resolved through ``dataPaths.json``: blocks, collision
  shapes, items, entities, biomes, effects, enchantments, foods.
* minecraft-packets 1.9.0 vanilla captures: ``declare_recipes`` and ``tags`` (1.19.2) for the vanilla
  datapack's recipes and tags, ``login`` (1.19.2 and 1.19) for the registry codec bytes.

Outputs (deterministic: sorted keys, stable order, gzip with mtime 0, so re-running gives identical bytes):

* ``mirrorcraft/gamedata/data/{blocks,items,registries,tags}.json.gz``
* ``mirrorcraft/gamedata/data/registry_codec_{760,759}.nbt.gz``
* ``mirrorcraft/gamedata/vanilla_pack/pack.mcmeta``, ``PROVENANCE.md``,
  ``data/minecraft/recipes/**`` and ``data/minecraft/tags/**`` (the generated folders are wiped first;
  ``loot_tables/`` and ``advancements/`` are hand-authored elsewhere and never touched).

Usage: ``python scripts/regen_gamedata.py [--node-modules PATH]``.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import shutil
import struct
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import nbtlib

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from mirrorcraft.errors import GameDataError  # noqa: E402
from mirrorcraft.gamedata.codec import extract_registry_codec  # noqa: E402

GAMEDATA = REPO / "mirrorcraft" / "gamedata"
DATA_OUT = GAMEDATA / "data"
PACK = GAMEDATA / "vanilla_pack"
MC_VERSION = "1.19.2"

# The 1.19.2 game_event registry in registration order (net.minecraft.world.level.gameevent.GameEvent,
# whose fields are declared alphabetically since 1.19). minecraft-data 3.119.0 has no game-event list, so
# it is written out here; tests check it against the captured game_event tags (e.g.
# minecraft:shrieker_can_listen == [sculk_sensor_tendrils_clicking] == id 39).
GAME_EVENTS_1_19_2 = (
    "block_activate block_attach block_change block_close block_deactivate block_destroy block_detach "
    "block_open block_place container_close container_open dispense_fail drink eat elytra_glide "
    "entity_damage entity_die entity_interact entity_place entity_roar entity_shake equip explode flap "
    "fluid_pickup fluid_place hit_ground instrument_play item_interact_finish item_interact_start "
    "jukebox_play jukebox_stop_play lightning_strike note_block_play piston_contract piston_extend "
    "prime_fuse projectile_land projectile_shoot sculk_sensor_tendrils_clicking shear shriek splash step "
    "swim teleport"
).split()

# The fluid registry (net.minecraft.world.level.material.Fluids): stable since 1.13.
FLUIDS = ["empty", "flowing_water", "water", "flowing_lava", "lava"]

# The 1.19.2 menu (window type) registry in registration order (wiki.vg "Inventory" for 1.19; the same
# order prismarine-windows 2.10.0 builds for 1.19.2). Checked against the captured open_window packets
# and, when node is available, against prismarine-windows itself.
MENU_TYPES_1_19_2 = (
    "generic_9x1 generic_9x2 generic_9x3 generic_9x4 generic_9x5 generic_9x6 generic_3x3 anvil beacon "
    "blast_furnace brewing_stand crafting enchantment furnace grindstone hopper lectern loom merchant "
    "shulker_box smithing smoker cartography_table stonecutter"
).split()

# minecraft-data names effects in CamelCase; vanilla ids are snake_case, with one rename.
EFFECT_RENAMES = {"BadLuck": "unluck"}

# Pack folders this script owns and wipes before writing (loot_tables/ and advancements/ are hand-authored).
GENERATED_PACK_DIRS = ("data/minecraft/recipes", "data/minecraft/tags")
PACK_DESCRIPTION = "MirrorCraft vendored vanilla 1.19.2 data (recipes, tags, loot tables, advancements)"

BIOME_FIELDS = ("id", "name", "category", "temperature", "precipitation", "dimension", "rainfall", "color")

# Tag registries written into the vanilla datapack: wire registry name -> datapack folder.
TAG_FOLDERS = {
    "minecraft:block": "blocks",
    "minecraft:item": "items",
    "minecraft:fluid": "fluids",
    "minecraft:entity_type": "entity_types",
    "minecraft:game_event": "game_events",
    "minecraft:worldgen/biome": "worldgen/biome",
}


# --------------------------------------------------------------------------------------------- helpers
def dump_json(obj: Any) -> bytes:
    """Compact JSON with sorted keys (the vendored data files)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def gz(payload: bytes) -> bytes:
    """gzip with a fixed mtime so the output bytes only depend on the input."""
    return gzip.compress(payload, compresslevel=9, mtime=0)


def pretty(obj: Any) -> bytes:
    """Indented JSON as vanilla datapack files are written; key order kept as built."""
    return (json.dumps(obj, indent=2, ensure_ascii=False) + "\n").encode()


def _shortest_f32(x: float) -> str:
    """Shortest decimal that round-trips the float32 the wire carried (0.10000000149 -> "0.1")."""
    target = struct.pack(">f", x)
    for digits in range(1, 10):
        s = f"{x:.{digits}g}"
        if struct.pack(">f", float(s)) == target:
            return s
    return repr(x)


def snake(name: str) -> str:
    """minecraft-data effect name (``MiningFatigue``) → vanilla registry name (``mining_fatigue``)."""
    if name in EFFECT_RENAMES:
        return EFFECT_RENAMES[name]
    out = []
    for i, ch in enumerate(name):
        if ch.isupper() and i:
            out.append("_")
        out.append(ch.lower())
    return "".join(out)


class Sources:
    """Paths into the pinned npm packages."""

    def __init__(self, node_modules: Path) -> None:
        self.nm = node_modules
        self.mcdata = node_modules / "minecraft-data" / "minecraft-data" / "data"
        self.packets = node_modules / "minecraft-packets" / "minecraft-packets" / "data" / "pc"
        paths_file = self.mcdata / "dataPaths.json"
        if not paths_file.exists():
            raise GameDataError(f"{paths_file} missing: run `npm ci` in {REPO}")
        self.paths = json.loads(paths_file.read_text())["pc"][MC_VERSION]

    def mcdata_json(self, key: str) -> Any:
        return json.loads((self.mcdata / self.paths[key] / f"{key}.json").read_text())

    def capture(self, version: str, packet: str, ext: str = "json") -> Any:
        path = self.packets / version / "from-server" / packet / f"1.{ext}"
        return path.read_bytes() if ext == "raw" else json.loads(path.read_text())


# ---------------------------------------------------------------------------------------------- blocks
def build_blocks(src: Sources, item_names: dict[int, str]) -> dict[str, Any]:
    """Blocks (state ranges, properties, facts, per-state collision shape ids) + the shape table."""
    blocks = src.mcdata_json("blocks")
    shapes_src = src.mcdata_json("blockCollisionShapes")
    blocks.sort(key=lambda b: b["id"])
    out = []
    expected_min = 0
    for b in blocks:
        props = []
        for s in b["states"]:
            if s["type"] == "bool":
                values = ["true", "false"]  # the state-id order vanilla (and minecraft-data) uses
            else:
                values = [str(v) for v in s["values"]]
            if len(values) != s["num_values"]:
                raise GameDataError(f"blocks.json: {b['name']}.{s['name']} num_values != len(values)")
            props.append([s["name"], values])
        if b["minStateId"] != expected_min:
            raise GameDataError(f"blocks.json: {b['name']} minStateId {b['minStateId']} != {expected_min}")
        expected_min = b["maxStateId"] + 1
        shape = shapes_src["blocks"][b["name"]]
        tools = b.get("harvestTools")
        out.append(
            {
                "id": b["id"],
                "name": b["name"],
                "min": b["minStateId"],
                "max": b["maxStateId"],
                "default": b["defaultState"],
                "props": props,
                "hardness": None if b["hardness"] is None or b["hardness"] < 0 else b["hardness"],
                "resistance": b["resistance"],
                "diggable": b["diggable"],
                "material": b["material"],
                "harvest_tools": sorted(item_names[int(i)] for i in tools) if tools else None,
                "transparent": b["transparent"],
                "emit_light": b["emitLight"],
                "filter_light": b["filterLight"],
                "bounding_box": b["boundingBox"],
                "shapes": shape,
                "drops": sorted({item_names[int(i)] for i in b.get("drops", []) if isinstance(i, int)}),
            }
        )
    shapes = {k: v for k, v in sorted(shapes_src["shapes"].items(), key=lambda kv: int(kv[0]))}
    return {"blocks": out, "shapes": shapes, "num_states": expected_min}


# ------------------------------------------------------------------------------------------ registries
def build_items(src: Sources) -> list[dict[str, Any]]:
    """Items ordered by id."""
    items = sorted(src.mcdata_json("items"), key=lambda i: i["id"])
    return [
        {
            "id": i["id"],
            "name": i["name"],
            "stack_size": i["stackSize"],
            "max_durability": i.get("maxDurability"),
            "enchant_categories": i.get("enchantCategories"),
            "repair_with": i.get("repairWith"),
        }
        for i in items
    ]


def build_registries(src: Sources, codec_biomes: dict[str, int]) -> dict[str, Any]:
    """Entities, biomes (ids checked against the login codec), effects, enchantments, foods, fixed lists."""
    entities = sorted(src.mcdata_json("entities"), key=lambda e: e["id"])
    biomes = sorted(src.mcdata_json("biomes"), key=lambda b: b["id"])
    for b in biomes:
        if codec_biomes.get(f"minecraft:{b['name']}") != b["id"]:
            raise GameDataError(f"biomes.json id of {b['name']} ({b['id']}) differs from the login codec")
    effects = sorted(src.mcdata_json("effects"), key=lambda e: e["id"])
    enchantments = sorted(src.mcdata_json("enchantments"), key=lambda e: e["id"])
    foods = sorted(src.mcdata_json("foods"), key=lambda f: f["id"])
    return {
        "entities": [
            {
                "id": e["id"],
                "name": e["name"],
                "type": e["type"],
                "category": e.get("category"),
                "width": e["width"],
                "height": e["height"],
            }
            for e in entities
        ],
        "biomes": [{k: b[k] for k in BIOME_FIELDS} for b in biomes],
        "effects": [{"id": e["id"], "name": snake(e["name"]), "type": e["type"]} for e in effects],
        "enchantments": [
            {
                "id": e["id"],
                "name": e["name"],
                "max_level": e["maxLevel"],
                "weight": e["weight"],
                "category": e["category"],
                "exclude": sorted(e["exclude"]),
                "treasure_only": e["treasureOnly"],
                "curse": e["curse"],
                "tradeable": e["tradeable"],
                "discoverable": e["discoverable"],
                "min_cost": e["minCost"],
                "max_cost": e["maxCost"],
            }
            for e in enchantments
        ],
        "foods": [
            {
                "id": f["id"],
                "name": f["name"],
                "food_points": f["foodPoints"],
                "saturation": f["saturation"],
            }
            for f in foods
        ],
        "menu_types": MENU_TYPES_1_19_2,
        "game_events": GAME_EVENTS_1_19_2,
        "fluids": FLUIDS,
    }


def build_tags(src: Sources, names: dict[str, dict[int, str]]) -> dict[str, dict[str, list[str]]]:
    """Tags from the captured ``tags`` packet, numeric ids mapped to ``minecraft:`` names."""
    out: dict[str, dict[str, list[str]]] = {}
    for group in src.capture(MC_VERSION, "tags")["tags"]:
        registry = group["tagType"]
        if registry not in names:
            continue  # painting_variant, cat_variant, ...: no name registry vendored
        table = names[registry]
        out[registry] = {t["tagName"]: [f"minecraft:{table[i]}" for i in t["entries"]] for t in group["tags"]}
    missing = set(TAG_FOLDERS) - set(out)
    if missing:
        raise GameDataError(f"captured tags packet lacks registries {sorted(missing)}")
    return out


# --------------------------------------------------------------------------------------------- recipes
class RecipeWriter:
    """Turns decoded ``declare_recipes`` entries back into vanilla-format recipe JSON."""

    def __init__(
        self, item_names: dict[int, str], item_tags: dict[str, list[str]], damageable: set[str]
    ) -> None:
        self.item_names = item_names
        self.damageable = damageable
        self.tags_of_set: dict[frozenset[str], list[str]] = {}
        for name in sorted(item_tags):
            self.tags_of_set.setdefault(frozenset(item_tags[name]), []).append(name)
        self.result_item = ""

    def _pick_tag(self, names: list[str]) -> str | None:
        """The tag whose item set is exactly ``names``, if any.

        Two 1.19.2 item tags share one item set (stone_crafting_materials and stone_tool_materials); the
        wire cannot tell them apart, so a tool result (an item with durability) gets the ``*tool*`` tag and
        anything else the other one, which is what vanilla's recipe files do.
        """
        tags = self.tags_of_set.get(frozenset(names))
        if not tags:
            return None
        if len(tags) > 1:
            want_tool = self.result_item in self.damageable
            preferred = [t for t in tags if ("tool" in t) == want_tool]
            tags = preferred or tags
        return tags[0]

    def _name(self, slot: dict[str, Any], where: str) -> str:
        if not slot.get("present"):
            raise GameDataError(f"declare_recipes: empty slot in {where}")
        if slot["itemId"] not in self.item_names:
            raise GameDataError(f"declare_recipes: unknown item id {slot['itemId']} in {where}")
        return f"minecraft:{self.item_names[slot['itemId']]}"

    def ingredient(self, alts: list[dict[str, Any]], where: str) -> Any:
        names = [self._name(s, where) for s in alts]
        if not names:
            raise GameDataError(f"declare_recipes: empty ingredient in {where}")
        tag = self._pick_tag(names) if len(names) > 1 else None
        if tag is not None:
            return {"tag": tag}
        if len(names) == 1:
            return {"item": names[0]}
        return [{"item": n} for n in names]

    def result(self, slot: dict[str, Any], where: str) -> dict[str, Any]:
        res: dict[str, Any] = {"item": self._name(slot, where)}
        if slot["itemCount"] != 1:
            res["count"] = slot["itemCount"]
        return res

    def convert(self, rec: dict[str, Any]) -> dict[str, Any]:
        rtype: str = rec["type"]
        rid: str = rec["recipeId"]
        data = rec.get("data") or {}
        out: dict[str, Any] = {"type": rtype}
        result = data.get("result")
        self.result_item = self._name(result, rid) if result else ""
        if data.get("group"):
            out["group"] = data["group"]
        if rtype == "minecraft:crafting_shaped":
            w, h = data["width"], data["height"]
            # node-minecraft-protocol decodes the flat list as []$width of []$height (proto.yml), but the
            # wire order is row-major: index = x + width * y (wiki.vg "Declare Recipes"). Flatten first.
            flat = [alts for column in data["ingredients"] for alts in column]
            if len(flat) != w * h:
                raise GameDataError(f"declare_recipes {rid}: {len(flat)} ingredients for {w}x{h}")
            letters = "ABCDEFGHI"
            keys: dict[str, Any] = {}
            seen: dict[str, str] = {}
            rows = []
            for y in range(h):
                row = ""
                for x in range(w):
                    alts = flat[x + w * y]
                    if not alts:
                        row += " "
                        continue
                    ing = self.ingredient(alts, rid)
                    sig = json.dumps(ing, sort_keys=True)
                    if sig not in seen:
                        seen[sig] = letters[len(seen)]
                        keys[seen[sig]] = ing
                    row += seen[sig]
                rows.append(row)
            out["pattern"] = rows
            out["key"] = keys
            out["result"] = self.result(data["result"], rid)
        elif rtype == "minecraft:crafting_shapeless":
            out["ingredients"] = [self.ingredient(a, rid) for a in data["ingredients"]]
            out["result"] = self.result(data["result"], rid)
        elif rtype in (
            "minecraft:smelting",
            "minecraft:blasting",
            "minecraft:smoking",
            "minecraft:campfire_cooking",
        ):
            res = data["result"]
            if res["itemCount"] != 1:
                raise GameDataError(f"declare_recipes {rid}: cooking result count {res['itemCount']} != 1")
            out["ingredient"] = self.ingredient(data["ingredient"], rid)
            out["result"] = self._name(res, rid)  # 1.19 cooking format: a bare item id
            out["experience"] = float(_shortest_f32(data["experience"]))
            out["cookingtime"] = data["cookTime"]
        elif rtype == "minecraft:stonecutting":
            out["ingredient"] = self.ingredient(data["ingredient"], rid)
            out["result"] = self._name(data["result"], rid)
            out["count"] = data["result"]["itemCount"]
        elif rtype == "minecraft:smithing":
            # The wire shows base/result with a Damage:0 NBT (the client-side view of an undamaged tool);
            # vanilla's smithing JSON has no NBT, it copies the base item's tag at craft time.
            out["base"] = self.ingredient(data["base"], rid)
            out["addition"] = self.ingredient(data["addition"], rid)
            out["result"] = {"item": self._name(data["result"], rid)}
        elif rtype.startswith("minecraft:crafting_special_"):
            pass
        else:
            raise GameDataError(f"declare_recipes {rid}: unknown recipe type {rtype}")
        return out


# ------------------------------------------------------------------------------------------------ pack
PROVENANCE = """# Provenance of the vendored vanilla 1.19.2 datapack

Generated by `scripts/regen_gamedata.py` — do not edit the generated folders by hand; re-run the script.

| Path | Generated from | Package (pinned in package-lock.json) | Licence |
|------|----------------|----------------------------------------|---------|
| `data/minecraft/recipes/**` ({n_recipes} files) | the vanilla server's `declare_recipes` packet captured in `minecraft-packets/data/pc/1.19.2/from-server/declare_recipes/1.json` | minecraft-packets 1.9.0 | MIT |
| `data/minecraft/tags/{{blocks,items,fluids,entity_types,game_events,worldgen/biome}}/**` ({n_tags} files) | the vanilla server's `tags` packet, `.../1.19.2/from-server/tags/1.json`; numeric ids mapped to names with minecraft-data 3.119.0 (`data/pc/1.19.2` items/blocks/entities), the login registry codec (biomes) and the fixed fluid / game-event registries | minecraft-packets 1.9.0, minecraft-data 3.119.0 | MIT, MIT |
| `pack.mcmeta` | written by the script (pack_format 10 = 1.19.x) | — | — |

Known deviations from the files inside the vanilla jar:

* Recipes: the `key` letters are assigned A, B, C... in order of first appearance (the wire does not carry
  them); a `{{"tag": ...}}` ingredient is recovered only where a multi-item ingredient's item set equals
  exactly that of a captured item tag, otherwise the alternatives are listed (single items stay `item`);
  `stone_crafting_materials` and `stone_tool_materials` hold the same items, so a result with durability
  gets the `*tool*` one (as vanilla's stone tools do) and anything else the other (furnace, brewing stand); the smithing `base`/`result` Damage:0 NBT of
  the wire form is dropped (vanilla JSON has none); a result `count` of 1 is omitted; shaped patterns are
  the shrunk grid the server sends (empty border rows/columns removed, e.g. the spyglass is 1 wide), which
  vanilla's loader produces from its own files anyway; `group` is written only when non-empty.
* Tags: the wire flattens nested tag references (`#minecraft:logs` inside another tag) into the member
  list, so every tag file here lists plain names; the membership is identical.

`loot_tables/` and `advancements/` are NOT generated: they are hand-authored from documented vanilla
behaviour (see `AUTHORED.md` in this folder for details).
"""


def pack_files(
    recipes: list[dict[str, Any]], writer: RecipeWriter, tags: dict[str, dict[str, list[str]]]
) -> dict[Path, bytes]:
    """The generated datapack files, keyed by path relative to the pack folder."""
    files: dict[Path, bytes] = {}
    data_mc = Path("data") / "minecraft"
    n_recipes = 0
    for rec in recipes:
        ns, _, path = rec["recipeId"].partition(":")
        if ns != "minecraft":
            raise GameDataError(f"declare_recipes: non-vanilla recipe id {rec['recipeId']}")
        files[data_mc / "recipes" / f"{path}.json"] = pretty(writer.convert(rec))
        n_recipes += 1
    n_tags = 0
    for registry, folder in TAG_FOLDERS.items():
        for tag_name, values in tags[registry].items():
            _, _, path = tag_name.partition(":")
            files[data_mc / "tags" / folder / f"{path}.json"] = pretty({"replace": False, "values": values})
            n_tags += 1
    files[Path("pack.mcmeta")] = pretty({"pack": {"pack_format": 10, "description": PACK_DESCRIPTION}})
    files[Path("PROVENANCE.md")] = PROVENANCE.format(n_recipes=n_recipes, n_tags=n_tags).encode()
    return files


def check_unique(names: Iterable[str], what: str) -> None:
    """Fail on a duplicate name (would make name lookups ambiguous)."""
    seen: set[str] = set()
    for n in names:
        if n in seen:
            raise GameDataError(f"duplicate {what} name {n}")
        seen.add(n)


def generate(src: Sources) -> dict[Path, bytes]:
    """Every generated file (absolute path → bytes), computed in memory."""
    items = build_items(src)
    check_unique((i["name"] for i in items), "item")
    item_names = {i["id"]: i["name"] for i in items}
    blocks = build_blocks(src, item_names)
    check_unique((b["name"] for b in blocks["blocks"]), "block")

    out: dict[Path, bytes] = {}
    codecs = {}
    for protocol, version in ((760, "1.19.2"), (759, "1.19")):
        codecs[protocol] = extract_registry_codec(src.capture(version, "login", "raw"), protocol)
        out[DATA_OUT / f"registry_codec_{protocol}.nbt.gz"] = gz(codecs[protocol])
    root = nbtlib.File.parse(io.BytesIO(codecs[760]))
    biome_ids = {str(e["name"]): int(e["id"]) for e in root["minecraft:worldgen/biome"]["value"]}
    registries = build_registries(src, biome_ids)

    names = {
        "minecraft:item": item_names,
        "minecraft:block": {b["id"]: b["name"] for b in blocks["blocks"]},
        "minecraft:entity_type": {e["id"]: e["name"] for e in registries["entities"]},
        "minecraft:fluid": dict(enumerate(FLUIDS)),
        "minecraft:game_event": dict(enumerate(GAME_EVENTS_1_19_2)),
        "minecraft:worldgen/biome": {i: n.removeprefix("minecraft:") for n, i in biome_ids.items()},
    }
    tags = build_tags(src, names)

    out[DATA_OUT / "blocks.json.gz"] = gz(dump_json(blocks))
    out[DATA_OUT / "items.json.gz"] = gz(dump_json(items))
    out[DATA_OUT / "registries.json.gz"] = gz(dump_json(registries))
    out[DATA_OUT / "tags.json.gz"] = gz(dump_json(tags))

    recipes = src.capture(MC_VERSION, "declare_recipes")["recipes"]
    damageable = {f"minecraft:{i['name']}" for i in items if i["max_durability"]}
    writer = RecipeWriter(item_names, tags["minecraft:item"], damageable)
    for rel, payload in pack_files(recipes, writer, tags).items():
        out[PACK / rel] = payload
    return out


def existing_generated() -> set[Path]:
    """Generated files currently on disk (the folders this script owns)."""
    found = {p for p in DATA_OUT.glob("*") if p.is_file()}
    for folder in GENERATED_PACK_DIRS:
        found |= {p for p in (PACK / folder).rglob("*") if p.is_file()}
    found |= {p for p in (PACK / "pack.mcmeta", PACK / "PROVENANCE.md") if p.exists()}
    return found


def check(outputs: dict[Path, bytes]) -> list[str]:
    """Differences between ``outputs`` and the files on disk (empty when the vendored data is current)."""
    problems = []
    for path in sorted(existing_generated() - set(outputs)):
        problems.append(f"stale file not produced by the generator: {path.relative_to(REPO)}")
    for path, payload in sorted(outputs.items()):
        if not path.exists():
            problems.append(f"missing: {path.relative_to(REPO)}")
        elif path.read_bytes() != payload:
            problems.append(f"differs: {path.relative_to(REPO)}")
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--node-modules", type=Path, default=REPO / "node_modules")
    ap.add_argument(
        "--check", action="store_true", help="only compare with the files on disk; exit 1 if stale"
    )
    args = ap.parse_args(argv)
    outputs = generate(Sources(args.node_modules))
    if args.check:
        problems = check(outputs)
        for line in problems:
            print(line)
        print(f"{len(outputs)} generated files checked, {len(problems)} problems")
        return 1 if problems else 0
    for folder in GENERATED_PACK_DIRS:
        shutil.rmtree(PACK / folder, ignore_errors=True)
    for path, payload in outputs.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(payload)
    size = sum(len(v) for k, v in outputs.items() if k.parent == DATA_OUT)
    print(f"wrote {len(outputs)} files; {DATA_OUT.relative_to(REPO)} holds {size / 1024:.0f} KiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

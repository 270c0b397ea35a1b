"""The ``advancements`` packet the server builds from a player's progress (``wire.advancements_packet``; the
progress itself is :mod:`mirrorcraft.rules.advancements`): visible advancements only, vanilla's display
flags and icons, criteria dated from tick 0, and a body that decodes back to the same packet."""

from __future__ import annotations

import pytest

from mirrorcraft import gamedata
from mirrorcraft.protocol.codec import decode, encode
from mirrorcraft.rules.advancements import ItemView, PlayerAdvancements, layout_tree
from mirrorcraft.rules.datapacks import DatapackSet
from mirrorcraft.server import wire

STORY = "minecraft:story/"


@pytest.fixture(scope="module")
def vanilla() -> DatapackSet:
    return DatapackSet.vanilla_only()


def test_packet_roundtrip(vanilla: DatapackSet) -> None:
    adv, inv = PlayerAdvancements(vanilla), [None] * 41
    for item, tick in (("crafting_table", 20), ("cobblestone", 40)):  # picked up, as the server fires it
        inv[inv.index(None)] = stack = ItemView(f"minecraft:{item}", 1)
        adv.inventory_changed(inv, stack, tick)
    layout = layout_tree(adv.defs, adv.children)
    pkt = wire.advancements_packet(adv, layout, reset=True, epoch_ms=1_700_000_000_000)
    ids = [a.id for a in pkt.advancements]
    assert ids == sorted(STORY + n for n in ("root", "mine_stone", "upgrade_tools", "smelt_iron"))
    root = next(a for a in pkt.advancements if a.id == STORY + "root")
    assert root.parent is None and root.display is not None
    assert root.display.flags == 1  # background, no toast, not hidden
    assert root.display.background == "minecraft:textures/gui/advancements/backgrounds/stone.png"
    assert root.display.icon is not None and root.display.icon.item_id == gamedata.item("grass_block").id
    assert root.display.title == '{"translate": "advancements.story.root.title"}'
    mine = next(a for a in pkt.advancements if a.id == STORY + "mine_stone")
    assert mine.display.flags == 2 and mine.display.frame_type == 0  # type: ignore[union-attr]
    assert mine.display.icon.nbt is not None  # {Damage:0} on the wooden pickaxe  # type: ignore[union-attr]
    assert pkt.progress[STORY + "mine_stone"] == {"get_stone": 1_700_000_000_000 + 40 * 50}
    assert pkt.progress[STORY + "smelt_iron"] == {"iron": None}
    back = decode("advancements", encode(pkt))
    assert back == pkt
    # the body the server sends is that packet's encoding (criteria dated from tick 0)
    body = wire.advancements(adv, layout, 760, reset=True)
    assert decode("advancements", body) == wire.advancements_packet(adv, layout, reset=True)

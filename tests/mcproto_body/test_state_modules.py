"""Health, effects, advancements and entities driven by packets encoded with the project's real codecs
(and the vanilla captures where one exists), fed through the connection exactly as the socket would."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from mirrorcraft.gamedata import effect, entity, item
from mirrorcraft.mcproto_body import Body, BodyConfig
from mirrorcraft.protocol import Slot, clientbound, encode
from mirrorcraft.protocol.buffer import Reader
from mirrorcraft.protocol.metadata import MetadataEntry


def feed(body: Body, *pkts) -> None:
    for p in pkts:
        body.conn._received(p.NAME, encode(p))


def login(body: Body, packets_dir: Path) -> None:
    raw = (packets_dir / "from-server" / "login" / "1.raw").read_bytes()
    r = Reader(raw)
    r.varint()
    body.conn._received("login", raw[r.pos :])


def test_health_death_and_effects(packets_dir: Path) -> None:
    body = Body(BodyConfig(port=1, username="state"))
    login(body, packets_dir)
    me = body.entities.self_id
    deaths = []
    body.health.on_death(deaths.append)
    feed(body, clientbound.UpdateHealth(health=20.0, food=17, food_saturation=2.5))
    assert (body.health.health, body.health.food, body.health.dead) == (20.0, 17, False)
    haste = effect("haste").id
    feed(body, clientbound.EntityEffect(entity_id=me, effect_id=haste, amplifier=1, duration=600, flags=0))
    feed(
        body,
        clientbound.EntityEffect(entity_id=me + 1, effect_id=effect("speed").id, amplifier=0, duration=600),
    )
    assert body.health.effect_level("minecraft:haste") == 2
    assert body.health.effect_level("minecraft:speed") == 0  # someone else's effect
    feed(body, clientbound.RemoveEntityEffect(entity_id=me, effect_id=haste))
    assert body.health.effect_level("minecraft:haste") == 0
    feed(body, clientbound.DeathCombatEvent(player_id=me, entity_id=-1, message='{"text":"fell"}'))
    feed(body, clientbound.UpdateHealth(health=0.0, food=17, food_saturation=0.0))
    assert body.health.dead and body.health.deaths == 1 and deaths == ['{"text":"fell"}']
    feed(body, clientbound.Experience(experience_bar=0.5, level=3, total_experience=30))
    assert (body.health.level, body.health.total_experience) == (3, 30)


def test_advancement_progress(packets_dir: Path) -> None:
    body = Body(BodyConfig(port=1, username="state"))
    done = []
    body.advancements.on_done(done.append)
    adv = clientbound.Advancement(
        id="minecraft:story/mine_stone", criteria=["get_stone"], requirements=[["get_stone"]]
    )
    feed(
        body, clientbound.Advancements(reset=True, advancements=[adv], progress={adv.id: {"get_stone": None}})
    )
    assert not body.advancements.is_done(adv.id) and done == []
    feed(body, clientbound.Advancements(progress={adv.id: {"get_stone": 1_700_000_000_000}}))
    assert body.advancements.is_done(adv.id) and done == [adv.id]
    # The vanilla capture: every advancement it completes is reported done.
    raw = (packets_dir / "from-server" / "advancements" / "1.raw").read_bytes()
    r = Reader(raw)
    r.varint()
    body.conn._received("advancements", raw[r.pos :])
    js = json.loads((packets_dir / "from-server" / "advancements" / "1.json").read_text())
    assert len(body.advancements.titles) >= len(js["advancementMapping"])


def test_item_entity_spawn_metadata_move_and_collect(packets_dir: Path) -> None:
    body = Body(BodyConfig(port=1, username="state"))
    login(body, packets_dir)
    me = body.entities.self_id
    got = []
    body.entities.on_collect(got.append)
    feed(
        body,
        clientbound.SpawnEntity(
            entity_id=500,
            object_uuid=uuid.uuid4(),
            type=entity("item").id,
            x=1.5,
            y=70.0,
            z=-2.5,
            velocity_y=8000,
        ),
        clientbound.EntityMetadata(
            entity_id=500, metadata=[MetadataEntry(8, 6, Slot(item("oak_log").id, 3))]
        ),
        clientbound.RelEntityMove(entity_id=500, dx=4096, dy=-2048, dz=0, on_ground=True),
    )
    ent = body.entities.by_id[500]
    assert ent.type == "minecraft:item" and ent.item_name == "minecraft:oak_log" and ent.item.count == 3
    assert ent.position == (2.5, 69.5, -2.5) and ent.velocity == (0.0, 1.0, 0.0) and ent.on_ground
    assert body.entities.nearest((0, 70, 0)).id == 500
    feed(body, clientbound.Collect(collected_entity_id=500, collector_entity_id=me, pickup_item_count=3))
    feed(body, clientbound.EntityDestroy(entity_ids=[500]))
    assert 500 not in body.entities.by_id
    assert [(e.collector_id, e.count, e.item.item_id) for e in got] == [(me, 3, item("oak_log").id)]

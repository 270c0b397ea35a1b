"""The team observation contract: what a team player is shown, what it may never show, and the chat log's
later fields in the team record."""

from __future__ import annotations

from typing import Any

import pytest

from mirrorcraft.contracts import TeamObservation, serialize_team_observation
from mirrorcraft.contracts.team_observation import MAX_CHAT_LINES, shows_time_left
from mirrorcraft.contracts.teams import TEAM_SCHEMA_VERSION, ChatMessage
from mirrorcraft.errors import ContractError

BASE: dict[str, Any] = {
    "player": "Byte",
    "side": "blue",
    "teammate": "Blink",
    "position": {"x": -5.5, "y": -60.0, "z": 6.5},
    "survival": {"health": 20.0, "food": 20},
    "equipment": {},
    "inventory": [{"item": "minecraft:sweet_berries", "count": 3}],
    "nearby_blocks": [],
    "nearby_entities": [],
    "dropped_items": [],
    "last_result": None,
    "effects": [],
    "skills": ["farm", "give", "chat"],
    "failure_constraints": [],
}


def team_observation(**kw: Any) -> TeamObservation:
    return TeamObservation.model_validate(
        BASE
        | {
            "sidebar": {
                "title": "Scores",
                "scores": [{"holder": "Blue", "score": 12}, {"holder": "Red", "score": 3}],
            },
            "chat": [{"t": 4, "sender": "Blink", "channel": "team", "text": "berries on the way"}],
        }
        | kw
    )


def test_defaults_show_no_time_left_and_the_version() -> None:
    obs = TeamObservation.model_validate(BASE)
    assert obs.time_left_s is None and obs.sidebar is None and obs.chat == []
    assert obs.schema_version == TEAM_SCHEMA_VERSION == 3 and obs.count("minecraft:sweet_berries") == 3
    assert not shows_time_left({}) and shows_time_left({"show_time_left": True})
    with pytest.raises(ContractError, match="show_time_left"):
        shows_time_left({"show_time_left": "yes"})


def test_team_and_bounds_are_checked() -> None:
    with pytest.raises(ValueError, match="not the two players"):
        TeamObservation.model_validate(BASE | {"teammate": "Raze"})
    with pytest.raises(ValueError, match="chat"):
        team_observation(
            chat=[{"t": 1, "sender": "Byte", "channel": "all", "text": "x"}] * (MAX_CHAT_LINES + 1)
        )
    with pytest.raises(ValueError, match="skills"):
        TeamObservation.model_validate(BASE | {"skills": ["teleport"]})


def test_serialization_is_canonical_and_leak_checked() -> None:
    a = team_observation(
        inventory=[{"item": "minecraft:egg", "count": 1}, {"item": "minecraft:bowl", "count": 2}]
    )
    b = team_observation(
        inventory=[{"item": "minecraft:bowl", "count": 2}, {"item": "minecraft:egg", "count": 1}]
    )
    assert serialize_team_observation(a) == serialize_team_observation(b)
    # the players' own words may say anything; a field the body fills may not name the arena's variant
    said = team_observation(
        chat=[{"t": 1, "sender": "Blink", "channel": "all", "text": "is this the mirrored arena?"}]
    )
    assert b"mirrored" in serialize_team_observation(said)
    leaky = team_observation(sidebar={"title": "mirrored arena", "scores": []})
    with pytest.raises(ContractError, match="arena variant"):
        serialize_team_observation(leaky)
    # nothing of the judges' rules or the episode's length is a field
    assert not {"game_seconds", "scenario", "arena_variant", "seed", "rules"} & set(
        TeamObservation.model_fields
    )


def test_chat_message_tick_and_translate_are_optional() -> None:
    old = ChatMessage.model_validate(
        {"t": 1.0, "sender": "Ryn", "side": "red", "channel": "team", "text": "hi"}
    )
    assert old.tick is None and old.translate is None
    new = ChatMessage(t=1.5, tick=30, sender="Ryn", side="red", channel="team", text="hi",
                      translate="chat.type.team.text")  # fmt: skip
    assert ChatMessage.model_validate_json(new.model_dump_json()) == new

"""The discrete action menu (``action_mode="discrete"``): a fixed, documented list of skill calls.

Why a menu: RL libraries expect a small finite action space, while the skills take item ids, counts,
grids and coordinates. The menu (``data/menu.yaml``: rules live as data) picks one parameterised call per
entry — vanilla 1.19.2's recipes as grids, the ores at their usual heights, the four compass directions —
covering the three tasks' vanilla routes. Every entry is validated by
:meth:`~mirrorcraft.contracts.SkillCall.create` at load, so a bad entry fails at import, never mid-episode.
The table of entries is in docs/envs.md.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict

from mirrorcraft.contracts import MIRRORCRAFT_SKILL_NAMES, SkillCall
from mirrorcraft.errors import ContractError

MENU_FILE = Path(__file__).parent / "data" / "menu.yaml"


class MenuEntry(BaseModel):
    """One discrete action: a label for people and the validated call it runs."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    label: str
    call: SkillCall


@cache
def action_menu() -> tuple[MenuEntry, ...]:
    """The menu, in action-index order.

    Raises:
        ContractError: an entry is not a valid call of an offered skill, or two entries repeat a call.
    """
    raw = yaml.safe_load(MENU_FILE.read_text(encoding="utf-8"))
    entries: list[MenuEntry] = []
    for i, item in enumerate(raw):
        skill = item.get("skill")
        if skill not in MIRRORCRAFT_SKILL_NAMES:
            raise ContractError(f"{MENU_FILE.name} entry {i}: {skill!r} is not a skill offered to agents")
        try:
            call = SkillCall.create(skill, item.get("args") or {})
        except ContractError as err:
            raise ContractError(f"{MENU_FILE.name} entry {i} ({item.get('label')}): {err}") from err
        entries.append(MenuEntry(label=str(item["label"]), call=call))
    calls = [e.call for e in entries]
    if len({c.model_dump_json() for c in calls}) != len(calls):
        raise ContractError(f"{MENU_FILE.name}: two entries are the same call")
    return tuple(entries)


__all__ = ["MENU_FILE", "MenuEntry", "action_menu"]

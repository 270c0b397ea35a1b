"""mirrorcraft.skills — the semantic skills on top of the body, outcome reports and observations.

* :mod:`~mirrorcraft.skills.runtime` — the shared context, limits, progress and report building;
* :mod:`~mirrorcraft.skills.movement`, :mod:`~mirrorcraft.skills.gather`,
  :mod:`~mirrorcraft.skills.containers`, :mod:`~mirrorcraft.skills.items`, :mod:`~mirrorcraft.skills.escapes`
  — the MirrorCraft skills; :mod:`~mirrorcraft.skills.farming`, :mod:`~mirrorcraft.skills.social`,
  :mod:`~mirrorcraft.skills.building` — the team-play skills (not offered to MirrorCraft agents); :mod:`~mirrorcraft.skills.navigation` — reaching targets within the body's rules
  and naming the way out when no walk exists;
* :mod:`~mirrorcraft.skills.registry` — :class:`SkillSet` (execute a call, get its report and σ);
* :mod:`~mirrorcraft.skills.observe` — :class:`ObservationBuilder`, the only door from game to agent;
* :mod:`~mirrorcraft.skills.routes` / :mod:`~mirrorcraft.skills.controls` — scripted routes and the
  reachability and paired-observation controls (a test harness that knows the suites; not an agent; the
  ``check`` command that runs them on worlds and servers is :mod:`mirrorcraft.study.check_cli`).

Imports no server, harness, worlds or datapacks (import-linter contract "players-never-see-the-server";
see docs/skills.md): the skills act only through the body's API.
"""

from mirrorcraft.skills.observe import ActionHistory, ObservationBuilder
from mirrorcraft.skills.registry import SKILL_CLASSES, SkillSet
from mirrorcraft.skills.runtime import BaseSkill, Progress, SkillContext, SkillFailed

__all__ = [
    "SKILL_CLASSES",
    "ActionHistory",
    "BaseSkill",
    "ObservationBuilder",
    "Progress",
    "SkillContext",
    "SkillFailed",
    "SkillSet",
]

"""Scenario judges of the team benchmark (PillagerBench): the hidden logic that changes the arena and keeps
the score.

:mod:`.base` (the :class:`Judge` ABC, the :class:`JudgeWorld` a judge acts through, the registry),
:mod:`.mushroom_war` and :mod:`.dash_and_dine` (the two scenarios' judges, their rules read from the arena
spec's ``judge_rules``), :mod:`.embedded` (a judge run as a tick function of the embedded server, and the
judge players a scenario needs). docs/pillagerbench.md "Judges" has the rules and our deviations.
"""

from mirrorcraft.harness.judges.base import JUDGES, Judge, JudgeWorld, make_judge
from mirrorcraft.harness.judges.dash_and_dine import DashAndDineJudge
from mirrorcraft.harness.judges.embedded import EmbeddedJudgeWorld, attach_judge
from mirrorcraft.harness.judges.mushroom_war import MushroomWarJudge

__all__ = [
    "JUDGES",
    "DashAndDineJudge",
    "EmbeddedJudgeWorld",
    "Judge",
    "JudgeWorld",
    "MushroomWarJudge",
    "attach_judge",
    "make_judge",
]

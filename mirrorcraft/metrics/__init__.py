"""mirrorcraft.metrics — Score, SR, RIE, ΔScore/ΔSR, IRR, RL, bootstrap CIs, tables, plots and reports.

Every formula follows the spec's wording (docs/metrics.md lists each with our decisions). Metrics are
pure functions of final :class:`~mirrorcraft.contracts.EpisodeRecord` objects; values are never
rounded before the last aggregation. :func:`report` turns a study run folder into Markdown, CSV and PNG
files (it imports matplotlib, so it is loaded lazily).
"""

from __future__ import annotations

from typing import Any

from mirrorcraft.metrics.bootstrap import bootstrap_ci
from mirrorcraft.metrics.encounters import (
    EncounterOutcome,
    encounter_outcomes,
    irr,
    recovery_latency,
    suite_average,
)
from mirrorcraft.metrics.horizon import horizon_sr, success_by, success_index
from mirrorcraft.metrics.paired import (
    Comparison,
    DisclosurePair,
    PairedEffect,
    disclosure_delta,
    disclosure_pairs,
    paired_comparisons,
    rie,
    score,
    success_rate,
)
from mirrorcraft.metrics.results import ResultsScan, load_final_records, scan_results

__all__ = [
    "Comparison",
    "DisclosurePair",
    "EncounterOutcome",
    "PairedEffect",
    "ResultsScan",
    "bootstrap_ci",
    "disclosure_delta",
    "disclosure_pairs",
    "encounter_outcomes",
    "horizon_sr",
    "irr",
    "load_final_records",
    "paired_comparisons",
    "recovery_latency",
    "report",
    "rie",
    "scan_results",
    "score",
    "success_by",
    "success_index",
    "success_rate",
    "suite_average",
]


def __getattr__(name: str) -> Any:
    # report pulls in matplotlib; import it only when asked for.
    if name == "report":
        from mirrorcraft.metrics.reporting import report

        return report
    raise AttributeError(f"module 'mirrorcraft.metrics' has no attribute {name!r}")

"""Every memory, review, retrieval and probe limit of the configurations, as named settings.

Defaults are the paper's (appendix E). The limits the paper does not give (when exactly a review or a
probe triggers) are ours and marked "ours" below. A study may override any of them through
``EpisodeIdentity.agent_settings`` (the runner passes that dict to :func:`mirrorcraft.agents.make_agent`).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class _S(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class DirectSettings(_S):
    """Direct LLM: no memory beyond the observation's bounded record of verified effects."""


class ReactSettings(_S):
    """ReAct (and ReAct w/rules): the thought/action/observation trace."""

    trace_length: int = Field(16, ge=1, description="Most recent transitions kept (paper: 16).")


class ReflexionSettings(ReactSettings):
    """Reflexion: ReAct trace + temporary lessons written by reviews."""

    max_lessons: int = Field(3, ge=1, description="Lessons held at once (paper: 3).")
    max_reviews: int = Field(6, ge=0, description="Reviews per episode (paper: 6).")
    lesson_life: int = Field(16, ge=1, description="Actions a lesson lives (paper: 16).")
    repeated_failure: int = Field(
        2, ge=2, description="Ours: failures of one σ in a row that trigger a review."
    )
    stall_actions: int = Field(8, ge=1, description="Ours: actions without a new milestone = stalled.")
    review_every: int = Field(12, ge=1, description="Ours: scheduled review after this many actions.")


class VoyagerSettings(_S):
    """Voyager: procedure library, 4-skill programs, critique, retrieval, repairs."""

    library_capacity: int = Field(16, ge=1, description="Procedures in the library (paper: 16).")
    program_length: int = Field(4, ge=1, description="Skill calls per program (paper: 4).")
    retrieve_k: int = Field(5, ge=0, description="Procedures retrieved into a prompt (paper: 5).")
    max_repairs: int = Field(4, ge=0, description="Repairs per episode (paper: 4).")


class XenonSettings(_S):
    """XENON: dependency graph and effect memory."""

    graph_capacity: int = Field(32, ge=1, description="Dependency edges kept (paper: 32).")
    memory_capacity: int = Field(32, ge=1, description="Observed effects kept (paper: 32).")
    retrieve_k: int = Field(3, ge=0, description="Entries retrieved into a prompt (paper: 3).")
    replan_after_failures: int = Field(2, ge=1, description="Failures in a row before a replan (paper: 2).")


class AdamSettings(_S):
    """ADAM: causal graph, transition memory, intervention probes."""

    max_nodes: int = Field(48, ge=2, description="Causal graph nodes (paper: 48).")
    memory_capacity: int = Field(32, ge=1, description="Transitions kept (paper: 32).")
    comparable_samples: int = Field(
        2, ge=1, description="Agreeing comparable samples to learn a link (paper: 2)."
    )
    max_probes: int = Field(2, ge=0, description="Intervention probes per episode (paper: 2).")
    no_probe_final_actions: int = Field(12, ge=0, description="No probes in the final N actions (paper: 12).")
    blocked_failures: int = Field(2, ge=1, description="Ours: failures in a row that mean 'blocked'.")
    stall_actions: int = Field(6, ge=1, description="Ours: actions without a new milestone = blocked.")

"""mirrorcraft.agents — the seven LLM configurations on litellm and the offline scripted policy.

Every configuration implements the contracts' :class:`~mirrorcraft.contracts.Agent` ABC and shares the
same loop (observe → update → decide → execute, :func:`run_episode`), the same canonical observation
serializer and the same skill schemas; they differ only in their per-episode memory and auxiliary
procedures (``docs/agents.md``). Agents never import the server, world or datapack packages: "ReAct
w/rules" receives its rule cards as plain text in the :class:`~mirrorcraft.contracts.AgentContext`.

Registry ids (:data:`AGENTS`): ``direct`` (alias ``direct_llm``, the contracts' id), ``react``,
``react-rules``, ``reflexion``, ``voyager``, ``xenon``, ``adam`` and the offline ``scripted``.
:func:`configuration_for` maps an episode identity's (agent, disclosure) to a registry id.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from mirrorcraft.agents import team_cot as _team_cot  # noqa: F401 - registers the LLM team systems
from mirrorcraft.agents import team_opponents as _team_opponents  # noqa: F401 - registers the team opponents
from mirrorcraft.agents import team_react as _team_react  # noqa: F401 - registers react and reflexion (team play)
from mirrorcraft.agents import team_tacticrafter as _team_tacticrafter  # noqa: F401 - registers tacticrafter
from mirrorcraft.agents.adam import AdamAgent
from mirrorcraft.agents.base import LLMAgent
from mirrorcraft.agents.errors import AgentError, LLMError, ReplayMismatchError
from mirrorcraft.agents.llm import LiteLLMBackend, LLMClient, LLMRequest, LLMResponse, LLMSettings, UsageMeter
from mirrorcraft.agents.loop import EpisodeRun, LoopStep, run_episode
from mirrorcraft.agents.parsing import parse_action
from mirrorcraft.agents.prompting import PROMPT_TEMPLATE_VERSION, template_version
from mirrorcraft.agents.react import DirectAgent, ReactAgent, ReactRulesAgent, ReflexionAgent
from mirrorcraft.agents.replay import ReplayBackend
from mirrorcraft.agents.scripted import ScriptedAgent, ScriptedSettings
from mirrorcraft.agents.settings import (
    AdamSettings,
    DirectSettings,
    ReactSettings,
    ReflexionSettings,
    VoyagerSettings,
    XenonSettings,
)
from mirrorcraft.agents.voyager import VoyagerAgent
from mirrorcraft.agents.xenon import XenonAgent
from mirrorcraft.contracts import Agent, Registry

AgentFactory = Callable[..., Agent]

#: LLM configuration classes and their settings models, by registry id.
LLM_CONFIGURATIONS: dict[str, tuple[type[LLMAgent], type]] = {
    "direct": (DirectAgent, DirectSettings),
    "react": (ReactAgent, ReactSettings),
    "react-rules": (ReactRulesAgent, ReactSettings),
    "reflexion": (ReflexionAgent, ReflexionSettings),
    "voyager": (VoyagerAgent, VoyagerSettings),
    "xenon": (XenonAgent, XenonSettings),
    "adam": (AdamAgent, AdamSettings),
}


def _llm_factory(cls: type[LLMAgent], settings_cls: type) -> AgentFactory:
    def make(
        *, llm: LLMClient | None = None, settings: dict[str, Any] | None = None, reference_grids: bool = False
    ) -> Agent:
        if llm is None:
            raise AgentError(f"agent {cls.configuration!r} needs an LLMClient (llm=...)")
        return cls(llm, settings_cls(**(settings or {})), reference_grids=reference_grids)

    return make


def _scripted_factory(
    *, llm: LLMClient | None = None, settings: dict[str, Any] | None = None, reference_grids: bool = False
) -> Agent:
    return ScriptedAgent(ScriptedSettings(**(settings or {})))


AGENTS: Registry[AgentFactory] = Registry("agent")
for _id, (_cls, _settings) in LLM_CONFIGURATIONS.items():
    AGENTS.register(_id, _llm_factory(_cls, _settings))
AGENTS.register("direct_llm", AGENTS.get("direct"))
AGENTS.register("scripted", _scripted_factory)


def configuration_for(agent: str, disclosure: str = "hidden") -> str:
    """Registry id for an episode identity's ``agent`` and ``disclosure`` (``react`` + disclosed → ``react-rules``).

    Raises:
        AgentError: disclosure requested for a configuration other than ReAct.
    """
    if disclosure == "disclosed":
        if agent not in {"react", "react-rules"}:
            raise AgentError(f"rule disclosure is defined for ReAct only, not {agent!r}")
        return "react-rules"
    return agent


def make_agent(
    name: str,
    *,
    llm: LLMClient | None = None,
    settings: dict[str, Any] | None = None,
    reference_grids: bool = False,
) -> Agent:
    """Build a fresh agent from the registry.

    Args:
        name: registry id (see module docstring).
        llm: the model client (required for every LLM configuration; ignored by ``scripted``).
        settings: overrides of the configuration's named settings (e.g. ``{"trace_length": 8}``).
        reference_grids: include the standard-recipe reference grids in the prompts.

    Raises:
        RegistrationError: unknown id. AgentError: an LLM configuration without ``llm``.
        pydantic.ValidationError: unknown or invalid setting.
    """
    return AGENTS.get(name)(llm=llm, settings=settings, reference_grids=reference_grids)


def make_llm_client(
    settings: LLMSettings, *, record: Path | None = None, replay: Path | None = None
) -> LLMClient:
    """An :class:`LLMClient` on litellm, optionally recording to or replaying from a JSONL file."""
    backend = ReplayBackend(replay) if replay is not None else None
    return LLMClient(settings, backend=backend, record_path=record)


__all__ = [
    "AGENTS",
    "LLM_CONFIGURATIONS",
    "PROMPT_TEMPLATE_VERSION",
    "AdamAgent",
    "AdamSettings",
    "AgentError",
    "DirectAgent",
    "DirectSettings",
    "EpisodeRun",
    "LLMClient",
    "LLMError",
    "LLMRequest",
    "LLMResponse",
    "LLMSettings",
    "LiteLLMBackend",
    "LoopStep",
    "ReactAgent",
    "ReactRulesAgent",
    "ReactSettings",
    "ReflexionAgent",
    "ReflexionSettings",
    "ReplayBackend",
    "ReplayMismatchError",
    "ScriptedAgent",
    "ScriptedSettings",
    "UsageMeter",
    "VoyagerAgent",
    "VoyagerSettings",
    "XenonAgent",
    "XenonSettings",
    "configuration_for",
    "make_agent",
    "make_llm_client",
    "parse_action",
    "run_episode",
    "template_version",
]

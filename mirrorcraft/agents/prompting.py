"""Prompt templates (versioned files under ``prompts/``) and the rendering shared by every configuration.

The paper publishes no prompts, so these are ours (documented in ``docs/prompts.md``). Every LLM
configuration sends the same system prompt (role, skill list generated from the contracts' skill specs,
answer format) and the same per-turn message (task, milestones, budget, memory section, canonical
observation, instruction); the configurations differ only in the memory section they fill in and in
their auxiliary prompts. The observation is the contracts' canonical serialization
(:func:`~mirrorcraft.contracts.serialize_observation`) verbatim, so all configurations see identical
bytes, and its leak guard also covers what reaches a prompt.

Templates use ``string.Template`` (``$name``) because they contain JSON braces. The template version
recorded in each episode record is :func:`template_version`: ``<configuration>/v<N>/<hash>``, where N
is :data:`PROMPT_TEMPLATE_VERSION` (bumped by hand on intended changes) and ``hash`` is the first 10 hex
digits of SHA-256 over every template file, so an edit without a bump is still visible in records.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from string import Template

from mirrorcraft.contracts import Observation, SkillSpec, TaskSpec, serialize_observation
from mirrorcraft.contracts.canonical import sha256_hex

#: Hand-bumped version of the prompt templates (2: the escape skills and the note on moving, issue 21).
PROMPT_TEMPLATE_VERSION = 2

_PACKAGE = "mirrorcraft.agents"
_DIR = "prompts"


@cache
def load_template(name: str) -> Template:
    """Load ``prompts/<name>.md`` as a :class:`string.Template`.

    Raises:
        FileNotFoundError: no such template (the message names the file).
    """
    path = resources.files(_PACKAGE).joinpath(_DIR, f"{name}.md")
    if not path.is_file():
        raise FileNotFoundError(f"prompt template {_DIR}/{name}.md not found in {_PACKAGE}")
    return Template(path.read_text(encoding="utf-8"))


@cache
def templates_digest() -> str:
    """SHA-256 (first 10 hex digits) over the names and contents of every template file."""
    root = resources.files(_PACKAGE).joinpath(_DIR)
    parts = []
    for entry in sorted(root.iterdir(), key=lambda p: p.name):
        if entry.name.endswith(".md"):
            parts.append(entry.name + "\n" + entry.read_text(encoding="utf-8"))
    return sha256_hex("\n\0".join(parts))[:10]


def template_version(configuration: str) -> str:
    """The string stored in ``EpisodeRecord.prompt_template_version`` for ``configuration``."""
    return f"{configuration}/v{PROMPT_TEMPLATE_VERSION}/{templates_digest()}"


def render(template: str, /, **values: object) -> str:
    """Substitute ``values`` into template ``template`` (every ``$placeholder`` must be given)."""
    return load_template(template).substitute({k: str(v) for k, v in values.items()})


def render_skills(skills: list[SkillSpec]) -> str:
    """The skill list of the system prompt: one line of description and one of argument schema each."""
    lines = []
    for spec in skills:
        schema = json.dumps(spec.parameters, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        lines.append(f"- {spec.name}: {spec.description}\n  args schema: {schema}")
    return "\n".join(lines)


def render_rule_cards(cards: list[str] | None) -> str:
    """The rule-card section ("ReAct w/rules" only); empty text when there are no cards."""
    if not cards:
        return ""
    return render("rule_cards", cards="\n\n".join(c.strip() for c in cards))


def system_prompt(
    skills: list[SkillSpec],
    output_format: str,
    *,
    rule_cards: list[str] | None = None,
    reference_grids: bool = False,
    program_length: int = 4,
) -> str:
    """The system message shared by every configuration.

    Args:
        skills: the skill specs offered this episode (from the agent context).
        output_format: name of the answer-format template (``output_action``, ``output_xenon``...).
        rule_cards: exact rule-card texts, only for "ReAct w/rules".
        reference_grids: include the clearly marked standard-recipe reference grids.
        program_length: Voyager's program length (used by ``output_voyager``).
    """
    grids = load_template("reference_grids").template if reference_grids else ""
    return render(
        "system",
        skills=render_skills(skills),
        reference_grids=grids,
        rule_cards=render_rule_cards(rule_cards),
        output_format=render(output_format, program_length=program_length).strip(),
    )


def observation_text(obs: Observation) -> str:
    """The canonical serialized observation as text (identical for every configuration)."""
    return serialize_observation(obs).decode("utf-8")


def render_milestones(obs: Observation) -> str:
    """Milestones of the task view, one per line, in order."""
    return "\n".join(
        f"- {m.advancement} ({m.title}: {m.description}) value {m.value}: {'done' if m.done else 'not done'}"
        for m in obs.task.milestones
    )


def turn_prompt(
    obs: Observation, task: TaskSpec, *, memory: str = "", feedback: str = "", instruction: str
) -> str:
    """The per-decision user message.

    Args:
        obs: the current observation.
        task: the episode's task (title and objective).
        memory: the configuration's memory section (trace, lessons, procedures, graph); may be empty.
        feedback: e.g. the previous answer's policy error, so the model can correct it.
        instruction: name of the instruction template (``instruction_react``...).
    """
    return render(
        "turn",
        task_title=task.title,
        task_objective=task.objective,
        milestones=render_milestones(obs),
        next_milestone=obs.task.next_milestone or "(all done)",
        actions_used=obs.task.actions_used,
        budget=obs.task.budget,
        memory=memory,
        feedback=feedback,
        observation=observation_text(obs),
        instruction=load_template(instruction).template.strip(),
    )

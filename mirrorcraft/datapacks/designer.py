"""Optional LLM Designer / Judge for ``kind=mirror`` specs, in bounded rounds (spec "Datapack construction").

Why: the paper's construction system lets an LLM Designer propose a *full replacement* suite spec and an
LLM Judge audit it (verdict accept / revise / reject, hard failures, warnings, per-task route
assessments). Here the deterministic checks come first and are authoritative: a proposal that does not
validate as a :class:`~mirrorcraft.contracts.rules.SuiteManifest`, does not compile, fails the static
audit, or leaves a task unreachable (:func:`mirrorcraft.datapacks.graph.analyse_suite`) is a *hard
failure* that no Judge can accept. The Judge sees the proposal together with that static report and may
only make the verdict stricter. No LLM ever judges an agent episode.

The LLM is any callable ``(system, user) -> str`` (:data:`LLM`), so the loop runs offline with a scripted
callable in tests; :func:`litellm_llm` adapts litellm (an optional dependency, imported lazily). Replies
must contain one JSON object (a fenced block is accepted).

Partial: prompts are minimal and untuned; nothing here is used by the study pipeline, which ships the six
fixed suites.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mirrorcraft.contracts.rules import SuiteManifest
from mirrorcraft.errors import DatapackError

__all__ = [
    "LLM",
    "DesignResult",
    "DesignRound",
    "JudgeVerdict",
    "RouteAssessment",
    "design_suite",
    "litellm_llm",
    "static_review",
]

LLM = Callable[[str, str], str]
"""``llm(system_prompt, user_prompt) -> reply text``."""

DESIGNER_SYSTEM = (
    "You design hidden rule changes for Minecraft 1.19.2 benchmark worlds. Reply with ONE JSON object: a "
    "complete suite manifest (schema_version, kind='mirror', suite, name, archive_name, card{title,rules,"
    "effect}, rules[...]) using only the operators recipe_result, cooking_output, block_drop_replace, "
    "block_drop_add, entity_loot_replace, entity_loot_add. Every rule must touch a dependency of the Iron "
    "Armor, Diamond or Enchantment task, give an observable outcome, and keep every task reachable."
)
JUDGE_SYSTEM = (
    "You audit a proposed rule suite for a Minecraft benchmark. You are given the proposal and a static "
    "report (compiler, audit, reachability graph). Reply with ONE JSON object: {verdict: accept|revise|"
    "reject, hard_failures: [..], warnings: [..], routes: [{task, reachable, assessment}]}."
)


class RouteAssessment(BaseModel):
    """The Judge's view of one task's route under the proposal."""

    model_config = ConfigDict(extra="forbid")

    task: Literal["iron_armor", "diamond", "enchantment"]
    reachable: bool
    assessment: str = ""


class JudgeVerdict(BaseModel):
    """A Judge verdict (after the static checks were folded in)."""

    model_config = ConfigDict(extra="forbid")

    verdict: Literal["accept", "revise", "reject"]
    hard_failures: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    routes: list[RouteAssessment] = Field(default_factory=list)


class DesignRound(BaseModel):
    """One Designer proposal and its review."""

    model_config = ConfigDict(extra="forbid")

    round: int
    proposal: dict | None
    static_failures: list[str]
    static_warnings: list[str]
    verdict: JudgeVerdict


class DesignResult(BaseModel):
    """The outcome of :func:`design_suite`: the accepted manifest (if any) and every round."""

    model_config = ConfigDict(extra="forbid")

    accepted: SuiteManifest | None
    rounds: list[DesignRound]


_FENCE = re.compile(r"```(?:json)?\s*(\{.*?\})\s*```", re.S)


def _json_object(text: str, who: str) -> dict:
    m = _FENCE.search(text)
    body = m.group(1) if m else text[text.find("{") : text.rfind("}") + 1]
    try:
        obj = json.loads(body)
    except json.JSONDecodeError as err:
        raise DatapackError(f"{who} reply is not a JSON object: {err}") from err
    if not isinstance(obj, dict):
        raise DatapackError(f"{who} reply is not a JSON object")
    return obj


def static_review(proposal: dict) -> tuple[SuiteManifest | None, list[str], list[str], list[RouteAssessment]]:
    """The deterministic checks of a proposal: validate, compile, audit, analyse.

    Returns:
        ``(manifest or None, hard failures, warnings, per-task route assessments)``.
    """
    from mirrorcraft.datapacks.audit import audit_files
    from mirrorcraft.datapacks.compiler import build_suite_files
    from mirrorcraft.datapacks.graph import analyse_files

    try:
        manifest = SuiteManifest.model_validate(proposal)
    except ValidationError as err:
        return None, [f"manifest invalid: {e['loc']}: {e['msg']}" for e in err.errors()], [], []
    try:
        files = build_suite_files(manifest)
    except DatapackError as err:
        return manifest, [f"does not compile: {err}"], [], []
    report = audit_files(files, name=f"proposal {manifest.suite}")
    failures = [f"audit: {e}" for e in report.errors]
    analysis = analyse_files(files, suite=manifest.suite, manifest=manifest)
    failures += analysis.problems
    routes = []
    for task in ("iron_armor", "diamond", "enchantment"):
        reach = [r for r in analysis.reachability if r.task == task]
        ok = all(r.reachable for r in reach)
        broken = "; ".join(b for r in reach for b in r.broken)
        routes.append(
            RouteAssessment(task=task, reachable=ok, assessment="static: reachable" if ok else broken)
        )
    return manifest, failures, [str(w) for w in report.warnings] + analysis.warnings, routes


def design_suite(brief: str, designer: LLM, judge: LLM, *, max_rounds: int = 3) -> DesignResult:
    """Run Designer → static review → Judge for at most ``max_rounds`` rounds.

    A round's verdict is ``reject``/``revise`` whenever the static review has hard failures, whatever the
    Judge says; a Judge ``accept`` of a statically clean proposal ends the loop with that manifest. Feedback
    (failures, warnings, the Judge's notes) goes into the next Designer prompt.

    Args:
        brief: What the suite should do (free text for the Designer).
        designer: The Designer LLM.
        judge: The Judge LLM.
        max_rounds: Upper bound on rounds (≥ 1).

    Returns:
        A :class:`DesignResult` (``accepted`` is None when no round was accepted).
    """
    if max_rounds < 1:
        raise DatapackError("max_rounds must be at least 1")
    rounds: list[DesignRound] = []
    feedback = ""
    for n in range(1, max_rounds + 1):
        user = f"Brief:\n{brief}\n" + (
            f"\nFeedback on your previous proposal:\n{feedback}\n" if feedback else ""
        )
        try:
            proposal: dict | None = _json_object(designer(DESIGNER_SYSTEM, user), "designer")
        except DatapackError as err:
            proposal = None
            static_fail, static_warn, routes, manifest = [str(err)], [], [], None
        else:
            manifest, static_fail, static_warn, routes = static_review(proposal)
        verdict = JudgeVerdict(
            verdict="revise", hard_failures=static_fail, warnings=static_warn, routes=routes
        )
        if proposal is not None:
            judge_user = json.dumps(
                {
                    "proposal": proposal,
                    "static": {"hard_failures": static_fail, "warnings": static_warn},
                    "routes": [r.model_dump() for r in routes],
                },
                indent=2,
            )
            try:
                judged = JudgeVerdict.model_validate(_json_object(judge(JUDGE_SYSTEM, judge_user), "judge"))
            except (DatapackError, ValidationError) as err:
                judged = JudgeVerdict(verdict="revise", hard_failures=[f"judge reply unusable: {err}"])
            failures = static_fail + [f for f in judged.hard_failures if f not in static_fail]
            final = judged.verdict if not failures else ("reject" if judged.verdict == "reject" else "revise")
            verdict = JudgeVerdict(
                verdict=final,
                hard_failures=failures,
                warnings=static_warn + [w for w in judged.warnings if w not in static_warn],
                routes=judged.routes or routes,
            )
        rounds.append(
            DesignRound(
                round=n,
                proposal=proposal,
                static_failures=static_fail,
                static_warnings=static_warn,
                verdict=verdict,
            )
        )
        if verdict.verdict == "accept" and manifest is not None:
            return DesignResult(accepted=manifest, rounds=rounds)
        if verdict.verdict == "reject":
            break
        feedback = "\n".join([*verdict.hard_failures, *verdict.warnings])
    return DesignResult(accepted=None, rounds=rounds)


def litellm_llm(model: str, *, temperature: float = 0.7, max_tokens: int = 2048) -> LLM:
    """An :data:`LLM` backed by litellm (optional dependency; needs the provider's API key at call time)."""
    try:
        import litellm
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise DatapackError("litellm is not installed; pip install litellm") from err

    def call(system: str, user: str) -> str:
        reply = litellm.completion(
            model=model,
            messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
            temperature=temperature,
            max_tokens=max_tokens,
        )
        return reply.choices[0].message.content or ""

    return call

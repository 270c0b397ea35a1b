"""The one model client every configuration uses: litellm underneath, accounting and retries on top.

Why one client: the paper's configurations differ in memory and procedures, not in how they talk to the
model, so sampling settings (temperature 0.7, at most 2,048 output tokens, provider reasoning off),
retries, the hard timeout and per-call token/cost accounting are written once here.

Layers:

* :class:`LLMRequest` / :class:`LLMResponse` — a provider-neutral request (messages + settings) and the
  normalised answer (text, tokens, cost).
* A *backend* is any callable ``LLMRequest -> LLMResponse``. :class:`LiteLLMBackend` calls
  ``litellm.completion`` (any provider/model string, or an OpenAI-compatible local endpoint through
  ``api_base``); tests inject a completion function at exactly that boundary. The replay backends in
  :mod:`mirrorcraft.agents.replay` are backends too.
* :class:`LLMClient` — retries transient errors with exponential backoff, enforces a hard wall-clock
  timeout per attempt, records every call in a :class:`UsageMeter` (purpose ``action`` or an auxiliary
  purpose: ``reflection``, ``critique``, ``repair``, ``retrieval``, ``analysis``), and optionally writes a
  JSONL recording for offline replay.

Reasoning: :data:`REASONING_OFF` lists, per provider, how provider-side reasoning is switched off.

Threading: litellm is blocking. :meth:`LLMClient.acomplete` is an ``async`` method for the agents'
``async def decide``: inside an asyncio task it awaits ``asyncio.to_thread``; otherwise, on a running
Twisted reactor (the agent side of MirrorCraft, architecture principle 5, coroutines driven by
``ensureDeferred``) it awaits ``twisted.internet.threads.deferToThread``. The runner therefore simply wraps ``agent.decide()`` in ``ensureDeferred``.

litellm is imported lazily (it takes seconds to import) with ``LITELLM_LOCAL_MODEL_COST_MAP`` defaulted
to ``True`` so that importing it never reaches the network for the price table.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import random
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from mirrorcraft.agents.errors import LLMError
from mirrorcraft.contracts import ModelSettings, Usage, canonical_json
from mirrorcraft.contracts.canonical import sha256_hex

Purpose = Literal["action", "reflection", "critique", "repair", "retrieval", "analysis"]
#: Purposes that cost no action budget (the paper: "reflection, critique, retrieval, or analysis").
AUXILIARY_PURPOSES: frozenset[str] = frozenset({"reflection", "critique", "repair", "retrieval", "analysis"})


class LLMSettings(BaseModel):
    """How to call the model (named settings, paper defaults).

    ``api_key_env`` names an environment variable holding the key (the key itself is never stored in a
    setting or a record); litellm otherwise reads the provider's usual variable (``OPENAI_API_KEY``...).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str = Field(min_length=1, description="litellm model string, e.g. 'gemini/gemini-2.5-flash'.")
    temperature: float = Field(0.7, ge=0, le=2)
    max_output_tokens: int = Field(2048, ge=1)
    reasoning: Literal["disabled", "enabled"] = Field(
        "disabled", description="Provider-side reasoning/thinking; disabled where the provider allows."
    )
    api_base: str | None = Field(
        None, description="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1."
    )
    api_key_env: str | None = None
    timeout_s: float = Field(120.0, gt=0, description="Hard wall-clock limit of one attempt.")
    max_retries: int = Field(4, ge=0, description="Retries after the first attempt on transient errors.")
    backoff_initial_s: float = Field(2.0, ge=0)
    backoff_max_s: float = Field(30.0, ge=0)
    extra_params: dict[str, Any] = Field(default_factory=dict, description="Passed to litellm as is.")

    @classmethod
    def from_model_settings(cls, model: ModelSettings, **overrides: Any) -> LLMSettings:
        """Build settings from the contracts' :class:`ModelSettings` of an episode identity."""
        base = {
            "model": model.name,
            "temperature": model.temperature,
            "max_output_tokens": model.max_output_tokens,
            "reasoning": model.reasoning,
        }
        base.update(overrides)
        return cls(**base)


class LLMRequest(BaseModel):
    """One model request, provider-neutral (what is recorded and compared in replay)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str
    messages: list[dict[str, str]]
    temperature: float
    max_output_tokens: int
    reasoning: Literal["disabled", "enabled"] = "disabled"
    purpose: Purpose = "action"

    def digest(self) -> str:
        """SHA-256 of the canonical JSON of the request (replay compares it)."""
        return sha256_hex(canonical_json(self.model_dump(mode="json")))


class LLMResponse(BaseModel):
    """The normalised answer of one call."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str
    prompt_tokens: int = Field(0, ge=0)
    completion_tokens: int = Field(0, ge=0)
    cost_usd: float = Field(0.0, ge=0)
    cost_known: bool = Field(True, description="False when the provider's price is unknown (cost 0).")


class LLMCallRecord(BaseModel):
    """Accounting of one completed call."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    seq: int = Field(ge=1)
    purpose: Purpose
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    cost_known: bool
    attempts: int = Field(ge=1)
    latency_s: float = Field(ge=0)

    @property
    def auxiliary(self) -> bool:
        """True for calls that cost no action budget."""
        return self.purpose in AUXILIARY_PURPOSES


class UsageMeter:
    """Per-episode record of every model call (reset by the agent's ``reset``)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.calls: list[LLMCallRecord] = []

    def reset(self) -> None:
        """Forget every call (a new episode)."""
        with self._lock:
            self.calls = []

    def add(self, purpose: Purpose, response: LLMResponse, attempts: int, latency_s: float) -> LLMCallRecord:
        """Record one call and return its record."""
        with self._lock:
            rec = LLMCallRecord(
                seq=len(self.calls) + 1,
                purpose=purpose,
                prompt_tokens=response.prompt_tokens,
                completion_tokens=response.completion_tokens,
                cost_usd=response.cost_usd,
                cost_known=response.cost_known,
                attempts=attempts,
                latency_s=latency_s,
            )
            self.calls.append(rec)
            return rec

    def usage(self) -> Usage:
        """The episode's totals as the contracts' :class:`~mirrorcraft.contracts.Usage` (all purposes)."""
        with self._lock:
            return Usage(
                model_calls=len(self.calls),
                prompt_tokens=sum(c.prompt_tokens for c in self.calls),
                completion_tokens=sum(c.completion_tokens for c in self.calls),
                cost_usd=round(sum(c.cost_usd for c in self.calls), 10),
            )

    def by_purpose(self) -> dict[str, int]:
        """Number of calls per purpose."""
        out: dict[str, int] = {}
        for c in self.calls:
            out[c.purpose] = out.get(c.purpose, 0) + 1
        return out


Backend = Callable[[LLMRequest], LLMResponse]


def import_litellm() -> Any:
    """Import litellm without a network fetch of its price table (see module docstring)."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    return litellm


class LiteLLMBackend:
    """Calls ``litellm.completion`` (or an injected function with the same signature).

    Args:
        settings: endpoint, timeouts and extra parameters.
        completion_fn: replaces ``litellm.completion`` (the test boundary); it receives the same keyword
            arguments and must return a litellm ``ModelResponse`` (or an object shaped like one).
    """

    def __init__(self, settings: LLMSettings, completion_fn: Callable[..., Any] | None = None) -> None:
        self.settings = settings
        self._completion_fn = completion_fn

    def kwargs(self, request: LLMRequest) -> dict[str, Any]:
        """The keyword arguments passed to the completion function for ``request``."""
        s = self.settings
        kw: dict[str, Any] = {
            "model": request.model,
            "messages": request.messages,
            "temperature": request.temperature,
            "max_tokens": request.max_output_tokens,
            "timeout": s.timeout_s,
            "num_retries": 0,  # retries are ours (LLMClient), so they are counted and bounded in one place
            "drop_params": True,  # a provider that lacks a parameter ignores it instead of failing
        }
        if s.api_base:
            kw["api_base"] = s.api_base
        if s.api_key_env:
            key = os.environ.get(s.api_key_env)
            if not key:
                raise LLMError(f"LLM settings: environment variable {s.api_key_env!r} is not set")
            kw["api_key"] = key
        if request.reasoning == "disabled" and not s.api_base:
            kw.update(reasoning_off_params(request.model))
        kw.update(s.extra_params)
        return kw

    def __call__(self, request: LLMRequest) -> LLMResponse:
        fn = self._completion_fn or import_litellm().completion
        response = fn(**self.kwargs(request))
        return normalise_response(response, request.model)


#: Provider → parameters that switch provider-side reasoning off. Gemini (AI Studio and Vertex) can turn
#: thinking off: litellm maps ``reasoning_effort="disable"`` to a thinking budget of 0. Anthropic's extended
#: thinking is opt-in (off unless requested) and DeepSeek's chat models have none, so nothing is sent;
#: OpenAI's reasoning models cannot switch it off at all (pick a non-reasoning model, or set
#: ``extra_params`` deliberately). Local OpenAI-compatible endpoints (``api_base``) get nothing.
REASONING_OFF: dict[str, dict[str, Any]] = {
    "gemini": {"reasoning_effort": "disable"},
    "vertex_ai": {"reasoning_effort": "disable"},
}


def reasoning_off_params(model: str) -> dict[str, Any]:
    """Parameters that disable provider-side reasoning for ``model`` where its provider allows it.

    Only sent when litellm says the model reasons at all; unknown model strings get nothing.
    """
    litellm = import_litellm()
    try:
        provider = litellm.get_llm_provider(model)[1]
        reasons = bool(litellm.supports_reasoning(model=model))
    except Exception:  # litellm raises on model strings it cannot place: nothing to switch off
        return {}
    return dict(REASONING_OFF.get(provider, {})) if reasons else {}


def normalise_response(response: Any, model: str) -> LLMResponse:
    """Turn a litellm ``ModelResponse`` into an :class:`LLMResponse` (text, tokens, cost).

    Raises:
        LLMError: the response has no choices or no message content.
    """
    try:
        content = response.choices[0].message.content
    except (AttributeError, IndexError, TypeError) as err:
        raise LLMError(f"model {model}: response without choices[0].message.content: {err}") from err
    usage = getattr(response, "usage", None)
    prompt = int(getattr(usage, "prompt_tokens", 0) or 0)
    completion = int(getattr(usage, "completion_tokens", 0) or 0)
    cost: float | None = None
    hidden = getattr(response, "_hidden_params", None) or {}
    if isinstance(hidden, dict) and hidden.get("response_cost") is not None:
        cost = float(hidden["response_cost"])
    if cost is None:
        try:
            cost = float(import_litellm().completion_cost(completion_response=response))
        except Exception:  # no price known for this model (local endpoints): report 0 and say so
            cost = None
    return LLMResponse(
        text=content or "",
        prompt_tokens=prompt,
        completion_tokens=completion,
        cost_usd=max(cost or 0.0, 0.0),
        cost_known=cost is not None,
    )


def is_transient(err: BaseException) -> bool:
    """Whether ``err`` is worth retrying (timeouts, rate limits, connection and 5xx errors)."""
    if isinstance(err, TimeoutError | ConnectionError | concurrent.futures.TimeoutError):
        return True
    name = type(err).__name__
    if name in {
        "Timeout",
        "APITimeoutError",
        "RateLimitError",
        "APIConnectionError",
        "InternalServerError",
        "ServiceUnavailableError",
        "BadGatewayError",
    }:
        return True
    status = getattr(err, "status_code", None)
    return isinstance(status, int) and (status == 429 or status >= 500)


class LLMClient:
    """Model access for one agent: settings, backend, retries, hard timeout, accounting, recording.

    Args:
        settings: model and sampling settings.
        backend: a callable ``LLMRequest -> LLMResponse``; default :class:`LiteLLMBackend`.
        record_path: if given, every request and response is appended to this JSONL file
            (:mod:`mirrorcraft.agents.replay` reads it back).
        sleep: the sleep used between retries (tests pass a no-op).
    """

    def __init__(
        self,
        settings: LLMSettings,
        backend: Backend | None = None,
        record_path: Path | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.settings = settings
        self.backend: Backend = backend or LiteLLMBackend(settings)
        self.meter = UsageMeter()
        self.record_path = record_path
        self._sleep = sleep
        self._rng = random.Random(0)
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=2, thread_name_prefix="llm-call")

    def request(self, messages: list[dict[str, str]], purpose: Purpose = "action") -> LLMRequest:
        """Build the request for ``messages`` with this client's sampling settings."""
        s = self.settings
        return LLMRequest(
            model=s.model,
            messages=[{"role": m["role"], "content": m["content"]} for m in messages],
            temperature=s.temperature,
            max_output_tokens=s.max_output_tokens,
            reasoning=s.reasoning,
            purpose=purpose,
        )

    def complete(self, messages: list[dict[str, str]], purpose: Purpose = "action") -> LLMResponse:
        """Blocking call with retries and the hard timeout; the call is recorded in :attr:`meter`.

        Raises:
            LLMError: a non-transient error, or every attempt failed (message names model and purpose).
        """
        request = self.request(messages, purpose)
        s = self.settings
        delay = s.backoff_initial_s
        last: BaseException | None = None
        start = time.monotonic()
        for attempt in range(1, s.max_retries + 2):
            future = self._pool.submit(self.backend, request)
            try:
                response = future.result(timeout=s.timeout_s)
            except concurrent.futures.TimeoutError as err:
                future.cancel()  # a hung call is abandoned; its late result is ignored
                last = TimeoutError(f"no answer within {s.timeout_s}s")
                last.__cause__ = err
            except LLMError:
                raise  # already explicit (e.g. a replay mismatch): never retried, never re-wrapped
            except Exception as err:
                if not is_transient(err):
                    raise LLMError(f"model {s.model} ({purpose} call): {type(err).__name__}: {err}") from err
                last = err
            else:
                self.meter.add(purpose, response, attempt, time.monotonic() - start)
                self._record(request, response)
                return response
            if attempt <= s.max_retries:
                self._sleep(min(delay, s.backoff_max_s) * (1 + 0.25 * self._rng.random()))
                delay *= 2
        raise LLMError(
            f"model {s.model} ({purpose} call): {s.max_retries + 1} attempts failed; "
            f"last error {type(last).__name__}: {last}"
        )

    async def acomplete(self, messages: list[dict[str, str]], purpose: Purpose = "action") -> LLMResponse:
        """:meth:`complete` off the event loop: ``deferToThread`` on a running Twisted reactor, else
        ``asyncio.to_thread`` (module docstring)."""
        if _in_asyncio_task():
            return await asyncio.to_thread(self.complete, messages, purpose)
        if _reactor_running():
            from twisted.internet.threads import deferToThread

            return await deferToThread(self.complete, messages, purpose)
        return self.complete(messages, purpose)  # driven by hand (no loop at all): just block

    def _record(self, request: LLMRequest, response: LLMResponse) -> None:
        if self.record_path is None:
            return
        line = {
            "seq": len(self.meter.calls),
            "request_sha256": request.digest(),
            "request": request.model_dump(mode="json"),
            "response": response.model_dump(mode="json"),
        }
        self.record_path.parent.mkdir(parents=True, exist_ok=True)
        with self.record_path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n")


def _in_asyncio_task() -> bool:
    """True when an asyncio task drives the current coroutine (else e.g. Twisted's ``ensureDeferred``)."""
    try:
        return asyncio.current_task() is not None
    except RuntimeError:
        return False


def _reactor_running() -> bool:
    import sys

    if "twisted.internet.reactor" not in sys.modules:
        return False  # importing the reactor module would install one: only look if it already exists
    from twisted.internet import reactor

    return bool(getattr(reactor, "running", False))

"""The one model client every configuration uses: litellm underneath, accounting and retries on top.

Why one client: the paper's configurations differ in memory and procedures, not in how they talk to the
model, so sampling settings (temperature 0.7, at most 2,048 output tokens, provider reasoning off),
retries, the hard timeout and per-call token/cost accounting are written once here.

Researcher defaults (docs/agents.md "Endpoints, timeouts, retries, cost"): one attempt is cut after
**60 s** and a call gets **3 attempts** (2 retries) with exponential backoff, so a hung endpoint costs at
most 3 × 60 s + 2 + 4 s per call (it was 5 × 120 s + backoff = 635 s). Only transient errors are retried
(:func:`is_transient`): timeouts, connection errors, 429 and 5xx. Authentication errors, other 4xx and a
200 answer whose body is an HTML page (a proxy or captive portal) fail at once.

Credentials are checked before anything starts (:func:`credentials_problem`, litellm's
``validate_environment``); with an ``api_base`` (a local or custom endpoint) no provider key is needed
and none is forwarded: the endpoint gets the key of ``api_key_env`` if given, else a placeholder.

Cost control: ``max_cost_usd`` caps one episode's spending (the client's meter is per episode). Before
each call the client estimates its worst case (prompt tokens + ``max_output_tokens`` at the model's
price) and refuses the call with :class:`CostCapError` if the cap would be exceeded, so the cap holds up
to the accuracy of litellm's prompt-token count. A cap needs a price: litellm's table, or
``input_cost_per_token`` / ``output_cost_per_token`` given (:func:`price_problem`); custom prices also
replace litellm's in the recorded cost.

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
from mirrorcraft.agents.parsing import prepare
from mirrorcraft.contracts import EpisodeRecord, ModelSettings, Usage, canonical_json
from mirrorcraft.contracts.canonical import sha256_hex

Purpose = Literal["action", "reflection", "critique", "repair", "retrieval", "analysis"]
#: Purposes that cost no action budget (the paper: "reflection, critique, retrieval, or analysis").
AUXILIARY_PURPOSES: frozenset[str] = frozenset({"reflection", "critique", "repair", "retrieval", "analysis"})


#: Researcher defaults (module docstring): seconds per attempt and attempts per call.
DEFAULT_TIMEOUT_S = 60.0
DEFAULT_ATTEMPTS = 3
#: Placeholder key sent to an ``api_base`` endpoint without ``api_key_env`` (local servers ignore it; the
#: OpenAI client refuses to send a request without one).
NO_KEY = "no-key-needed"


class CostCapError(LLMError):
    """The next call could exceed the episode's ``max_cost_usd``: refused before it is made."""


#: Start of a cost-cap fault's message (the runner writes ``model call failed: CostCapError: ...``).
COST_CAP_MARK = "CostCapError: cost cap"


def is_cost_cap_fault(record: EpisodeRecord) -> bool:
    """True for an infrastructure-fault record written because the episode reached its cost cap."""
    return any(COST_CAP_MARK in f.message for f in record.infrastructure_faults[-1:])


class LLMRuntime(BaseModel):
    """How to reach a model, beyond the episode identity: endpoint, key variable, limits and prices.

    None of this enters the episode id (the same model and settings give the same episode wherever they
    are served); it comes from the CLI (``--api-base``, ``--timeout``, ``--retries``, ``--max-cost``...) or
    from a grid's model entry, and reaches the runner as ``RunnerSettings.llm`` (docs/studies.md).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    api_base: str | None = None
    api_key_env: str | None = None
    timeout_s: float | None = Field(None, gt=0)
    max_retries: int | None = Field(None, ge=0)
    max_cost_usd: float | None = Field(None, gt=0)
    input_cost_per_token: float | None = Field(None, ge=0)
    output_cost_per_token: float | None = Field(None, ge=0)

    def overrides(self) -> dict[str, Any]:
        """The :class:`LLMSettings` fields this runtime sets (the unset ones keep their defaults)."""
        return self.model_dump(exclude_none=True)


class LLMSettings(BaseModel):
    """How to call the model (named settings, paper defaults, researcher limits).

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
    timeout_s: float = Field(DEFAULT_TIMEOUT_S, gt=0, description="Hard wall-clock limit of one attempt.")
    max_retries: int = Field(
        DEFAULT_ATTEMPTS - 1, ge=0, description="Retries after the first attempt on transient errors."
    )
    backoff_initial_s: float = Field(2.0, ge=0)
    backoff_max_s: float = Field(30.0, ge=0)
    max_cost_usd: float | None = Field(None, gt=0, description="Spending cap of one episode (US dollars).")
    input_cost_per_token: float | None = Field(None, ge=0, description="Custom price (US dollars per token).")
    output_cost_per_token: float | None = Field(
        None, ge=0, description="Custom price (US dollars per token)."
    )
    extra_params: dict[str, Any] = Field(default_factory=dict, description="Passed to litellm as is.")

    @classmethod
    def from_model_settings(
        cls, model: ModelSettings, runtime: LLMRuntime | dict[str, Any] | None = None, **overrides: Any
    ) -> LLMSettings:
        """Build settings from the contracts' :class:`ModelSettings` of an episode identity, then the
        model's :class:`LLMRuntime` (endpoint, limits, prices), then ``overrides``."""
        base: dict[str, Any] = {
            "model": model.name,
            "temperature": model.temperature,
            "max_output_tokens": model.max_output_tokens,
            "reasoning": model.reasoning,
        }
        if runtime is not None:
            base.update(LLMRuntime.model_validate(runtime).overrides())
        base.update(overrides)
        return cls(**base)

    @property
    def custom_prices(self) -> dict[str, float] | None:
        """litellm's ``custom_cost_per_token`` when both prices are given, else None."""
        if self.input_cost_per_token is None or self.output_cost_per_token is None:
            return None
        return {
            "input_cost_per_token": self.input_cost_per_token,
            "output_cost_per_token": self.output_cost_per_token,
        }


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
    """Import litellm without a network fetch of its price table (see module docstring), and quiet.

    litellm prints "Give Feedback / Get Help" and "LiteLLM.Info: If you need to debug this error..." banners
    on every failed call (five times for one episode that retried five times); ``suppress_debug_info``
    turns them off, and its loggers only report errors. Our errors name the model and the cause instead.
    """
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import logging

    import litellm

    litellm.suppress_debug_info = True
    litellm.set_verbose = False
    for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy", "litellm"):
        logging.getLogger(name).setLevel(logging.ERROR)
    return litellm


def credentials_problem(settings: LLMSettings) -> str | None:
    """What is missing to call ``settings.model``, as one line naming the variable, or None when all is set.

    Checked by the CLIs before any world or server starts. With an ``api_base`` (a local or custom
    endpoint) no provider key is required; only ``api_key_env``, when named, must be set.
    """
    if settings.api_key_env:
        if not os.environ.get(settings.api_key_env):
            return f"model {settings.model}: environment variable {settings.api_key_env} is not set"
        return None
    if settings.api_base:
        return None
    env = import_litellm().validate_environment(model=settings.model)
    missing = [k for k in env.get("missing_keys") or [] if not os.environ.get(k)]
    if env.get("keys_in_environment") or not missing:
        return None
    if len(missing) == 1:
        what = f"environment variable {missing[0]} is not set"
    else:  # litellm lists alternatives (Gemini: either key) and joint needs (Vertex: project and location) alike
        what = (
            f"environment variables not set: {', '.join(missing)} (as litellm's validate_environment reports)"
        )
    return f"model {settings.model}: {what}; export it, or give --api-base for a local endpoint"


def model_price(model: str) -> tuple[float, float] | None:
    """litellm's (input, output) price per token of ``model`` in US dollars, or None when unknown."""
    litellm = import_litellm()
    try:
        info = litellm.get_model_info(model)
    except Exception:  # litellm raises for models missing from its price table
        return None
    prices = (info.get("input_cost_per_token"), info.get("output_cost_per_token"))
    if prices[0] is None or prices[1] is None:
        return None
    return float(prices[0]), float(prices[1])


def prices_of(settings: LLMSettings) -> tuple[float, float] | None:
    """The prices the cost accounting uses: the custom ones when given, else litellm's table."""
    if settings.custom_prices is not None:
        return settings.custom_prices["input_cost_per_token"], settings.custom_prices["output_cost_per_token"]
    return model_price(settings.model)


def price_problem(settings: LLMSettings) -> str | None:
    """Why ``max_cost_usd`` cannot be enforced for ``settings`` (one line), or None.

    A cap needs the model's price; a model litellm does not price (a local model, a new release) needs
    ``--input-cost-per-token`` and ``--output-cost-per-token`` (0 for a free local model).
    """
    if settings.max_cost_usd is None:
        return None
    if (settings.input_cost_per_token is None) != (settings.output_cost_per_token is None):
        return f"model {settings.model}: give both --input-cost-per-token and --output-cost-per-token"
    if prices_of(settings) is None:
        return (
            f"model {settings.model}: litellm knows no price for it, so --max-cost cannot be enforced; give "
            "--input-cost-per-token and --output-cost-per-token (US dollars per token, 0 for a free local model)"
        )
    return None


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
            kw["api_key"] = NO_KEY  # never forward a provider's key to a custom endpoint
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
        return normalise_response(response, request.model, self.settings.custom_prices)


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


def normalise_response(
    response: Any, model: str, custom_prices: dict[str, float] | None = None
) -> LLMResponse:
    """Turn a litellm ``ModelResponse`` into an :class:`LLMResponse` (text, tokens, cost).

    Args:
        response: litellm's response.
        model: the model string (for messages).
        custom_prices: ``custom_cost_per_token`` for litellm's cost calculator (replaces its price table).

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
    if custom_prices is None and isinstance(hidden, dict) and hidden.get("response_cost") is not None:
        cost = float(hidden["response_cost"])
    if cost is None:
        try:
            cost = float(
                import_litellm().completion_cost(
                    completion_response=response, custom_cost_per_token=custom_prices
                )
            )
        except Exception:  # no price known for this model (local endpoints): report 0 and say so
            cost = None
    return LLMResponse(
        text=content or "",
        prompt_tokens=prompt,
        completion_tokens=completion,
        cost_usd=max(cost or 0.0, 0.0),
        cost_known=cost is not None,
    )


#: litellm's exception classes that a retry cannot fix (authentication, permissions, bad requests).
PERMANENT_ERRORS = frozenset(
    {
        "AuthenticationError",
        "PermissionDeniedError",
        "BadRequestError",
        "NotFoundError",
        "UnprocessableEntityError",
        "ContentPolicyViolationError",
        "ContextWindowExceededError",
        "UnsupportedParamsError",
        "InvalidRequestError",
        "BudgetExceededError",
        "PaymentRequiredError",
    }
)
#: Fragments of litellm messages that mean "not transient" although it labels them as a 500: a missing
#: key (the OpenAI client's "Missing credentials", raised before any request) and an HTML page served
#: with status 200 (a proxy login or captive portal: "Empty or invalid response ... Received: '<html").
_PERMANENT_FRAGMENTS = ("missing credentials", "api_key client option must be set", "<!doctype", "<html")


def is_transient(err: BaseException) -> bool:
    """Whether ``err`` is worth retrying: timeouts, connection errors, 429 and 5xx (module docstring).

    Not retried: authentication and permission errors, 4xx other than 429, a missing key, and an HTML
    body (even with status 200), whatever class litellm maps them to.
    """
    if isinstance(err, TimeoutError | ConnectionError | concurrent.futures.TimeoutError):
        return True
    name = type(err).__name__
    if name in PERMANENT_ERRORS:
        return False
    text = str(err).lower()
    if any(f in text for f in _PERMANENT_FRAGMENTS):
        return False
    status = getattr(err, "status_code", None)
    if isinstance(status, int) and 400 <= status < 500:
        return status == 429
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
    return isinstance(status, int) and status >= 500


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

        The answer's JSON object is located here, in the caller's thread (off the reactor when called
        through :meth:`acomplete`), so the agents' parse on the event loop is a cache lookup
        (:func:`mirrorcraft.agents.parsing.prepare`).

        Raises:
            CostCapError: the call could exceed ``max_cost_usd`` (checked before it is made).
            LLMError: a non-transient error, or every attempt failed (message names model and purpose).
                Every error raised here carries the episode's spending so far as ``err.usage``.
        """
        request = self.request(messages, purpose)
        s = self.settings
        self._check_cost(request)
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
            except LLMError as err:
                self._with_usage(err)  # already explicit (e.g. a replay mismatch): never retried
                raise
            except Exception as err:
                if not is_transient(err):
                    failed = LLMError(f"model {s.model} ({purpose} call): {type(err).__name__}: {err}")
                    raise self._with_usage(failed) from err
                last = err
            else:
                self.meter.add(purpose, response, attempt, time.monotonic() - start)
                self._record(request, response)
                prepare(response.text)
                return response
            if attempt <= s.max_retries:
                self._sleep(min(delay, s.backoff_max_s) * (1 + 0.25 * self._rng.random()))
                delay *= 2
        raise self._with_usage(
            LLMError(
                f"model {s.model} ({purpose} call): {s.max_retries + 1} attempts failed; "
                f"last error {type(last).__name__}: {last}"
            )
        )

    def _with_usage(self, err: LLMError) -> LLMError:
        """Attach the episode's spending so far (a fault record must still say what it cost)."""
        err.usage = self.meter.usage()  # type: ignore[attr-defined]
        return err

    def _check_cost(self, request: LLMRequest) -> None:
        """Refuse a call whose worst case (prompt + ``max_output_tokens``) could exceed ``max_cost_usd``.

        Raises:
            CostCapError: the cap would be exceeded, or no price is known (see :func:`price_problem`).
        """
        s = self.settings
        if s.max_cost_usd is None:
            return
        prices = prices_of(s)
        if prices is None:
            raise self._with_usage(CostCapError(f"cost cap: {price_problem(s)}"))
        spent = sum(c.cost_usd for c in self.meter.calls)
        prompt = int(import_litellm().token_counter(model=s.model, messages=request.messages))
        worst = prompt * prices[0] + request.max_output_tokens * prices[1]
        if spent + worst > s.max_cost_usd:
            raise self._with_usage(
                CostCapError(
                    f"cost cap reached: ${spent:.4f} spent of ${s.max_cost_usd:.4f} per episode; the next "
                    f"{request.purpose} call could cost up to ${worst:.4f} ({prompt} prompt tokens + "
                    f"{request.max_output_tokens} output tokens)"
                )
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

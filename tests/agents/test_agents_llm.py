"""The LLM client: litellm parameters, retries, hard timeout, token/cost accounting, record and replay."""

from __future__ import annotations

import json
import time

import pytest
import pytest_twisted
from agents_support import MODEL, ScriptedCompletion, client

from mirrorcraft.agents import LLMClient, LLMError, LLMSettings, ReplayBackend, ReplayMismatchError
from mirrorcraft.agents.llm import LiteLLMBackend, import_litellm, reasoning_off_params
from mirrorcraft.contracts import ModelSettings

MSG = [{"role": "system", "content": "You are a player."}, {"role": "user", "content": "What next?"}]


def test_paper_defaults_and_model_settings():
    s = LLMSettings(model=MODEL)
    assert (s.temperature, s.max_output_tokens, s.reasoning) == (0.7, 2048, "disabled")
    from_contract = LLMSettings.from_model_settings(
        ModelSettings(name="gemini/gemini-2.5-flash"), timeout_s=5
    )
    assert from_contract.model == "gemini/gemini-2.5-flash" and from_contract.timeout_s == 5
    assert from_contract.temperature == 0.7 and from_contract.max_output_tokens == 2048


def test_litellm_kwargs_reasoning_off_and_local_endpoint():
    llm, _ = client([])
    req = llm.request(MSG)
    kw = LiteLLMBackend(LLMSettings(model="gemini/gemini-2.5-flash")).kwargs(
        req.model_copy(update={"model": "gemini/gemini-2.5-flash"})
    )
    assert kw["temperature"] == 0.7 and kw["max_tokens"] == 2048 and kw["num_retries"] == 0
    assert kw["reasoning_effort"] == "disable"  # a reasoning-capable provider gets its switch turned off
    local = LiteLLMBackend(LLMSettings(model="openai/qwen", api_base="http://127.0.0.1:8000/v1")).kwargs(req)
    assert local["api_base"] == "http://127.0.0.1:8000/v1" and "reasoning_effort" not in local
    plain = LiteLLMBackend(LLMSettings(model=MODEL)).kwargs(req)
    assert "reasoning_effort" not in plain  # gpt-4o-mini has no reasoning mode to disable
    assert reasoning_off_params("vertex_ai/gemini-2.5-flash") == {"reasoning_effort": "disable"}
    assert reasoning_off_params("anthropic/claude-sonnet-4-20250514") == {}  # extended thinking is opt-in
    assert reasoning_off_params("deepseek/deepseek-chat") == {}
    assert reasoning_off_params("no-such-provider/model") == {}


def test_tokens_and_cost_come_from_litellm_and_aux_calls_count():
    llm, fake = client(['{"skill": "explore"}', '{"lessons": []}'])
    a = llm.complete(MSG, "action")
    b = llm.complete(MSG, "reflection")
    assert a.text == '{"skill": "explore"}' and a.prompt_tokens > 0 and a.completion_tokens > 0
    litellm = import_litellm()
    expected = litellm.completion(model=MODEL, messages=MSG, mock_response=a.text)
    assert a.cost_usd == pytest.approx(expected._hidden_params["response_cost"]) and a.cost_usd > 0
    usage = llm.meter.usage()
    assert usage.model_calls == 2
    assert usage.prompt_tokens == a.prompt_tokens + b.prompt_tokens
    assert usage.cost_usd == pytest.approx(a.cost_usd + b.cost_usd)
    assert [c.auxiliary for c in llm.meter.calls] == [False, True]
    assert fake.requests[0]["temperature"] == 0.7 and fake.requests[0]["max_tokens"] == 2048


def test_transient_errors_are_retried_with_backoff():
    litellm = import_litellm()
    inner = ScriptedCompletion(['{"skill": "explore"}'])
    attempts = []

    def flaky(**kw):
        attempts.append(1)
        if len(attempts) < 3:
            raise litellm.RateLimitError("slow down", llm_provider="openai", model=MODEL)
        return inner(**kw)

    sleeps: list[float] = []
    s = LLMSettings(model=MODEL, backoff_initial_s=1.0)
    llm = LLMClient(s, backend=LiteLLMBackend(s, completion_fn=flaky), sleep=sleeps.append)
    out = llm.complete(MSG)
    assert out.text == '{"skill": "explore"}' and len(attempts) == 3
    assert len(sleeps) == 2 and 1.0 <= sleeps[0] <= 1.25 and 2.0 <= sleeps[1] <= 2.5  # exponential backoff
    assert llm.meter.calls[0].attempts == 3


def test_non_transient_error_fails_at_once_naming_model_and_purpose():
    litellm = import_litellm()

    def bad(**kw):
        raise litellm.AuthenticationError("bad key", llm_provider="openai", model=MODEL)

    s = LLMSettings(model=MODEL)
    llm = LLMClient(s, backend=LiteLLMBackend(s, completion_fn=bad), sleep=lambda _s: None)
    with pytest.raises(LLMError, match=rf"model {MODEL} \(critique call\): AuthenticationError"):
        llm.complete(MSG, "critique")
    assert llm.meter.calls == []


def test_hard_timeout_per_attempt():
    def hang(**kw):
        time.sleep(2.0)

    s = LLMSettings(model=MODEL, timeout_s=0.2, max_retries=1)
    llm = LLMClient(s, backend=LiteLLMBackend(s, completion_fn=hang), sleep=lambda _s: None)
    t0 = time.monotonic()
    with pytest.raises(LLMError, match="2 attempts failed; last error TimeoutError"):
        llm.complete(MSG)
    assert time.monotonic() - t0 < 1.5


def test_record_then_replay_in_order_and_mismatch_fails_loudly(tmp_path):
    rec = tmp_path / "calls.jsonl"
    llm, _ = client(['{"skill": "explore"}', '{"skill": "recover"}'])
    llm.record_path = rec
    first = llm.complete(MSG, "action")
    second = llm.complete(MSG + [{"role": "assistant", "content": "x"}], "analysis")
    lines = [json.loads(x) for x in rec.read_text().splitlines()]
    assert [x["request"]["purpose"] for x in lines] == ["action", "analysis"]

    replay = LLMClient(LLMSettings(model=MODEL), backend=ReplayBackend(rec))
    assert replay.complete(MSG, "action") == first
    assert replay.complete(MSG + [{"role": "assistant", "content": "x"}], "analysis") == second
    assert replay.backend.exhausted
    with pytest.raises(ReplayMismatchError, match="call 3 .* was not recorded"):
        replay.complete(MSG)

    changed = LLMClient(LLMSettings(model=MODEL), backend=ReplayBackend(rec))
    other = [MSG[0], {"role": "user", "content": "What now?"}]
    with pytest.raises(
        ReplayMismatchError,
        match=r"call 1 differs: messages\[1\] \(user\) differs at character 6: recorded .ext\?., now .ow\?.",
    ):
        changed.complete(other)


def test_replay_rejects_a_corrupt_recording(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"request": {}}\n')
    with pytest.raises(ReplayMismatchError, match="bad.jsonl:1 is not a recorded call"):
        ReplayBackend(bad)


@pytest_twisted.ensureDeferred
async def test_acomplete_runs_in_a_reactor_thread():
    from twisted.internet import reactor

    assert reactor.running
    llm, _ = client(['{"skill": "explore"}'])
    out = await llm.acomplete(MSG)
    assert out.text == '{"skill": "explore"}'

"""The LLM client: litellm parameters, retries, hard timeout, token/cost accounting, record and replay."""

from __future__ import annotations

import json
import time

import pytest
import pytest_twisted
from support.agents_support import MODEL, ScriptedCompletion, client
from support.llm_endpoint import FakeOpenAI, Reply

from mirrorcraft.agents import LLMClient, LLMError, LLMSettings, ReplayBackend, ReplayMismatchError
from mirrorcraft.agents.llm import (
    COST_CAP_MARK,
    DEFAULT_ATTEMPTS,
    DEFAULT_TIMEOUT_S,
    NO_KEY,
    CostCapError,
    LiteLLMBackend,
    credentials_problem,
    import_litellm,
    price_problem,
    reasoning_off_params,
)
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


# -- the real litellm path against a local OpenAI-compatible endpoint (issue 22, part 2) ----------------------
# The model is faked only at the network: llm_endpoint.FakeOpenAI answers HTTP on 127.0.0.1, and the client
# goes through litellm.completion and its HTTP client unchanged.

LOCAL = "openai/fake-model"


def _local(api: FakeOpenAI, **kw) -> LLMClient:
    s = LLMSettings(model=LOCAL, api_base=api.base_url, **kw)
    return LLMClient(s, sleep=lambda _s: None)


def test_researcher_defaults_are_60_s_and_3_attempts():
    s = LLMSettings(model=MODEL)
    assert (s.timeout_s, s.max_retries + 1) == (DEFAULT_TIMEOUT_S, DEFAULT_ATTEMPTS) == (60.0, 3)


def test_a_local_endpoint_needs_no_key_and_never_gets_the_providers_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-the-researchers-real-key")
    with FakeOpenAI([Reply.chat('{"skill": "explore"}', prompt_tokens=12, completion_tokens=5)]) as api:
        llm = _local(api, temperature=0.3, max_output_tokens=99)
        out = llm.complete(MSG)
        assert out.text == '{"skill": "explore"}' and (out.prompt_tokens, out.completion_tokens) == (12, 5)
        assert not out.cost_known and out.cost_usd == 0.0  # litellm has no price for a local model
        req = api.requests[0]
        assert (req["model"], req["temperature"], req["max_tokens"]) == ("fake-model", 0.3, 99)
        assert req["messages"] == MSG
        auth = {k.lower(): v for k, v in api.headers[0].items()}["authorization"]
        assert auth == f"Bearer {NO_KEY}" and "sk-the-researchers-real-key" not in auth
    monkeypatch.delenv("OPENAI_API_KEY")
    assert credentials_problem(llm.settings) is None  # api_base: no provider key needed


def test_credentials_are_checked_with_validate_environment(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    problem = credentials_problem(LLMSettings(model="openai/gpt-4o-mini"))
    assert problem is not None and "OPENAI_API_KEY is not set" in problem and "\n" not in problem
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    assert credentials_problem(LLMSettings(model="openai/gpt-4o-mini")) is None
    monkeypatch.delenv("MC_TEST_KEY", raising=False)
    named = LLMSettings(model=LOCAL, api_base="http://127.0.0.1:9/v1", api_key_env="MC_TEST_KEY")
    assert credentials_problem(named) == f"model {LOCAL}: environment variable MC_TEST_KEY is not set"


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        (Reply.error(401, "invalid api key", "invalid_api_key"), "AuthenticationError"),
        (Reply.error(403, "forbidden"), "APIError"),
        (Reply.error(400, "bad request"), "BadRequestError"),
        (Reply.error(404, "no such model"), "NotFoundError"),
        (Reply.error(422, "unprocessable"), "BadRequestError"),
        (Reply.html(200), "InternalServerError"),  # litellm calls an HTML page with status 200 a 500
    ],
    ids=["401", "403", "400", "404", "422", "html-200"],
)
def test_permanent_errors_are_not_retried(reply, error, capfd):
    with FakeOpenAI([reply]) as api:
        llm = _local(api)
        with pytest.raises(LLMError, match=rf"model {LOCAL} \(action call\): {error}") as info:
            llm.complete(MSG)
        assert len(api.requests) == 1  # one attempt, no retry
    assert info.value.usage.model_calls == 0
    out, err = capfd.readouterr()
    assert "Give Feedback" not in out + err and "LiteLLM.Info" not in out + err  # litellm's banners are quiet


def test_rate_limits_and_server_errors_are_retried():
    with FakeOpenAI([Reply.error(429), Reply.error(500), Reply.chat('{"skill": "explore"}')]) as api:
        llm = _local(api)
        assert llm.complete(MSG).text == '{"skill": "explore"}'
        assert len(api.requests) == 3 and llm.meter.calls[0].attempts == 3
    with FakeOpenAI([Reply.error(503)]) as api:
        with pytest.raises(LLMError, match="3 attempts failed; last error ServiceUnavailableError"):
            _local(api).complete(MSG)
        assert len(api.requests) == 3


def test_a_hung_endpoint_costs_attempts_times_timeout():
    with FakeOpenAI([Reply.chat("{}", delay_s=3.0)]) as api:
        llm = _local(api, timeout_s=0.4, max_retries=1)
        t0 = time.monotonic()
        with pytest.raises(LLMError, match="2 attempts failed; last error TimeoutError"):
            llm.complete(MSG)
        assert time.monotonic() - t0 < 2.5
        assert len(api.requests) == 2


def test_cost_from_custom_prices_and_the_episode_cap_is_never_exceeded():
    # Each answer: 20 prompt + 100 output tokens at $1e-6 / $2e-6 = $0.00022; the worst case of a call
    # (litellm's prompt-token count + 100 output tokens) is about the same, so with a $0.0005 cap the third
    # call is refused before it is made.
    with FakeOpenAI([Reply.chat('{"skill": "explore"}', prompt_tokens=20, completion_tokens=100)]) as api:
        llm = _local(
            api,
            max_output_tokens=100,
            max_cost_usd=0.0005,
            input_cost_per_token=1e-6,
            output_cost_per_token=2e-6,
        )
        first = llm.complete(MSG)
        assert first.cost_known and first.cost_usd == pytest.approx(20e-6 + 200e-6)
        llm.complete(MSG, "reflection")
        with pytest.raises(CostCapError, match=r"cost cap reached: \$0\.0004 spent of \$0\.0005") as info:
            llm.complete(MSG)
        assert len(api.requests) == 2  # the refused call never reached the endpoint
    spent = llm.meter.usage().cost_usd
    assert spent == pytest.approx(0.00044) and spent <= 0.0005
    assert info.value.usage.cost_usd == pytest.approx(0.00044)
    assert COST_CAP_MARK in f"model call failed: {type(info.value).__name__}: {info.value}"


def test_a_cap_needs_a_price():
    unpriced = LLMSettings(model=LOCAL, api_base="http://127.0.0.1:9/v1", max_cost_usd=1.0)
    assert "litellm knows no price" in price_problem(unpriced)
    assert "give both" in price_problem(unpriced.model_copy(update={"input_cost_per_token": 0.0}))
    priced = unpriced.model_copy(update={"input_cost_per_token": 0.0, "output_cost_per_token": 0.0})
    assert price_problem(priced) is None
    assert price_problem(LLMSettings(model=MODEL, max_cost_usd=1.0)) is None  # litellm prices gpt-4o-mini
    assert price_problem(LLMSettings(model=LOCAL)) is None  # no cap, no price needed


def test_runtime_fields_reach_the_settings():
    s = LLMSettings.from_model_settings(
        ModelSettings(name=LOCAL, temperature=0.2),
        {"api_base": "http://h/v1", "timeout_s": 5, "max_retries": 0},
    )
    assert (s.model, s.temperature, s.api_base, s.timeout_s, s.max_retries) == (
        LOCAL,
        0.2,
        "http://h/v1",
        5,
        0,
    )
    with pytest.raises(ValueError, match="timeout_s"):
        LLMSettings.from_model_settings(ModelSettings(name=LOCAL), {"timeout_s": -1})


@pytest_twisted.ensureDeferred
async def test_the_answer_is_parsed_off_the_reactor_thread():
    # 30,000 '{' then the object: the model client locates it in its call thread; on the reactor the agent's
    # extract_json_object only decodes the cached span.
    from mirrorcraft.agents import parsing

    text = "{" * 30_000 + ' {"skill": "explore", "args": {}}'
    with FakeOpenAI([Reply.chat(text)]) as api:
        out = await _local(api).acomplete(MSG)
    assert out.text == text and text in parsing._cache
    t0 = time.perf_counter()
    assert parsing.extract_json_object(out.text) == {"skill": "explore", "args": {}}
    assert time.perf_counter() - t0 < 0.01

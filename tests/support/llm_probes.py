"""Probes of the LLM path for docs/reliability.md (run against any checkout). NOT a test.

    PYTHONPATH=$PWD python tests/support/llm_probes.py parse     # JSON extraction on 20,000 / 30,000 '{'
    PYTHONPATH=$PWD python tests/support/llm_probes.py errors    # attempts per endpoint failure
    PYTHONPATH=$PWD python tests/support/llm_probes.py raw       # size of a policy error for a 2.4 MB answer

``errors`` starts the local OpenAI-compatible endpoint of ``llm_endpoint.py`` and calls it through
litellm's real ``completion`` (backoff sleeps are recorded, not slept); add ``key`` to set a dummy
``OPENAI_API_KEY`` first.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the support package


def parse() -> None:
    from mirrorcraft.agents import parsing

    for n in (20_000, 30_000):
        if hasattr(parsing, "_cache"):
            parsing._cache.clear()
        t0 = time.perf_counter()
        parsing.extract_json_object("{" * n)
        print(f"{n:,} '{{': {time.perf_counter() - t0:.3f} s")


def errors(with_key: bool) -> None:
    from mirrorcraft.agents.llm import LLMClient, LLMSettings
    from support.llm_endpoint import FakeOpenAI, Reply

    if with_key:
        os.environ["OPENAI_API_KEY"] = "sk-test"
    else:
        os.environ.pop("OPENAI_API_KEY", None)
    cases = [
        ("200 JSON", Reply.chat('{"skill": "explore"}')),
        ("401", Reply.error(401, "bad key")),
        ("403", Reply.error(403)),
        ("400", Reply.error(400)),
        ("404", Reply.error(404)),
        ("HTML 200", Reply.html()),
        ("429", Reply.error(429)),
        ("503", Reply.error(503)),
    ]
    for name, reply in cases:
        with FakeOpenAI([reply]) as api:
            slept: list[float] = []
            llm = LLMClient(LLMSettings(model="openai/fake", api_base=api.base_url), sleep=slept.append)
            try:
                llm.complete([{"role": "user", "content": "x"}])
                result = "ok"
            except Exception as err:  # noqa: BLE001 - a probe reports whatever happened
                result = f"{type(err).__name__}: {str(err)[:70]}"
            print(f"{name:9} requests={len(api.requests)} backoff_s={sum(slept):5.1f} -> {result}")


def raw() -> None:
    from mirrorcraft.agents.parsing import parse_action

    answer = "I think " * 300_000
    err = parse_action(answer)
    print(f"answer {len(answer):,} chars -> PolicyError JSON {len(err.model_dump_json()):,} bytes")


if __name__ == "__main__":
    what = sys.argv[1]
    if what == "parse":
        parse()
    elif what == "errors":
        errors(len(sys.argv) > 2 and sys.argv[2] == "key")
    else:
        raw()

"""Model output → one validated skill call, or a policy error that keeps (a bounded prefix of) the raw text.

The output format every prompt asks for is one JSON object ``{"thought": ..., "skill": ..., "args":
{...}}`` (some configurations add fields, e.g. XENON's ``"expect"``). Models wrap JSON in code fences
or prose, so the parser takes the first balanced ``{...}`` that decodes as JSON. Everything that does not
yield an executable call becomes a :class:`~mirrorcraft.contracts.PolicyError` (spec "Action
semantics"): ``unparseable`` (no JSON object, or no ``skill``), ``unknown_skill`` (a name the body does
not offer in this episode) or ``invalid_arguments`` (the contracts' validator message, which names every
bad field). A policy error consumes no budget; the loop re-asks.

**Cost.** The extraction is linear and bounded (:func:`extract_json_object`): only the first
:data:`MAX_PARSE_CHARS` characters are read, the scan visits each brace and quote once per pass, at most
:data:`MAX_SCANS` passes are made and the candidates handed to ``json`` hold at most
:data:`MAX_DECODE_CHARS` characters in all. (The
former version rescanned from every ``{`` to the end: 20,000 ``{`` took 23 s on the event loop.) The model
client locates the object in its call thread (:func:`prepare`), so the agents' call on the reactor finds
it in a small cache.

**Records.** A policy error keeps at most :data:`MAX_RAW_CHARS` characters of the answer plus its length
and SHA-256 (:func:`bounded_raw`): a 2.4 MB answer no longer makes a 7 MB record line.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from mirrorcraft.contracts import PolicyError, SkillCall
from mirrorcraft.errors import ContractError

#: Characters of an answer the JSON extraction reads (the output cap, 2,048 tokens, is ~8-10k characters).
MAX_PARSE_CHARS = 65_536
#: Fresh scans from a later ``{`` after a scan ended with an unclosed brace (a stray quote in prose).
MAX_SCANS = 8
#: Characters of all candidate spans handed to ``json.loads`` per answer (8 × the parsed text: linear).
MAX_DECODE_CHARS = 8 * MAX_PARSE_CHARS
#: Characters of a raw answer a policy error keeps.
MAX_RAW_CHARS = 4_096
_TOKENS = re.compile(r'[{}"\\]')
_CACHE_SIZE = 16


def _candidates(text: str) -> list[tuple[int, int]]:
    """Spans ``(start, end)`` of balanced ``{...}`` groups, each group's spans in start order (outer first).

    A pass keeps a stack of open braces, skipping braces inside JSON strings; when a group closes, its
    spans are yielded in start order. If the text ends with braces still open (a stray quote in prose can
    swallow the rest), the spans closed inside are yielded too, and a fresh pass starts at the next ``{``
    after the outermost open one, at most :data:`MAX_SCANS` passes in all.
    """
    out: list[tuple[int, int]] = []
    start = text.find("{")
    for _ in range(MAX_SCANS):
        if start == -1:
            break
        stack: list[int] = []
        group: list[tuple[int, int]] = []
        in_str = esc = False
        pos = start
        for m in _TOKENS.finditer(text, start):
            i, ch = m.start(), m.group()
            if esc:
                esc = False
                if i == pos + 1:
                    pos = i
                    continue
            pos = i
            if not stack:
                if ch == "{":
                    stack.append(i)
                continue
            if in_str:
                if ch == "\\":
                    esc = True
                elif ch == '"':
                    in_str = False
            elif ch == '"':
                in_str = True
            elif ch == "\\":
                esc = True
            elif ch == "{":
                stack.append(i)
            elif ch == "}":
                group.append((stack.pop(), i + 1))
                if not stack:
                    out.extend(sorted(group))
                    group = []
        if not stack:
            break
        out.extend(sorted(group))
        start = text.find("{", stack[0] + 1)
    return out


def _locate(text: str) -> tuple[int, int] | None:
    """The span of the first candidate that decodes to a JSON object (bounded, see module docstring)."""
    text = text[:MAX_PARSE_CHARS]
    seen: set[tuple[int, int]] = set()
    budget = MAX_DECODE_CHARS
    for span in _candidates(text):
        if span in seen:
            continue
        seen.add(span)
        budget -= span[1] - span[0]
        if budget < 0:
            return None
        try:
            value = json.loads(text[span[0] : span[1]])
        except (json.JSONDecodeError, RecursionError):
            continue
        if isinstance(value, dict):
            return span
    return None


_cache: OrderedDict[str, tuple[int, int] | None] = OrderedDict()
_cache_lock = threading.Lock()


def prepare(text: str) -> tuple[int, int] | None:
    """Locate the answer's JSON object and remember where (the model client calls this in its thread)."""
    with _cache_lock:
        if text in _cache:
            _cache.move_to_end(text)
            return _cache[text]
    span = _locate(text)
    with _cache_lock:
        _cache[text] = span
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return span


def extract_json_object(text: str) -> dict[str, Any] | None:
    """The first balanced JSON object in ``text`` that decodes, or ``None``.

    String literals are respected when matching braces, so ``"{"`` inside a thought does not confuse it.
    Only the first :data:`MAX_PARSE_CHARS` characters are read; the work is linear in them (module
    docstring). A fresh ``dict`` is decoded on every call (callers may change it).
    """
    span = prepare(text)
    if span is None:
        return None
    value = json.loads(text[span[0] : span[1]])
    return value if isinstance(value, dict) else None


def bounded_raw(text: str) -> str:
    """``text`` itself when short, else its first :data:`MAX_RAW_CHARS` characters, its length and SHA-256."""
    if len(text) <= MAX_RAW_CHARS:
        return text
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    return f"{text[:MAX_RAW_CHARS]}\n[answer truncated: {len(text)} characters, sha256 {digest}]"


@dataclass
class ParsedAction:
    """A parsed decision: the validated call, the model's thought and any extra fields it returned."""

    call: SkillCall
    thought: str
    extras: dict[str, Any] = field(default_factory=dict)


def policy_error(kind: str, raw: str, message: str) -> PolicyError:
    """Build a :class:`PolicyError` (``kind`` one of unparseable/unknown_skill/invalid_arguments); the raw
    text is bounded (:func:`bounded_raw`)."""
    return PolicyError(kind=kind, raw_text=bounded_raw(raw), message=message)  # type: ignore[arg-type]


def call_from_object(
    obj: dict[str, Any], raw: str, allowed: set[str] | None = None
) -> SkillCall | PolicyError:
    """Validate ``{"skill": name, "args": {...}}`` (``"name"`` is accepted for ``"skill"``)."""
    name = obj.get("skill", obj.get("name"))
    if not isinstance(name, str) or not name:
        return policy_error("unparseable", raw, 'the JSON object has no "skill" string')
    name = name.strip()
    if allowed is not None and name not in allowed:
        return policy_error(
            "unknown_skill", raw, f"unknown skill {name!r}; available: {', '.join(sorted(allowed))}"
        )
    args = obj.get("args", {})
    if args is None:
        args = {}
    try:
        return SkillCall.create(name, args)
    except ContractError as err:
        kind = "unknown_skill" if str(err).startswith("unknown skill") else "invalid_arguments"
        return policy_error(kind, raw, str(err))


def parse_action(text: str, allowed: set[str] | None = None) -> ParsedAction | PolicyError:
    """Parse a model answer into one skill call.

    Args:
        text: the raw model output.
        allowed: skill names offered in this episode (``None`` = every contract skill).

    Returns:
        :class:`ParsedAction` on success, else a :class:`PolicyError` holding ``text`` (bounded).
    """
    obj = extract_json_object(text)
    if obj is None:
        return policy_error("unparseable", text, "no JSON object found in the answer")
    result = call_from_object(obj, text, allowed)
    if isinstance(result, PolicyError):
        return result
    thought = obj.get("thought", "")
    extras = {k: v for k, v in obj.items() if k not in {"thought", "skill", "name", "args"}}
    return ParsedAction(
        call=result, thought=thought if isinstance(thought, str) else str(thought), extras=extras
    )

"""Tags: reading tag files and resolving them across packs, as vanilla 1.19.2's ``TagLoader`` does.

Why its own module: recipes, loot tables, advancements, fuels and digging all ask "which items (blocks) does
``#tag`` hold?", and the answer depends on every loaded pack: each pack's file for a tag *appends* its
``values`` unless it says ``"replace": true``, which drops what earlier packs contributed; ``#tag``
references are flattened after all packs are read; an entry ``{"id": .., "required": false}`` may name a
missing element. Item and block tags are checked against the game registries; a missing required element
or tag is an error naming the file and the entry.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any

from mirrorcraft.rules.packs import (
    Issues,
    JsonAt,
    JsonError,
    Pack,
    block_exists,
    item_exists,
    load_json_bytes,
    report,
    resource_of,
    vanilla_pack,
)

__all__ = ["TagEntry", "TagSet", "parse_tag_file", "resolve_tags", "vanilla_tags"]

#: The tag folders whose elements are checked against the game registries.
CHECKED_KINDS: dict[str, Callable[[str], bool]] = {"items": item_exists, "blocks": block_exists}

TagSet = dict[str, dict[str, frozenset[str]]]
"""Tag kind (``items``, ``blocks``, ``worldgen/biome``...) → tag id → flattened members."""


@dataclass(frozen=True)
class TagEntry:
    """One ``values`` entry of a tag file: an element id, or ``#ns:path`` for a tag reference."""

    ref: str
    required: bool
    source: str
    where: str


def parse_tag_file(data: Any, at: JsonAt) -> tuple[bool, list[TagEntry]]:
    """``(replace, entries)`` of one tag file.

    Raises:
        JsonError: A malformed file or entry.
    """
    obj = at.obj(data)
    replace = at.key("replace").bool(obj.get("replace", False))

    def entry(raw: Any, e_at: JsonAt) -> TagEntry:
        required = True
        if isinstance(raw, dict):
            ref_raw = e_at.required(raw, "id")
            required = e_at.key("required").bool(raw.get("required", True))
            e_at = e_at.key("id")
        else:
            ref_raw = raw
        text = e_at.str(ref_raw)
        ref = "#" + e_at.res(text[1:]) if text.startswith("#") else e_at.res(text)
        return TagEntry(ref, required, e_at.source, e_at.path)

    v_at = at.key("values")
    return replace, v_at.each(v_at.list(at.required(obj, "values")), entry)


def resolve_tags(
    raw: dict[str, list[TagEntry]],
    kind: str,
    exists: Callable[[str], bool] | None,
    issues: Issues | None = None,
) -> dict[str, frozenset[str]]:
    """Flatten the ``#`` references of one tag kind; check elements exist (``exists``, if given).

    Raises:
        JsonError: (strict) an unknown required element or tag, or a reference cycle.
    """
    done: dict[str, frozenset[str]] = {}

    def resolve(name: str, stack: list[str]) -> frozenset[str]:
        if name in done:
            return done[name]
        if name in stack:
            first = raw[stack[0]][0] if raw[stack[0]] else None
            report(
                issues,
                JsonError(
                    first.source if first else kind,
                    "values",
                    f"tag cycle in {kind}: {' -> '.join([*stack, name])}",
                ),
            )
            return frozenset()
        out: set[str] = set()
        for entry in raw[name]:
            if entry.ref.startswith("#"):
                ref = entry.ref[1:]
                if ref not in raw:
                    if entry.required:
                        report(
                            issues,
                            JsonError(
                                entry.source,
                                entry.where,
                                f"tag {kind} #{name} references unknown tag #{ref}",
                            ),
                        )
                    continue
                out |= resolve(ref, [*stack, name])
            elif exists is None or exists(entry.ref):
                out.add(entry.ref)
            elif entry.required:
                report(
                    issues,
                    JsonError(
                        entry.source, entry.where, f"tag {kind} #{name} names unknown element {entry.ref!r}"
                    ),
                )
        done[name] = frozenset(out)
        return done[name]

    for name in raw:
        resolve(name, [])
    return done


def read_tags(packs: Iterable[Pack], issues: Issues | None = None) -> TagSet:
    """Every tag of ``packs`` (in load order), resolved; ``items`` and ``blocks`` are always present."""
    tag_raw: dict[str, dict[str, list[TagEntry]]] = {}
    for pack in packs:
        for path, content in pack.files.items():
            res = resource_of(path)
            if res is None or not res[0].startswith("tags/"):
                continue
            kind, ns, name = res
            source = pack.source(path)
            try:
                replace, entries = parse_tag_file(
                    load_json_bytes(content, source), JsonAt(source, issues=issues)
                )
            except JsonError as err:
                report(issues, err)
                continue
            bucket = tag_raw.setdefault(kind[5:], {})
            location = f"{ns}:{name}"
            if replace or location not in bucket:
                bucket[location] = []
            bucket[location].extend(entries)
    out: TagSet = {
        kind: resolve_tags(raw, kind, CHECKED_KINDS.get(kind), issues) for kind, raw in tag_raw.items()
    }
    out.setdefault("items", {})
    out.setdefault("blocks", {})
    return out


@cache
def vanilla_tags() -> TagSet:
    """The vendored vanilla pack's tags, resolved once per process (digging, the compiler)."""
    return read_tags([vanilla_pack()])

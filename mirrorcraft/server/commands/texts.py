"""Vanilla 1.19.2 reply texts (``language.json`` keys) and Java-style ``%s`` / ``%1$s`` formatting.

Why: every message a command prints must be the text a vanilla server prints, so the RCON path for a
user's vanilla jar and the embedded server read the same strings. The texts are vendored in
``data/lang_1_19_2.json`` by ``_generate_texts.py`` (from minecraft-data 3.119.0's ``language.json``).
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

from mirrorcraft.errors import GameDataError

LANG_FILE = Path(__file__).resolve().parent / "data" / "lang_1_19_2.json"

_FORMAT = re.compile(r"%(?:(\d+)\$)?([sd%])")


@cache
def lang() -> dict[str, str]:
    """The vendored ``key -> text`` table."""
    try:
        return json.loads(LANG_FILE.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise GameDataError(
            f"{LANG_FILE}: vendored language texts missing; run python -m "
            "mirrorcraft.server.commands._generate_texts"
        ) from None


def has(key: str) -> bool:
    """Whether ``key`` is in the vendored table."""
    return key in lang()


def fmt(text: str, *args: object) -> str:
    """Format a Java ``String.format``-style language text the way the client's ``TranslatableContents``
    does: ``%s`` takes the next argument, ``%1$s`` the numbered one, ``%%`` is a literal percent."""
    counter = 0

    def sub(m: re.Match[str]) -> str:
        nonlocal counter
        if m.group(2) == "%":
            return "%"
        if m.group(1) is not None:
            index = int(m.group(1)) - 1
        else:
            index = counter
            counter += 1
        if index >= len(args):
            return m.group(0)
        return java_str(args[index])

    return _FORMAT.sub(sub, text)


def tr(key: str, *args: object) -> str:
    """The vanilla text of ``key`` formatted with ``args``.

    Raises:
        GameDataError: ``key`` is not in the vendored table (a programming error: add its prefix to the
            generator).
    """
    try:
        text = lang()[key]
    except KeyError:
        raise GameDataError(f"language key {key!r} is not vendored in {LANG_FILE.name}") from None
    return fmt(text, *args)


def java_str(value: object) -> str:
    """``String.valueOf`` of a Java value: booleans lower-case, doubles always with a fraction (``64.0``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if value != value:
            return "NaN"
        if value in (float("inf"), float("-inf")):
            return "Infinity" if value > 0 else "-Infinity"
        if value == int(value) and abs(value) < 1e7:
            return f"{int(value)}.0"
        return repr(value)
    return str(value)


def display_name(kind: str, resource: str) -> str:
    """The display name of a registry entry: ``display_name("item", "minecraft:diamond") == "Diamond"``.

    ``kind`` is ``item`` (falls back to ``block``, as block items use their block's name), ``effect``,
    ``entity`` or ``block``; an unknown entry yields its id (as a client shows a missing translation).
    """
    ns, _, path = resource.partition(":")
    if not path:
        ns, path = "minecraft", ns
    key_path = path.replace("/", ".")
    kinds = ("item", "block") if kind == "item" else (kind,)
    for k in kinds:
        key = f"{k}.{ns}.{key_path}"
        if key in lang():
            return lang()[key]
    return f"{kind}.{ns}.{key_path}"


def item_key(item: str) -> str:
    """The language key of an item's name (``Item.getDescriptionId``): ``item.minecraft.diamond``, or the
    block's key for a block item (``BlockItem``: ``block.minecraft.oak_log``)."""
    ns, _, path = item.partition(":")
    if not path:
        ns, path = "minecraft", ns
    for kind in ("item", "block"):
        key = f"{kind}.{ns}.{path.replace('/', '.')}"
        if key in lang():
            return key
    return f"item.{ns}.{path.replace('/', '.')}"


def advancement_title(advancement: str) -> str:
    """The title of an advancement (``minecraft:story/mine_stone`` → ``Stone Age``), or its id."""
    ns, _, path = advancement.partition(":")
    key = f"advancements.{path.replace('/', '.')}.title"
    return lang().get(key, advancement) if ns == "minecraft" else advancement

"""Vanilla 1.19.2 text components: the JSON a vanilla server sends in system chat, death and disconnect
messages, built the way its Java code builds them, and their English rendering.

Why components and not strings: clients match on ``translate`` keys and their arguments (Mineflayer's chat
patterns render the component with their own language table; Voyager and Mindcraft match English they
render themselves), so a command reply must reach the client as vanilla's component — e.g.
``{"translate":"commands.gamemode.success.self","with":[{"translate":"gameMode.creative"}]}`` — never as
pre-rendered text. RCON is the exception vanilla makes: ``RconConsoleSource`` appends
``Component.getString()``, the English rendering, which :func:`render` reproduces.

A component here is a plain ``dict`` in vanilla's JSON shape. The builders follow the Java that makes each
one (cited per function); :func:`to_json` writes vanilla's key order (``Component.Serializer``: the style
keys ``bold italic underlined strikethrough obfuscated color insertion clickEvent hoverEvent font``, then
``extra``, then the contents) with Gson's compact separators and no HTML escaping, so a body can be
compared byte for byte with the vanilla captures in ``minecraft-packets`` (``system_chat``,
``death_combat_event``). :func:`parse` reads a component a user typed (``tellraw``, ``title``) the way
``Component.Serializer.deserialize`` does.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from mirrorcraft.server.commands.texts import fmt, item_key, java_str, lang
from mirrorcraft.server.facts import PLAYER_TYPE

Component = dict[str, Any]

#: ``Style.Serializer.serialize`` order, then the siblings, then the contents (``Component.Serializer``).
STYLE_KEYS = (
    "bold",
    "italic",
    "underlined",
    "strikethrough",
    "obfuscated",
    "color",
    "insertion",
    "clickEvent",
    "hoverEvent",
    "font",
)
CONTENT_KEYS = ("text", "translate", "with", "score", "selector", "separator", "keybind", "nbt")
_KNOWN = (
    frozenset(STYLE_KEYS) | frozenset(CONTENT_KEYS) | {"extra", "interpret", "block", "entity", "storage"}
)

#: ``ChatFormatting`` names a ``color`` may take (the hex form ``#rrggbb`` is valid too).
COLORS = frozenset(
    (
        "black dark_blue dark_green dark_aqua dark_red dark_purple gold gray dark_gray blue green aqua red "
        "light_purple yellow white"
    ).split()
)


# ---- builders -------------------------------------------------------------------------------------------


def text(value: str, **style: Any) -> Component:
    """``Component.literal(value)`` with an optional style."""
    return _order({**style, "text": value})


def empty(*siblings: Component, **style: Any) -> Component:
    """``Component.empty().append(...)``: no content of its own, the siblings as ``extra``."""
    c: Component = dict(style)
    if siblings:
        c["extra"] = list(siblings)
    c["text"] = ""
    return _order(c)


def _arg(value: object) -> Any:
    # TranslatableContents serialisation: a Component argument stays a component, anything else is
    # ``new JsonPrimitive(String.valueOf(arg))`` (a JSON string: numbers arrive as "13000").
    if isinstance(value, dict):
        return value
    return java_str(value)


def translatable(key: str, *args: object, **style: Any) -> Component:
    """``Component.translatable(key, args...)``; arguments that are not components become JSON strings."""
    c: Component = {**style, "translate": key}
    if args:
        c["with"] = [_arg(a) for a in args]
    return _order(c)


def styled(c: Component, **style: Any) -> Component:
    """``withStyle``: ``c`` with style keys set (a copy; existing keys are overwritten)."""
    return _order({**c, **style})


def failure(message: Component) -> Component:
    """``CommandSourceStack.sendFailure``: ``Component.empty().append(message).withStyle(RED)``."""
    return empty(message, color="red")


def square_brackets(inner: Component, **style: Any) -> Component:
    """``ComponentUtils.wrapInSquareBrackets``: ``chat.square_brackets`` around ``inner``."""
    return translatable("chat.square_brackets", inner, **style)


def player_name(name: str, uuid: str) -> Component:
    """``Player.getDisplayName``: the name, with ``/tell`` suggested on click, the entity on hover and the
    name as insertion (the ``multiplayer.player.joined`` capture in ``minecraft-packets``)."""
    return _order(
        {
            "insertion": name,
            "clickEvent": {"action": "suggest_command", "value": f"/tell {name} "},
            "hoverEvent": {
                "action": "show_entity",
                "contents": {"type": PLAYER_TYPE, "id": uuid, "name": {"text": name}},
            },
            "text": name,
        }
    )


def entity_name(type_: str, uuid: str, name: Component) -> Component:
    """``Entity.getDisplayName`` of a non-player: its name with the entity on hover and its UUID as insertion."""
    hover = {"action": "show_entity", "contents": {"type": type_, "id": uuid, "name": name}}
    return _order({**name, "insertion": uuid, "hoverEvent": hover})


def item_name(item: str, count: int = 1) -> Component:
    """``ItemStack.getDisplayName``: the item's name in square brackets, coloured by rarity, the stack on
    hover. Partial: every item is drawn with the common rarity's white (vanilla's rarity table is not in
    minecraft-data; the rarity colour is the only difference)."""
    contents: dict[str, Any] = {"id": item if ":" in item else f"minecraft:{item}"}
    if count != 1:
        contents["count"] = count
    inner = empty(translatable(item_key(item)))
    return square_brackets(inner, color="white", hoverEvent={"action": "show_item", "contents": contents})


#: ``FrameType.getChatColor`` and the ``chat.type.advancement.<frame>`` announcement of each frame.
FRAME_COLORS = {"task": "green", "goal": "green", "challenge": "dark_purple"}


def advancement_chat(display: Mapping[str, Any]) -> Component:
    """``Advancement.getChatComponent`` from an advancement JSON's ``display``: the title in square
    brackets coloured by its frame, the coloured title, a new line and the description on hover."""
    title = parse(display.get("title", ""))
    color = FRAME_COLORS.get(str(display.get("frame", "task")), "green")
    hover_text = _order(
        {
            **title,
            "color": color,
            "extra": [*title.get("extra", []), text("\n"), parse(display.get("description", ""))],
        }
    )
    inner = styled(title, hoverEvent={"action": "show_text", "contents": hover_text})
    return square_brackets(inner, color=color)


# ---- reading a typed component (tellraw, title) ------------------------------------------------------------


def parse(value: Any) -> Component:
    """``Component.Serializer.deserialize``: a JSON string is literal text, an array is its first element
    with the rest appended as siblings, an object is read key by key.

    Raises:
        ValueError: not a text component (the message says why; vanilla's ``argument.component.invalid``).
    """
    if isinstance(value, str):
        return text(value)
    if isinstance(value, bool) or isinstance(value, int | float):
        return text(java_str(value))
    if isinstance(value, list):
        if not value:
            raise ValueError("Unexpected empty array of components")
        head = parse(value[0])
        rest = [parse(v) for v in value[1:]]
        if rest:
            head = _order({**head, "extra": list(head.get("extra", [])) + rest})
        return head
    if not isinstance(value, dict):
        raise ValueError(f"Don't know how to turn {json.dumps(value)} into a Component")
    c: Component = {}
    if "text" in value:
        c["text"] = java_str(value["text"]) if not isinstance(value["text"], str) else value["text"]
    elif "translate" in value:
        c["translate"] = str(value["translate"])
        if "with" in value:
            if not isinstance(value["with"], list):
                raise ValueError("'with' must be an array")
            c["with"] = [_parse_with(v) for v in value["with"]]
    elif "score" in value:
        score = value["score"]
        if not isinstance(score, dict) or "name" not in score or "objective" not in score:
            raise ValueError("A score component needs a least a name and an objective")
        c["score"] = {"name": str(score["name"]), "objective": str(score["objective"])}
    elif "selector" in value:
        c["selector"] = str(value["selector"])
        if "separator" in value:
            c["separator"] = parse(value["separator"])
    elif "keybind" in value:
        c["keybind"] = str(value["keybind"])
    elif "nbt" in value:
        raise ValueError("NBT components are not supported by MirrorCraft")
    else:
        raise ValueError(f"Don't know how to turn {json.dumps(value)} into a Component")
    for key in STYLE_KEYS:
        if key in value:
            c[key] = _style_value(key, value[key])
    if "extra" in value:
        extra = value["extra"]
        if not isinstance(extra, list) or not extra:
            raise ValueError("Unexpected empty array of components")
        c["extra"] = [parse(v) for v in extra]
    return _order(c)


def _parse_with(v: Any) -> Any:
    # TranslatableContents keeps a plain string argument as a string (Serializer: JsonPrimitive)
    return v if isinstance(v, str) else parse(v)


def _style_value(key: str, v: Any) -> Any:
    if key in ("bold", "italic", "underlined", "strikethrough", "obfuscated"):
        if not isinstance(v, bool):
            raise ValueError(f"Expected {key} to be a boolean")
        return v
    if key == "color":
        if not isinstance(v, str) or not (v in COLORS or (v.startswith("#") and len(v) == 7)):
            raise ValueError(f"Invalid color name: {v!r}")
        return v
    if key == "insertion" or key == "font":
        return str(v)
    if key == "clickEvent":
        if not isinstance(v, dict) or "action" not in v:
            raise ValueError("clickEvent needs an action")
        return {"action": str(v["action"]), "value": str(v.get("value", ""))}
    # hoverEvent: kept as given (show_text contents are components)
    if not isinstance(v, dict) or "action" not in v:
        raise ValueError("hoverEvent needs an action")
    out = dict(v)
    if out["action"] == "show_text" and "contents" in out:
        out["contents"] = parse(out["contents"])
    return out


def resolve(
    c: Component,
    *,
    selector: Callable[[str], list[Component]],
    score: Callable[[str, str], int | None],
) -> Component:
    """``ComponentUtils.updateForEntity``: ``selector`` components become the matching entities' names
    joined with the (gray ``", "``) separator, ``score`` components the holder's score (empty text when it
    has none). ``selector(text)`` returns the display names; ``score(name, objective)`` the score."""
    out: Component = {
        k: v for k, v in c.items() if k not in ("extra", "with", "selector", "separator", "score")
    }
    if "selector" in c:
        names = selector(c["selector"])
        sep = c.get("separator") or text(", ", color="gray")
        parts: list[Component] = []
        for i, n in enumerate(names):
            if i:
                parts.append(sep)
            parts.append(n)
        resolved = empty(*parts) if len(parts) != 1 else parts[0]
        out = _order({**resolved, **{k: v for k, v in out.items() if k in STYLE_KEYS}})
    elif "score" in c:
        value = score(c["score"]["name"], c["score"]["objective"])
        out["text"] = "" if value is None else str(value)
    if "with" in c:
        out["with"] = [
            a if isinstance(a, str) else resolve(a, selector=selector, score=score) for a in c["with"]
        ]
    if "extra" in c:
        out["extra"] = [resolve(e, selector=selector, score=score) for e in c["extra"]]
    return _order(out)


# ---- output -----------------------------------------------------------------------------------------------


def _order(c: Mapping[str, Any]) -> Component:
    """The keys in ``Component.Serializer``'s order (style, ``extra``, contents); unknown keys last."""
    out: Component = {}
    for key in STYLE_KEYS:
        if key in c:
            out[key] = c[key]
    if "extra" in c:
        out["extra"] = c["extra"]
    for key in CONTENT_KEYS:
        if key in c:
            out[key] = c[key]
    for key, v in c.items():
        if key not in _KNOWN:
            out[key] = v
    return out


def to_json(c: Component) -> str:
    """The component as vanilla's Gson writes it: compact, no HTML escaping, non-ASCII as is."""
    return json.dumps(c, separators=(",", ":"), ensure_ascii=False)


def render(c: Component | str) -> str:
    """``Component.getString()`` in English: what vanilla's RCON replies and logs show.

    Translations come from the vendored ``language.json`` subset; a key that is not there renders as the
    key itself (vanilla ``Language.getOrDefault``).
    """
    if isinstance(c, str):
        return c
    out = _content(c)
    for sibling in c.get("extra", ()):
        out += render(sibling)
    return out


def _content(c: Component) -> str:
    if "text" in c:
        return str(c["text"])
    if "translate" in c:
        key = c["translate"]
        template = lang().get(key)
        if template is None:
            return key
        return fmt(template, *(render(a) if isinstance(a, dict) else str(a) for a in c.get("with", ())))
    if "keybind" in c:
        return str(c["keybind"])
    return ""  # unresolved selector / score / nbt


def render_all(components: Iterable[Component]) -> list[str]:
    """:func:`render` of each component."""
    return [render(c) for c in components]

"""Command completions from the command tree: what a server answers a ``tab_complete`` request with.

Why from the tree: vanilla answers ``ServerboundCommandSuggestionPacket`` with Brigadier's
``CommandDispatcher.getCompletionSuggestions`` on the parse of the typed text — find the node before the
cursor (``CommandContextBuilder.findSuggestionContext``), then ask each of its children: a literal suggests
itself when it starts with what was typed since the node (case-insensitive), an argument asks its type
(entity arguments: the selector kinds and the players online; item, block and effect arguments: the ids).
The answer's range starts where the completed word starts, counted in the text as the client sent it
(with its leading ``/``): ``/weather `` → start 9, length 0, ``clear``, ``rain``, ``thunder`` (the vanilla
capture in ``minecraft-packets``).

Partial: children the source may not use are left out (Brigadier itself does not filter; vanilla clients
only ask for what their own, filtered, tree allows); argument types without a suggestion provider
(coordinates, numbers, JSON components, messages) suggest nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache

from mirrorcraft import gamedata
from mirrorcraft.server.commands.dispatcher import Context, Node, parse_nodes
from mirrorcraft.server.commands.grammar import command_tree
from mirrorcraft.server.commands.reader import StringReader
from mirrorcraft.server.commands.texts import lang
from mirrorcraft.server.commands.vocabulary import TEAM_COLORS

SELECTOR_KINDS = ("@a", "@e", "@p", "@r", "@s")


@dataclass(frozen=True)
class Suggestions:
    """Brigadier ``Suggestions``: the replaced range (``start``, ``length``) and the texts."""

    start: int
    length: int
    matches: tuple[str, ...]


@cache
def _ids(kind: str) -> tuple[str, ...]:
    names: Iterable[str]
    if kind == "items":
        names = (i.name for i in gamedata.all_items())
    elif kind == "blocks":
        names = (b.name for b in gamedata.all_blocks())
    else:  # the effects' names are the language table's effect.minecraft.<id> entries
        prefix = "effect.minecraft."
        names = (k[len(prefix) :] for k in lang() if k.startswith(prefix) and "." not in k[len(prefix) :])
    return tuple(sorted(n if ":" in n else f"minecraft:{n}" for n in names))


def _argument_suggestions(node: Node, typed: str, players: Callable[[], list[str]]) -> list[str]:
    kind = getattr(node.parser, "suggest", None)
    low = typed.lower()
    if kind == "entities":
        pool = [*SELECTOR_KINDS, *players()]
    elif kind == "players":
        pool = list(players())
    elif kind == "boolean":
        pool = ["false", "true"]
    elif kind == "colors":  # ChatFormatting.getNames(true, false): the colours and reset
        pool = [*TEAM_COLORS, "reset"]
    elif kind in ("items", "blocks", "effects"):
        # SharedSuggestionProvider.suggestResource: the full id matches, or its path does
        return [i for i in _ids(kind) if i.startswith(low) or i.partition(":")[2].startswith(low)]
    else:
        return []
    return [p for p in pool if p.lower().startswith(low)]


def _suggestion_parent(chain: list[Context], root: Node, cursor: int) -> tuple[Node, int]:
    """``CommandContextBuilder.findSuggestionContext``: the node whose children complete the text at
    ``cursor``, and where the completed word starts."""
    parent = root
    for ctx in chain:
        if ctx.begin > cursor:
            break
        if ctx.end < cursor:
            if ctx.child is not None:
                parent = ctx.nodes[-1].redirect or root if ctx.nodes else root
                continue
            if ctx.nodes:
                return ctx.nodes[-1], ctx.end + 1
            return parent, ctx.begin
        prev = parent
        for node, (start, end) in zip(ctx.nodes, ctx.ranges, strict=True):
            if start <= cursor <= end:
                return prev, start
            prev = node
        return prev, ctx.begin
    return parent, cursor


def complete(text: str, permission_level: int, players: Callable[[], list[str]]) -> Suggestions:
    """The completions of ``text`` (as the client typed it, ``/`` included) at its end.

    Args:
        text: the command line so far.
        permission_level: the source's level (children it may not use are left out).
        players: the online players' names (entity and player arguments).
    """
    root = command_tree()
    reader = StringReader(text)
    if reader.can_read() and reader.peek() == "/":
        reader.skip()
    results = parse_nodes(root, reader, Context(begin=reader.cursor), permission_level)
    chain = [results.context]
    while chain[-1].child is not None:
        chain.append(chain[-1].child)  # type: ignore[arg-type]
    cursor = len(text)
    parent, start = _suggestion_parent(chain, root, cursor)
    start = min(start, cursor)
    typed = text[start:cursor]
    found: list[str] = []
    for child in parent.children.values():
        if child.level > permission_level:
            continue
        if child.literal:
            if child.name.lower().startswith(typed.lower()):
                found.append(child.name)
        else:
            found.extend(_argument_suggestions(child, typed, players))
    unique = sorted(dict.fromkeys(found), key=str.lower)  # Suggestions.create: sorted, no duplicates
    return Suggestions(start, cursor - start, tuple(unique))

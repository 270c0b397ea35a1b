"""A small Brigadier: literal/argument nodes, permission checks, redirects, and Brigadier's parse rules.

Why a clone: vanilla's error for every malformed command follows from how Brigadier walks the command
tree (``CommandDispatcher.parseNodes``): which children are tried, that a node the source may not use is
skipped as if absent (so a non-op sees ``command.unknown.command``, not a permission message), how
competing parses are ranked, and which error is reported. Nodes here carry a *builder* that turns the
parsed arguments into a typed command (:mod:`model`) instead of executing at once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mirrorcraft.server.commands.reader import CommandSyntaxError, StringReader

Builder = Callable[[dict[str, Any]], Any]
ArgParser = Callable[[StringReader], Any]


@dataclass(eq=False)
class Node:
    """A command tree node: a literal word, or a named argument parsed by ``parser``.

    Attributes:
        builder: makes the typed command when parsing ends at this node (Brigadier ``executes``).
        redirect: after this node, continue parsing at the target's children with a new context
            (``execute ... run`` → root, ``execute if entity <sel>`` → ``execute``).
        modifier: builds the ``execute`` step this redirect stands for (None = ``run``).
        level: the permission level the source needs (Brigadier ``requires``).
    """

    name: str
    literal: bool = True
    parser: ArgParser | None = None
    builder: Builder | None = None
    redirect: Node | None = None
    modifier: Builder | None = None
    level: int = 0
    children: dict[str, Node] = field(default_factory=dict)

    def then(self, *nodes: Node) -> Node:
        for n in nodes:
            self.children[n.name] = n
        return self

    def relevant(self, reader: StringReader) -> list[Node]:
        """Brigadier ``getRelevantNodes``: the literal matching the next word, else every argument."""
        literals = {k: n for k, n in self.children.items() if n.literal}
        arguments = [n for n in self.children.values() if not n.literal]
        if literals:
            probe = reader.copy()
            word = probe.read_word()
            if word in literals:
                return [literals[word]]
        return arguments


def lit(
    name: str,
    *children: Node,
    builder: Builder | None = None,
    level: int = 0,
    redirect: Node | None = None,
    modifier: Builder | None = None,
) -> Node:
    """A literal node."""
    return Node(name, True, None, builder, redirect, modifier, level).then(*children)


def arg(
    name: str,
    parser: ArgParser,
    *children: Node,
    builder: Builder | None = None,
    redirect: Node | None = None,
    modifier: Builder | None = None,
) -> Node:
    """An argument node."""
    return Node(name, False, parser, builder, redirect, modifier).then(*children)


@dataclass
class Context:
    """Arguments parsed so far in one redirect segment, the nodes that parsed them and where each node's
    text lies (``ranges``, Brigadier's ``ParsedCommandNode`` ranges; ``begin`` is where the segment
    starts), for suggestions."""

    args: dict[str, Any] = field(default_factory=dict)
    nodes: list[Node] = field(default_factory=list)
    child: Context | None = None
    ranges: list[tuple[int, int]] = field(default_factory=list)
    begin: int = 0

    def copy(self) -> Context:
        return Context(dict(self.args), list(self.nodes), self.child, list(self.ranges), self.begin)

    @property
    def end(self) -> int:
        """The end of the segment's range (its start when no node parsed)."""
        return self.ranges[-1][1] if self.ranges else self.begin


@dataclass
class ParseResults:
    context: Context
    reader: StringReader
    errors: dict[int, CommandSyntaxError]


def parse_nodes(node: Node, reader: StringReader, ctx: Context, level: int) -> ParseResults:
    """Brigadier's ``parseNodes``: try every relevant child the source may use, keep the best parse."""
    errors: dict[int, CommandSyntaxError] = {}
    potentials: list[ParseResults] = []
    cursor = reader.cursor
    for child in node.relevant(reader):
        if child.level > level:
            continue
        c = ctx.copy()
        r = reader.copy()
        node_start = r.cursor
        try:
            if child.literal:
                start = r.cursor
                word = r.read_word()
                if word != child.name:
                    r.cursor = start
                    raise r.error("argument.literal.incorrect", child.name)
            else:
                assert child.parser is not None
                c.args[child.name] = child.parser(r)
            if r.can_read() and r.peek() != " ":
                raise r.error("command.expected.separator")
        except CommandSyntaxError as err:
            errors[id(child)] = err
            r.cursor = cursor
            continue
        c.nodes.append(child)
        c.ranges.append((node_start, r.cursor))
        if r.can_read(2 if child.redirect is None else 1):
            r.skip()
            if child.redirect is not None:
                sub = parse_nodes(child.redirect, r, Context(begin=r.cursor), level)
                c.child = sub.context
                potentials.append(ParseResults(c, sub.reader, sub.errors))
            else:
                potentials.append(parse_nodes(child, r, c, level))
        else:
            potentials.append(ParseResults(c, r, {}))
    if potentials:
        # Complete parses first, then parses without errors (stable, as Brigadier's comparator).
        potentials.sort(key=lambda p: (p.reader.can_read(), bool(p.errors)))
        return potentials[0]
    return ParseResults(ctx, StringReader(reader.string, cursor), errors)


def finish(results: ParseResults) -> list[Context]:
    """Brigadier ``execute``'s checks: report the parse error, or return the chain of contexts whose last
    element ends at a node with a builder."""
    reader = results.reader
    if reader.can_read():
        if len(results.errors) == 1:
            raise next(iter(results.errors.values()))
        if not results.context.nodes:
            raise reader.error("command.unknown.command")
        raise reader.error("command.unknown.argument")
    chain = [results.context]
    while chain[-1].child is not None:
        chain.append(chain[-1].child)  # type: ignore[arg-type]
    last = chain[-1]
    if not last.nodes or last.nodes[-1].builder is None:
        raise reader.error("command.unknown.command")
    return chain

"""Static audit of a 1.19.2 datapack (zip or folder): every file checked before a world ever loads it.

Why: a Mirror pack that a server silently half-loads (a typo'd item id makes vanilla skip the recipe and
log a warning nobody reads) would make a suite quietly vanilla. The audit loads the pack over the vendored
vanilla pack with **the embedded server's own parser** (:meth:`~mirrorcraft.rules.datapacks.DatapackSet.from_packs`
in collecting mode), so every format problem the server would refuse is reported, all of them at once, each
naming the file and the JSON path (``pools[0].entries[1].name``) or line: ``pack.mcmeta``, JSON syntax,
recipes, loot tables, advancements, item/block tags, the cooking-yield sidecars and the rule index (their
one schema, :mod:`mirrorcraft.rules.sidecars`), the ``"mirrorcraft:rule"`` field.

On top of that parser it keeps only the benchmark's own checks:

* layout: files outside ``data/`` other than ``pack.mcmeta``/``pack.png`` warn; resource names use vanilla's
  allowed characters; every other ``.json`` (worldgen...) must be JSON;
* nothing visible to a player: functions use only commands on an allow-list and none that writes to chat
  (``say``/``tellraw``/``title``/``me``/``msg``/``tell``/``w``/``teammsg``/``tm``), also after
  ``execute ... run``; advancements have no ``display`` (a toast would reveal a rule) unless allowed;
* references the server does not resolve when it loads: called functions and function tags exist, ``give``
  names a real item, ``loot_table`` entries name a table (in the pack or the vendored vanilla pack; a
  ``minecraft:`` table the vendored pack does not hold only warns, since the real jar has it);
* a loot table for a block or entity that does not exist warns (it is never used);
* every resource the rule index names is in the pack; unknown ``mirrorcraft`` resource kinds warn.

Because the parser is the engine's, a pack using a vanilla type this engine does not implement (e.g. the
``enchant_randomly`` function or a ``score`` number provider) fails the audit: the embedded server could not
load it either.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from mirrorcraft.datapacks.compiler import NAMESPACE
from mirrorcraft.errors import DatapackError
from mirrorcraft.rules.datapacks import DatapackSet
from mirrorcraft.rules.loot.entries import Singleton
from mirrorcraft.rules.packs import (
    DEFAULT_NAMESPACE,
    Issues,
    JsonAt,
    JsonError,
    JsonSyntaxError,
    Pack,
    block_exists,
    entity_exists,
    item_exists,
    load_json_bytes,
    namespaced,
    read_pack,
    resource_location,
    valid_location,
    vanilla_pack,
)
from mirrorcraft.rules.sidecars import INDEX_PATH
from mirrorcraft.rules.tags import parse_tag_file

__all__ = [
    "ALLOWED_COMMANDS",
    "CHAT_COMMANDS",
    "AuditIssue",
    "AuditReport",
    "audit_files",
    "audit_pack",
]

#: Commands a rule pack's functions may use (what the compiler writes, plus harmless state commands).
ALLOWED_COMMANDS = frozenset(
    {"execute", "scoreboard", "give", "function", "data", "clear", "item", "schedule"}
)
#: Commands that print to players' chat or screen: forbidden anywhere in a rule pack.
CHAT_COMMANDS = frozenset({"say", "tellraw", "title", "me", "msg", "tell", "w", "teammsg", "tm"})

_ROOT_FILES = {"pack.mcmeta", "pack.png"}
#: Resource kinds that are counted under one name (worldgen registries: JSON validity only here;
#: ``datapacks.biome_pack.audit_biome_files`` checks their references).
_WORLDGEN_KINDS = ("worldgen", "dimension", "dimension_type")


class AuditIssue(BaseModel):
    """One problem: the file inside the pack, where in it (JSON path or ``line N``) and what is wrong."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    file: str
    where: str = ""
    message: str

    def __str__(self) -> str:
        at = f" at {self.where}" if self.where else ""
        return f"{self.file}{at}: {self.message}"


class AuditReport(BaseModel):
    """The audit's result: ``ok`` when there are no errors (warnings do not fail a pack)."""

    model_config = ConfigDict(extra="forbid")

    pack: str
    errors: list[AuditIssue] = Field(default_factory=list)
    warnings: list[AuditIssue] = Field(default_factory=list)
    counts: dict[str, int] = Field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """True when no error was found."""
        return not self.errors

    def summary(self) -> str:
        """A human-readable multi-line summary (used by ``datapacks audit``)."""
        lines = [
            f"{self.pack}: {'OK' if self.ok else 'FAILED'} ({len(self.errors)} errors, "
            f"{len(self.warnings)} warnings)"
        ]
        lines.append("  counts: " + ", ".join(f"{k}={v}" for k, v in sorted(self.counts.items())))
        lines += [f"  ERROR {e}" for e in self.errors]
        lines += [f"  warning {w}" for w in self.warnings]
        return "\n".join(lines)


class _Ctx:
    """State of one audit run."""

    def __init__(self, pack: Pack, allow_display: bool) -> None:
        self.pack = pack
        self.allow_display = allow_display
        self.errors: list[AuditIssue] = []
        self.warnings: list[AuditIssue] = []
        self.counts: dict[str, int] = {}
        self.functions: set[str] = set()
        self.function_tags: set[str] = set()

    def err(self, file: str, where: str, message: str) -> None:
        self.errors.append(AuditIssue(file=file, where=where, message=message))

    def warn(self, file: str, where: str, message: str) -> None:
        self.warnings.append(AuditIssue(file=file, where=where, message=message))

    def count(self, key: str) -> None:
        self.counts[key] = self.counts.get(key, 0) + 1

    def issue(self, err: JsonError) -> None:
        """A problem the parser found (JSON syntax errors say ``line N column M``)."""
        if isinstance(err, JsonSyntaxError):
            self.err(err.source, err.where, f"invalid JSON: {err.reason}" if err.line else err.reason)
        else:
            self.err(err.source, err.where, err.reason)


# --------------------------------------------------------------------------------------------------
# The benchmark's own checks
# --------------------------------------------------------------------------------------------------


def _layout(ctx: _Ctx, reported: set[str]) -> dict[str, bool]:
    """Names and placement of every file; JSON validity of the files the parser does not read (those in
    ``reported`` already have their JSON error from the parser).

    Returns:
        Path → whether it is valid JSON, for the ``.json`` files (what the counts count).
    """
    parsed: dict[str, bool] = {}
    for path, raw in ctx.pack.files.items():
        parts = path.split("/")
        if path not in _ROOT_FILES:
            if parts[0] != "data" or len(parts) < 4:
                ctx.warn(path, "", "not part of a data pack (ignored by the server)")
                continue
            if not valid_location(parts[1], "a"):
                ctx.err(path, "", f"invalid namespace {parts[1]!r} (allowed: a-z 0-9 _ . -)")
            if not valid_location("a", "/".join(parts[2:])):
                ctx.err(path, "", "invalid resource path (allowed: a-z 0-9 _ . - /)")
        if path.endswith((".json", ".mcmeta")):
            ctx.count("json_files")
            try:
                load_json_bytes(raw, path)
                parsed[path] = True
            except JsonSyntaxError as err:
                parsed[path] = False
                if path not in reported:
                    ctx.issue(err)
        if parts[0] == "data" and len(parts) >= 4:
            loc = resource_location(path)
            if parts[2] == "functions" and path.endswith(".mcfunction"):
                ctx.functions.add(loc.replace("functions/", "", 1))
            elif parts[2] == "tags" and len(parts) >= 5 and parts[3] == "functions":
                ctx.function_tags.add(f"{parts[1]}:{'/'.join(parts[4:]).removesuffix('.json')}")
    return parsed


def _command(ctx: _Ctx, file: str, lineno: int, words: list[str]) -> None:
    if not words:
        ctx.err(file, f"line {lineno}", "empty command")
        return
    head = words[0].lstrip("/")
    if head in CHAT_COMMANDS:
        ctx.err(file, f"line {lineno}", f"command {head!r} writes to players' chat/screen (forbidden)")
        return
    if head not in ALLOWED_COMMANDS:
        ctx.err(
            file, f"line {lineno}", f"command {head!r} is not on the allow-list {sorted(ALLOWED_COMMANDS)}"
        )
        return
    if head == "execute" and "run" in words:
        _command(ctx, file, lineno, words[words.index("run") + 1 :])
    if head == "function" and len(words) > 1:
        ref = words[1]
        if ref.startswith("#"):
            if namespaced(ref[1:]) not in ctx.function_tags:
                ctx.err(file, f"line {lineno}", f"function tag {ref} does not exist in this pack")
        elif namespaced(ref) not in ctx.functions:
            ctx.err(file, f"line {lineno}", f"function {ref} does not exist in this pack")
    if head == "give" and len(words) > 2:
        item = words[2].split("{", 1)[0]
        if not item_exists(namespaced(item)):
            ctx.err(file, f"line {lineno}", f"give: unknown item {item!r}")


def _function(ctx: _Ctx, file: str, raw: bytes) -> None:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        ctx.err(file, "", f"not UTF-8 text: {err}")
        return
    for lineno, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        _command(ctx, file, lineno, line.split())


def _function_tag(ctx: _Ctx, file: str, raw: bytes) -> None:
    """A function tag's entries name functions (or function tags) of this pack."""
    try:
        _replace, entries = parse_tag_file(load_json_bytes(raw, file), JsonAt(file))
    except JsonError:
        return  # the parser reports a malformed tag file
    for e in entries:
        ok = e.ref[1:] in ctx.function_tags if e.ref.startswith("#") else e.ref in ctx.functions
        if not ok and e.required:
            ctx.err(file, e.where, f"unknown function {e.ref!r}")


def _loot_checks(ctx: _Ctx, packs: DatapackSet, mine: set[str]) -> None:
    """Referenced tables exist; a block or entity table whose block or entity does not exist warns."""
    for location in packs.loot.locations():
        file = packs.sources.get(f"{location.partition(':')[0]}:loot_tables/{location.partition(':')[2]}", "")
        if file not in mine:
            continue
        table = packs.loot.get(location)
        for entry in table.entries():
            if isinstance(entry, Singleton) and entry.kind == "loot_table" and entry.name not in packs.loot:
                where = f"{entry.path}.name"
                if entry.name and entry.name.startswith(f"{DEFAULT_NAMESPACE}:"):
                    ctx.warn(file, where, f"{entry.name} is not in this pack nor the vendored vanilla tables")
                else:
                    ctx.err(file, where, f"referenced loot table {entry.name} does not exist")
        ns, _, path = location.partition(":")
        if ns == DEFAULT_NAMESPACE and path.startswith("blocks/") and not block_exists(namespaced(path[7:])):
            ctx.warn(file, "", f"no block named {path[7:]!r}: this table is never used")
        if (
            ns == DEFAULT_NAMESPACE
            and path.startswith("entities/")
            and not entity_exists(namespaced(path[9:]))
        ):
            ctx.warn(file, "", f"no entity type named {path[9:]!r}: this table is never used")


def _index_checks(ctx: _Ctx, packs: DatapackSet, audited: int) -> None:
    """Every resource the pack's rule index names is a file of the pack."""
    index = packs.rule_indexes.get(audited)
    if index is None:
        return
    present = {resource_location(p) for p in ctx.pack.files if p.startswith("data/") and p.count("/") >= 3}
    for loc in index.resources:
        if loc not in present:
            ctx.err(INDEX_PATH, f"resources.{loc}", "indexed resource is not in the pack")


# --------------------------------------------------------------------------------------------------
# driver
# --------------------------------------------------------------------------------------------------


def _count(ctx: _Ctx, path: str, valid_json: dict[str, bool]) -> None:
    parts = path.split("/")
    if parts[0] != "data" or len(parts) < 4:
        return
    if path.endswith(".json") and not valid_json.get(path, False):
        return  # a JSON error is reported, the file is not counted
    kind = parts[2]
    if kind == "functions" and path.endswith(".mcfunction"):
        ctx.count("functions")
    elif not path.endswith(".json"):
        ctx.count("other")
    elif kind in ("recipes", "loot_tables", "advancements"):
        ctx.count(kind)
    elif kind == "tags" and len(parts) >= 5:
        ctx.count("tags")
    elif kind in _WORLDGEN_KINDS:
        ctx.count("worldgen")
    elif parts[1] == NAMESPACE and kind == "cooking_yields":
        ctx.count("cooking_yields")
    elif parts[1] == NAMESPACE and kind == "rules" and parts[3] == "index.json":
        pass
    elif parts[1] == NAMESPACE:
        ctx.warn(path, "", f"unknown mirrorcraft resource kind {kind!r}")
    else:
        ctx.count("other")


def audit_files(files: dict[str, bytes], *, name: str = "<pack>", allow_display: bool = False) -> AuditReport:
    """Audit a pack given as ``{path inside the pack: bytes}`` (see :func:`audit_pack`)."""
    pack = Pack.of_files(files)
    ctx = _Ctx(pack, allow_display)
    issues = Issues()
    packs = DatapackSet.from_packs([vanilla_pack(), pack], issues)
    for err in issues.found:
        ctx.issue(err)
    valid_json = _layout(ctx, {e.source for e in issues.found if isinstance(e, JsonSyntaxError)})
    ctx.counts["files"] = len(files)
    mine = set(files)
    for path, raw in pack.files.items():
        _count(ctx, path, valid_json)
        parts = path.split("/")
        if parts[0] != "data" or len(parts) < 4:
            continue
        if parts[2] == "functions" and path.endswith(".mcfunction"):
            _function(ctx, path, raw)
        elif parts[2] == "tags" and len(parts) >= 5 and parts[3] == "functions" and valid_json.get(path):
            _function_tag(ctx, path, raw)
    for adv in packs.advancements.values():
        if adv.source in mine and adv.display is not None and not allow_display:
            ctx.err(
                adv.source,
                "display",
                "advancement has a display (a toast/chat announcement would reveal a rule)",
            )
    _loot_checks(ctx, packs, mine)
    _index_checks(ctx, packs, audited=1)
    # one list per file, in path order (each file's problems in the order found)
    order = {p: i for i, p in enumerate(sorted({*files, *(e.file for e in ctx.errors)}))}
    errors = sorted(ctx.errors, key=lambda e: order.get(e.file, len(order)))
    return AuditReport(
        pack=name, errors=errors, warnings=ctx.warnings, counts=dict(sorted(ctx.counts.items()))
    )


def audit_pack(path: str | Path, *, allow_display: bool = False) -> AuditReport:
    """Statically audit a datapack (``.zip`` or folder).

    Args:
        path: The pack.
        allow_display: Accept advancements with a ``display`` (true for the vendored vanilla pack, whose
            story advancements are the milestones; never for a rule pack).

    Returns:
        The :class:`AuditReport` (``report.ok`` when there are no errors).

    Raises:
        DatapackError: the path is neither a folder nor a readable zip.
    """
    files = dict(read_pack(path).files)
    if not files:
        raise DatapackError(f"{path}: the pack is empty")
    return audit_files(files, name=str(path), allow_display=allow_display)

"""Reading datapacks: the one pack reader (folder or zip) and the one JSON locator every parser uses.

Why one module: the datapack set, the loot-table loader, the Mirror compiler and the audit all read the same
format. Reading a pack root once (:func:`read_pack`), naming a problem the same way everywhere
(:class:`JsonAt`: ``<file>: <json path>: <message>``) and parsing a resource path the same way
(:func:`resource_of`, :func:`resource_location`) keeps them from drifting apart.

Two ways to meet a problem, chosen by whoever reads:

* **strict** (the embedded server, the compiler): the first problem raises a :class:`JsonError`, a
  :class:`~mirrorcraft.errors.DatapackError` that also carries the file, the JSON path and the reason;
* **collecting** (the audit): a :class:`JsonAt` built with an :class:`Issues` list records the problem and
  parsing goes on with the next file, the next list element (:meth:`JsonAt.each`), or past a soft check
  (:meth:`JsonAt.check`), so one run reports every problem of a pack.

A pack root must hold ``pack.mcmeta`` declaring ``pack_format`` 10 (Java 1.19-1.19.2) and a
``description`` (vanilla's ``PackMetadataSection`` rejects a pack without one).
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

from mirrorcraft import gamedata
from mirrorcraft.errors import DatapackError, GameDataError

__all__ = [
    "DEFAULT_NAMESPACE",
    "MIRROR_NAMESPACE",
    "PACK_FORMAT",
    "Issues",
    "JsonAt",
    "JsonError",
    "JsonSyntaxError",
    "Pack",
    "block_exists",
    "check_pack_meta",
    "enchantment_exists",
    "entity_exists",
    "item_exists",
    "load_json_bytes",
    "namespaced",
    "read_pack",
    "resource_location",
    "resource_of",
    "save_pack_roots",
    "valid_location",
    "vanilla_pack",
]

#: ``pack_format`` of data packs for Java 1.19-1.19.2.
PACK_FORMAT = 10
#: The namespace of vanilla's own resources, and of a resource location written without one.
DEFAULT_NAMESPACE = "minecraft"
#: The benchmark's own namespace (sidecars, the rule index, extra recipes).
MIRROR_NAMESPACE = "mirrorcraft"
#: The resource folders this package reads (``data/<ns>/<kind>/...``); tags are ``tags/<registry>``.
RESOURCE_KINDS = ("recipes", "loot_tables", "advancements", "cooking_yields", "rules")

_T = TypeVar("_T")
_NS_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-.")
_PATH_CHARS = _NS_CHARS | {"/"}


# --------------------------------------------------------------------------------------------------
# Located errors
# --------------------------------------------------------------------------------------------------


class JsonError(DatapackError):
    """A problem in one pack file: ``source`` (the file), ``where`` (JSON path, may be empty), ``reason``.

    ``subject`` names what the file holds when the message should say so (``loot table minecraft:x``):
    ``<source>: <subject>: <where>: <reason>``.
    """

    def __init__(
        self, source: str, where: str, reason: str, message: str | None = None, subject: str = ""
    ) -> None:
        prefix = f"{source}: {subject}: " if subject else f"{source}: "
        super().__init__(message or f"{prefix}{where or '<root>'}: {reason}")
        self.source = source
        self.where = where
        self.reason = reason
        self.subject = subject


class JsonSyntaxError(JsonError):
    """A pack file that is not JSON (or not UTF-8): ``line``/``column`` where the parser stopped (0 if none)."""

    def __init__(self, source: str, reason: str, line: int = 0, column: int = 0) -> None:
        where = f"line {line} column {column}" if line else ""
        message = f"{source}: not valid JSON (line {line}, column {column}): {reason}" if line else None
        super().__init__(source, where, reason, message or f"{source}: {reason}")
        self.line, self.column = line, column


class Issues:
    """Where a collecting reader puts the problems it meets (instead of raising them)."""

    def __init__(self) -> None:
        self.found: list[JsonError] = []

    def add(self, err: JsonError) -> None:
        self.found.append(err)

    def __len__(self) -> int:
        return len(self.found)


def report(issues: Issues | None, err: JsonError) -> None:
    """Raise ``err`` (strict) or record it in ``issues`` (collecting)."""
    if issues is None:
        raise err
    issues.add(err)


# --------------------------------------------------------------------------------------------------
# The JSON locator
# --------------------------------------------------------------------------------------------------


class JsonAt:
    """A source file plus a JSON path: how every parser reads a value and names a problem.

    ``key``/``idx`` step into the document; the typed readers (``obj``, ``list``, ``str``, ``num``,
    ``int``, ``bool``, ``res``) return the value or raise :class:`JsonError` at this path.
    """

    __slots__ = ("source", "path", "issues", "subject")

    def __init__(self, source: str, path: str = "", issues: Issues | None = None, subject: str = "") -> None:
        self.source = source
        self.path = path
        self.issues = issues
        self.subject = subject

    def key(self, name: str) -> JsonAt:
        return JsonAt(self.source, f"{self.path}.{name}" if self.path else name, self.issues, self.subject)

    def idx(self, i: int) -> JsonAt:
        return JsonAt(self.source, f"{self.path}[{i}]", self.issues, self.subject)

    @property
    def here(self) -> str:
        """``<subject or source>: <path>``: how a runtime error names the node this path compiled to."""
        return f"{self.subject or self.source}: {self.path}"

    def fail(self, message: str) -> JsonError:
        """The error for a problem here (to ``raise``)."""
        return JsonError(self.source, self.path, message, subject=self.subject)

    def check(self, ok: bool, message: str) -> bool:
        """A soft check: when ``ok`` is false, raise (strict) or record and go on (collecting)."""
        if not ok:
            report(self.issues, self.fail(message))
        return ok

    def each(self, values: Iterable[Any], parse: Callable[[Any, JsonAt], _T]) -> list[_T]:
        """``parse(value, at.idx(i))`` for every element; when collecting, a failed element is recorded and
        left out, so its siblings are still checked."""
        out: list[_T] = []
        for i, value in enumerate(values):
            try:
                out.append(parse(value, self.idx(i)))
            except JsonError as err:
                report(self.issues, err)
        return out

    def each_key(self, values: Mapping[str, Any], parse: Callable[[Any, JsonAt], _T]) -> dict[str, _T]:
        """:meth:`each` over an object's members: ``parse(value, at.key(name))`` for every name."""
        out: dict[str, _T] = {}
        for name, value in values.items():
            try:
                out[name] = parse(value, self.key(name))
            except JsonError as err:
                report(self.issues, err)
        return out

    def obj(self, value: Any) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(f"expected a JSON object, got {type(value).__name__}")
        return value

    def list(self, value: Any) -> list[Any]:
        if not isinstance(value, list):
            raise self.fail(f"expected a JSON array, got {type(value).__name__}")
        return value

    def str(self, value: Any) -> str:
        if not isinstance(value, str) or not value:
            raise self.fail(f"expected a non-empty string, got {value!r}")
        return value

    def num(self, value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.fail(f"expected a number, got {value!r}")
        return float(value)

    def int(self, value: Any) -> int:
        number = self.num(value)
        if number != int(number):
            raise self.fail(f"expected an integer, got {value!r}")
        return int(number)

    def bool(self, value: Any) -> bool:
        if not isinstance(value, bool):
            raise self.fail(f"expected true/false, got {value!r}")
        return value

    def res(self, value: Any) -> str:
        """A resource location; a bare path gets the default namespace (vanilla ``ResourceLocation``)."""
        text = self.str(value)
        ns, sep, path = text.partition(":")
        if not sep:
            ns, path = DEFAULT_NAMESPACE, text
        if not valid_location(ns, path):
            raise self.fail(f"invalid resource location {text!r}")
        return f"{ns}:{path}"

    def known(self, value: Any, registry: str) -> str:
        """A resource location that names an entry of a 1.19.2 registry: ``item``, ``block``,
        ``entity type`` or ``enchantment`` (vanilla's deserializers reject unknown ids)."""
        name = self.res(value)
        if not _REGISTRIES[registry](name):
            raise self.fail(f"unknown {registry} {name!r} (1.19.2)")
        return name

    def tag_in(self, value: Any, tags: Mapping[str, frozenset[str]], kind: str = "item") -> str:
        """A resource location that names one of the loaded ``tags`` (without ``#``)."""
        name = self.res(value)
        if name not in tags:
            raise self.fail(f"unknown {kind} tag #{name}")
        return name

    def vanilla_type(self, value: Any) -> str:
        """The path of a vanilla type id (loot entry, condition, function...); other namespaces are unknown."""
        ns, _, path = self.res(value).partition(":")
        if ns != DEFAULT_NAMESPACE:
            raise self.fail(f"unknown type {value!r} (only vanilla types exist on a vanilla server)")
        return path

    def required(self, obj: Mapping[str, Any], name: str) -> Any:
        if name not in obj:
            raise self.key(name).fail("missing required field")
        return obj[name]

    def field(self, obj: Mapping[str, Any], name: str) -> Any:
        """Like :meth:`required`, but the error stays at this path: ``pools[0]: missing required field 'rolls'``."""
        if name not in obj:
            raise self.fail(f"missing required field {name!r}")
        return obj[name]


def valid_location(ns: str, path: str) -> bool:
    """Vanilla's allowed characters: ``[a-z0-9_.-]`` in a namespace, ``[a-z0-9_.-/]`` in a path."""
    return bool(ns) and bool(path) and set(ns) <= _NS_CHARS and set(path) <= _PATH_CHARS


def namespaced(name: str) -> str:
    """``stone`` → ``minecraft:stone``; a namespaced id is returned as is."""
    return name if ":" in name else f"{DEFAULT_NAMESPACE}:{name}"


def load_json_bytes(content: bytes, source: str) -> Any:
    """Parse a pack file.

    Raises:
        JsonSyntaxError: Not UTF-8 or not JSON; names ``source`` and the line/column.
    """
    try:
        return json.loads(content.decode("utf-8"))
    except UnicodeDecodeError as err:
        raise JsonSyntaxError(source, f"not UTF-8 text: {err}") from err
    except json.JSONDecodeError as err:
        raise JsonSyntaxError(source, err.msg, err.lineno, err.colno) from err


# --------------------------------------------------------------------------------------------------
# Registry lookups (a parser checks the ids it reads exist in 1.19.2)
# --------------------------------------------------------------------------------------------------


def _exists_in(lookup: Callable[[str], Any], name: str) -> bool:
    if not name.startswith(f"{DEFAULT_NAMESPACE}:"):
        return False
    try:
        lookup(name)
    except GameDataError:
        return False
    return True


def item_exists(name: str) -> bool:
    """Whether ``name`` (namespaced) is a 1.19.2 item."""
    return _exists_in(gamedata.item, name)


def block_exists(name: str) -> bool:
    """Whether ``name`` (namespaced) is a 1.19.2 block."""
    return _exists_in(gamedata.block, name)


def entity_exists(name: str) -> bool:
    """Whether ``name`` (namespaced) is a 1.19.2 entity type."""
    return _exists_in(gamedata.entity, name)


def enchantment_exists(name: str) -> bool:
    """Whether ``name`` (namespaced) is a 1.19.2 enchantment."""
    return _exists_in(gamedata.enchantment, name)


_REGISTRIES: dict[str, Callable[[str], bool]] = {
    "item": item_exists,
    "block": block_exists,
    "entity type": entity_exists,
    "enchantment": enchantment_exists,
}


# --------------------------------------------------------------------------------------------------
# Packs
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pack:
    """One pack root's files, read once.

    Attributes:
        name: The root as given (its path), or ``""`` for a pack held in memory (the audit's).
        files: Posix path inside the pack → content, sorted by path.
        zipped: Whether the root is a ``.zip`` (error messages then say ``<zip>!<path>``).
    """

    name: str
    files: Mapping[str, bytes] = field(repr=False)
    zipped: bool = False

    def source(self, path: str) -> str:
        """How messages name a file of this pack: ``<root>/<path>``, ``<zip>!<path>`` or the bare path."""
        if not self.name:
            return path
        return f"{self.name}!{path}" if self.zipped else f"{self.name}/{path}"

    @classmethod
    def of_files(cls, files: Mapping[str, bytes], name: str = "") -> Pack:
        """A pack held in memory (``{path: bytes}``, e.g. a compiled rule pack)."""
        return cls(name, dict(sorted(files.items())))


def read_pack(root: str | Path) -> Pack:
    """Every file of a pack root (a folder or a ``.zip``), without checking what they hold.

    Raises:
        DatapackError: The root is neither a folder nor a file, or not a readable zip.
    """
    p = Path(root)
    if p.is_dir():
        files = {f.relative_to(p).as_posix(): f.read_bytes() for f in sorted(p.rglob("*")) if f.is_file()}
        return Pack(str(p), files)
    if not p.is_file():
        raise DatapackError(f"{p}: not a pack root: no such pack (neither a folder nor a .zip)")
    try:
        with zipfile.ZipFile(p) as archive:
            names = sorted(n for n in archive.namelist() if not n.endswith("/"))
            return Pack(str(p), {n: archive.read(n) for n in names}, zipped=True)
    except zipfile.BadZipFile as err:
        raise DatapackError(f"{p}: not a zip file ({err})") from err


def check_pack_meta(pack: Pack, issues: Issues | None = None) -> None:
    """``pack.mcmeta`` must exist, be a JSON object with ``pack.pack_format`` 10 and a ``pack.description``.

    Raises:
        JsonError: (strict) the first problem.
    """
    raw = pack.files.get("pack.mcmeta")
    source = pack.source("pack.mcmeta")
    try:
        if raw is None:
            raise JsonError(source, "", "pack.mcmeta is missing (a server ignores such a pack)")
        at = JsonAt(source, issues=issues)
        meta = at.obj(load_json_bytes(raw, source))
        p_at = at.key("pack")
        section = p_at.obj(at.required(meta, "pack"))
        fmt = p_at.key("pack_format").int(p_at.required(section, "pack_format"))
        p_at.key("pack_format").check(
            fmt == PACK_FORMAT, f"pack_format {fmt} is not {PACK_FORMAT} (Java 1.19-1.19.2 data packs)"
        )
        p_at.required(section, "description")
    except JsonError as err:
        report(issues, err)


def save_pack_roots(world_dir: Path, extra: Sequence[Path] = ()) -> list[Path]:
    """Pack roots of a save in load order: the vendored vanilla pack, ``<world>/datapacks/*`` sorted by
    name (folders with a ``pack.mcmeta`` and ``.zip`` files), then ``extra``.

    Vanilla orders a save's packs by ``level.dat``'s ``DataPacks.Enabled`` list; the benchmark's worlds
    hold at most one pack, so name order is the same thing there (documented in docs/rules.md).
    """
    roots = [Path(gamedata.VANILLA_PACK_DIR)]
    folder = Path(world_dir) / "datapacks"
    if folder.is_dir():
        for p in sorted(folder.iterdir()):
            if (p.is_dir() and (p / "pack.mcmeta").is_file()) or (p.is_file() and p.suffix == ".zip"):
                roots.append(p)
    return roots + [Path(p) for p in extra]


@cache
def vanilla_pack() -> Pack:
    """The vendored vanilla pack, read once per process."""
    return read_pack(gamedata.VANILLA_PACK_DIR)


# --------------------------------------------------------------------------------------------------
# Resource paths
# --------------------------------------------------------------------------------------------------


def resource_of(path: str) -> tuple[str, str, str] | None:
    """``data/<ns>/<kind...>/<path>.json`` → ``(kind, ns, path)`` for the kinds the datapack set reads.

    ``kind`` is one of :data:`RESOURCE_KINDS` or ``tags/<registry>`` (``tags/items``,
    ``tags/worldgen/biome``...); anything else (functions, worldgen, structures...) is ``None``.
    """
    parts = path.split("/")
    if len(parts) < 4 or parts[0] != "data" or not path.endswith(".json"):
        return None
    ns = parts[1]
    if parts[2] == "tags" and len(parts) >= 5:
        # tags/<kind>/<name>.json, with worldgen/<registry> kinds two folders deep
        depth = 5 if parts[3] == "worldgen" and len(parts) >= 6 else 4
        kind = "tags/" + "/".join(parts[3:depth])
        name = "/".join(parts[depth:])[: -len(".json")]
        return (kind, ns, name) if name else None
    kind = parts[2]
    if kind in RESOURCE_KINDS:
        return kind, ns, "/".join(parts[3:])[: -len(".json")]
    return None


def resource_location(pack_path: str) -> str:
    """``data/<ns>/<kind>/<path>.<ext>`` → the rule-index key ``<ns>:<kind>/<path>``.

    ``<kind>`` is the resource folder (``recipes``, ``loot_tables``, ``functions``, ``tags/functions``,
    ``cooking_yields``...), e.g. ``data/minecraft/loot_tables/blocks/oak_log.json`` →
    ``minecraft:loot_tables/blocks/oak_log``.

    Raises:
        DatapackError: not a path under ``data/<ns>/``.
    """
    parts = pack_path.split("/")
    if len(parts) < 4 or parts[0] != "data":
        raise DatapackError(f"{pack_path}: not a resource path (expected data/<namespace>/<kind>/...)")
    rest = "/".join(parts[2:])
    stem = rest.rsplit(".", 1)[0] if "." in parts[-1] else rest
    return f"{parts[1]}:{stem}"

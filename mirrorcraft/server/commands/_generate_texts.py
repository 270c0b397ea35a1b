"""Build-time generator of ``data/lang_1_19_2.json``: the vanilla reply texts the commands use.

Why vendored: the runtime and the tests must not depend on ``node_modules``; but every reply text must be
vanilla's own (minecraft-data 3.119.0's ``pc/1.19.2/language.json``), never an invented string. This script
copies exactly the keys under :data:`PREFIXES` (plus :data:`EXTRA`) into a small sorted JSON that ships with
the package. Run it again after bumping minecraft-data::

    python -m mirrorcraft.server.commands._generate_texts [path/to/node_modules]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

#: Key prefixes of the commands, arguments and parse errors this package implements.
PREFIXES: tuple[str, ...] = (
    "command.",
    "commands.advancement.",
    "commands.clear.",
    "commands.difficulty.",
    "commands.effect.",
    "commands.execute.",
    "commands.defaultgamemode.",
    "commands.message.",
    "commands.op.",
    "commands.deop.",
    "commands.title.",
    "commands.experience.",
    "commands.fill.",
    "commands.function.",
    "commands.gamemode.",
    "commands.gamerule.",
    "commands.give.",
    "commands.kill.",
    "commands.list.",
    "commands.save.",
    "commands.scoreboard.",
    "commands.setblock.",
    "commands.stop.",
    "commands.teleport.",
    "commands.team.",
    "commands.teammsg.",
    "commands.time.",
    "commands.weather.",
    "argument.",
    "parsing.",
    "permissions.",
    "gameMode.",
    "options.difficulty.",
    "multiplayer.player.",
    "arguments.",
    "clear.failed.",
    "chat.type.",
    "chat.square_brackets",
    "multiplayer.disconnect.",
    "death.",
    "advancement.advancementNotFound",
    "effect.effectNotFound",
    "entity.notFound",
    "team.",
    # Display names the replies embed: items/blocks (give, clear), effects, entity types (kill), the
    # advancements' titles and descriptions (advancement grant/revoke, the chat announcements).
    "item.minecraft.",
    "block.minecraft.",
    "effect.minecraft.",
    "entity.minecraft.",
    "advancements.",
)

OUT = Path(__file__).resolve().parent / "data" / "lang_1_19_2.json"


def language_json(node_modules: Path) -> Path:
    """Locate minecraft-data's 1.19.2 ``language.json`` through its ``dataPaths.json``."""
    base = node_modules / "minecraft-data" / "minecraft-data" / "data"
    paths = json.loads((base / "dataPaths.json").read_text(encoding="utf-8"))
    return base / paths["pc"]["1.19.2"]["language"] / "language.json"


def build(node_modules: Path) -> dict[str, str]:
    """The selected ``key -> text`` entries, sorted by key."""
    src = language_json(node_modules)
    lang: dict[str, str] = json.loads(src.read_text(encoding="utf-8"))
    return {k: lang[k] for k in sorted(lang) if k.startswith(PREFIXES)}


def main(argv: list[str] | None = None) -> int:
    """Write :data:`OUT`; the optional argument is the ``node_modules`` folder (default: repo's)."""
    args = sys.argv[1:] if argv is None else argv
    nm = Path(args[0]) if args else Path(__file__).resolve().parents[3] / "node_modules"
    texts = build(nm)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(texts, indent=1, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{OUT}: {len(texts)} texts")
    return 0


if __name__ == "__main__":
    sys.exit(main())

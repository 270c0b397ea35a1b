"""The game rules: interpreters over datapack JSON, and vanilla mechanics as cited data + small functions.

Datapacks are the single source of game rules (see ``docs/rules.md`` and ``docs/loot.md``): every module in
this package *interprets* data (loot tables, recipes, smelting, advancements, tags) and holds no item,
block or entity id of its own, the way crafter's ``Player`` interprets ``data.yaml``; the few rules that are
Java code (fuels, tool tiers, weapon damage, block friction...) are data files in ``rules/data`` with
their sources. The guard ``tests/rules/test_rules_are_data.py`` fails if an id literal appears here, in the
server or in the body. The package sits below the server, the datapack compiler, the body and the skills,
and imports only ``gamedata``, ``contracts`` and ``errors``.

Modules (docs/rules.md has the table): ``packs`` (the one pack reader and JSON locator), ``tags``,
``sidecars`` (one schema per Mirror sidecar), ``predicates``, ``recipes``, ``advancement_defs``, ``loot``
(a package), ``datapacks`` (``DatapackSet``), ``recipe_book``, ``fuels``, ``devices``, ``cooking``,
``enchanting``, ``advancements``, ``digging``, ``experience``, ``combat``, ``blocks``, ``items``,
``spawning``, ``mechanics`` (the one loader of ``rules/data``), ``stack``, ``oracle``.
"""

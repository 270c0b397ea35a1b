"""PillagerBench arenas (Mushroom War, Dash & Dine) built as real 1.19.2 saves from declarative specs.

:mod:`.spec` (the YAML specs in ``specs/`` and their validation), :mod:`.layout` (features → cells, the
mirror), :mod:`.build` (the save, the catalogue ids ``mushroom_war``, ``mushroom_war/mirrored``,
``dash_and_dine``, ``dash_and_dine/mirrored``, the integrity check). docs/pillagerbench.md has the facts and
their sources.
"""

"""MirrorCraft: paired Vanilla/Mirror Minecraft 1.19.2 worlds for evaluating agents under hidden rule changes.

The package is layered (see docs/architecture.md): ``gamedata`` and ``protocol`` at the bottom,
``contracts`` shared by everything, the embedded ``server`` and the agent-side ``mcproto_body`` /
``skills`` / ``agents`` above, and ``study`` / ``metrics`` on top.
"""

__version__ = "0.1.0"

PROTOCOL_1_19_2 = 760
PROTOCOL_1_19 = 759
MINECRAFT_VERSION = "1.19.2"
DATA_VERSION = 3120

__all__ = ["__version__", "PROTOCOL_1_19_2", "PROTOCOL_1_19", "MINECRAFT_VERSION", "DATA_VERSION"]

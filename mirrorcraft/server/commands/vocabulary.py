"""The fixed vocabulary of vanilla 1.19.2's commands: game rules and their defaults, the root commands'
permission levels, scoreboard criteria, statistic types and team colours (declarative tables, from vanilla's
``GameRules``, ``Commands`` and ``ObjectiveCriteria``)."""

from __future__ import annotations

#: Vanilla 1.19.2's game rules and their defaults (``GameRules``; rules added in 1.19.3+ are absent).
GAME_RULES: dict[str, bool | int] = {
    "announceAdvancements": True,
    "commandBlockOutput": True,
    "disableElytraMovementCheck": False,
    "disableRaids": False,
    "doDaylightCycle": True,
    "doEntityDrops": True,
    "doFireTick": True,
    "doImmediateRespawn": False,
    "doInsomnia": True,
    "doLimitedCrafting": False,
    "doMobLoot": True,
    "doMobSpawning": True,
    "doPatrolSpawning": True,
    "doTileDrops": True,
    "doTraderSpawning": True,
    "doWardenSpawning": True,
    "doWeatherCycle": True,
    "drowningDamage": True,
    "fallDamage": True,
    "fireDamage": True,
    "forgiveDeadPlayers": True,
    "freezeDamage": True,
    "keepInventory": False,
    "logAdminCommands": True,
    "maxCommandChainLength": 65536,
    "maxEntityCramming": 24,
    "mobGriefing": True,
    "naturalRegeneration": True,
    "playersSleepingPercentage": 100,
    "randomTickSpeed": 3,
    "reducedDebugInfo": False,
    "sendCommandFeedback": True,
    "showDeathMessages": True,
    "spawnRadius": 10,
    "spectatorsGenerateChunks": True,
    "universalAnger": False,
}

#: Permission levels of the root commands (vanilla ``Commands`` registrations).
COMMAND_LEVELS: dict[str, int] = {
    "advancement": 2,
    "clear": 2,
    "difficulty": 2,
    "effect": 2,
    "execute": 2,
    "experience": 2,
    "xp": 2,
    "fill": 2,
    "gamemode": 2,
    "gamerule": 2,
    "give": 2,
    "kill": 2,
    "list": 0,
    "save-all": 4,
    "say": 2,
    "scoreboard": 2,
    "setblock": 2,
    "stop": 4,
    "teleport": 2,
    "tp": 2,
    "time": 2,
    "weather": 2,
}

#: Criteria ``scoreboard objectives add`` accepts besides ``<stat type>:<id>`` (``ObjectiveCriteria``).
SIMPLE_CRITERIA = (
    "dummy",
    "trigger",
    "deathCount",
    "playerKillCount",
    "totalKillCount",
    "health",
    "xp",
    "level",
    "food",
    "air",
    "armor",
)
READ_ONLY_CRITERIA = ("health", "xp", "level", "food", "air", "armor")
STAT_TYPES = ("mined", "crafted", "used", "broken", "picked_up", "dropped", "killed", "killed_by", "custom")
TEAM_COLORS = (
    "black",
    "dark_blue",
    "dark_green",
    "dark_aqua",
    "dark_red",
    "dark_purple",
    "gold",
    "gray",
    "dark_gray",
    "blue",
    "green",
    "aqua",
    "red",
    "light_purple",
    "yellow",
    "white",
)

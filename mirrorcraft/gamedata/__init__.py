"""mirrorcraft.gamedata (see docs/architecture.md)."""

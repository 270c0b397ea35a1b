"""mirrorcraft.worlds (see docs/architecture.md)."""

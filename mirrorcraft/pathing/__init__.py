"""mirrorcraft.pathing (see docs/architecture.md)."""

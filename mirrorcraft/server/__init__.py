"""mirrorcraft.server (see docs/architecture.md)."""

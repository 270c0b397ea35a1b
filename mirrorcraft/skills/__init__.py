"""mirrorcraft.skills (see docs/architecture.md)."""

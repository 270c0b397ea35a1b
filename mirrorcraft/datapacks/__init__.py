"""mirrorcraft.datapacks (see docs/architecture.md)."""

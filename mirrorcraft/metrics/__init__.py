"""mirrorcraft.metrics (see docs/architecture.md)."""

"""mirrorcraft.study (see docs/architecture.md)."""

"""mirrorcraft.agents (see docs/architecture.md)."""

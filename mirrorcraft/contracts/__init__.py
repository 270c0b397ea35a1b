"""mirrorcraft.contracts (see docs/architecture.md)."""

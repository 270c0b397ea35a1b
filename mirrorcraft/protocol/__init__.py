"""mirrorcraft.protocol (see docs/architecture.md)."""

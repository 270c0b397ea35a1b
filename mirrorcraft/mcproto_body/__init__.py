"""mirrorcraft.mcproto_body (see docs/architecture.md)."""

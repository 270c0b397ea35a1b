"""Protocol debugging tools (the logging proxy, :mod:`mirrorcraft.debug.proxy`)."""

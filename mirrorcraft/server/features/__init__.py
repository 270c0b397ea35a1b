"""The embedded server's features, one module per mechanic (like flying-squid's plugins).

A feature is a class that receives the kernel (:mod:`mirrorcraft.server.kernel`), the world's rules
(:class:`~mirrorcraft.server.world_rules.WorldRules`) when it needs them, and the features it depends on —
all through its constructor — and in that constructor registers what it answers: serverbound packet
handlers (``kernel.handlers.register``), behaviour hooks (``kernel.events.before`` / ``after``) and, through
the composition root, its tick phase. No feature calls another's private methods, imports a feature above
it, or imports inside a function. The composition root (:mod:`mirrorcraft.server.game`) builds them in
dependency order and declares the tick order; see docs/server.md for the graph.
"""

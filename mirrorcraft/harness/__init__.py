"""The harness around a server: how a study controls and evaluates the server an episode plays on.

It sits above the embedded server (and beside the body) and below the study; nothing below it imports it.

* :mod:`~mirrorcraft.harness.rcon` — RCON clients (the wire format is :mod:`mirrorcraft.protocol.rcon`,
  the embedded server's listener :mod:`mirrorcraft.server.rcon`);
* :mod:`~mirrorcraft.harness.control` — ``RconServerControl``, the contracts' ``ServerControl`` over RCON;
* :mod:`~mirrorcraft.harness.evaluators` — ``EmbeddedEvaluator`` (an in-process server's outcome events);
* :mod:`~mirrorcraft.harness.report_evaluators` — ``RconEvaluator`` (a vanilla jar) and
  ``PacketEvaluator`` (a child-process server): encounters from the manifest and the outcome reports;
* :mod:`~mirrorcraft.harness.encounters` — the one rule-encounter bookkeeping all three share;
* :mod:`~mirrorcraft.harness.barrier` — the tick barrier after each action;
* :mod:`~mirrorcraft.harness.vanilla` — a user's vanilla jar: folder, ``server.properties``, launch, stop;
* :mod:`~mirrorcraft.harness.process` — the embedded server in a child process;
* :mod:`~mirrorcraft.harness.serve_cli` — the ``serve`` command.
"""

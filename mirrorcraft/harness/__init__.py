"""The harness around a server: how a study controls and evaluates the server an episode plays on.

It sits above the embedded server (and beside the body) and below the study: the RCON control of any server
that speaks it, the evaluators, encounter detection, the launcher of a user's vanilla jar, the embedded
server in a child process, and the ``serve`` command. Nothing below it imports it.
"""

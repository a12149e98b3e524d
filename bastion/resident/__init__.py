"""The resident decider: `bastion hook` and `bastion check` answered by a per-user server that has
the policy core imported already, so a call pays Python's start and a socket, not the imports.

    _wire    the protocol (length-prefixed fields), the socket's place, the install's fingerprint
    _client  what the console script runs: ask the server, or say why not (None: decide in-process)
    _server  the server: one forked child per request, deciding in the client's cwd and environment

Nothing here decides: the server runs the same command function the process would run itself
(bastion/cli.py hands it over), in a child that takes the client's working directory (a descriptor),
environment, umask, argv and standard input, and returns the bytes the command wrote and its exit
status. Any doubt (no server, another install, a peer of another user or another namespace, a
stale or foreign socket, garbage, a timeout) and the client decides in-process: the server is a
cache of imports, never a source of answers that the process itself would not give.
The client imports only os, sys and _socket (docs/design.md, rules 111-113)."""

__all__: list[str] = []

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
The client imports only os, sys and _socket (docs/rules.md, rules 111-113).

Its face is what bastion/cli.py runs: the client's three names and the server's `serve`, each
loaded with its own module when first named (PEP 562, `bastion/_lazy.py`), so the console
script still imports only what the client needs (none of the server)."""

from .._lazy import lazy_names as _lazy_names

TYPE_CHECKING = False  # typing's own constant would import typing (and re) into the client
if TYPE_CHECKING:
    from ._client import ask_server, read_stdin, replay_stdin
    from ._server import serve
del TYPE_CHECKING

__all__ = ["ask_server", "read_stdin", "replay_stdin", "serve"]

_LAZY = {**dict.fromkeys(("ask_server", "read_stdin", "replay_stdin"), "_client"), "serve": "_server"}


__getattr__ = _lazy_names(__name__, _LAZY)

"""The terminal client: a full-screen front (on Textual) over the same session, events and record
as the REPL; the default on a terminal. Loaded on that path alone: -p, the REPL, the dry-run and
`--version` never import it, nor Textual.
"""

from ._app import Client
from ._entry import client_main

__all__ = ["Client", "client_main"]

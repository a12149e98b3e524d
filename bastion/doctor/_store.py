"""doctor's "Sessions" section: whether the session store can hold a session's record, found as a
session finds it (the store made if missing, a file made in it and removed; a store that cannot be
made runs the agent unrecorded), and how many records it holds."""

from __future__ import annotations

import os

from ._context import Context
from ._facts import Fact, Section, Status

__all__ = ["sessions"]

TITLE = "Sessions"


def sessions(context: Context) -> Section:
    from ..agent.sessions import bastion_home, is_session_id, store_problem

    home = bastion_home(context.environ)
    store = os.path.join(home, "sessions")
    problem = store_problem(home)
    if problem is not None:
        hint = "until then every session runs unrecorded (and cannot be resumed)"
        return Section("sessions", TITLE, (Fact("store", problem, Status.FAIL, hint=hint),))
    try:
        held = sum(1 for n in os.listdir(store) if n.endswith(".jsonl") and is_session_id(n[:-6]))
    except OSError as err:
        return Section("sessions", TITLE, (Fact("store", f"{store}: {err.strerror}", Status.FAIL),))
    return Section("sessions", TITLE, (Fact("store", f"{store} ({held} recorded)", Status.OK),))

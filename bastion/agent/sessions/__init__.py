"""Sessions: each run's record (one JSONL file a session, its hash chain, the conversation it
rebuilds), the store and the lock that keeps a record to one process, per-turn checkpoints (/diff,
/undo-turn), resuming, and `bastion sessions`.
"""

from ._checkpoint import Change, Checkpoints, UndoRefused
from ._objects import Objects
from ._records import chained_line, conversation, read_record, verify_record
from ._rewind import REWIND_ACK, Rewound, file_keeper, rewind, rewind_note, rewind_said
from ._session import Recording, Session
from ._sessions_cli import SessionInfo, list_here, list_sessions, sessions_main
from ._store import StoreError, bastion_home, is_session_id, store_problem

__all__ = [
    "REWIND_ACK",
    "Objects",
    "Rewound",
    "file_keeper",
    "rewind",
    "rewind_note",
    "rewind_said",
    "Change",
    "Checkpoints",
    "Recording",
    "Session",
    "SessionInfo",
    "StoreError",
    "UndoRefused",
    "bastion_home",
    "chained_line",
    "conversation",
    "is_session_id",
    "list_here",
    "list_sessions",
    "read_record",
    "sessions_main",
    "store_problem",
    "verify_record",
]

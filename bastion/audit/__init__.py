"""The dry-run as a product: audits of recorded calls, suggested rules, explanations and hooks.

It imports only the policy core (grammar, analyzer, policy) and never runs a call.
"""

from ._audit import Report, audit
from ._cli import audit_main, explain_call, hook_main
from ._codex_trust import CODEX_TRUST, CodexHook, CodexHooks, codex_hook_hash, codex_hooks
from ._decide import Decider, Outcome
from ._hook import claude_code_hook
from ._hooks import codex_hook, gemini_hook
from ._inputs import FORMATS, Call, Problem, detect, read_calls
from ._suggest import suggest

__all__ = [
    "CODEX_TRUST",
    "FORMATS",
    "Call",
    "CodexHook",
    "CodexHooks",
    "Decider",
    "Outcome",
    "Problem",
    "Report",
    "audit",
    "audit_main",
    "claude_code_hook",
    "codex_hook",
    "codex_hook_hash",
    "codex_hooks",
    "detect",
    "explain_call",
    "gemini_hook",
    "hook_main",
    "read_calls",
    "suggest",
]

"""The dry-run as a product: audits of recorded calls, suggested rules, explanations and hooks.

It imports only the policy core (grammar, analyzer, policy) and never runs a call. Each name loads
its module when first used, so a hook call loads the hook's modules and not the audit's.
"""

import typing

from .._lazy import lazy_names as _lazy_names

if typing.TYPE_CHECKING:
    from ._audit import Report, audit
    from ._cli import audit_main, explain_call, hook_main
    from ._codex_trust import CODEX_TRUST, CodexHook, CodexHooks, codex_hook_hash, codex_hooks
    from ._decide import Decider, Outcome
    from ._hook import claude_code_hook
    from ._hooks import codex_hook, gemini_hook
    from ._inputs import FORMATS, MAX_LINE, Call, Problem, detect, read_calls
    from ._plan_words import short_plan
    from ._suggest import suggest

__all__ = [
    "CODEX_TRUST",
    "FORMATS",
    "MAX_LINE",
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
    "short_plan",
    "suggest",
]

_LAZY = {
    **dict.fromkeys(("Report", "audit"), "_audit"),
    **dict.fromkeys(("audit_main", "explain_call", "hook_main"), "_cli"),
    **dict.fromkeys(
        ("CODEX_TRUST", "CodexHook", "CodexHooks", "codex_hook_hash", "codex_hooks"), "_codex_trust"
    ),
    **dict.fromkeys(("Decider", "Outcome"), "_decide"),
    "claude_code_hook": "_hook",
    **dict.fromkeys(("codex_hook", "gemini_hook"), "_hooks"),
    **dict.fromkeys(("FORMATS", "MAX_LINE", "Call", "Problem", "detect", "read_calls"), "_inputs"),
    "short_plan": "_plan_words",
    "suggest": "_suggest",
}


__getattr__ = _lazy_names(__name__, _LAZY)

"""doctor's "Codex hook" section: whether Codex (its `$CODEX_HOME`, default ~/.codex) will run
bastion's hook: hooks on, the hook found, its matcher, and its trust (Codex runs an unmanaged hook
only once the user has trusted it; a changed command is untrusted again)."""

from __future__ import annotations

from ..audit import CodexHook, codex_hooks
from ._context import Context
from ._facts import Fact, Section, Status

__all__ = ["codex"]

TITLE = "Codex hook"
_SAID = {True: "yes", False: "no", None: "cannot tell (a regular expression)"}


def _hook(hook: CodexHook, config: str) -> Fact:
    state = hook.trust if hook.enabled else f"{hook.trust}, disabled"
    details = [
        f"command {hook.command!r}",
        f"matcher {hook.matcher!r} selects Bash: {_SAID[hook.selects_bash]}, "
        f"apply_patch: {_SAID[hook.selects_patch]}",
    ]
    hint = ""
    if hook.why:
        details.append(f"cannot verify: {hook.why}")
    elif hook.trust != "trusted":
        details += [f'[hooks.state."{hook.key}"]', f'trusted_hash = "{hook.current_hash}"']
        hint = (
            "Codex does not run it until it is trusted: review it with /hooks in Codex, "
            f"or add the two lines above to {config}"
        )
    good = hook.trust == "trusted" and hook.enabled and hook.selects_bash is not False
    return Fact(f"hook {hook.key}", state, Status.OK if good else Status.WARN, tuple(details), hint)


def codex(context: Context) -> Section:
    found = codex_hooks(context.environ.get("CODEX_HOME"))
    if not found.hooks_feature:
        fact = Fact(
            "hooks", f"off in {found.config} ([features] hooks = false): Codex runs no hook", Status.WARN
        )
        return Section("codex", TITLE, (fact,))
    facts = [Fact("config", problem, Status.WARN) for problem in found.problems]
    if not found.hooks:
        where = found.config if found.config_exists else f"{found.config} (absent)"
        facts.append(Fact("hook", f"no `bastion hook codex` PreToolUse hook in {where} or its hooks.json"))
    facts += [_hook(hook, found.config) for hook in found.hooks]
    return Section("codex", TITLE, tuple(facts))

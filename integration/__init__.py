"""`make integration`: the real agent CLIs (Claude Code, Codex, Gemini CLI, pinned in package.json) run
against bastion's hooks, each pointed at a scripted model server of ours on 127.0.0.1."""

__all__: list[str] = []

"""Property 7: a load of a project's skill that the session's gate lets run unasked, run by the real
skill tool, never shows a secret or a file outside: whatever the repository puts in
`.bastion/skills` (files with secret-looking names, links to `.env`, to a config directory your rule
denies, out of the workspace, between skills, dangling), and whatever link is swapped in between
the decision and the load."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from bastion.agent.tools import SESSION_TOOLS
from bastion.policy import Decision
from tests.agent.skill_fixtures import place, skill_md

CANARIES = ("CANARY-ENV", "CANARY-CONF", "CANARY-OUT", "CANARY-SECRET")
NAMES = ("notes.md", "credentials.md", ".env", "sub/steps.md", "id_rsa", "my-secret.txt", "ref.md")
# What an entry of the skill's folder is: a file, or a link to one of these.
KINDS = (
    "file",
    "../../../.env",
    "../../../config/db.yml",
    "OUTSIDE",
    "../other/notes.md",
    "../other/.env",
    "notes.md",
    "missing.md",
)
_SECRET = ("credentials", ".env", "id_rsa", "secret")

entries = st.dictionaries(st.sampled_from(NAMES), st.sampled_from(KINDS), max_size=5)
swaps = st.lists(st.tuples(st.sampled_from(("SKILL.md", *NAMES)), st.sampled_from(KINDS)), max_size=2)


def _put(where: Path, name: str, kind: str, outside: Path) -> None:
    path = where / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_symlink() or path.exists():
        path.unlink()
    if kind == "file":
        secret = any(s in name for s in _SECRET)
        path.write_text("CANARY-SECRET\n" if secret else f"plain {name}\n")
        return
    target = str(outside) if kind == "OUTSIDE" else ("../" * name.count("/")) + kind
    os.symlink(target, path)


@settings(max_examples=80, deadline=None)
@given(entries, swaps, st.booleans())
def test_an_unasked_load_of_a_project_skill_shows_no_secret_and_nothing_outside(
    layout: dict[str, str], swapped: list[tuple[str, str]], deny_config: bool
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        p = place(Path(tmp))
        outside = Path(tmp) / "outside.txt"
        outside.write_text("CANARY-OUT\n")
        (p.work / ".env").write_text("CANARY-ENV\n")
        (p.work / "config").mkdir()
        (p.work / "config" / "db.yml").write_text("CANARY-CONF\n")
        p.projects("other", skill_md("other"), {"notes.md": "other notes\n", ".env": "CANARY-SECRET\n"})
        skill = p.projects("s", skill_md("s"))

        def lay_out() -> None:
            for entry in [*skill.rglob("*")]:
                if entry.is_symlink() or entry.is_file():
                    entry.unlink()
            (skill / "SKILL.md").write_text(skill_md("s"))
            for name, kind in layout.items():
                _put(skill, name, kind, outside)

        lay_out()
        if deny_config:
            p.write_config('[policy]\ndeny = ["read(config/**)"]\n')
        extras, gate = p.extras(trust=True)
        for file in (None, *NAMES):
            lay_out()  # as the catalog found it; then each allowed load meets the swaps
            args: dict[str, object] = {"name": "s"} if file is None else {"name": "s", "file": file}
            decided = gate.decide("skill", args)
            if decided.decision is not Decision.ALLOW:
                continue
            for name, kind in swapped:  # a link swapped in after the decision
                _put(skill, name, kind, outside)
            out = SESSION_TOOLS["skill"].run(decided.args, extras.ctx)
            assert not any(c in out.text for c in CANARIES), (file, layout, swapped, out.text)

"""Codex's patches as writes: every file a patch adds, updates, deletes or moves (both ends) is a
write the policy decides, through Codex's apply_patch tool and through a Bash line that applies a
patch; a patch bastion cannot read exactly asks, never passes as an ordinary line."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bastion.audit import codex_hook

# Private: the patch reader is the seam tested, below the hook's face.
from bastion.audit._patch import NOT_READ, Patch, patch_in_line, patch_paths

from .conftest import ROLLOUT, Workspace

PATCH = (
    "*** Begin Patch\n"
    "*** Add File: docs/new.md\n+# new\n+\n"
    "*** Delete File: old.txt\n"
    "*** Update File: src/app.py\n*** Move to: lib/app.py\n@@ def f():\n-print(1)\n+print(2)\n"
    "\n keep\n*** End of File\n@@\n+tail\n"
    "*** Update File: README.md\n one\n+two\n"
    "*** End Patch"
)


def test_every_header_of_a_patch_is_a_path_it_writes_in_order() -> None:
    assert patch_paths(PATCH) == ("docs/new.md", "old.txt", "src/app.py", "lib/app.py", "README.md")
    assert patch_paths(PATCH + "\n") == patch_paths(PATCH)
    assert patch_paths("*** Begin Patch\n*** Add File: empty\n*** End Patch") == ("empty",)


# What Codex's lenient reader accepts or reads otherwise, and bastion's strict grammar does not.
NOT_EXACT = {
    "no hunk": "*** Begin Patch\n*** End Patch",
    "a header with a space before it": "*** Begin Patch\n *** Delete File: a\n*** End Patch",
    "a path with a space after it": "*** Begin Patch\n*** Delete File: a \n*** End Patch",
    "a path with a space before it": "*** Begin Patch\n*** Delete File:  a\n*** End Patch",
    "a path ending in a no-break space": "*** Begin Patch\n*** Delete File: a\u00a0\n*** End Patch",
    "a path with a control character": "*** Begin Patch\n*** Delete File: a\x1fb\n*** End Patch",
    "a move with a space after it": "*** Begin Patch\n*** Update File: a\n*** Move to: b \n+x\n*** End Patch",
    "CRLF lines": "*** Begin Patch\r\n*** Delete File: a\r\n*** End Patch\r\n",
    "a carriage return ending a path": "*** Begin Patch\n*** Delete File: a\r\n*** End Patch",
    "an empty update": "*** Begin Patch\n*** Update File: a\n*** End Patch",
    "a context marker run on": "*** Begin Patch\n*** Update File: a\n@@x\n+y\n*** End Patch",
    "a tab line between chunks": "*** Begin Patch\n*** Update File: a\n+y\n\t\n@@\n+z\n*** End Patch",
    "a 2nd chunk without @@": "*** Begin Patch\n*** Update File: a\n+y\n*** End of File\n+z\n*** End Patch",
    "an end-of-file marker first": "*** Begin Patch\n*** Update File: a\n@@\n*** End of File\n*** End Patch",
    "text after the end": "*** Begin Patch\n*** Delete File: a\n*** End Patch\n*** Delete File: b",
    "a blank line after the end": "*** Begin Patch\n*** Delete File: a\n*** End Patch\n\n",
    "an unknown header": "*** Begin Patch\n*** Copy File: a\n*** End Patch",
    "a line after an added file": "*** Begin Patch\n*** Add File: a\n+x\n y\n*** End Patch",
    "a here-document wrapper": "<<'EOF'\n*** Begin Patch\n*** Delete File: a\n*** End Patch\nEOF",
    "no begin": "*** Delete File: a\n*** End Patch",
    "no end": "*** Begin Patch\n*** Delete File: a\n",
    "spaces before begin": "  *** Begin Patch\n*** Delete File: a\n*** End Patch",
}


@pytest.mark.parametrize("name", sorted(NOT_EXACT))
def test_a_patch_not_in_the_exact_form_is_not_read(name: str) -> None:
    assert patch_paths(NOT_EXACT[name]) is None


_PATH = st.text(st.characters(codec="utf-8", exclude_characters="\n"), min_size=1, max_size=12)
_LINE = st.text(st.characters(codec="utf-8", exclude_characters="\n"), max_size=8)


@st.composite
def _hunks(draw: st.DrawFn) -> tuple[str, list[str]]:
    kind = draw(st.sampled_from(["add", "delete", "update", "move"]))
    path = draw(_PATH)
    if kind == "add":
        lines = [f"*** Add File: {path}", *("+" + x for x in draw(st.lists(_LINE, max_size=3)))]
        return "\n".join(lines), [path]
    if kind == "delete":
        return f"*** Delete File: {path}", [path]
    head, paths = [f"*** Update File: {path}"], [path]
    if kind == "move":
        target = draw(_PATH)
        head.append(f"*** Move to: {target}")
        paths.append(target)
    body = [draw(st.sampled_from("+- ")) + x for x in draw(st.lists(_LINE, min_size=1, max_size=3))]
    return "\n".join([*head, "@@", *body]), paths


@settings(max_examples=300, deadline=None)
@given(hunks=st.lists(_hunks(), min_size=1, max_size=4))
def test_a_patch_is_read_as_its_headers_name_it_or_not_at_all(hunks: list[tuple[str, list[str]]]) -> None:
    text = "\n".join(["*** Begin Patch", *(h for h, _ in hunks), "*** End Patch"])
    named = [p for _, paths in hunks for p in paths]
    found = patch_paths(text)
    exact = all(p == p.strip(" ") and p.isprintable() for p in named)
    # Codex trims a header line (Unicode white space); a path it would read otherwise is not read.
    assert found == (tuple(named) if exact else None)


BODY = "*** Begin Patch\n*** Update File: src/app.py\n@@\n-print(1)\n+print(2)\n*** End Patch"


@pytest.mark.parametrize(
    ("line", "where"),
    [
        (f"apply_patch <<'EOF'\n{BODY}\nEOF", "."),
        (f"apply_patch <<'EOF'\n{BODY}\nEOF\n", "."),
        (f'apply_patch <<"PATCH"\n{BODY}\nPATCH', "."),
        (f"apply_patch << 'EOF'\n{BODY}\nEOF", "."),
        (f"apply_patch <<EOF\n{BODY}\nEOF", "."),
        (f"applypatch <<'EOF'\n{BODY}\nEOF", "."),
        (f"  apply_patch <<'EOF'\n{BODY}\nEOF", "."),
        (f"cd sub/dir && apply_patch <<'EOF'\n{BODY}\nEOF", "sub/dir"),
        (f"apply_patch '{BODY}'", "."),
        (f"cd src && apply_patch '{BODY}'", "src"),
    ],
)
def test_a_line_in_a_shape_codex_runs_a_patch_in_is_its_writes(line: str, where: str) -> None:
    assert patch_in_line(line) == Patch(("src/app.py",), where)


@pytest.mark.parametrize(
    "line",
    [
        f"apply_patch <<'EOF'\n{BODY}\nEOF\nrm -rf src",  # more after the here-document
        f"apply_patch <<'EOF'\n{BODY}\nEOF\nrm -rf src\nEOF",  # bash ends the body at the first EOF
        f"apply_patch <<'EOF' && rm -rf src\n{BODY}\nEOF",
        f"apply_patch <<-'EOF'\n{BODY}\nEOF",  # tabs stripped
        f"apply_patch <<EOF\n{BODY.replace('1', '$HOME')}\nEOF",  # a bare delimiter expands $
        f"apply_patch <<EOF\n{BODY.replace('1', '`id`')}\nEOF",
        f"apply_patch <<'EOF'\n{BODY}\nEOF  ",
        f"echo x; apply_patch <<'EOF'\n{BODY}\nEOF",
        f"cd ../other && apply_patch <<'EOF'\n{BODY}\nEOF",
        f"cd /etc && apply_patch <<'EOF'\n{BODY}\nEOF",
        f"cd -P src && apply_patch <<'EOF'\n{BODY}\nEOF",
        f"cd src || apply_patch <<'EOF'\n{BODY}\nEOF",
        f'apply_patch "{BODY}"',  # double quotes expand
        f"apply_patch '{BODY}' extra",
        f"apply_patch <<'EOF'\n{BODY.replace('*** End Patch', '')}\nEOF",  # not a patch
        "apply_patch",
        "cat p.patch | apply_patch",  # reads a patch from its input
        "./bin/applypatch x",
        "echo apply_patch $(cat p)",  # outside the subset: not read, so it asks (fail closed)
        f"bash -c \"apply_patch <<'EOF'\n{BODY}\nEOF\"",
    ],
)
def test_a_line_that_names_apply_patch_in_any_other_shape_is_not_read(line: str) -> None:
    assert patch_in_line(line) == NOT_READ


@pytest.mark.parametrize(
    "line", ["git status", "rm -rf src", "cat apply_patches.txt", "x_apply_patch", "grep -rn apply_patch src"]
)
def test_a_line_that_names_no_apply_patch_is_an_ordinary_line(line: str) -> None:
    assert patch_in_line(line) is None


def _codex(ws: Workspace, tool: str, command: str, *argv: str) -> str | None:
    payload = {
        "cwd": str(ws.root),
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "transcript_path": str(ws.root.parent / ROLLOUT),
        "tool_input": {"command": command},
    }
    answer = codex_hook(json.dumps(payload), str(ws.config), strict="--strict" in argv)
    if answer is None:
        return None
    spec = answer["hookSpecificOutput"]
    assert spec["permissionDecision"] == "deny"
    reason: str = spec["permissionDecisionReason"]
    return reason


def _patch(*hunks: str) -> str:
    return "\n".join(["*** Begin Patch", *hunks, "*** End Patch"])


DENIED_IN_SRC = {
    "an update": _patch("*** Update File: src/app.py", "@@", "-print(1)", "+print(2)"),
    "an added file": _patch("*** Add File: src/new.py", "+x = 1"),
    "a deletion": _patch("*** Delete File: src/app.py"),
    "a move out": _patch("*** Update File: src/app.py", "*** Move to: lib/app.py", "@@", " print(1)"),
    "a move in": _patch("*** Update File: README.md", "*** Move to: src/README.md", "@@", " # project"),
    "an absolute path": _patch("*** Delete File: {WS}/src/app.py"),
}


def _shapes(patch: str) -> dict[str, tuple[str, str]]:
    return {
        "the apply_patch tool": ("apply_patch", patch),
        "a here-document": ("Bash", f"apply_patch <<'EOF'\n{patch}\nEOF"),
        "an argument": ("Bash", f"apply_patch '{patch}'"),
    }


@pytest.mark.parametrize("shape", ["the apply_patch tool", "a here-document", "an argument"])
@pytest.mark.parametrize("case", sorted(DENIED_IN_SRC))
def test_a_write_rule_denies_a_patch_to_its_paths_without_strict(
    ws: Workspace, case: str, shape: str
) -> None:
    ws.rules(deny=["write(src/**)"])
    tool, command = _shapes(DENIED_IN_SRC[case].replace("{WS}", str(ws.root)))[shape]
    reason = _codex(ws, tool, command)
    assert reason is not None and reason.startswith("bastion: denied by write(src/**)")


def test_a_patch_after_cd_is_decided_in_that_directory(ws: Workspace) -> None:
    ws.rules(deny=["write(src/**)"])
    patch = _patch("*** Delete File: app.py")
    assert _codex(ws, "Bash", f"cd src && apply_patch <<'EOF'\n{patch}\nEOF") is not None
    assert _codex(ws, "Bash", f"apply_patch <<'EOF'\n{patch}\nEOF") is None  # ./app.py asks only


def test_an_edit_rule_denies_a_patch_too(ws: Workspace) -> None:
    ws.rules(deny=["Edit(src/**)"])
    assert _codex(ws, "apply_patch", DENIED_IN_SRC["an added file"]) is not None


@pytest.mark.parametrize(
    ("case", "patch"),
    [
        ("a secret path", _patch("*** Add File: .env", "+TOKEN=x")),
        (
            "a secret moved to",
            _patch("*** Update File: README.md", "*** Move to: .env.local", "@@", " # project"),
        ),
        ("a path outside cwd", _patch("*** Add File: /tmp/elsewhere.txt", "+x")),
        ("a path that climbs out", _patch("*** Add File: ../elsewhere.txt", "+x")),
        ("a patch not read exactly", _patch(" *** Add File: src/x.py", "+x")),
    ],
)
@pytest.mark.parametrize("shape", ["the apply_patch tool", "a here-document"])
def test_a_patch_the_policy_asks_about_is_denied_with_strict(
    ws: Workspace, case: str, patch: str, shape: str
) -> None:
    ws.rules(allow=["write(src/**)", "write(README.md)"])
    tool, command = _shapes(patch)[shape]
    assert _codex(ws, tool, command) is None  # no opinion: Codex's own approvals apply
    assert _codex(ws, tool, command, "--strict") is not None


def test_a_patch_the_policy_allows_gets_no_opinion_even_with_strict(ws: Workspace) -> None:
    ws.rules(allow=["write(src/**)"])
    for tool, command in _shapes(DENIED_IN_SRC["an update"]).values():
        assert _codex(ws, tool, command, "--strict") is None


def test_a_line_naming_apply_patch_in_another_shape_asks_and_a_deny_of_the_line_still_denies(
    ws: Workspace,
) -> None:
    odd = f"apply_patch <<'EOF'\n{DENIED_IN_SRC['an update']}\nEOF\nrm -rf src"
    assert _codex(ws, "Bash", odd) is None
    reason = _codex(ws, "Bash", odd, "--strict")
    assert reason is not None and NOT_READ in reason
    ws.rules(deny=["bash(rm:*)"])
    reason = _codex(ws, "Bash", odd)
    assert reason is not None and reason.startswith("bastion: denied by bash(rm:*)")

"""Generated Codex patches and the shell lines that apply them, for the differential of
audit/codex_patch.lark and _patch.py against Codex's own apply_patch (fuzz/patch_oracle.py).

Patches are drawn hunk by hunk: adds, deletes, updates with and without `*** Move to:`, chunks with
and without `@@` (`@@ ctx`, `@@ctx`), `*** End of File`, blank and blank-looking lines; paths that
climb (`../`), absolute ones (`{ROOT}`, the scratch tree), with blanks, tabs, a carriage return,
a no-break space or a line separator at either end, `./`, `//`, a directory, a marker as a path,
`$X`, a doubled backslash or a backquoted command in a name (bash expands them in a bare
here-document); headers with a blank before them, a double blank after the colon, a lower-case or
squeezed marker; CRLF line ends; blank lines between hunks; text before or after the patch; the
here-document wrapper Codex's lenient reader strips; and a fifth of them with a character
inserted, removed or replaced (`$`, a backslash and a backquote among them). Lines put a patch in
the shell shapes Codex runs (`apply_patch <<'EOF'`, `<<EOF`, `<<"EOF"`, `cd DIR &&`, a
single-quoted argument) and in near ones. Everything is drawn from a `random.Random`, shared by
hypothesis (`st.randoms()`) and the long run.
"""

from __future__ import annotations

import random

__all__ = ["line", "patch"]

_PATHS = (
    "f.txt", "sub/g.txt", "new.txt", "new/dir/n.txt", "../up.txt", "../../up2.txt", "../n.txt",
    "{ROOT}/abs.txt", "{ROOT}/new-abs.txt", "x y.txt", "é.txt", "./f.txt", "sub/../f.txt", "n$X.txt",
    "n\\\\.txt", "n`echo`.txt",  # the clean ones end here
    "sub//g.txt", " f.txt", "f.txt ", "f.txt\t", "f.txt\r", "f.txt\u00a0", "\u2028f.txt", "f.txt\x0b",
    "sub/", ".", "..", "*** End Patch", "+f.txt", "-f.txt",
)  # fmt: skip
_PLAIN_PATHS = _PATHS[:16]
_EXISTING = (
    "f.txt",
    "sub/g.txt",
    "../up.txt",
    "../../up2.txt",
    "{ROOT}/abs.txt",
    "x y.txt",
    "é.txt",
    "./f.txt",
)
_MARKERS = {
    "add": ("*** Add File: ",) * 6
    + (" *** Add File: ", "*** Add File:  ", "***Add File: ", "*** add file: "),
    "delete": ("*** Delete File: ",) * 6 + ("\t*** Delete File: ", "*** Delete File:", "*** Delete file: "),
    "update": ("*** Update File: ",) * 6 + (" *** Update File: ", "*** Update File:  "),
    "move": ("*** Move to: ",) * 6 + (" *** Move to: ", "*** Move To: ", "*** Move to:  "),
}
_CHANGES = (
    " one", " one", "-two", "+TWO", "+new", " three", "", "   ", "\t", "-one", "+*** Delete File: f.txt",
    " *** Add File: z.txt", "*** Add File: z.txt", "*** End of File", "@@", "@@ one", "@@one", "x",
)  # fmt: skip
_EDITS = "\n*+- @:\r\t/.E$\\`"


def patch(rng: random.Random) -> str:
    """One generated patch text ({ROOT} stands for the scratch tree's root)."""
    clean = rng.random() < 0.5
    end = rng.choice(("\r\n",) if not clean and rng.random() < 0.1 else ("\n",))
    lines: list[str] = [
        rng.choice(("*** Begin Patch",) * 8 + (() if clean else (" *** Begin Patch", "*** Begin Patch  ")))
    ]
    for i in range(rng.randint(1, 4)):
        if i and not clean and rng.random() < 0.1:
            lines.append(rng.choice(("", "  ")))
        lines += _hunk(rng, clean)
    lines.append(
        rng.choice(("*** End Patch",) * 8 + (() if clean else ("*** End Patch  ", " *** End Patch")))
    )
    text: str = end.join(lines) + rng.choice(("", "", "\n", *(() if clean else ("\n\n", "  \n"))))
    if not clean and rng.random() < 0.1:
        text = rng.choice(("<<'EOF'\n", "<<EOF\n", '<<"EOF"\n')) + text + "\nEOF"
    if not clean and rng.random() < 0.3 and text:
        text = _edit(rng, text)
    return text


def _hunk(rng: random.Random, clean: bool) -> list[str]:
    kind = rng.choice(("add", "delete", "update", "update"))
    head = [_marker(rng, kind, clean) + _path(rng, clean, kind != "add")]
    if kind == "add":
        return head + ["+" + rng.choice(("x", "", "one", "*** End Patch")) for _ in range(rng.randint(0, 3))]
    if kind == "delete":
        return head
    if rng.random() < 0.3:
        head.append(_marker(rng, "move", clean) + _path(rng, clean, False))
    for i in range(rng.randint(1, 1 if clean else 2)):
        if i or rng.random() < 0.6:
            head.append(rng.choice(("@@", "@@", "@@ one", *(() if clean else ("@@one", "@@  ")))))
        if clean:  # a chunk that applies to every file of the scratch tree (each starts with "one")
            head += rng.choice(([" one", "+new"], ["-one", "+ONE"], ["+new"], [" one"], ["-one"]))
        else:
            head += [rng.choice(_CHANGES) for _ in range(rng.randint(1, 4))]
        if rng.random() < 0.2:
            head.append("*** End of File")
    return head


def _marker(rng: random.Random, kind: str, clean: bool) -> str:
    return _MARKERS[kind][0] if clean else rng.choice(_MARKERS[kind])


def _path(rng: random.Random, clean: bool, existing: bool) -> str:
    """A header's path; in a clean patch, a file of the scratch tree where one must exist (Codex
    checks every hunk before it writes anything, so one missing file would leave the patch unrun)."""
    if not clean:
        return rng.choice(_PATHS)
    return rng.choice(_EXISTING if existing else _PLAIN_PATHS)


def _edit(rng: random.Random, text: str) -> str:
    at = rng.randrange(len(text))
    char = rng.choice(_EDITS)
    roll = rng.random()
    if roll < 0.4:
        return text[:at] + char + text[at:]
    if roll < 0.7:
        return text[:at] + text[at + 1 :]
    return text[:at] + char + text[at + 1 :]


def line(rng: random.Random) -> str:
    """A shell line that applies a generated patch, in a shape Codex runs or a near one."""
    body = patch(rng)
    cd = rng.choice(("", "", "cd sub && ", "cd .. && ", "cd sub/../sub && ", "cd sub; ", "cd 'sub' && "))
    name = rng.choice(("apply_patch",) * 4 + ("applypatch",))
    shape = rng.random()
    if shape < 0.6:
        delim = rng.choice(("'EOF'", "'EOF'", "EOF", "EOF", '"EOF"', "'PATCH'", " 'EOF'", "-'EOF'"))
        word = delim.strip(" -'\"")
        tail = rng.choice(("", "", "\n", "\necho done", "  "))
        return f"{cd}{name} <<{delim}\n{body}\n{word}{tail}"
    if shape < 0.9:
        return f"{cd}{name} '{body}'"
    return f'{cd}{name} "{body}"'

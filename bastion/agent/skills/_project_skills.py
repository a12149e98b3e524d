"""The project's skills: `.bastion/skills`, read through the workspace, as text from the repository.

What is left out, and reported (a line naming it and why):
- a `.bastion` or `.bastion/skills` that is a link (anywhere: the skills are the repository's own
  files or none), or that is not a directory;
- a skill folder that is, or holds, a link leading outside `.bastion/skills` (even into the
  workspace: the skill tool reads without asking, and a link to `.env` or `../config` must not make
  it read there), or whose links cannot be followed, or that holds more than 512 entries or is
  nested deeper than 4 folders;
- a skill whose SKILL.md the policy would not let be read unasked: its read is held to read's asks
  and denies (your `deny: read(.bastion/**)`, a secret-looking name), never its allows;
- a SKILL.md that is missing, not a regular file, over 1 MiB, not UTF-8 or malformed.

A load (`load_project_file`) walks the name again and refuses one that now leads outside.
"""

from __future__ import annotations

import stat

from ...policy import Decision, Policy, held_subjects
from ...workspace import Workspace, WorkspaceError, walk
from ._skills import MAX_SKILL_BYTES, Found, SkillError, parse_skill

__all__ = ["SKILLS_DIR", "inside_skills", "load_project_file", "project_files", "project_skills"]

SKILLS_DIR = ".bastion/skills"
MAX_ENTRIES = 512
MAX_DEPTH = 4
# The most names a load lists beside the SKILL.md.
MAX_LISTED = 100


def inside_skills(real: str) -> bool:
    return real.startswith(SKILLS_DIR + "/")


def _link_out(ws: Workspace, folder: str) -> str | None:
    """Why a skill folder (root-relative, no link on the way to it) is left out for what it holds."""
    pending, seen = [(folder, 0)], 0
    while pending:
        directory, depth = pending.pop()
        for entry in ws.readdir(directory):
            name = f"{directory}/{entry}"
            seen += 1
            if seen > MAX_ENTRIES:
                return f"it holds more than {MAX_ENTRIES} entries"
            mode = ws.lstat(name).st_mode
            if stat.S_ISLNK(mode):
                w = walk(ws, name)
                if w.state not in ("found", "absent") or not inside_skills(w.real):
                    target = ws.readlink(name)
                    return f"{name} is a link leading outside {SKILLS_DIR} (to {target})"
            elif stat.S_ISDIR(mode):
                if depth + 1 >= MAX_DEPTH:
                    return f"{name}: folders nest deeper than {MAX_DEPTH}"
                pending.append((name, depth + 1))
    return None


def _folder(ws: Workspace, entry: str) -> tuple[str | None, str]:
    """The real root-relative folder of an entry of `.bastion/skills` (None: not a skill folder),
    or why it is left out."""
    name = f"{SKILLS_DIR}/{entry}"
    w = walk(ws, name)
    if w.state != "found" or not inside_skills(w.real):
        if w.state in ("found", "absent") and w.real == SKILLS_DIR:
            return None, f"{name} is a link to {SKILLS_DIR} itself"
        return None, f"{name} is a link leading outside {SKILLS_DIR}"
    if w.st is None or not stat.S_ISDIR(w.st.st_mode):
        return None, ""
    return w.real, ""


def project_skills(ws: Workspace, policy: Policy, found: Found) -> None:
    """Add the project's skills to `found` (after yours), and what is left out to its report."""
    for name in (".bastion", SKILLS_DIR):
        try:
            mode = ws.lstat(name).st_mode
        except FileNotFoundError:
            return
        except OSError as err:
            found.leave_out(SKILLS_DIR, err)
            return
        if stat.S_ISLNK(mode) or not stat.S_ISDIR(mode):
            what = "a link" if stat.S_ISLNK(mode) else "not a directory"
            found.leave_out(SKILLS_DIR, f"{name} is {what} (a project's skills are its own files)")
            return
    for entry in ws.readdir(SKILLS_DIR):
        try:
            _one(ws, policy, entry, found)
        except (OSError, WorkspaceError) as err:
            found.leave_out(f"{SKILLS_DIR}/{entry}", err)


def _one(ws: Workspace, policy: Policy, entry: str, found: Found) -> None:
    lexical = f"{SKILLS_DIR}/{entry}"
    real, why = _folder(ws, entry)
    if real is None:
        if why:
            found.leave_out(lexical, why)
        return
    where = f"{lexical}/SKILL.md"
    inner = _link_out(ws, real)
    if inner is not None:
        found.leave_out(lexical, inner)
        return
    verdict = policy.decide(held_subjects("skill", [where], ws))
    if verdict.decision is not Decision.ALLOW:
        found.leave_out(where, f"reading it is not allowed unasked ({verdict.reason})")
        return
    try:
        text = load_project_file(ws, where).decode("utf-8")
    except FileNotFoundError:
        return  # a folder without a SKILL.md is not a skill
    except UnicodeDecodeError:
        found.leave_out(where, "not UTF-8 text")
        return
    except SkillError as err:
        found.leave_out(where, err)
        return
    try:
        found.add(parse_skill(text, where, lexical, project=True))
    except SkillError as err:
        found.leave_out(where, err)


def load_project_file(ws: Workspace, name: str) -> bytes:
    """A file of the project's skills, by its root-relative name: it must lead to a regular file
    inside `.bastion/skills` now. FileNotFoundError when there is none; SkillError otherwise."""
    w = walk(ws, name)
    if w.state == "absent":
        raise FileNotFoundError(name)
    if w.state != "found" or not inside_skills(w.real):
        raise SkillError(f"{name} leads outside {SKILLS_DIR}")
    if w.st is None or not stat.S_ISREG(w.st.st_mode):
        raise SkillError(f"{name} is not a regular file")
    data = ws.read(w.real, MAX_SKILL_BYTES + 1)
    if len(data) > MAX_SKILL_BYTES:
        raise SkillError(f"{name} is larger than {MAX_SKILL_BYTES} bytes")
    return data


def project_files(ws: Workspace, folder: str) -> list[str]:
    """The names of the files in a project's skill folder (relative to it), sorted, at most
    MAX_LISTED; links inside are listed by their names."""
    w = walk(ws, folder)
    if w.state != "found" or not inside_skills(w.real):
        return []
    out: list[str] = []
    pending = [(w.real, "", 0)]
    while pending and len(out) < MAX_LISTED:
        directory, prefix, depth = pending.pop(0)
        for entry in ws.readdir(directory):
            mode = ws.lstat(f"{directory}/{entry}").st_mode
            if stat.S_ISDIR(mode) and depth + 1 < MAX_DEPTH:
                pending.append((f"{directory}/{entry}", f"{prefix}{entry}/", depth + 1))
            elif (stat.S_ISREG(mode) or stat.S_ISLNK(mode)) and f"{prefix}{entry}" != "SKILL.md":
                out.append(f"{prefix}{entry}")
    return sorted(out)[:MAX_LISTED]

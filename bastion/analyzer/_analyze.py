"""The analyzer: parse a line, check every stage with its command's checker, probe git, render."""

from __future__ import annotations

import functools

from ..grammar import Operator, Outside, Pipeline, Plan, Stage, Word, parse, render
from ..workspace import Workspace
from ._result import DEFAULT_MAX_READ_BYTES, Analysis, Check, Checker, Context, GitFinding, StageResult
from ._secrets import SECRET_PATHS
from .commands import FILTERS, FIRST_STAGE, check_cd
from .programs import Identity, Program, Shell, find_program, refuse_loading, shell_of

__all__ = ["GOVERNED", "analyze"]

# Commands the analyzer governs anywhere in a line: a stage of one of these is decided by its
# checker, and a failing check keeps any rule about the command from allowing it.
GOVERNED = frozenset(FIRST_STAGE) | frozenset(FILTERS) | {"git", "cd", "xargs"}
# A stage no checker knows: the rules decide it, and the line is not auto.
_UNGOVERNED = Check(ok=True, auto=False)


def _first(ctx: Context, stage: Stage) -> Check:
    if stage.command == "git":
        from .git import check_git  # loaded with the first git line

        return check_git(ctx, stage)
    if stage.command == "cd":
        return Check.refuse("cd changes the directory only as a pipeline of its own (cd DIR && ...)")
    if stage.command in FILTERS and stage.command not in FIRST_STAGE:
        return Check.refuse(f"{stage.command} reads a file only after a pipe; name the file with cat")
    return FIRST_STAGE[stage.command](ctx, stage)


def _later(ctx: Context, stage: Stage) -> Check:
    if stage.command in FILTERS:
        return FILTERS[stage.command](ctx, stage)
    return Check.refuse(f"{stage.command} is not allowed after a pipe: only filters of standard input are")


def _check(ctx: Context, stage: Stage, *, later: bool, lone_cd: bool) -> Check:
    if lone_cd:
        return _guarded(check_cd, ctx, stage)
    return _guarded(_later if later else _first, ctx, stage)


def analyze(
    line: str,
    ws: Workspace,
    cwd: str = ".",
    *,
    max_read_bytes: int = DEFAULT_MAX_READ_BYTES,
    probe: bool = True,
    secrets: tuple[str, ...] = SECRET_PATHS,
    shell: Shell | None = None,
) -> Analysis:
    """Analyse `line` as it would run in the root-relative directory `cwd` of `ws`, with `secrets`
    the secret-looking path patterns a git plan keeps out of what it prints, in `shell` (the PATH
    its programs are found on; by default where a plan decided in `ws` runs, `shell_of`)."""
    parsed = parse(line)
    if isinstance(parsed, Outside):
        return Analysis(line, None, parsed)
    results: list[StageResult] = []
    auto = True
    git = False
    # Where the line may be before each pipeline: (directory, whether the last pipeline run succeeded).
    states: frozenset[tuple[str, bool]] = frozenset({(cwd, True)})
    for index, pipeline in enumerate(parsed.pipelines):
        operator = parsed.operators[index - 1] if index else Operator.SEMI
        runs = frozenset(s for s in states if _runs_after(operator, s[1]))
        dirs = sorted({d for d, _ in runs or states})
        here, moved = dirs[0], None
        stages = pipeline.stages
        lone_cd = len(stages) == 1 and stages[0].command == "cd"
        composed = _composed(Context(ws, here, max_read_bytes, False, secrets), stages, len(dirs))
        for position, stage in enumerate(stages):
            if len(dirs) > 1:
                auto = False
                results.append(StageResult(stage, len(results), True, _two_directories(dirs), here))
                continue
            if stage.command not in GOVERNED:
                auto = False
                results.append(StageResult(stage, len(results), False, _UNGOVERNED, here))
                continue
            ctx = Context(ws, here, max_read_bytes, position > 0, secrets)
            if position in composed:
                check = composed[position]
            else:
                check = _check(ctx, stage, later=position > 0, lone_cd=lone_cd)
            auto = auto and check.ok and check.auto
            git = git or check.git
            results.append(StageResult(stage, len(results), True, check, here))
            if lone_cd and check.ok and check.cwd is not None:
                moved = check.cwd
        # A cd that succeeds moves on; one that fails stays, and fails. A skipped pipeline changes nothing.
        if moved is not None:
            after = {(moved, True), (here, False)}
        else:
            after = {(d, ok) for d in dirs for ok in (True, False)}
        states = frozenset(after) | (states - runs)
    found: GitFinding | None = None
    probed: tuple[str, ...] = ()
    hidden = ""
    programs: tuple[str, ...] = ()
    if auto:
        shell = shell or shell_of(ws)
        results, programs = _programs(ws, shell, results)
        if all(r.ok for r in results):  # the variables where it runs, for what it starts (rule 42)
            results = refuse_loading(ws, shell, results, programs)
        auto = all(r.ok for r in results)
    if probe and git:
        results, found, probed = _probe(ws, results, strict=not auto)
        auto = auto and found is None
        if auto:
            results, hidden = _submodules(ws, results)
            results = _filters(ws, results)
    credentials = _credentials(ws, results) if auto and git else ""
    rendered = None
    if auto:
        rendered = _rendered(parsed, tuple((r.check.words, r.check.program, r.check.git) for r in results))
    return Analysis(
        line, parsed, None, tuple(results), auto, rendered, found, probed, hidden, credentials, programs
    )


def _composed(ctx: Context, stages: tuple[Stage, ...], directories: int) -> dict[int, Check]:
    """The checks composition makes (rule 65): a first-stage find -exec, and a pipeline's xargs
    stages with the stages they read names from."""
    found: dict[int, Check] = {}
    if directories > 1:
        return found
    if stages[0].command == "find" and any(w.text == "-exec" for w in stages[0].args):
        from .composition import (
            check_find_exec,  # the dry-run path's weight: loaded with a find -exec
        )

        found[0] = _guarded(check_find_exec, ctx, stages[0])
    if any(s.command == "xargs" for s in stages):
        from .composition import compose  # the dry-run path's weight: loaded with the first xargs

        found.update(compose(ctx, stages))
    return found


def _guarded(checker: Checker, ctx: Context, stage: Stage) -> Check:
    try:
        return checker(ctx, stage)
    except Exception as err:  # a checker's failure is never an allow
        return Check.refuse(f"the {stage.command} checker failed: {type(err).__name__}: {err}")


def _programs(
    ws: Workspace, shell: Shell, results: list[StageResult]
) -> tuple[list[StageResult], tuple[str, ...]]:
    """Each stage of a line that runs unasked with the program its command runs (a builtin keeps
    its name); a stage whose program cannot be named makes the line ask, saying why."""
    out = list(results)
    starts: dict[str, None] = {}
    seen: dict[str, Identity] = {}
    for i, r in enumerate(out):
        try:
            program = find_program(ws, r.cwd, shell, r.stage.command, seen)
        except Exception as err:  # a lookup that fails asks
            program = Program(
                why=f"the program {r.stage.command} runs could not be found: {type(err).__name__}: {err}"
            )
        if program.why:
            out[i] = r._replace(check=Check.refuse(program.why))
        elif program.path:
            out[i] = r._replace(check=r.check._replace(program=program.path))
            starts.update(dict.fromkeys(program.starts))
        if program.why or not r.check.inner:
            continue
        words = list(out[i].check.words or ())
        for at in r.check.inner:  # the command find -exec or xargs runs on each name
            try:
                found = find_program(ws, r.cwd, shell, words[at].text, seen)
            except Exception as err:  # a lookup that fails asks
                found = Program(why=f"the program {words[at].text} runs could not be found: {err}")
            if found.why or not found.path:
                out[i] = r._replace(check=Check.refuse(found.why or f"{words[at].text} is a builtin here"))
                break
            words[at] = Word(found.path)
            starts.update(dict.fromkeys(found.starts))
        else:
            out[i] = out[i]._replace(check=out[i].check._replace(words=tuple(words)))
    return out, tuple(starts)


def _runs_after(operator: Operator, succeeded: bool) -> bool:
    """Whether bash runs the pipeline after `operator` when the last pipeline run succeeded or not
    (a pipeline it skips leaves that status for the next operator)."""
    if operator is Operator.AND:
        return succeeded
    if operator is Operator.OR:
        return not succeeded
    return True


def _two_directories(dirs: list[str]) -> Check:
    return Check.refuse(
        f"this runs in {' or '.join(map(repr, dirs))} depending on whether an earlier cd succeeded, so "
        "its paths cannot be judged from one directory; join cd to what it is for with &&"
    )


def _probe(
    ws: Workspace, results: list[StageResult], strict: bool
) -> tuple[list[StageResult], GitFinding | None, tuple[str, ...]]:
    """Ask git's configuration once per directory holding a governed, ok git stage, for the
    subcommands run there. The first finding marks the first ok git stage as failing, naming the key."""
    from .git import find_git, subcommand

    dirs: dict[str, frozenset[str]] = {}
    for r in results:
        if r.governed and r.ok and r.check.git:
            where = r.check.runs_in or r.cwd  # git -C DIR is probed in DIR
            dirs[where] = dirs.get(where, frozenset()) | {subcommand(w.text for w in r.stage.args)}
    if not dirs:
        return results, None, ()
    found: GitFinding | None = None
    for d, subcommands in dirs.items():
        try:
            found = find_git(ws, d, strict=strict, subcommands=subcommands)
        except Exception as err:  # a probe that fails asks
            found = GitFinding(f"git's configuration could not be read: {type(err).__name__}: {err}")
        if found is not None:
            break
    if found is None:
        return results, None, tuple(dirs)
    out = list(results)
    for i, r in enumerate(out):
        if r.governed and r.ok and r.check.git:
            why = found.reason
            failed = Check.refuse(f"git config runs a program or reads what the checks cannot see: {why}")
            out[i] = StageResult(r.stage, r.position, r.governed, failed, r.cwd)
            break
    return out, found, tuple(dirs)


def _credentials(ws: Workspace, results: list[StageResult]) -> str:
    """Which config value an auto-allowed line's git stages print holds a URL's credentials ("" for
    none)."""
    from .git import printed_credentials

    for r in results:
        if r.check.git and r.check.prints:
            found = printed_credentials(ws, r.check.runs_in or r.cwd, r.check.prints)
            if found:
                return found
    return ""


def _submodules(ws: Workspace, results: list[StageResult]) -> tuple[list[StageResult], str]:
    """An auto-allowed line's git status and diff stages, showing submodules where every one was
    probed clean (and there are some), and why they stay hidden elsewhere ("" for nowhere)."""
    from .git import NO_SUBMODULES, SHOWN_SUBMODULES, showing_submodules, subcommand, submodules_of

    out, hidden = list(results), ""
    for i, r in enumerate(out):
        words = r.check.words or ()
        if not (r.check.git and r.ok and any(w.text == NO_SUBMODULES for w in words)):
            continue
        sub = subcommand(w.text for w in r.stage.args)
        if sub not in SHOWN_SUBMODULES:
            continue
        found = submodules_of(ws, r.check.runs_in or r.cwd)
        if found.gitlinks and not found.hidden:
            out[i] = r._replace(check=r.check._replace(words=showing_submodules(words, sub)))
        elif found.gitlinks:
            hidden = hidden or found.hidden
    return out, hidden


def _filters(ws: Workspace, results: list[StageResult]) -> list[StageResult]:
    """An auto-allowed line's git stages that hash work-tree files, with every filter driver git
    reads switched off (the probe found none it cannot switch off: `find_git`)."""
    from .git import REHASHES, filter_drivers, subcommand, switched_off

    out = list(results)
    for i, r in enumerate(out):
        if r.check.git and r.check.words and subcommand(w.text for w in r.stage.args) in REHASHES:
            words = switched_off(r.check.words, filter_drivers(ws, r.check.runs_in or r.cwd))
            out[i] = r._replace(check=r.check._replace(words=words))
    return out


# What a stage's check chose for the plan: its words (None: as typed), its program, whether it is git's.
Choice = tuple[tuple[Word, ...] | None, str, bool]


# Plans are frozen values, and a line decided again (or re-checked before it runs) renders the same.
@functools.lru_cache(maxsize=4096)
def _rendered(plan: Plan, choices: tuple[Choice, ...]) -> str:
    return render(_runnable(plan, choices))


def _runnable(plan: Plan, choices: tuple[Choice, ...]) -> Plan:
    """The plan that runs: each stage with the words its checker chose and its program by absolute
    path, joined as typed, after the unsetting of the variables that steer git (`unset ... && `)
    when a stage is git's, so that the plan is safe in any environment."""
    it = iter(choices)
    pipelines = []
    operators = plan.operators
    if any(git for _, _, git in choices):
        from .git import UNSET_GIT_STEERING

        pipelines.append(Pipeline((Stage(tuple(Word(w) for w in UNSET_GIT_STEERING)),)))
        operators = (Operator.AND, *operators)
    for pipeline in plan.pipelines:
        stages = []
        for stage in pipeline.stages:
            chosen, program, _ = next(it)
            words = chosen if chosen is not None else stage.words
            if program:
                words = (Word(program), *words[1:])
            stages.append(Stage(words, stage.redirects))
        pipelines.append(Pipeline(tuple(stages)))
    return Plan(tuple(pipelines), operators)

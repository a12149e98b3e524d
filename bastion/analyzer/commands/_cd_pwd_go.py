"""pwd, go and cd."""

from __future__ import annotations

from ...grammar import Stage, Word
from ...workspace import resolve
from .._result import Check, Context

__all__ = ["GO_ENV_PLAIN", "check_cd", "check_go", "check_pwd"]

# The variables go env prints from its settings alone: each was run as `go env NAME` under
# `strace -f -e trace=execve,openat` (go 1.19) and neither ran a program nor opened a file to write.
# Not here, so they ask: CGO_CFLAGS, CGO_CPPFLAGS, CGO_CXXFLAGS, CGO_FFLAGS, CGO_LDFLAGS, PKG_CONFIG
# and GOGCCFLAGS make go build in a work directory under TMPDIR and run the C compiler there (38
# processes, 11 files written); CC, CXX, AR and GCCGO name that toolchain and are computed with it.
GO_ENV_PLAIN = frozenset(
    {
        "GO111MODULE", "GOARCH", "GOBIN", "GOCACHE", "GOENV", "GOEXE", "GOEXPERIMENT", "GOFLAGS",
        "GOHOSTARCH", "GOHOSTOS", "GOINSECURE", "GOMODCACHE", "GONOPROXY", "GONOSUMDB", "GOOS", "GOPATH",
        "GOPRIVATE", "GOPROXY", "GOROOT", "GOSUMDB", "GOTMPDIR", "GOTOOLDIR", "GOVCS", "GOVERSION",
        "GOAMD64", "GOARM", "GO386", "GOMIPS", "GOMIPS64", "GOPPC64", "GOWASM", "CGO_ENABLED", "GOMOD",
        "GOWORK", "GOTOOLCHAIN",
    }
)  # fmt: skip


def check_pwd(ctx: Context, stage: Stage) -> Check:
    if stage.args:
        return Check.refuse("pwd takes no arguments here, so that -P or a name cannot change what it does")
    return Check(ok=True)


def _go_env(stage: Stage) -> Check:
    words = [w.text for w in stage.args[1:]]
    for word in words:
        if word == "-json" or word in GO_ENV_PLAIN:
            continue
        if word.startswith("-") or "=" in word:
            return Check.refuse(
                f"go env {word!r} is not a variable name, and go env -w or -u writes go's configuration"
            )
        return Check.refuse(
            f"go env {word!r} is not a variable go prints from its settings alone: the C "
            "toolchain's (CGO_*, GOGCCFLAGS, CC...) make go build in a work directory and "
            "run the compiler"
        )
    if not any(w != "-json" for w in words):
        return Check.refuse("go env without a variable name prints every setting; name the ones you need")
    return Check(ok=True)


def check_go(ctx: Context, stage: Stage) -> Check:
    """go version and go env NAME (names of GO_ENV_PLAIN only) run unasked; every other go command is
    left to the rules (they compile and run the repository's code)."""
    if any(w.glob for w in stage.args):
        return Check.refuse("go is given a glob, which bash expands to names this check never saw")
    if not stage.args:
        return Check(ok=True, auto=False)
    sub = stage.args[0].text
    if sub == "version":
        if len(stage.args) != 1:
            return Check.refuse("go version with arguments reads the build information of other files")
        return Check(ok=True)
    if sub == "env":
        return _go_env(stage)
    return Check(ok=True, auto=False)


def check_cd(ctx: Context, stage: Stage) -> Check:
    """cd DIR, alone in its pipeline: DIR inside the workspace and a directory; later stages run there.
    (The driver calls this directly, so a failure inside is turned into a refusal here.)"""
    try:
        return _check_cd(ctx, stage)
    except Exception as err:  # a checker's failure is never an allow
        return Check.refuse(f"the cd checker failed: {type(err).__name__}: {err}")


def _check_cd(ctx: Context, stage: Stage) -> Check:
    if stage.command != "cd":
        return Check.refuse(f"{stage.command} is not cd")
    if len(stage.words) != 2:
        return Check.refuse(
            "cd takes exactly one directory here, so that later paths are judged from where they really run"
        )
    if stage.redirects:
        return Check.refuse(
            "cd with a redirect is not followed, so later paths could be judged from the wrong directory"
        )
    word = stage.args[0]
    if word.glob:
        return Check.refuse("cd to a glob goes wherever bash expands it, which this check never saw")
    if word.text.startswith("-"):
        return Check.refuse(
            f"cd {word.text!r} is an option or the previous directory, which lies outside "
            "what this check knows"
        )
    r = resolve(ctx.ws, ctx.cwd, word.text)
    if not r.ok:
        return Check.refuse(r.why)
    if not r.is_dir:
        return Check.refuse(
            f"cd {word.text!r}: not an existing directory, so later paths could not be judged from it"
        )
    depends = (r.name,) if r.real == r.name else (r.name, r.real)
    # A relative name not starting with ./ is looked up in CDPATH first, which could lead anywhere.
    target = word.text if word.text.startswith(("/", "./")) else f"./{word.text}"
    return Check(ok=True, depends=depends, cwd=r.name, words=(stage.words[0], Word(target)))

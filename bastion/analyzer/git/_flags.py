"""git's read-only subcommands as flag tables, and the reasons dangerous flags are refused.

A spec lists bare flags, flags whose value is attached with `=` (valued), flags whose value is the
next word (spaced), letters that may be combined (`-sb`), and whether positionals are taken at all
(or only beside a list flag). Long options match whole: git accepts `--upload-pa` for
`--upload-pack`, we never do.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["CONFIG_FLAGS", "CONFIG_KEYS", "REFUSED", "SPECS", "STASH_LIST", "GitSpec"]


class GitSpec(NamedTuple):
    bare: frozenset[str] = frozenset()
    valued: frozenset[str] = frozenset()
    spaced: frozenset[str] = frozenset()
    letters: str = ""
    positionals: bool = True
    list_flags: frozenset[str] = frozenset()  # when set, positionals only beside one of these
    reads: bool = False  # positionals are files whose contents are printed
    counts: bool = False  # -<digits>, -n<digits>, -U<digits>, -M<digits>


def _set(text: str) -> frozenset[str]:
    return frozenset(text.split())


_DIFF_BARE = _set(
    "--stat --shortstat --numstat --name-only --name-status --summary --patch -p -u --no-patch -s"
    " --minimal --patience --histogram --no-renames -M --ignore-space-change -b --ignore-all-space -w"
    " --ignore-space-at-eol --ignore-blank-lines --function-context -W --full-index --binary --exit-code"
    " --quiet --check --compact-summary --raw -z --no-ext-diff --no-textconv --no-color -R --text -a -U"
    " --dirstat --word-diff --find-renames --abbrev --color --stat-count --color-moved --color-words"
)
_DIFF_VALUED = _set(
    "--stat --unified --color --word-diff --abbrev --find-renames --diff-filter --dirstat --stat-width"
    " --stat-count --color-words --inter-hunk-context --color-moved --color-moved-ws"
)
_LOG_BARE = _set(
    "--oneline --graph --decorate --no-decorate --all --branches --tags --remotes -i --regexp-ignore-case"
    " -E --extended-regexp -F --fixed-strings --all-match --invert-grep --abbrev-commit --no-abbrev-commit"
    " --relative-date --reverse --merges --no-merges --first-parent --follow --topo-order --date-order"
    " --author-date-order --left-right --cherry-pick --cherry --no-walk --parents --children --source -m"
    " --stat --cached --full-history"
)
_LOG_VALUED = _set(
    "--decorate --max-count --skip --since --until --after --before --author --committer --grep --pretty"
    " --format --date --abbrev-commit"
)
# -U is bare, not here: its value is optional and only attached (-U5), so git reads `-U HEAD:.env`
# as -U followed by a revision, which must go through the positional checks.
_LOG_SPACED = _set("-n -S -G --author --committer --grep --since --until --after --before --max-count --skip")

_LOG = GitSpec(
    bare=_DIFF_BARE | _LOG_BARE,
    valued=_DIFF_VALUED | _LOG_VALUED,
    spaced=_LOG_SPACED,
    letters="pusbwRWzaMiEFm",
    reads=True,
    counts=True,
)

SPECS: dict[str, GitSpec] = {
    "status": GitSpec(
        bare=_set(
            "-s --short -b --branch --porcelain --long --ignored -u -uno -unormal -uall --untracked-files"
            " --no-renames --renames -z --show-stash --ahead-behind --no-ahead-behind -v -vv --verbose"
        ),
        valued=_set("--porcelain --ignored --untracked-files"),
        letters="sbzv",  # -v only beside a short format (the checker)
    ),
    "diff": GitSpec(
        bare=_DIFF_BARE | _set("--cached --staged --merge-base"),
        valued=_DIFF_VALUED,
        spaced=_set("-S -G"),
        letters="pusbwRWzaM",
        reads=True,
        counts=True,
    ),
    "log": _LOG,
    "show": _LOG,
    "branch": GitSpec(
        bare=_set(
            "-a --all -r --remotes -v -vv --verbose --list --no-color --color --show-current -i --ignore-case"
            " --merged --no-merged --contains --no-contains --column --no-column"
        ),
        valued=_set(
            "--color --merged --no-merged --contains --no-contains --sort --format --points-at --abbrev"
            " --column"
        ),
        spaced=_set("--merged --no-merged --contains --no-contains --sort --points-at"),
        letters="arvi",
        list_flags=_set("--list"),
    ),
    "rev-parse": GitSpec(
        bare=_set(
            "--show-toplevel --git-dir --absolute-git-dir --show-prefix --show-cdup --is-inside-work-tree"
            " --is-inside-git-dir --is-bare-repository --is-shallow-repository --abbrev-ref --symbolic"
            " --symbolic-full-name --verify -q --quiet --short --all --branches --tags --remotes"
            " --git-common-dir"
        ),
        valued=_set("--short --abbrev-ref --abbrev"),
        letters="q",
    ),
    "ls-files": GitSpec(
        bare=_set(
            "-c --cached -d --deleted -m --modified -o --others -i --ignored -s --stage -u --unmerged -k"
            " --killed -z -t -v --full-name --exclude-standard --error-unmatch --eol --deduplicate"
            " --no-empty-directory --directory --abbrev"
        ),
        valued=_set("--abbrev --format --exclude"),
        letters="cdmoiskzutv",
    ),
    "blame": GitSpec(
        bare=_set(
            "-w -M -s -e -p --porcelain --line-porcelain --incremental -l -t -f --show-name -n --show-number"
            " --root -b --show-email"
        ),
        valued=_set("--abbrev --date --since"),
        spaced=_set("-L"),
        letters="wsepltfnb",
        reads=True,
    ),
    "tag": GitSpec(
        bare=_set(
            "-l --list -i --ignore-case --column --no-column --contains --merged --no-merged --points-at"
            " --no-color --color"
        ),
        valued=_set(
            "--sort --format --contains --no-contains --merged --no-merged --points-at --color --abbrev"
            " --column"
        ),
        spaced=_set("--contains --no-contains --merged --no-merged --points-at --sort"),
        letters="li",
        list_flags=_set("-l --list"),
    ),
    "describe": GitSpec(
        bare=_set("--tags --all --long --always --contains --exact-match --first-parent"),
        valued=_set("--abbrev --match --exclude --candidates"),
        spaced=_set("--match --exclude --candidates"),  # --abbrev's value is optional: attached only
    ),
    "shortlog": GitSpec(
        bare=_set("-n --numbered -s --summary -e --email -c --committer --no-merges --merges"),
        valued=_set("--group --since --until --after --before --format"),
        spaced=_set("--since --until --after --before --group"),
        letters="nsec",
    ),
    # names of a tree's entries (with modes, types, object names, sizes), never their contents
    "ls-tree": GitSpec(
        bare=_set(
            "-d -r -t -l --long -z --name-only --name-status --object-only --full-name --full-tree --abbrev"
        ),
        valued=_set("--abbrev --format"),
        letters="drtlz",
    ),
    # how many loose objects and packs the object directory holds, and their sizes (strace: it opens
    # nothing but the object directories and runs nothing)
    "count-objects": GitSpec(bare=_set("-v --verbose -H --human-readable"), letters="vH", positionals=False),
    # whether names are ignored, and by which pattern of which ignore file (-v)
    "check-ignore": GitSpec(bare=_set("-q --quiet -v --verbose -n --non-matching -z"), letters="qvnz"),
    # an object's type, size or existence (-t -s -e), or its contents (-p, or a type named first):
    # blobs only as REV:path, whose path is a read
    "cat-file": GitSpec(bare=_set("-t -s -e -p"), reads=True),
    # tracked files' lines (the first positional is the pattern unless -e gives one)
    "grep": GitSpec(
        bare=_set(
            "--cached -a --text -I -i --ignore-case -w --word-regexp -v --invert-match -h -H --full-name"
            " -E --extended-regexp -G --basic-regexp -F --fixed-strings -P --perl-regexp -n --line-number"
            " --column -l --files-with-matches --name-only -L --files-without-match -z --null -o"
            " --only-matching -c --count --color --no-color --break --heading -p --show-function -W"
            " --function-context --all-match -q --quiet --and --or --not --no-textconv"
        ),
        valued=_set("--color --max-depth --threads --max-count"),
        spaced=_set(
            "-e -A -B -C --after-context --before-context --context --max-depth --threads -m --max-count"
        ),
        letters="aIiwvhHEGFPnlLzocpWq",
        reads=True,
        counts=True,
    ),
}

# `git stash list` takes log's flags and no positional at all.
STASH_LIST = GitSpec(
    bare=_LOG.bare,
    valued=_LOG.valued,
    spaced=_LOG.spaced,
    letters=_LOG.letters,
    positionals=False,
    counts=True,
)

# Why a known-dangerous flag is refused: the sentence the user sees.
REFUSED: dict[str, str] = {
    "--dirty": "--dirty checks submodules with a git of their own, beyond the neutralised config",
    "--broken": "--broken runs a git of its own, which the neutralised config does not reach",
    "--output": "--output writes a file of git's choosing, outside any check of what may be written",
    "-o": "-o writes a file of git's choosing, outside any check of what may be written",
    "--ext-diff": "--ext-diff runs the external diff program a repository's config names",
    "--textconv": "--textconv runs the conversion program a repository's config names",
    "--contents": "--contents reads a file git names, outside the path checks",
    "-O": "-O reads an order file git names, outside the path checks",
    "--exec-path": "--exec-path chooses which programs git runs",
    "--git-dir": "--git-dir points git at another repository whose config is not checked",
    "--upload-pack": "--upload-pack runs a program on the remote side",
    "--open-files-in-pager": "--open-files-in-pager runs a pager program on the files it found",
    "--filters": "--filters runs the clean/smudge programs a repository's attributes name",
    "--batch": "--batch prints the contents of objects named on standard input, which no check sees",
    "--batch-check": "--batch-check reads object names from standard input, which no check sees",
    "--batch-command": "--batch-command reads commands from standard input, which no check sees",
    "--no-index": "--no-index compares or searches arbitrary files, outside the repository's checks",
    "--untracked": "--untracked searches files git does not track, beyond what the checks name",
    "--recurse-submodules": "--recurse-submodules runs a git of its own in each submodule, beyond the"
    " neutralised config",
    "--stdin": "--stdin takes names from standard input, which no check sees",
    "--work-tree": "--work-tree points git at another work tree whose files are not checked",
}

# `git config`: the flags of a single lookup, and the keys whose values hold no secret.
CONFIG_FLAGS = _set(
    "--get --get-all --show-origin --show-scope --local --worktree -z --null --includes --no-includes"
)
CONFIG_KEYS = (
    r"user\.name|user\.email|core\.autocrlf|core\.filemode|core\.ignorecase|core\.bare|core\.eol"
    r"|core\.safecrlf|init\.defaultbranch|pull\.rebase|pull\.ff|push\.default|push\.autosetupremote"
    r"|merge\.ff|merge\.conflictstyle|diff\.algorithm|diff\.renames|commit\.gpgsign|tag\.gpgsign"
    r"|fetch\.prune|branch\.autosetupmerge|branch\..+\.(?:remote|merge|rebase)"
    r"|remote\..+\.(?:url|pushurl|fetch|push)"
)

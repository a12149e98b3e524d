"""Generator words for issue 33's forms: globs with braces, absolute-free `**`, globs that match
nothing, globs among a reader's files, `[ ... ]`, quoted text of other scripts and literal `$` in
double quotes, tree's options after a directory, gh --version, awk, find -exec and xargs, git's
upstream revisions and count-objects; beside the siblings that must ask
(a brace or glob that reaches a secret, a link out or a name with a leading dash, newline or space:
the fixture's `dash/` holds `-rf`, `--output=x` and a name with a newline)."""

from __future__ import annotations

__all__ = ["ARGS33", "COMMANDS33", "COMPOSED33", "STAGES33", "with_pool33"]

ARGS33: tuple[str, ...] = (
    # braces and globs over the fixture (fuzz/fixtures.py): secrets, links out, odd names
    "*.{go,md}", "{main,sub/a}.go", "sub/{a,deep/b}.go", "{.env,x}", ".e{nv,x}", "{secrets,sub}/*",
    "dash/*", "dash/{-rf,x}", "{-n,main.go}", "nomatch*.go", "*.pem", "id_*", "**/*.go", "sub/**",
    "*/*.go", "'sub dir'/*", "{inlink,etclink}/*", "{,sub/}*.go", "x{,.orig}", "{a,b}", "*.{txt,en?}",
    ".claude/*.md", "docs/*.txt", "*.txt",
    # test and [
    "]", "-p", "-S", "-eq", "-lt", "-ge", "1", "10", "-v", "-o", "-a", "-t", "-nt",
    # quoted text and literal $
    '"\u2713 done"', "'\u2501\u2501'", '"\u26a0\ufe0f  x"', '":$"', '"a$|b"', '"x$)"', '"^d.*\\.git$"',
    # tree after a directory, gh
    "-I", "'*.go'", "-L", "-o", "--version",
    # awk: print-only programs beside the ones that write, run or read unchecked
    "'/package/,/^}/'", "'{print $1}'", "'NR==1'", "'END{print NR}'", "-F", ":", "'{print > \"out\"}'",
    "'BEGIN{system(\"id\")}'", "'{print ENVIRON[\"HOME\"]}'", "'BEGIN{getline l < \".env\"; print l}'",
    "-f", "-v", "x=1", "FS=:",
    # composition: find -exec and xargs, their words and the siblings that ask
    "{}", "\\;", "+", "-exec", "-execdir", "-ok", "-print0", "-0", "-r", "-I", "-n", "-d", "'\\n'",
    "-type", "f", "-name", "'*.go'", "xargs", "-l", "-L", "-Z", "ls-files", "--cached", "-c", "-z", "docs",
    # git: upstream revisions, count-objects
    "@{u}", "@{upstream}", "HEAD@{u}", "@{-1}", "count-objects", "-vH",
)  # fmt: skip
COMMANDS33: tuple[str, ...] = ("[", "tree", "gh", "awk", "xargs", "jq", "make", "gcc")
# Composition (design rule 65): a reader on the names find, grep -l or xargs hands on, in a fixture
# whose .go files include a secret name, one in a secret directory, links out and to .env, names
# with a blank, a newline and a leading dash; beside the siblings that must ask.
COMPOSED33: tuple[str, ...] = (
    "find . -name '*.go' -exec grep -l package {} \\;", "find . -name '*.go' -exec cat {} +",
    "find . -type f -exec grep -H KEY {} +", "find . -exec cat {} +", "find sub -exec head -n 1 {} \\;",
    "find . -name '*.go' | xargs grep -l package", "find . | xargs cat", "find . -print0 | xargs -0 wc -c",
    "find . -name '*.go' | xargs -I {} grep -H package {}", "find dash | xargs -d '\\n' -n 1 cat",
    # forms that now run unasked: the name attached to -I, grep's NUL-ended list, a quoted numeral
    "find . -name '*.go' | xargs -I{} grep -H package {}", "grep -rlZ package . | xargs -0 -r cat",
    "echo 'Ⅻ'",
    "find . -path ./sub -prune -o -name '*.go' -print | xargs grep -c package",
    "find . -name '*.go' | xargs grep -l package | xargs wc -l", "grep -rl package . | xargs cat",
    "grep -l KEY main.go notes.txt | xargs cat", "find . -name '*.go' -exec grep -l x {} \\; | xargs cat",
    "find . -maxdepth 1 -exec cat {} \\;", "cd sub && find . | xargs cat",
    "ls | xargs cat", "echo .env | xargs cat", "find . | xargs sh -c cat", "find -L . -exec cat {} +",
    "find . -execdir cat {} \\;", "find . -exec cat {} \\; -exec cat {} \\;", "find secrets | xargs cat",
    "find lib | xargs cat",
    "find . 2>&1 | xargs cat", "find . | xargs -a x cat", "find . | xargs cat | xargs cat", "xargs cat",
    "find lib/.aws -exec cat {} +", "find .git -name config -exec cat {} +", "find envlink.go -exec cat {} +",
    # git ls-files | xargs (design rules 114-116): the index's names, beside the siblings that ask
    "git ls-files docs | xargs cat", "git ls-files dash | xargs wc -l", "git ls-files 'sub dir' | xargs cat",
    "git ls-files 'notes .env x.go' | xargs cat", "git ls-files '*.go' | xargs grep -l package",
    "git ls-files | xargs cat", "git ls-files sub | xargs head -n 1", "git ls-files -z docs | xargs -0 cat",
    "git ls-files 'x ' | xargs cat", "git ls-files names | xargs grep -c .",
    "git ls-files swap.txt | xargs cat", "git ls-files tlink.txt | xargs cat", "git ls-files gl | xargs cat",
    "cd sub && git ls-files | xargs cat", "git ls-files -s docs | xargs cat", "git ls-files -o | xargs cat",
    "git ls-files --format='%(path)' | xargs cat", "git ls-files --recurse-submodules | xargs cat",
    "git -C sub ls-files | xargs cat", "git ls-files -t | xargs cat",
    "git ls-files docs | xargs grep -l x | xargs cat", "git ls-files | xargs -a x cat",
    "git rev-parse @{u}", "git log --oneline @{u}..HEAD", "git show @{u}", "git count-objects -vH",
    "jq --version", "make --version", "gcc --version",
)  # fmt: skip
# Whole stages for the attack generator (strategies.hostile_stage).
STAGES33: tuple[str, ...] = (
    "cat {.env,x}", "grep KEY *.{go,en?}", "wc -l dash/*", "ls -la dash/*", "head -n 1 nomatch*",
    "cat dash/*", "grep -n package {,sub/}*.go", "cat */*.go", "tail -n 1 sub/*", "ls {inlink,etclink}/*",
    "grep -c x 'sub dir'/* *.txt", "[ -f .env ] && echo \"\u2713 .env\"", "[ -s id_rsa ] || echo \"\u2717\"",
    "test -f main.go && echo \"\u2713 main.go exists\" || echo \"\u2717 missing\"", "tree sub -I '*.go'",
    "tree sub -L 1 -a", "gh --version", "ls -R | grep \":$\"", "ls -la | grep -v \"^d.*\\.git$\"",
    "ls **/*.go", "cat secrets/{token,x}.txt", "head -n 2 {notes.txt,chain}", "wc -c *.pem id_*",
    "awk '/package/,/^}/' main.go | grep -n x", "awk '{print $1}' .env", "awk -F: '{print $1}' notes.txt",
    "cat main.go | awk 'NR==1'", "awk 'END{print NR}' sub/a.go 'sub dir/x.go'", "awk '{print}' dash/*",
    "awk '{print > \"out\"}' main.go", "awk 'BEGIN{while(1)print}'", "awk '{print}' outlink",
    *COMPOSED33,
)  # fmt: skip

Pools = tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]


def with_pool33(raw: tuple[str, ...], commands: tuple[str, ...], args: tuple[str, ...]) -> Pools:
    """The generators' (raw commands, command pool, argument pool) with these words added."""
    return tuple(dict.fromkeys((*raw, *COMMANDS33))), (*commands, *COMMANDS33), (*args, *ARGS33)

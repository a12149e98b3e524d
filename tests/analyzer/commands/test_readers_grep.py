"""grep -r: allowed forms beside the siblings that must ask, judged in a hostile tree, and the plan run
by the real GNU grep under strace to show it never opens a secret-looking file, a link below, a FIFO
or `.git`, whatever the case of the names and however deep they lie."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from bastion.analyzer import SECRET_PATHS, Stamper, analyze

# Private: grep -r's tree bound and exclude globs are the private limits tested.
from bastion.analyzer.commands._grepr import MAX_TREE_FILES, exclude_globs
from bastion.policy import Decision, Layer, Policy, bash_subjects
from bastion.workspace import LocalWorkspace
from tests.waits import PATIENCE

LIMIT = 1000
PLAIN = {"README.md": "hit\n", "src/a.py": "hit\n", "src/deep/b.py": "hit\n", "src/deep/c.txt": "hit\n"}
# Every shipped pattern, in several cases, at the root and nested.
SECRETS = [
    ".env", ".ENV.local", ".Env", "src/.env.prod", "src/deep/.eNv",
    "id_rsa", "ID_RSA.pub", "src/deep/Id_Ed25519",
    "server.pem", "src/KEY.PEM", "tls.key", "src/x.Key", "cert.p12", "cert.PFX",
    "my_secret.txt", "src/deep/TOP_SECRET", "src/Secrets/notes.txt", "src/deep/SECRET/x.py",
    "credentials.json", "src/Credentials", ".npmrc", ".NETRC", ".pgpass", ".git-credentials",
    ".aws/credentials", "src/.AWS/config", ".ssh/id", "src/.Ssh/known_hosts",
    ".kube/config", "src/.KUBE/config", ".docker/config.json", "src/.Docker/config.json",
    ".git/config", "src/.GIT/config",
]  # fmt: skip
OUTSIDE = "outside-secret.txt"
# A word of each secret-looking name above, in lower case: no file read may hold one.
SECRET_WORDS = ("env", "secret", "id_", "aws", "ssh", "kube", "docker", "credentials", ".key", ".git")


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("grepr")
    root = base / "ws"
    for name in (*PLAIN, *SECRETS):
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("hit\n")
    (base / OUTSIDE).write_text("hit\n")
    os.symlink(str(base / OUTSIDE), root / "src/out.txt")  # a link below, leading out
    os.symlink("/etc", root / "src/etc")  # a directory link below, leading out
    os.symlink("../.env", root / "src/envlink")  # a link below, leading to a secret
    os.symlink("src", root / "srclink")  # an operand link inside
    os.mkfifo(root / "src/fifo")
    return root


def _run(tree: Path, line: str, cwd: str = ".") -> tuple[bool, tuple[str, ...], str | None]:
    a = analyze(line, LocalWorkspace(str(tree)), cwd, max_read_bytes=LIMIT)
    reads = tuple(r for s in a.stages for r in s.reads)
    return a.auto, reads, a.rendered


ALLOWED = [
    "grep -r hit src",
    "grep -rn hit .",
    "grep -rn hit",
    'grep -r hit src/ --include="*.py"',
    "grep -r hit src --include='*.py' --exclude='*.txt' --exclude-dir=deep",
    "grep --recursive -il hit src",
    "grep -r hit src/ | grep -v test | head -5",
    "grep -r -e hit -e miss src README.md",
    "grep -rn hit srclink",
    "grep -r hit src/de*",
    "cd src && grep -rn hit .",
    "grep -r hit /ROOT/src",
    "cd /ROOT && grep -rn hit .",
]


@pytest.mark.parametrize("line", ALLOWED)
def test_a_recursive_grep_runs_unasked_and_reads_no_secret(tree: Path, line: str) -> None:
    auto, reads, rendered = _run(tree, line.replace("/ROOT", str(tree)))
    assert auto, line
    assert rendered is not None and "--exclude-dir=.[Gg][Ii][Tt]" in rendered
    assert "src/a.py" in reads or "src/deep/b.py" in reads or line.startswith("cd src")
    for name in reads:
        assert not any(s in name.lower() for s in SECRET_WORDS), name


ASKED = [
    ("grep -R hit src", "-R follows every link below"),
    ("grep --dereference-recursive hit src", "follows every link below"),
    ("grep -r hit .env", "a secret named as an operand"),
    ("grep -r hit .aws", "a secret directory named as an operand"),
    ("grep -r hit src/.AWS", "a secret directory, another case"),
    ("grep -r hit src/out.txt", "an operand link leading out"),
    ("grep -r hit src/etc", "an operand directory link leading out"),
    ("grep -r hit ..", "a directory outside"),
    ("grep -r hit /etc", "an absolute directory outside"),
    ("grep -r hit src -D read", "devices read"),
    ("grep -r hit src -d recurse", "the -d form"),
    ("grep -r hit src --exclude-from=README.md", "excludes read from a file"),
    ("grep -r -f README.md src", "patterns read from a file"),
    ("grep -r hit src --include '*.py'", "a glob as the next word, which could be --"),
    ("grep -r hit src/fifo", "a FIFO named as an operand"),
    ("grep -r hit -", "standard input"),
    ("cat README.md | grep -r hit", "after a pipe -r searches the directory, not the input"),
    ("grep -r hit */", "a glob whose matches hold .env below (the read of it asks)"),
    ("grep -r hit src --include=*.py", "an unquoted glob bash may expand to other names"),
]


@pytest.mark.parametrize(("line", "what"), ASKED, ids=[c[0] for c in ASKED])
def test_a_recursive_grep_that_could_read_a_secret_or_leave_asks(tree: Path, line: str, what: str) -> None:
    ws = LocalWorkspace(str(tree))
    analysis = analyze(line, ws, ".", max_read_bytes=LIMIT)
    verdict = Policy([Layer.user("u")]).decide(bash_subjects(analysis, ws))
    assert verdict.decision is not Decision.ALLOW, what


def test_a_file_below_over_the_read_limit_asks(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "d/big.txt").write_bytes(b"x" * (LIMIT + 1))
    (tmp_path / "d/.env.big").write_bytes(b"x" * (LIMIT + 1))  # excluded: not read, so not counted
    assert not _run(tmp_path, "grep -r x d")[0]
    (tmp_path / "d/big.txt").unlink()
    assert _run(tmp_path, "grep -r x d")[0]


def test_a_tree_past_the_file_budget_asks(tmp_path: Path) -> None:
    for i in range(MAX_TREE_FILES + 1):
        (tmp_path / f"f{i}").touch()
    auto, _, _ = _run(tmp_path, "grep -r x .")
    assert not auto


def test_every_file_the_plan_reads_is_a_read_the_policy_decides(tree: Path) -> None:
    """An ask or deny rule of yours on files below the directory reaches grep -r: each file is a read."""
    ws = LocalWorkspace(str(tree))
    analysis = analyze("grep -rn hit src", ws, ".", max_read_bytes=LIMIT)
    subjects = bash_subjects(analysis, ws)
    shipped = Policy([Layer.user("u")])
    assert shipped.decide(subjects).decision is Decision.ALLOW
    for rule in ("ask", "deny"):
        mine = Policy([Layer.user("u", **{rule: ("read(src/deep/**)",)})])
        assert mine.decide(subjects).decision is not Decision.ALLOW, rule


def test_a_file_added_below_after_the_decision_stops_the_plan(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "d/a.py").write_text("hit\n")
    ws, stamper = LocalWorkspace(str(tmp_path)), Stamper()
    stamp = stamper.plan_stamp(analyze("grep -r hit d", ws), ws)
    assert stamper.verify_plan(stamp, analyze("grep -r hit d", ws), ws)
    (tmp_path / "d/private.txt").write_text("hit\n")
    assert not stamper.verify_plan(stamp, analyze("grep -r hit d", ws), ws)


def test_a_pattern_grep_cannot_exclude_makes_the_line_ask() -> None:
    assert isinstance(exclude_globs(("key[0-9]",)), str)
    assert exclude_globs((".kube/config",)) == (".[Gg][Ii][Tt]", ".[Kk][Uu][Bb][Ee]")


# --- the plan, run by GNU grep under strace -----------------------------------------------------

_OPENED = re.compile(r'open(?:at)?\((?:AT_FDCWD|\d+), "([^"]*)"[^)]*\) = (\d+)')


def _opened(tree: Path, rendered: str, cwd: Path) -> set[str]:
    trace = cwd / "trace.out"
    env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
    subprocess.run(
        ["strace", "-f", "-qq", "-e", "trace=open,openat", "-o", str(trace), "bash", "-c", rendered],
        cwd=cwd, env=env, capture_output=True, timeout=PATIENCE, check=False,
    )  # fmt: skip
    names = {m.group(1) for m in _OPENED.finditer(trace.read_text())}
    trace.unlink()
    # bash and the C library open their own files by absolute names; grep opens the tree's relative
    # to its operands and directories, and a link it followed would show as a name below them.
    return {n for n in names if not n.startswith("/") or n.startswith(str(tree.parent))}


@pytest.mark.skipif(shutil.which("strace") is None or shutil.which("grep") is None, reason="needs strace")
@pytest.mark.parametrize(
    "line",
    [
        "grep -rn hit .",
        "grep -rl hit src --include=.env --include='*secret*' --include='*.py'",
        "grep -r hit srclink",
    ],
)
def test_real_grep_running_the_plan_opens_no_secret_no_link_below_and_no_fifo(tree: Path, line: str) -> None:
    auto, _, rendered = _run(tree, line)
    assert auto and rendered is not None
    opened = _opened(tree, rendered, tree)
    assert opened, "strace saw nothing: the test would prove nothing"
    assert any(n.endswith(".py") for n in opened)
    for name in opened:
        base = name.rsplit("/", 1)[-1].lower()
        assert not any(s in name.lower() for s in SECRET_WORDS), name
        assert base not in {"out.txt", "etc", "envlink", "fifo", "credentials", "credentials.json", "tls.key"}
        assert OUTSIDE not in name and not name.startswith("/etc")
    # what is read is what was decided: every regular file opened is a read of the plan
    reads = set(_run(tree, line)[1])
    for name in opened:
        rel = os.path.normpath(name)
        if (tree / rel).is_file():
            assert rel in reads or f"src/{rel}" in reads, name


@pytest.mark.skipif(shutil.which("grep") is None, reason="needs grep")
def test_each_shipped_pattern_excludes_its_files_in_any_case_at_any_depth(tmp_path: Path) -> None:
    """Real grep with the plan's excludes finds none of the secret files, the plain ones all."""
    for name in (*PLAIN, *SECRETS, *(n.upper() for n in SECRETS), *(f"a/b/{n}" for n in SECRETS)):
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("hit\n")
    assert SECRET_PATHS  # every shipped pattern is in force below
    auto, reads, rendered = _run(tmp_path, "grep -rl hit .")
    assert auto and rendered is not None
    out = subprocess.run(["bash", "-c", rendered], cwd=tmp_path, capture_output=True, text=True, check=False)
    found = {line.removeprefix("./") for line in out.stdout.splitlines()}
    assert found == set(PLAIN) == set(reads) - {"."}

"""Issue 33, composition: a reader run on names find, grep -l or xargs hands it (design rule 65).

The risk: a name a stream carries reaches a reader unchecked, so that a secret-looking file, one
inside a secret-looking directory, a link out, a FIFO or a name xargs splits or reads as an option
gets read. Each allowed form is run here, as planned, in a fixture holding all of those with canary
contents: what it prints holds no canary. Each dangerous sibling asks.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from bastion.analyzer import analyze
from bastion.policy import Decision, DryRun
from bastion.workspace import LocalWorkspace
from tests.analyzer.conftest import Analyse

CANARY = "CANARY-33-"
# A workspace whose names a stream carries: secrets by name and by directory, links out and to a
# secret, a FIFO, and names with a blank, a newline, a leading dash, quotes and a backslash.
HOSTILE_FILES = {
    "src/a.py": "import os\n",
    "src/b.py": "import sys\n",
    "tests/test_a.py": "import os\n",
    ".env": f"import {CANARY}env\n",
    "id_rsa.py": f"import {CANARY}id\n",
    "secrets/x.py": f"import {CANARY}secrets\n",
    ".ssh/k.py": f"import {CANARY}ssh\n",
    "src/.aws/c.py": f"import {CANARY}aws\n",
    "notes .env x.py": "import spaced\n",
    "odd/new\nline.py": "import newline\n",
    "odd/-rf.py": "import dash\n",
    'odd/it\'s "q".py': "import quotes\n",
    "odd/back\\slash.py": "import backslash\n",
    ".git/config.py": f"import {CANARY}gitdir\n",
}
HOSTILE_LINKS = {
    "out.py": "../outside/secret.py",
    "env.py": ".env",
    "etc.py": "/etc/passwd",
    "outdir": "../outside",
}


def _decided(ws: Path, line: str) -> Decision:
    """The shipped policy's decision of the line in `ws` (its secret asks included)."""
    return DryRun(os.devnull).gate(str(ws)).decide("bash", {"command": line}).decision


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("compose33")
    ws, outside = base / "ws", base / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text(f"import {CANARY}outside\n")
    ws.mkdir()
    for name, text in HOSTILE_FILES.items():
        path = ws / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for name, target in HOSTILE_LINKS.items():
        os.symlink(target, ws / name)
    os.mkfifo(ws / "pipe.py")
    return ws


RUNS = [
    "find . -name '*.py' -type f -exec grep -l import {} \\;",
    "find . -name '*.py' -exec grep -l import {} +",
    "find . -name '*.py' -exec grep -H import {} \\;",
    "find . -exec grep -c import {} +",
    "find . -path ./tests -prune -o -name '*.py' -type f -exec grep -l import {} \\;",
    "find . | xargs grep -l import",
    "find . -type f -name '*.py' | xargs grep -n import | head -20",
    "find . -name '*.py' -print0 | xargs -0 grep -l import",
    "find . -name '*.py' -o -name '*.txt' | xargs grep -l import 2>/dev/null",
    "find . -path ./tests -prune -o -type f -name '*.py' -print | xargs grep -c import",
    "find . | xargs -d '\\n' -n 1 cat",
    "find . -name '*.py' | xargs -I {} grep -H import {}",
    "find . -name '*.py' | xargs -I{} grep -H import {}",
    "find src odd -name '*.py' | xargs wc -l",
    "find . -name '*.py' | xargs grep -l import | xargs wc -l",
    "find . -name '*.py' -exec grep -l import {} \\; | xargs grep -n import",
    "grep -rl import . | xargs grep -n import",
    "grep -l import src/a.py src/b.py | xargs cat",
    "grep -rlZ import . | xargs -0 wc -l",
    "grep -rl --null import src odd | xargs -0 grep -n import",
    "cd odd && find . | xargs cat",
    "find . -maxdepth 1 -exec grep -n import {} \\;",
]


@pytest.mark.parametrize("line", RUNS)
def test_the_form_runs_unasked_and_prints_no_secret(hostile: Path, line: str) -> None:
    a = analyze(line, LocalWorkspace(str(hostile)))
    assert a.auto, [s.why for s in a.stages]
    assert a.rendered is not None
    assert _decided(hostile, line) is Decision.ALLOW
    done = subprocess.run(
        ["bash", "-c", a.rendered], cwd=hostile, capture_output=True, timeout=60, check=False
    )
    out = done.stdout.decode(errors="replace") + done.stderr.decode(errors="replace")
    assert CANARY not in out, out
    assert "outside" not in out and "root:" not in out, out
    assert not any(s.reads and any(r == ".env" or "secrets" in r for r in s.reads) for s in a.stages)


def test_every_name_a_stream_carries_reaches_the_reader_whole(hostile: Path) -> None:
    """A blank, a newline, quotes, a backslash or a leading dash in a name: each name reaches grep
    as itself (without -0, xargs would split `notes .env x.py` and hand on `.env`)."""
    a = analyze("find . -name '*.py' | xargs grep -l import", LocalWorkspace(str(hostile)))
    assert a.auto and a.rendered is not None
    done = subprocess.run(
        ["bash", "-c", a.rendered], cwd=hostile, capture_output=True, timeout=60, check=True
    )
    printed = set(done.stdout.decode().split("\n"))
    for name in ("./notes .env x.py", "./odd/-rf.py", './odd/it\'s "q".py', "./odd/back\\slash.py"):
        assert name in printed, printed
    assert "./odd/new" in printed and "line.py" in printed  # the newline is the name's, printed by grep
    assert "-print0" in a.rendered and "'-0'" in a.rendered and "'--'" in a.rendered


def test_what_a_find_can_hand_on_is_each_a_read(hostile: Path) -> None:
    a = analyze("find src odd -name '*.py' -exec grep -l import {} +", LocalWorkspace(str(hostile)))
    assert a.auto
    reads = set(a.stages[0].reads)
    assert {"src/a.py", "src/b.py", "odd/-rf.py", "odd/new\nline.py"} <= reads
    assert not {".env", "src/.aws/c.py", "tests/test_a.py"} & reads


def test_the_inner_command_runs_by_its_absolute_path(hostile: Path) -> None:
    a = analyze("find . -name '*.py' | xargs grep -l import", LocalWorkspace(str(hostile)))
    assert a.rendered is not None and "'/usr/bin/xargs' '-0' '-r' '/usr/bin/grep'" in a.rendered
    assert any(p.endswith("/grep") for p in a.programs)
    a = analyze("find . -exec grep -c import {} +", LocalWorkspace(str(hostile)))
    assert a.rendered is not None and "'-exec' '/usr/bin/grep' '-c' '--' 'import' '{}' '+'" in a.rendered


ASKS = [
    ("find . -exec rm {} \\;", "a writing command"),
    ("find . -exec sed -i s/a/b/ {} +", "a writing command"),
    ("find . -exec sh -c 'cat $1' x {} \\;", "a shell"),
    ("find . -execdir grep x {} \\;", "-execdir"),
    ("find . -ok cat {} \\;", "-ok"),
    ("find . -okdir cat {} \\;", "-okdir"),
    ("find -L . -exec grep -l x {} +", "-L follows links out"),
    ("find . -newer /etc/passwd -exec grep -l x {} +", "-newer looks at a name outside"),
    ("find . -newer etc.py | xargs cat", "-newer through a link out"),
    ("find . -follow -exec grep -l x {} +", "-follow"),
    ("find . -exec grep x {} \\; -exec grep -l x {} \\;", "two -exec actions"),
    ("find . -exec grep x \\;", "no name: grep reads standard input"),
    ("find . -exec grep x {} /dev/null \\;", "{} not last"),
    ("find . -exec grep {} x \\;", "{} not last"),
    ("find . -exec grep -r x {} +", "grep -r below each name"),
    ("find . -exec grep -l x {}", "an -exec without its end"),
    ("find . -depth -exec grep -l x {} +", "-depth ignores the prune"),
    ("find . -mindepth 2 -exec grep -l x {} +", "-mindepth 2 runs no test above"),
    ("find secrets -exec grep -l x {} +", "a starting point the plan would prune"),
    ("find .ssh | xargs cat", "a starting point the plan would prune"),
    ("find src/.aws -name '*.py' -exec grep -l x {} +", "inside a secret directory"),
    ("find .git -exec grep -l x {} +", "the git directory"),
    ("find env.py -exec grep -l x {} +", "a start that is a link to a secret"),
    ("find outdir -exec grep -l x {} +", "a start that leads out"),
    ("find . -exec grep -l x {} - \\;", "standard input"),
    ("ls | xargs cat", "an unchecked stream"),
    ("cat names.txt | xargs cat", "an unchecked stream"),
    ("echo .env | xargs cat", "an unchecked stream"),
    ("xargs cat", "standard input"),
    ("git ls-files | xargs cat", "no repository here: no index to read the names from"),
    ("find . 2>&1 | xargs cat", "error messages mixed into the names"),
    ("find . -ls | xargs cat", "-ls prints more than names"),
    ("find . | xargs", "echo on the names"),
    ("find . | xargs rm", "a writing command"),
    ("find . | xargs sh -c 'cat \"$@\"' x", "a shell"),
    ("find . | xargs -a list cat", "a file of names"),
    ("find . | xargs -o cat", "the terminal as input"),
    ("find . | xargs -p cat", "prompts"),
    ("find . | xargs -L 1 cat", "line reading"),
    ("find . | xargs -E x cat", "an end-of-input word"),
    ("find . | xargs -I X grep X X", "the replace-string before the last word"),
    ("find . | xargs -I {} cat {} {}", "the replace-string twice"),
    ("find . | xargs -I{} cat {} {}", "the replace-string twice, attached"),
    ("find . | xargs -I{} grep {} x", "the attached replace-string before the last word"),
    ("find . | xargs --process-slot-var=V cat", "a variable set"),
    ("find . | xargs -n 0 cat", "a count that is not one"),
    ("find . | xargs grep -r x", "grep -r below each name"),
    ("grep import src/a.py | xargs cat", "grep's lines are not names"),
    ("grep -c import src/a.py | xargs cat", "counts are not names"),
    ("grep -lc import src/a.py | xargs cat", "-c beside -l"),
    ("grep -Z import src/a.py | xargs -0 cat", "-Z without -l: lines, NUL after each file name"),
    ("grep -rlz import . | xargs -0 cat", "-z (--null-data) is not -Z"),
    ("grep -rl --null-data import . | xargs -0 cat", "--null-data is not --null"),
    ("grep -l import .env | xargs cat", "a secret operand"),
    ("find . | grep py | xargs cat", "a filtered stream bastion did not check"),
    ("find . | xargs grep -l x | xargs rm", "a writing command at the end of a chain"),
    ("find . | xargs cat | xargs cat", "cat's output is not names"),
    ("find . -exec cat {} +", "-exec runs unasked only with grep"),
    ("find . -name '*.py' -exec grep -l ';;' {} \\;", "a ; inside -exec's command"),
    ("find . -maxdepth 1 -exec head -n 1 {} \\;", "-exec runs unasked only with grep"),
    ("find . -name '*.py' -exec grep -l import {} \\; 2>/dev/null", "the walk's errors sent away"),
]


@pytest.mark.parametrize(("line", "what"), ASKS, ids=[c[0] for c in ASKS])
def test_the_dangerous_sibling_asks(hostile: Path, line: str, what: str) -> None:
    assert _decided(hostile, line) is not Decision.ALLOW, what


def test_a_big_file_among_the_names_asks(run: Analyse) -> None:
    assert not run("find . -name '*.bin' | xargs cat").auto  # over.bin is over the read limit
    assert run("find . -name 'exact.bin' | xargs cat").auto
    assert run("find . -name '*.go' | xargs grep -l package").auto


def test_a_new_name_after_the_decision_is_still_guarded(tmp_path: Path) -> None:
    """The reads are judged now, but the plan keeps a secret out whatever appears later."""
    (tmp_path / "a.py").write_text("import os\n")
    a = analyze("find . -name '*.py' -exec grep -H import {} +", LocalWorkspace(str(tmp_path)))
    assert a.auto and a.rendered is not None
    (tmp_path / ".env.py").write_text(f"import {CANARY}late\n")
    (tmp_path / "secret.py").write_text(f"import {CANARY}late\n")
    (tmp_path / "late").mkdir()
    (tmp_path / "late" / "id_rsa.py").write_text(f"import {CANARY}late\n")
    os.symlink("/etc/passwd", tmp_path / "passwd.py")
    done = subprocess.run(
        ["bash", "-c", a.rendered], cwd=tmp_path, capture_output=True, timeout=60, check=False
    )
    assert CANARY not in done.stdout.decode() and "root:" not in done.stdout.decode()
    assert "./a.py:import os" in done.stdout.decode()

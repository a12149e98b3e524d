"""A program on PATH that is not what its name says asks (analyzer/programs/_shims.py, design rule 42): a
multiplexer (mise, ccache, rustup...) reached by a tool's name through a link, in a shim directory or
as a hard link runs what its configuration, the project's too, picks. The real ones are used where
they are installed (`make shims`: ccache from Debian, mise from npm; rustup where this machine has
it); Debian's own links (alternatives, versions, triplets) still run."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bastion.analyzer import Shell, analyze

# Private: the lookup and the names it allows are the things tested.
from bastion.analyzer.programs._programs import find_program
from bastion.analyzer.programs._shims import ALSO_CALLED, MULTIPLEXERS, SHIM_DIRECTORIES, same_program
from bastion.workspace import LocalWorkspace
from fuzz.multiplexers import CCACHE_DIRECTORY, MISE, missing
from tests.plans import fake_program, needs

SYSTEM = "/usr/local/bin:/usr/bin:/bin"
RUSTUP = shutil.which("rustup", path=f"{Path.home() / '.cargo' / 'bin'}:{os.environ.get('PATH', '')}")


def _asks(tmp: Path, path: str, line: str, said: str) -> None:
    project = tmp / "project"
    project.mkdir(exist_ok=True)
    a = analyze(line, LocalWorkspace(str(project), env={"PATH": path}))
    assert not a.auto, a.rendered
    assert said in a.stages[0].why, a.stages[0].why


def _runs(tmp: Path, path: str, line: str, program: str) -> None:
    project = tmp / "project"
    project.mkdir(exist_ok=True)
    a = analyze(line, LocalWorkspace(str(project), env={"PATH": path}))
    assert a.auto, a.stages[0].why
    assert a.stages[0].check.program == program


@pytest.mark.skipif(bool(missing("ccache")), reason=missing("ccache"))
def test_gcc_through_ccaches_masquerade_directory_asks_and_would_write_the_cache(tmp_path: Path) -> None:
    _asks(tmp_path, f"{CCACHE_DIRECTORY}:{SYSTEM}", "gcc --version", "keeps its shims")
    home = tmp_path / "home"
    home.mkdir()
    env = {"PATH": f"{CCACHE_DIRECTORY}:{SYSTEM}", "HOME": str(home)}
    subprocess.run(["gcc", "--version"], env=env, capture_output=True, timeout=60, check=True)
    assert list(home.iterdir()), "ccache wrote nothing in HOME: the fixture lost its teeth"


def test_a_link_to_a_program_of_another_name_asks_though_no_one_knows_it(tmp_path: Path) -> None:
    """A multiplexer bastion has never heard of is still a program of another name."""
    fake_program(tmp_path / "tools", "tool-manager")
    (tmp_path / "bin").mkdir()
    os.symlink(tmp_path / "tools" / "tool-manager", tmp_path / "bin" / "cat")
    _asks(tmp_path, f"{tmp_path / 'bin'}:{SYSTEM}", "cat x", "a program called tool-manager")


@pytest.mark.skipif(bool(missing("ccache")), reason=missing("ccache"))
def test_a_link_gcc_to_ccache_asks_outside_any_shim_directory(tmp_path: Path) -> None:
    (tmp_path / "bin").mkdir()
    os.symlink(os.path.realpath(CCACHE_DIRECTORY / "gcc"), tmp_path / "bin" / "gcc")
    _asks(tmp_path, f"{tmp_path / 'bin'}:{SYSTEM}", "gcc --version", "the multiplexer ccache")


@pytest.mark.skipif(bool(missing("mise")), reason=missing("mise"))
@pytest.mark.parametrize("config", [".tool-versions", "mise.toml"])
def test_node_through_a_mise_shim_asks_where_the_project_names_its_own_node(
    tmp_path: Path, config: str
) -> None:
    shims, project = tmp_path / "mise" / "shims", tmp_path / "project"
    shims.mkdir(parents=True)
    os.symlink(MISE, shims / "node")
    evil = project / "evil" / "bin" / "node"
    evil.parent.mkdir(parents=True)
    evil.write_text('#!/bin/sh\ntouch "$(dirname "$0")/../../PWNED"\n')
    evil.chmod(0o755)
    text = "node path:./evil\n" if config == ".tool-versions" else '[tools]\nnode = "path:./evil"\n'
    (project / config).write_text(text)
    _asks(tmp_path, f"{shims}:{SYSTEM}", "node --version", "keeps its shims")
    env = {
        "PATH": f"{shims}:{SYSTEM}",
        "HOME": str(tmp_path / "home"),
        "MISE_DATA_DIR": str(tmp_path / "mise"),
    }
    subprocess.run(["node", "--version"], cwd=project, env=env, capture_output=True, timeout=120, check=False)
    assert (project / "PWNED").exists(), "the shim did not run the project's node: the fixture lost its teeth"


@pytest.mark.skipif(bool(missing("mise")), reason=missing("mise"))
def test_a_link_node_to_mise_asks_outside_any_shim_directory(tmp_path: Path) -> None:
    (tmp_path / "bin").mkdir()
    os.symlink(MISE, tmp_path / "bin" / "node")
    _asks(tmp_path, f"{tmp_path / 'bin'}:{SYSTEM}", "node --version", "the multiplexer mise")


@pytest.mark.skipif(RUSTUP is None, reason="rustup is not installed here (rustup-init needs the internet)")
def test_a_tool_linked_to_rustup_asks_and_rustup_reads_the_projects_toolchain_file(tmp_path: Path) -> None:
    assert RUSTUP is not None
    (tmp_path / "bin").mkdir()
    os.symlink(RUSTUP, tmp_path / "bin" / "cat")
    said = "keeps its shims" if Path(RUSTUP).parent.match(".cargo/bin") else "the multiplexer rustup"
    _asks(tmp_path, f"{tmp_path / 'bin'}:{SYSTEM}", "cat x", said)  # rustup's own directory, or its name
    project = tmp_path / "project"
    (project / "rust-toolchain.toml").write_text('[toolchain]\npath = "./evil"\n')
    cargo = tmp_path / "bin" / "cargo"
    os.symlink(RUSTUP, cargo)
    done = subprocess.run(
        [str(cargo), "--version"], cwd=project, capture_output=True, text=True, timeout=120, check=False
    )
    assert "./evil" in done.stderr, done.stderr  # the proxy read the project's file


@pytest.mark.parametrize("directory", SHIM_DIRECTORIES)
def test_a_binary_of_the_tools_own_name_in_a_shim_directory_asks(tmp_path: Path, directory: str) -> None:
    """proto's shims are copies of one binary under each tool's name: only the directory tells."""
    shims = tmp_path / "home" / directory
    fake_program(shims, "cat", like="cat")
    _asks(tmp_path, f"{shims}:{SYSTEM}", "cat x", "keeps its shims")


def test_a_directory_linked_to_a_shim_directory_asks(tmp_path: Path) -> None:
    fake_program(tmp_path / ".proto" / "shims", "cat", like="cat")
    os.symlink(tmp_path / ".proto" / "shims", tmp_path / "bin")
    _asks(tmp_path, f"{tmp_path / 'bin'}:{SYSTEM}", "cat x", "keeps its shims")


@pytest.mark.parametrize("linked", ["the entry as written", "the entry followed"])
def test_a_shim_directory_on_the_way_to_a_tool_of_its_name_asks(tmp_path: Path, linked: str) -> None:
    """A shim directory may hold a link to the tool it picked (proto's bin): the entry as written
    (`~/.cargo/bin` linked elsewhere) or once followed (`~/bin` linked to `~/.proto/bin`) tells."""
    tool = fake_program(tmp_path / "tools", "cat", like="cat")
    shims, real = (tmp_path / ".cargo" / "bin", tmp_path / "cargo-bin")
    if linked == "the entry followed":
        shims, real = tmp_path / "bin", tmp_path / ".proto" / "bin"
    real.mkdir(parents=True)
    os.symlink(tool, real / "cat")
    shims.parent.mkdir(exist_ok=True)
    os.symlink(real, shims)
    _asks(tmp_path, f"{shims}:{SYSTEM}", "cat x", "keeps its shims")


def test_a_link_to_a_binary_in_a_shim_directory_asks(tmp_path: Path) -> None:
    fake_program(tmp_path / ".proto" / "shims", "cat", like="cat")
    (tmp_path / "bin").mkdir()
    os.symlink(tmp_path / ".proto" / "shims" / "cat", tmp_path / "bin" / "cat")
    _asks(tmp_path, f"{tmp_path / 'bin'}:{SYSTEM}", "cat x", "keeps its shims")


def test_a_hard_link_asks_for_it_may_be_a_multiplexers_other_name(tmp_path: Path) -> None:
    """rustup made its proxies as hard links: `cat` and `rustup` one file, in any directory."""
    cat = fake_program(tmp_path / "bin", "cat", like="cat")
    _runs(tmp_path, f"{tmp_path / 'bin'}:{SYSTEM}", "cat x", str(cat))
    (tmp_path / "elsewhere").mkdir()
    os.link(cat, tmp_path / "elsewhere" / "rustup")  # a name more: the lookup remembered is made again
    _asks(tmp_path, f"{tmp_path / 'bin'}:{SYSTEM}", "cat x", "2 names of one file")


def test_a_link_swapped_from_the_tool_to_a_multiplexer_is_looked_at_again(tmp_path: Path) -> None:
    (tmp_path / "bin").mkdir()
    link = tmp_path / "bin" / "cat"
    os.symlink("/usr/bin/cat", link)
    _runs(tmp_path, f"{tmp_path / 'bin'}:{SYSTEM}", "cat x", str(link))
    fake_program(tmp_path / "mise", "mise")
    link.unlink()
    os.symlink(tmp_path / "mise" / "mise", link)
    _asks(tmp_path, f"{tmp_path / 'bin'}:{SYSTEM}", "cat x", "the multiplexer mise")


@pytest.mark.parametrize("name", sorted(MULTIPLEXERS))
def test_a_known_multiplexer_asks_though_its_own_name_reaches_it(tmp_path: Path, name: str) -> None:
    fake_program(tmp_path / "bin", name)
    project = tmp_path / "project"
    project.mkdir()
    found = find_program(LocalWorkspace(str(project)), ".", Shell(f"{tmp_path / 'bin'}:{SYSTEM}"), name)
    assert not found.path and f"the multiplexer {name}" in found.why, found


def test_a_python_console_script_whose_interpreter_is_a_multiplexers_link_asks(tmp_path: Path) -> None:
    fake_program(tmp_path / "mise", "mise")
    (tmp_path / "venv" / "bin").mkdir(parents=True)
    os.symlink(tmp_path / "mise" / "mise", tmp_path / "venv" / "bin" / "python")
    mypy = tmp_path / "bin" / "mypy"
    mypy.parent.mkdir()
    mypy.write_text(f"#!{tmp_path / 'venv' / 'bin' / 'python'}\nimport mypy\n")
    mypy.chmod(0o755)
    _asks(tmp_path, f"{tmp_path / 'bin'}:{SYSTEM}", "mypy --version", "the multiplexer mise")


def test_ls_through_usr_bin_still_runs(tmp_path: Path) -> None:
    _runs(tmp_path, SYSTEM, "ls -la", shutil.which("ls", path=SYSTEM) or "")


@pytest.mark.skipif(not os.path.islink("/usr/bin/awk"), reason="awk is no link here (no alternatives)")
def test_awk_through_debians_alternatives_still_runs(tmp_path: Path) -> None:
    assert os.path.basename(os.path.realpath("/usr/bin/awk")) in ALSO_CALLED["awk"]
    _runs(tmp_path, "/usr/bin:/bin", "awk 1 x", "/usr/bin/awk")


@pytest.mark.skipif(not os.path.islink("/usr/bin/which"), reason="which is no link here (debianutils < 5)")
def test_which_through_debians_alternatives_and_its_sh_still_run(tmp_path: Path) -> None:
    _runs(tmp_path, "/usr/bin:/bin", "which ls", "/usr/bin/which")


@pytest.mark.skipif(not os.path.islink("/usr/bin/python3"), reason="python3 is no link here")
def test_python3_through_its_versioned_name_still_runs(tmp_path: Path) -> None:
    _runs(tmp_path, "/usr/bin:/bin", "python3 --version", "/usr/bin/python3")


@needs("gcc")
@pytest.mark.skipif(not os.path.islink("/usr/bin/gcc"), reason="gcc is no link here")
def test_gcc_through_its_target_triplet_and_version_still_runs(tmp_path: Path) -> None:
    assert "linux-gnu" in os.path.realpath("/usr/bin/gcc")
    _runs(tmp_path, "/usr/bin:/bin", "gcc --version", "/usr/bin/gcc")


SAME = (
    ("python3", "python3.11"), ("python", "python3.11"), ("gcc", "gcc-12"),
    ("gcc", "x86_64-linux-gnu-gcc-12"), ("gcc", "x86_64-pc-linux-gnu-gcc"),
    ("strings", "x86_64-linux-gnu-strings"), ("tclsh", "tclsh8.6"), ("awk", "gawk"), ("awk", "mawk"),
    ("which", "which.debianutils"), ("sh", "dash"),
)  # fmt: skip
OTHER = (
    ("gcc", "ccache"), ("node", "mise"), ("cargo", "rustup"), ("awk", "busybox"), ("python3", "python2.7"),
    ("gcc", "gcc-wrapper"), ("gcc", "x86_64-linux-gnu-gcc-wrapper"), ("cat", "cat.sh"), ("node", "nodejs"),
    ("python3", "python3-config"), ("gcc", "gcc-12-ccache"), ("which", "which.sh"), ("sh", "busybox"),
    ("cat", "x86_64-linux-gnu"), ("awk", "nawk"),
)  # fmt: skip


@pytest.mark.parametrize(("command", "name"), SAME)
def test_debians_names_of_the_same_program_are_the_program(command: str, name: str) -> None:
    assert same_program(command, name)


@pytest.mark.parametrize(("command", "name"), OTHER)
def test_a_name_that_is_not_a_version_triplet_or_alternative_of_the_command_is_another_program(
    command: str, name: str
) -> None:
    assert not same_program(command, name)


@given(st.text(alphabet="acgimnopstuwx0123456789._-", min_size=1, max_size=24), st.text(max_size=24))
def test_a_name_allowed_for_a_command_holds_the_command_or_is_an_alternative_of_it(
    command: str, name: str
) -> None:
    """No version or triplet form lets a link reach a program whose name does not hold the command's."""
    if same_program(command, name):
        assert command in name or name in ALSO_CALLED.get(command, ())

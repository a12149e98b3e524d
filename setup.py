"""The wheel's one build step besides setuptools' own: every grammar's tables (`_<name>_lalr.py`,
built strict by lark) written into the package being built, so an installed bastion never builds
them, nor writes anything into its own package, when it runs. An editable install runs from the
checkout, whose tables `make` builds (`python -m bastion.grammar`)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py

# Run in a child, with the package being built first on its path: the grammars are read, and the
# tables written, there and nowhere else (the checkout's own tables are not the wheel's).
_BUILD = """\
import sys
sys.path.insert(0, sys.argv[1])
import bastion
if not bastion.__file__.startswith(sys.argv[1]):
    sys.exit("setup.py: bastion was not imported from the build directory")
from bastion.grammar._tables import build_all
for path in build_all():
    print("setup.py: tables built strict:", path)
"""


# setuptools (the build's, not the environment's) is typed for mypy as Any: a subclass of Any.
class BuildWithTables(build_py):  # type: ignore[misc]
    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        where = os.path.abspath(self.build_lib)
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
        subprocess.run([sys.executable, "-c", _BUILD, where], env=env, check=True)
        for top, dirs, _files in os.walk(os.path.join(where, "bastion")):
            for name in [d for d in dirs if d == "__pycache__"]:  # py_compile's, beside each table
                shutil.rmtree(os.path.join(top, name))
                dirs.remove(name)


setup(cmdclass={"build_py": BuildWithTables})

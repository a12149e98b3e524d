"""`python -I -m bastion`: the command, as bastion's own `bastion` starts it (isolated: no PYTHON*
variable read, neither the current directory nor a script's directory on sys.path). Started
without -I, it executes itself again with -I before it imports anything more of bastion's (the
same process and environment; a command that holds a key then takes it out as ever:
bastion/_handover.py), so a PYTHONPATH entry's modules (a repository's `typing.py`) are never what
decides. What the interpreter's own start read before this line (`encodings`, `sitecustomize`, a
`bastion` package ahead on the path) only -I given by the caller keeps out."""

import os
import sys

if not sys.flags.isolated and sys.executable and sys.argv[0] == __file__:  # run by -m, not imported
    sys.stdout.flush()
    os.execve(sys.executable, [sys.executable, "-I", *sys.orig_argv[1:]], dict(os.environ))

from .cli import main  # noqa: E402  (only once isolated)

sys.exit(main())

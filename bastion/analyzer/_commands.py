"""The checkers of every governed command but git, as the driver (_analyze.py) looks them up."""

from __future__ import annotations

from ._ls import check_ls
from ._misc import check_cd, check_go, check_pwd
from ._readers import FILE_COMMANDS, FILTER_COMMANDS
from ._result import Checker

__all__ = ["FILTERS", "FIRST_STAGE", "check_cd"]

FIRST_STAGE: dict[str, Checker] = {"ls": check_ls, "pwd": check_pwd, "go": check_go, **FILE_COMMANDS}
FILTERS: dict[str, Checker] = dict(FILTER_COMMANDS)

"""The checkers of every governed command but git, as the driver (_analyze.py) looks them up."""

from __future__ import annotations

from ._contents import CONTENT_FILTERS, CONTENT_READERS
from ._find import FIND_COMMANDS
from ._ls import check_ls
from ._misc import check_cd, check_go, check_pwd
from ._names import NAME_COMMANDS
from ._prints import PRINT_COMMANDS, PRINT_FILTERS
from ._readers import FILE_COMMANDS, FILTER_COMMANDS
from ._result import Checker
from ._sed import SED_FILTER, SED_FIRST
from ._versions import VERSION_COMMANDS
from ._words import WORD_COMMANDS, WORD_FILTERS

__all__ = ["FILTERS", "FIRST_STAGE", "check_cd"]

FIRST_STAGE: dict[str, Checker] = {
    "ls": check_ls, "pwd": check_pwd, "go": check_go, **FILE_COMMANDS,
    **SED_FIRST, **CONTENT_READERS, **FIND_COMMANDS, **NAME_COMMANDS, **WORD_COMMANDS,
    **VERSION_COMMANDS, **PRINT_COMMANDS,
}  # fmt: skip
FILTERS: dict[str, Checker] = {**FILTER_COMMANDS, **SED_FILTER, **CONTENT_FILTERS, **WORD_FILTERS,
                              **PRINT_FILTERS}

"""git under the analyzer: the checker of git lines (`_check`) and its flags (`_flags`), `REV:path`
(`_objects`), the plan a line runs as (`_plan`) with the filter drivers switched off (`_filters`),
the neutral environment it runs in (`_neutral`), and the probe of the repository's configuration
(`_probe`: where git finds the repository in `_discovery`, git's config files read in
`_configread`, the keys judged in `_keys`, the index in `_index`, the submodules in `_submodules`,
the printed values holding a URL's credentials in `_urls`; what it found is the analyzer's
`GitFinding`).

Its face (below) is what the rest of the analyzer imports, each name loaded with its module when
first named (PEP 562): importing the package loads none of its modules, and the dry-run of a line
without git imports not even the package (tests/test_layering.py)."""

import typing

from ..._lazy import lazy_names as _lazy_names

if typing.TYPE_CHECKING:
    from ._check import check_git
    from ._configread import learn_git_system
    from ._filters import REHASHES, switched_off
    from ._index import GITLINK, MAX_INDEX, SYMLINK, index_entries
    from ._keys import subcommand
    from ._neutral import neutral_env, redact_userinfo
    from ._plan import NO_SUBMODULES, SHOWN_SUBMODULES, UNSET_GIT_STEERING, plan_words, showing_submodules
    from ._probe import (
        filter_drivers,
        find_git,
        git_fingerprint,
        printed_credentials,
        probe_git,
        submodules_of,
    )
    from ._worktree import linked_directory, tracked_index

_LAZY = {
    "check_git": "_check",
    "learn_git_system": "_configread",
    **dict.fromkeys(("REHASHES", "switched_off"), "_filters"),
    **dict.fromkeys(("GITLINK", "MAX_INDEX", "SYMLINK", "index_entries"), "_index"),
    "subcommand": "_keys",
    **dict.fromkeys(("neutral_env", "redact_userinfo"), "_neutral"),
    **dict.fromkeys(
        ("NO_SUBMODULES", "SHOWN_SUBMODULES", "UNSET_GIT_STEERING", "plan_words", "showing_submodules"),
        "_plan",
    ),
    **dict.fromkeys(
        (
            "filter_drivers",
            "find_git",
            "git_fingerprint",
            "printed_credentials",
            "probe_git",
            "submodules_of",
        ),
        "_probe",
    ),
    **dict.fromkeys(("linked_directory", "tracked_index"), "_worktree"),
}


__getattr__ = _lazy_names(__name__, _LAZY)


__all__ = [
    "GITLINK",
    "MAX_INDEX",
    "NO_SUBMODULES",
    "REHASHES",
    "SHOWN_SUBMODULES",
    "SYMLINK",
    "UNSET_GIT_STEERING",
    "check_git",
    "filter_drivers",
    "find_git",
    "git_fingerprint",
    "index_entries",
    "learn_git_system",
    "linked_directory",
    "neutral_env",
    "plan_words",
    "printed_credentials",
    "probe_git",
    "redact_userinfo",
    "showing_submodules",
    "subcommand",
    "submodules_of",
    "switched_off",
    "tracked_index",
]

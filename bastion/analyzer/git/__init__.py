"""git under the analyzer: the checker of git lines (`_check`) and its flags, the plan a line runs
as (`_plan`), the neutral environment it runs in (`_neutral`), and the probe of the repository's
configuration (`_probe`: the git directory's walk in `_dir`, the keys judged in `_keys`, what it
found as a value in `_finding`). Nothing here is imported until a line runs git: each module is
named by its path, and this package exports nothing of its own."""

__all__: list[str] = []

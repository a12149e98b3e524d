"""What every section of doctor's report starts from: the directory, the config (read once) and the
environment, and what a section that cannot be built says instead of a traceback."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .._errors import BastionError
from ..config import AgentConfig
from ..policy import ConfigError, PolicyError, Settings, child_env, load_settings
from ..workspace import LocalWorkspace
from ._facts import Fact, Section, Status

if TYPE_CHECKING:
    from ..workspace import ExecutorWorkspace

__all__ = ["Context", "Probe", "run_probe"]


@dataclass(slots=True)
class Context:
    """`settings` is None when the config could not be read; `config_error` then says why (the
    config section reports it, the sections that need the settings say they were not checked).
    `offline`: no section may use the network; `executor`: --executor's command (None: the
    config's, "" none)."""

    root: str
    config: str | None
    environ: Mapping[str, str]
    offline: bool = False
    settings: Settings | None = None
    config_error: str = ""
    real_root: str = ""
    executor: str | None = None

    @classmethod
    def load(cls, root: str, config: str | None, environ: Mapping[str, str], offline: bool) -> Context:
        context = cls(root, config, environ, offline)
        ws = LocalWorkspace(root)
        context.real_root = ws.real_root
        try:
            context.settings = load_settings(ws, config)
        except (PolicyError, ConfigError) as err:
            context.config_error = str(err)
        finally:
            ws.close()
        return context

    def open_executor(self, argv: list[str]) -> ExecutorWorkspace:
        """The executor `argv` starts, reached as a session reaches it (its transport's environment
        scrubbed the same way); the caller closes it. Raises a BastionError saying why not."""
        from ..agent import config_key_names
        from ..agent.tools import open_workspace
        from ..workspace import ExecutorWorkspace

        assert self.settings is not None
        extra = self.settings.agent
        where = self.settings.sources[0] if self.settings.sources else "config"
        passed = extra.executor_pass_env
        scrub = config_key_names(extra, where)
        ws = open_workspace(argv, self.root, self.environ, self.settings.pass_env, passed, scrub)
        assert isinstance(ws, ExecutorWorkspace)
        return ws

    def child_env(self) -> dict[str, str]:
        """The environment a program doctor starts gets: what a session's children get (credentials
        and every key variable left out)."""
        from ..agent import config_key_names

        config = self.settings.agent if self.settings is not None else AgentConfig()
        where = self.settings.sources[0] if self.settings is not None and self.settings.sources else "config"
        try:
            names = config_key_names(config, where)
        except BastionError:  # an [mcp] section that cannot be read: the standard variables still go
            names = config_key_names(AgentConfig(), where)
        return child_env(self.environ, also_scrub=names)

    def unchecked(self, name: str, title: str) -> Section:
        """The section of one that needs the settings, when the config could not be read."""
        return Section(
            name, title, (Fact("not checked", "the config has an error (see above)", Status.WARN),)
        )


# A section of the report: what it finds in a context.
Probe = Callable[[Context], Section]


def run_probe(name: str, probe: Probe, context: Context) -> Section:
    """The probe's section; one that fails is a section saying so in one line, never a traceback
    (and the other sections still run)."""
    try:
        return probe(context)
    except Exception as err:
        what = f"{type(err).__name__}: {err}"
        return Section(name, name, (Fact("could not be checked", what, Status.FAIL),))

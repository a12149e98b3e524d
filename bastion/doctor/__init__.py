"""`bastion doctor`: what a session here would run with, as sections of facts (each with its status
and, when wrong, what to do), the words made in one place. Other parts add a section by adding a
probe (Context -> Section) to SECTIONS. Nothing here imports an SDK."""

from ._context import Context, Probe
from ._facts import Fact, Section, Status
from ._main import SECTIONS, doctor_main, report

__all__ = ["SECTIONS", "Context", "Fact", "Probe", "Section", "Status", "doctor_main", "report"]

"""An agent_loop component written on the step API alone (dex's loop, in Python), loaded by name from
a user config as any component module is: the scenarios run through it unchanged."""

from __future__ import annotations

from bastion.agent.runtime.harness import Registrar, Steps

# One entry per turn it ran, so a test knows the component, not the built-in, served the turn.
RUNS: list[str] = []


class StepLoop:
    id = "tests.step-loop"
    interface = "agent_loop.v1"

    def run(self, steps: Steps) -> None:
        RUNS.append(self.id)
        while True:
            reply = steps.call_model()
            if reply.calls:
                steps.execute_tools()
            else:
                steps.finish(reply.text)
                return


def register(harness: Registrar) -> None:
    harness.use("agent_loop", StepLoop())

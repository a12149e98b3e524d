"""Rendering a plan back to bash text: every non-glob word re-quoted, so what runs is the plan."""

from __future__ import annotations

from ._plan import Operator, Pipeline, Plan, Stage, Word

__all__ = ["render", "render_stage", "render_word"]


def render_word(word: Word) -> str:
    """Single-quote a word; a `'` inside is written as "'" so the result stays in the subset."""
    if word.glob:
        return word.text
    if word.text == "":
        return "''"
    out: list[str] = []
    for i, run in enumerate(word.text.split("'")):
        if i:
            out.append('"\'"')
        if run:
            out.append(f"'{run}'")
    return "".join(out)


def render_stage(stage: Stage) -> str:
    parts = [render_word(w) for w in stage.words]
    parts.extend(r.value for r in stage.redirects)
    return " ".join(parts)


def _render_pipeline(pipeline: Pipeline) -> str:
    return " | ".join(render_stage(s) for s in pipeline.stages)


_OPERATORS = {Operator.AND: " && ", Operator.OR: " || ", Operator.SEMI: "; ", Operator.NEWLINE: "\n"}


def render(plan: Plan) -> str:
    """The line bash runs for this plan. `parse(render(plan)) == plan` for every plan `parse` makes;
    a plan with other than one operator fewer than pipelines raises ValueError."""
    if len(plan.operators) != len(plan.pipelines) - 1:
        raise ValueError(f"a plan of {len(plan.pipelines)} pipelines has {len(plan.operators)} operators")
    out = [_render_pipeline(plan.pipelines[0])]
    for operator, pipeline in zip(plan.operators, plan.pipelines[1:], strict=True):
        out += (_OPERATORS[operator], _render_pipeline(pipeline))
    return "".join(out)

"""File skeletons from jinja2 templates (strict: an undefined variable is an error)."""

from __future__ import annotations

from functools import cache

import jinja2


@cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("openmp_emit", "templates"),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,
    )


def render(template: str, **values) -> str:
    return _environment().get_template(template).render(**values)

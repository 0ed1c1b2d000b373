"""How a report, a comparison, a matrix, a trend, a calibration and a diagnosis show
themselves: inline in a notebook (an HTML fragment) and through ``rich`` (the text the
CLI prints). Each of those models inherits ``Displayed``; the drawing is the render
layer's (``assay.render.notebook``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


class Displayed:
    """Shown in Jupyter as a compact HTML fragment with its own scoped styles, and by
    ``rich`` (``rich.print(report)``) as the text the CLI prints."""

    __slots__ = ()

    def _repr_html_(self) -> str:
        """The HTML fragment Jupyter shows for this object."""
        # The one import of the render layer from below it: the models are drawn only
        # when a notebook or rich asks, so the render layer loads on that first request.
        from assay.render.notebook import html_fragment

        return html_fragment(self)

    def __rich_console__(self, console: Any, options: Any) -> Iterator[Any]:
        """What the CLI prints for this object (a console narrower than its lines wraps
        them)."""
        # Deferred for the same reason as in ``_repr_html_``.
        from assay.render.notebook import rich_text

        yield rich_text(self, console.color_system is not None)


__all__ = ["Displayed"]

"""The legend strip under the board: one symbol and its words per entry, in as many rows as they need.

Each ruleset's overlay and the shared drawing say which entries a board shows (``LegendItem``); this module only
lays them out and draws them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from render.canvas import Canvas, text_width
from render.colours import RGB, Theme
from render.geometry import Point, hex_polygon
from render.side_panel import PAD

#: draws a legend symbol: (canvas, centre, size of a hex, outline colour)
Symbol = Callable[[Canvas, Point, float, RGB], None]


@dataclass(frozen=True, slots=True)
class LegendItem:
    text: str
    kind: str  # "hex", "line", "dash", "ring", "glyph"
    colour: RGB
    extra: RGB | None = None
    glyph: Symbol | None = None  # draws the symbol for kind == "glyph" (a marker's own glyph)


LEGEND_FONT = 18
LEGEND_ROW = 34  # px per extra legend row
LEGEND_FIRST = 46  # the first row: render.layout.LEGEND_H


def _legend_rows(items: Sequence[LegendItem], width: int) -> list[list[tuple[LegendItem, float]]]:
    """The legend's entries broken into rows that fit ``width``: every entry gets a place."""
    rows: list[list[tuple[LegendItem, float]]] = [[]]
    x = PAD
    for item in items:
        need = 32 + text_width(item.text, LEGEND_FONT) + 22
        if rows[-1] and x + need > width - PAD:
            rows.append([])
            x = PAD
        rows[-1].append((item, need))
        x += need
    return rows


def legend_height(items: Sequence[LegendItem], width: int) -> int:
    """The legend strip's height for these entries (one row, or more when they do not fit)."""
    return LEGEND_FIRST + LEGEND_ROW * (len(_legend_rows(items, width)) - 1)


def legend(cv: Canvas, box: tuple[int, int, int, int], theme: Theme, items: Sequence[LegendItem]) -> None:
    x0, y0, x1, y1 = box
    cv.draw.rectangle(box, fill=cv.ink(theme.panel))
    rows = _legend_rows(items, x1 - x0)
    top = y0 + (y1 - y0 - LEGEND_FIRST - LEGEND_ROW * (len(rows) - 1)) / 2
    for i, row in enumerate(rows):
        cy = top + LEGEND_FIRST / 2 + i * LEGEND_ROW
        x = x0 + PAD
        for item, need in row:
            _legend_symbol(cv, item, x, cy, theme)
            cv.text(
                (x + 32, cy), item.text, size=LEGEND_FONT, fill=theme.panel_text, anchor="lm", bg=theme.panel
            )
            x += need


def _legend_symbol(cv: Canvas, item: LegendItem, x: float, cy: float, theme: Theme) -> None:
    sx = x + 12
    if item.kind == "hex":
        cv.draw.polygon(
            hex_polygon((sx, cy), 12), fill=cv.ink(item.colour), outline=cv.ink(item.extra or theme.grid)
        )
    elif item.kind == "line":
        cv.draw.line((x, cy, x + 24, cy), fill=cv.ink(item.colour), width=4)
    elif item.kind == "dash":
        for i in range(0, 24, 8):
            cv.draw.line((x + i, cy, x + i + 5, cy), fill=cv.ink(item.colour), width=3)
    elif item.kind == "ring":
        cv.draw.ellipse((sx - 8, cy - 8, sx + 8, cy + 8), outline=cv.ink(item.colour), width=3)
    elif item.glyph is not None:
        item.glyph(cv, (sx, cy), 26, theme.outline)

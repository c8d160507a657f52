"""A record sheet's armour doll: one box per location on a small grid, with its armour and structure left.

The doll knows nothing of any ruleset: the sheet plug-in lays the boxes out (a BattleMech's head over its torsos,
a vehicle's front over its sides) and names them in the reader's words; this draws them. It is sized to be read
as Discord shows an attachment on a phone or a laptop (about 550 px wide): every figure at least 15 px high.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from render.colours import RGB, mix
from render.fonts import font

CELL = 104  # px: one grid step
GAP = 6  # px between boxes
PAD = 10  # px around the doll
LEGEND = 26  # px: the line over the doll
BACKGROUND: RGB = (250, 248, 242)
INK: RGB = (30, 30, 30)
FULL: RGB = (120, 190, 110)  # a location at full armour
EMPTY: RGB = (215, 80, 70)  # no armour left
GONE: RGB = (90, 90, 90)  # the location is destroyed


@dataclass(frozen=True, slots=True)
class DollBox:
    """One location: where it sits (grid column, row, width and height in cells) and what it has left: armour
    and structure as ``left/full``, drawn one over the other (the legend above the doll says which is which)."""

    label: str
    armour: str
    structure: str
    left: float  # the share of armour and structure left, 0 … 1 (its colour)
    destroyed: bool
    col: float
    row: float
    width: float = 1
    height: float = 1


def _fill(box: DollBox) -> RGB:
    if box.destroyed:
        return GONE
    return mix(EMPTY, FULL, max(0.0, min(1.0, box.left)))


def render_doll(boxes: Sequence[DollBox], legend: str) -> bytes:
    """The doll as a PNG, ``legend`` (what the two figures are) over it."""
    legend_font, label_font = font(15), font(15, bold=True)
    armour_font, structure_font = font(19, bold=True), font(17)
    cols = max((b.col + b.width for b in boxes), default=1)
    rows = max((b.row + b.height for b in boxes), default=1)
    top = PAD + LEGEND
    width = int(max(cols * CELL, legend_font.getlength(legend)) + 2 * PAD)
    height = int(top + rows * CELL + PAD)
    img = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(img)
    draw.text((PAD, PAD + LEGEND / 2 - 3), legend, font=legend_font, fill=INK, anchor="lm")
    left = (width - cols * CELL) / 2
    for box in boxes:
        x0, y0 = left + box.col * CELL + GAP / 2, top + box.row * CELL + GAP / 2
        x1, y1 = x0 + box.width * CELL - GAP, y0 + box.height * CELL - GAP
        fill = _fill(box)
        draw.rounded_rectangle((x0, y0, x1, y1), radius=8, fill=fill, outline=INK, width=2)
        ink: RGB = (255, 255, 255) if box.destroyed else INK
        middle_x, middle_y = (x0 + x1) / 2, (y0 + y1) / 2
        draw.text((middle_x, middle_y - 24), box.label, font=label_font, fill=ink, anchor="mm")
        draw.text((middle_x, middle_y), box.armour, font=armour_font, fill=ink, anchor="mm")
        draw.text((middle_x, middle_y + 25), box.structure, font=structure_font, fill=ink, anchor="mm")
    out = io.BytesIO()
    img.save(out, format="PNG", optimize=True)
    return out.getvalue()

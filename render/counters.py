"""Counters: a disc in the side colour with a short label, a facing nose, damage bar, wreck and ghost forms.

The nose points at the faced hexside (exo, mech) or vertex (skirmish) (HEX-2); a side facing also paints that
hexside edge in the side colour, so "faces a side" and "faces a vertex" look different at a glance.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image

from render.canvas import Canvas, apply_lut, text_width
from render.colours import (
    BAR_BAD,
    BAR_BG,
    BAR_GOOD,
    BAR_MID,
    CLEAR,
    HIDDEN_TAG,
    HIT,
    MARKER,
    PREVIEW,
    RGB,
    WHITE,
    WRECK,
    Palette,
    text_on,
)
from render.geometry import Point, compass, hex_polygon

COUNTER_RATIO = 0.62  # disc radius / hex size
MIN_RADIUS = 5.0
SMALL_HEX, SMALL_HEX_RANGE = 34.0, 16.0  # px: the facing nose grows bolder from this hex size down to 18 px
#: the ring round the unit whose turn it is: cyan, as the private preview of its order
ACTING: RGB = (0, 235, 255)
OUTLINE_DARK: RGB = (20, 20, 24)
#: colours the step's marks paint (who acts, who was hurt), kept exact in the board palette
MARKS: tuple[RGB, ...] = (ACTING, OUTLINE_DARK, HIT, WHITE)


@dataclass(frozen=True, slots=True)
class CounterLook:
    colour: RGB
    outline: RGB
    label: str
    facing: int | None  # None: no facing mark (concealed)
    vertex_facing: bool
    health: float = 1.0
    destroyed: bool = False
    hidden: bool = False  # placed hidden by the director: only the director and the owner see it
    ghost: bool = False  # order preview


def radius_for(size: float, scale: float = 1.0) -> float:
    return max(MIN_RADIUS, size * COUNTER_RATIO * scale)


def acting_ring(cv: Canvas, center: Point, r: float, size: float) -> None:
    """The unit whose turn it is: a thick ring just outside its disc, dark-edged so it reads on any ground."""
    w = max(3, round(size * 0.1))
    rr = r + w * 0.5 + 2
    for width, colour in ((w + 2, OUTLINE_DARK), (w, ACTING)):
        box = (center[0] - rr, center[1] - rr, center[0] + rr, center[1] + rr)
        cv.draw.ellipse(box, outline=cv.ink(colour), width=width)


def hurt_mark(cv: Canvas, center: Point, r: float) -> None:
    """A unit damaged this step: a red crack across its disc, white-edged so it reads on a red counter too."""
    x, y = center
    pts = [(x + r * 0.55, y - r * 0.7), (x + r * 0.05, y - r * 0.1), (x + r * 0.35, y + r * 0.05)]
    pts += [(x - r * 0.45, y + r * 0.75)]
    w = max(2, round(r * 0.16))
    cv.draw.line(pts, fill=cv.ink(WHITE), width=w + 3, joint="curve")
    cv.draw.line(pts, fill=cv.ink(HIT), width=w, joint="curve")


def bar_colour(health: float) -> RGB:
    return BAR_GOOD if health > 0.66 else BAR_MID if health > 0.33 else BAR_BAD


def draw_counter(
    cv: Canvas,
    center: Point,
    size: float,
    look: CounterLook,
    scale: float = 1.0,
    hex_center: Point | None = None,
    grow: float = 1.0,
    min_label: int = 7,
) -> None:
    """A counter at ``center``. On a palette canvas a lone or stacked counter is a cached sprite pasted at the
    nearest whole pixel: the same look comes back step after step, so drawing it once per look pays. ``grow``:
    the scale of a lone counter on this board (the viewport's ``counter_scale``); a smaller one is stacked.
    ``min_label``: the smallest font a label that fits no more shrinks to (the viewport's ``min_label``)."""
    if (
        cv.palette is None
        or look.ghost
        or (hex_center is not None and hex_center != center and _edge(size, scale, grow))
    ):
        _paint(cv, center, size, look, scale, hex_center, grow, min_label)
        return
    half = _sprite_half(size, scale)
    sprite, mask = _counter_sprite(look, size, scale, cv.palette, grow, min_label)
    cv.img.paste(sprite, (round(center[0]) - half, round(center[1]) - half), mask)


def paint_counter(cv: Canvas, center: Point, size: float, look: CounterLook) -> None:
    """A lone counter drawn straight on ``cv`` (no sprite cache): legend symbols."""
    _paint(cv, center, size, look, 1.0, None)


def _sprite_half(size: float, scale: float = 1.0) -> int:
    """Half the side of a counter sprite: room for the nose, the faced hexside edge and the hidden ring (a
    counter grown past its hex's share, on a board of small hexes, pushes its nose further out)."""
    return math.ceil(max(size, 1.6 * radius_for(size, scale)) + 12)


def _edge(size: float, scale: float, grow: float = 1.0) -> bool:
    """Whether a counter of ``scale`` is a lone one (as large as this board draws one): it paints its faced
    hexside edge."""
    return radius_for(size, scale) >= radius_for(size, grow) * 0.99


@lru_cache(maxsize=512)
def _counter_sprite(
    look: CounterLook, size: float, scale: float, palette: Palette, grow: float = 1.0, min_label: int = 7
) -> tuple[Image.Image, Image.Image]:
    """(palette-index sprite, 0/255 mask) of one counter look, drawn once with the palette's indexes."""
    half = _sprite_half(size, scale)
    sprite = Image.new("P", (2 * half + 1, 2 * half + 1), CLEAR)
    _paint(Canvas(sprite, palette=palette), (half, half), size, look, scale, None, grow, min_label)
    drawn = Image.frombytes("L", sprite.size, sprite.tobytes())
    return sprite, apply_lut(drawn, [255] * CLEAR + [0] * (256 - CLEAR))


def _paint(
    cv: Canvas,
    center: Point,
    size: float,
    look: CounterLook,
    scale: float,
    hex_center: Point | None,
    grow: float = 1.0,
    min_label: int = 7,
) -> None:
    r = radius_for(size, scale)
    cx, cy = center
    fill = WRECK if look.destroyed else look.colour
    if look.facing is not None and not look.destroyed:
        _facing_mark(cv, center, hex_center or center, size, r, look, _edge(size, scale, grow))
    if look.ghost:
        cv.draw.ellipse(
            (cx - r, cy - r, cx + r, cy + r), outline=cv.ink(look.colour), width=max(3, round(r / 5))
        )
        cv.draw.ellipse((cx - r - 3, cy - r - 3, cx + r + 3, cy + r + 3), outline=cv.ink(PREVIEW), width=2)
    else:
        cv.draw.ellipse(
            (cx - r, cy - r, cx + r, cy + r),
            fill=cv.ink(fill),
            outline=cv.ink(look.outline),
            width=max(1, round(r / 8)),
        )
    if look.hidden:
        _dotted_ring(cv, center, r + max(3.0, r * 0.18), HIDDEN_TAG, max(2, round(r / 7)))
    damaged = look.health < 1.0 and not look.destroyed and not look.ghost
    if r >= 9 and look.label:
        text_colour = look.colour if look.ghost else text_on(fill)
        _label(
            cv,
            (cx, cy - (r * 0.16 if damaged else 0)),
            r,
            look.label,
            text_colour,
            None if look.ghost else fill,
            min_label,
        )
    if damaged:
        bw, bh = r * 1.3, max(3.0, r * 0.2)
        top = cy + r * 0.36
        cv.draw.rectangle((cx - bw / 2, top, cx + bw / 2, top + bh), fill=cv.ink(BAR_BG))
        cv.draw.rectangle(
            (cx - bw / 2, top, cx - bw / 2 + bw * look.health, top + bh), fill=cv.ink(bar_colour(look.health))
        )
    if look.destroyed:
        w = max(2, round(r / 5))
        k = r * 0.62
        cv.draw.line((cx - k, cy - k, cx + k, cy + k), fill=cv.ink(HIT), width=w)
        cv.draw.line((cx - k, cy + k, cx + k, cy - k), fill=cv.ink(HIT), width=w)


def draw_unknown(cv: Canvas, center: Point, size: float, outline: RGB, scale: float = 1.0) -> None:
    """A '?' counter: something is there, identity hidden (NGT-2 concealed)."""
    r = radius_for(size, scale)
    cx, cy = center
    cv.draw.ellipse(
        (cx - r, cy - r, cx + r, cy + r),
        fill=cv.ink(MARKER["concealed"]),
        outline=cv.ink(outline),
        width=max(1, round(r / 8)),
    )
    if r >= 7:
        cv.text(
            (cx, cy), "?", size=round(r * 1.2), bold=True, fill=WHITE, anchor="mm", bg=MARKER["concealed"]
        )


def _facing_mark(
    cv: Canvas, center: Point, hex_center: Point, size: float, r: float, look: CounterLook, lone: bool
) -> None:
    assert look.facing is not None
    # Small hexes (big boards, stacks) get a longer, wider nose so the facing still reads on a phone.
    small = max(0.0, min(1.0, (SMALL_HEX - r / COUNTER_RATIO) / SMALL_HEX_RANGE))
    if look.vertex_facing:
        angle = 60.0 * look.facing + 30.0  # vertex v between sides v and v+1 (HEX-2)
        reach = r + max(6.0 + 2.0 * small, size * 0.36 * (r / radius_for(size)))
    else:
        angle = 60.0 * look.facing
        reach = r + max(5.0 + 3.0 * small, size * 0.3 * (r / radius_for(size)))
        if lone:  # paint the faced hexside edge too
            corners = hex_polygon(hex_center, size - 1)
            a, b = corners[(look.facing - 1) % 6], corners[look.facing % 6]
            edge = PREVIEW if look.ghost else look.colour
            cv.draw.line((a, b), fill=cv.ink(edge), width=max(3, round(size * 0.13)))
    tip = compass(center, angle, reach)
    spread = 30.0 + 10.0 * small
    base_l = compass(center, angle - spread, r * 0.92)
    base_r = compass(center, angle + spread, r * 0.92)
    fill = PREVIEW if look.ghost else look.colour
    cv.draw.polygon([tip, base_l, base_r], fill=cv.ink(fill), outline=cv.ink(look.outline))


def label_font(r: float, text: str, min_label: int = 7) -> int:
    """The font size (px) of ``text`` on a counter of radius ``r``: as large as fits across the disc, but never
    below ``min_label`` when the disc allows that much (such a label overflows the disc on a tag of its
    colour)."""
    size = max(7, round(r * 0.74))
    floor = min(size, max(7, min_label))
    while size > floor and text_width(text, size, True) > r * 1.78:
        size -= 1
    return size


def _label(
    cv: Canvas, center: Point, r: float, text: str, colour: RGB, bg: RGB | None, min_label: int = 7
) -> None:
    size = label_font(r, text, min_label)
    wide = text_width(text, size, True)
    if bg is not None and wide > r * 1.78:  # wider than the disc: a tag of the counter's colour carries it
        x, y = center
        half_w, half_h = wide / 2 + 4, size * 0.62
        cv.draw.rounded_rectangle(
            (x - half_w, y - half_h, x + half_w, y + half_h),
            radius=round(half_h * 0.6),
            fill=cv.ink(bg),
            outline=cv.ink(OUTLINE_DARK),
            width=1,
        )
    cv.text(center, text, size=size, bold=True, fill=colour, anchor="mm", bg=bg)


def _dotted_ring(cv: Canvas, center: Point, radius: float, colour: RGB, width: int) -> None:
    cx, cy = center
    box = (cx - radius, cy - radius, cx + radius, cy + radius)
    for start in range(0, 360, 30):
        cv.draw.arc(box, start, start + 16, fill=cv.ink(colour), width=width)

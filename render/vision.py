"""How far apart two colours look, to people with normal colour vision and with each dichromacy.

Side colours must stay distinguishable from each other and from the board for every reader, colour-blind ones
included. A colour-vision deficiency is simulated with the severity-1.0 matrices of Machado, Oliveira and
Fernandes, "A Physiologically-based Model for Simulation of Color Vision Deficiency" (IEEE TVCG 15(6), 2009),
applied to linear sRGB; the difference is CIEDE2000 (Sharma, Wu and Dalal, 2005) in CIELAB under D65. Standard
library only, so tests and tools can check a palette without drawing it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from itertools import combinations

RGB = tuple[int, int, int]
Matrix = tuple[tuple[float, float, float], tuple[float, float, float], tuple[float, float, float]]

NORMAL = "normal"
VISIONS: dict[str, Matrix | None] = {
    NORMAL: None,
    "protanopia": (
        (0.152286, 1.052583, -0.204868),
        (0.114503, 0.786281, 0.099216),
        (-0.003882, -0.048116, 1.051998),
    ),
    "deuteranopia": (
        (0.367322, 0.860646, -0.227968),
        (0.280085, 0.672501, 0.047413),
        (-0.011820, 0.042940, 0.968881),
    ),
    "tritanopia": (
        (1.255528, -0.076749, -0.178779),
        (-0.078411, 0.930809, 0.147602),
        (0.004733, 0.691367, 0.303900),
    ),
}


def _linear(v: int) -> float:
    c = v / 255.0
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _lab(linear: tuple[float, float, float]) -> tuple[float, float, float]:
    r, g, b = linear
    x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116

    fx, fy, fz = f(x), f(y), f(z)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def seen_as(colour: RGB, vision: str) -> tuple[float, float, float]:
    """``colour`` in CIELAB as a reader with ``vision`` (a key of :data:`VISIONS`) perceives it."""
    lin = (_linear(colour[0]), _linear(colour[1]), _linear(colour[2]))
    m = VISIONS[vision]
    if m is not None:
        lin = (
            min(1.0, max(0.0, m[0][0] * lin[0] + m[0][1] * lin[1] + m[0][2] * lin[2])),
            min(1.0, max(0.0, m[1][0] * lin[0] + m[1][1] * lin[1] + m[1][2] * lin[2])),
            min(1.0, max(0.0, m[2][0] * lin[0] + m[2][1] * lin[1] + m[2][2] * lin[2])),
        )
    return _lab(lin)


def delta_e(lab1: tuple[float, float, float], lab2: tuple[float, float, float]) -> float:
    """CIEDE2000 difference: about 2 is barely noticeable, 10 and more is plainly another colour."""
    l1, a1, b1 = lab1
    l2, a2, b2 = lab2
    c_bar = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_bar**7 / (c_bar**7 + 25**7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360
    h2p = math.degrees(math.atan2(b2, a2p)) % 360
    dlp, dcp = l2 - l1, c2p - c1p
    if c1p * c2p == 0:
        dhp = 0.0
    elif abs(h2p - h1p) <= 180:
        dhp = h2p - h1p
    else:
        dhp = h2p - h1p - 360 if h2p > h1p else h2p - h1p + 360
    dhp_big = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dhp / 2))
    lp_bar, cp_bar = (l1 + l2) / 2, (c1p + c2p) / 2
    if c1p * c2p == 0:
        hp_bar = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        hp_bar = (h1p + h2p) / 2
    else:
        hp_bar = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    t = (
        1
        - 0.17 * math.cos(math.radians(hp_bar - 30))
        + 0.24 * math.cos(math.radians(2 * hp_bar))
        + 0.32 * math.cos(math.radians(3 * hp_bar + 6))
        - 0.20 * math.cos(math.radians(4 * hp_bar - 63))
    )
    d_theta = 30 * math.exp(-(((hp_bar - 275) / 25) ** 2))
    rc = 2 * math.sqrt(cp_bar**7 / (cp_bar**7 + 25**7))
    sl = 1 + 0.015 * (lp_bar - 50) ** 2 / math.sqrt(20 + (lp_bar - 50) ** 2)
    sc = 1 + 0.045 * cp_bar
    sh = 1 + 0.015 * cp_bar * t
    rt = -math.sin(math.radians(2 * d_theta)) * rc
    return math.sqrt(
        (dlp / sl) ** 2 + (dcp / sc) ** 2 + (dhp_big / sh) ** 2 + rt * (dcp / sc) * (dhp_big / sh)
    )


def difference(a: RGB, b: RGB, vision: str = NORMAL) -> float:
    """How different ``a`` and ``b`` look to a reader with ``vision``."""
    return delta_e(seen_as(a, vision), seen_as(b, vision))


def closest_pair(sides: Iterable[RGB], grounds: Iterable[RGB] = ()) -> tuple[float, str, RGB, RGB]:
    """The least distinguishable pair, over every vision: two sides, or a side and a ground it is drawn on.

    Returns (difference, vision, colour, colour)."""
    colours = list(sides)
    pairs = [*combinations(colours, 2), *((c, g) for c in colours for g in grounds)]
    return min(
        ((difference(a, b, v), v, a, b) for v in VISIONS for a, b in pairs),
        default=(math.inf, NORMAL, (0, 0, 0), (0, 0, 0)),
    )

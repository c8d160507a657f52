"""The palette of one board's images, fixed before anything is drawn so pieces can be drawn with its indexes.

It depends only on the theme, the side colours and the hex fills in view, so it is built once per board and
viewer set. Every colour a step may paint is listed up front: hexes tinted by fog, flares and fire (FOG-1, NGT-2,
NGT-3) with their labels, trails and vectors (side colours lightened), neutral objects, markers and bars.
"""

from __future__ import annotations

from functools import lru_cache

from render import colors as C
from render.colors import RGB, Theme
from render.palette import Palette, palette_colours

TINTS = ((C.FOG_MIX, None), (C.LIT_MIX, C.MARKER["flare"]), (C.FIRE_MIX, C.MARKER["fire"]))


def tints(theme: Theme, fill: RGB) -> tuple[RGB, ...]:
    """The colours ``fill`` may turn into this step: unseen (fog), lit (flare) and burning (fire)."""
    return tuple(C.mix(fill, overlay or theme.fog, t) for t, overlay in TINTS)


@lru_cache(maxsize=64)
def board_palette(
    theme: Theme, sides: tuple[RGB, ...], fills: tuple[RGB, ...], extra: tuple[RGB, ...] = ()
) -> Palette:
    """``extra``: colours the state's overlays paint besides these (``Overlay.palette``), kept exact too."""
    flat: list[RGB] = [
        theme.background,
        theme.hex_fill,
        theme.grid,
        theme.panel,
        theme.panel_text,
        theme.panel_dim,
        theme.outline,
        C.WHITE,
        C.BLACK,
    ]
    for c in sides:
        flat.extend((c, C.mix(c, C.WHITE, 0.4), C.text_on(c)))
    flat.extend(fills)
    flat.extend(C.label_color(f) for f in fills)
    flat.extend(
        (
            C.HIT,
            C.MISS,
            C.mix(C.MISS, C.WHITE, 0.4),
            C.SPENT,
            C.HIGHLIGHT,
            C.PREVIEW,
            C.WRECK,
            C.HIDDEN_TAG,
            C.BAR_BG,
            C.BAR_GOOD,
            C.BAR_MID,
            C.BAR_BAD,
        )
    )
    # stat chips: every bar colour a shade darker, an overlay's own bar colours (``extra``) too
    flat.extend(C.chip_fill(c) for c in (C.BAR_GOOD, C.BAR_MID, C.BAR_BAD, *extra))
    flat.extend(C.MARKER.values())
    for c in C.NEUTRAL.values():
        flat.extend((c, C.mix(c, C.WHITE, 0.4), C.text_on(c)))
    tinted = [t for f in fills for t in tints(theme, f)]
    flat.extend(tinted)
    flat.extend(C.label_color(t) for t in tinted)
    flat.extend(extra)
    pairs: list[tuple[RGB, RGB]] = [(theme.panel_text, theme.panel), (theme.panel_dim, theme.panel)]
    pairs.extend((C.text_on(c), c) for c in sides)
    pairs.extend((C.label_color(f), f) for f in fills)
    pairs.extend((c, theme.panel) for c in sides)
    pairs.extend(((C.WHITE, C.HIT), (C.WHITE, C.WRECK), (C.WHITE, C.MARKER["concealed"])))
    pairs.extend((C.text_on(c), c) for c in C.NEUTRAL.values())
    pairs.extend(((C.HIT, theme.panel), (C.HIDDEN_TAG, theme.panel)))
    pairs.extend((C.WHITE, C.chip_fill(c)) for c in (C.BAR_GOOD, C.BAR_MID, C.BAR_BAD))
    pairs.append((C.WHITE, C.BAR_BG))
    pairs.extend((C.label_color(t), t) for t in tinted)
    return Palette(palette_colours(C.unique(flat), pairs))

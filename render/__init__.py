"""Board images (DESIGN §5): a pure function of a state snapshot, drawn with Pillow; never imports discord."""

from __future__ import annotations

from render.board import ArcPicture, render_arcs, render_board, render_order_preview
from render.options import BoardSnapshot, RenderOptions
from render.replay import Replay, render_replay

__all__ = [
    "ArcPicture",
    "BoardSnapshot",
    "RenderOptions",
    "Replay",
    "render_arcs",
    "render_board",
    "render_order_preview",
    "render_replay",
]

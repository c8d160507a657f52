"""Board images (DESIGN §5): a pure function of a state snapshot, drawn with Pillow; never imports discord."""

from __future__ import annotations

from render.board import render_board, render_order_preview
from render.options import BoardSnapshot, RenderOptions

__all__ = ["BoardSnapshot", "RenderOptions", "render_board", "render_order_preview"]

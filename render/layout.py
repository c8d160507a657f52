"""Where things go on the image: header on top, board on the left, unit panel on the right, legend below."""

from __future__ import annotations

from dataclasses import dataclass

from render.viewport import Area, Viewport, fit
from rules.hexgrid import Hex
from rules.state import Board

HEADER_H = 66
LEGEND_H = 46
PANEL_MIN, PANEL_MAX = 320, 460
BOARD_HEIGHT_RATIO = 0.72  # board area at most this × width: landscape, whole image near 4:3
MIN_BODY = 420  # room for a few panel rows on tiny boards


@dataclass(frozen=True, slots=True)
class Layout:
    width: int
    height: int
    viewport: Viewport
    panel: tuple[int, int, int, int] | None  # x0, y0, x1, y1
    legend: tuple[int, int, int, int]
    body_h: int


def panel_width(width: int, show: bool) -> int:
    return max(PANEL_MIN, min(PANEL_MAX, round(width * 0.27))) if show else 0


def plan(
    board: Board, interest: list[Hex], *, width: int, show_panel: bool, whole_board: bool, panel_need: int
) -> Layout:
    pw = panel_width(width, show_panel)
    max_h = round(width * BOARD_HEIGHT_RATIO)
    area = Area(left=0, top=HEADER_H, width=width - pw, max_height=max_h)
    vp = fit(board, interest, area, whole_board=whole_board)
    body = max(vp.height, MIN_BODY, min(max_h, panel_need) if show_panel else 0)
    height = HEADER_H + body + LEGEND_H
    panel = (width - pw, HEADER_H, width, HEADER_H + body) if show_panel else None
    legend = (0, HEADER_H + body, width, height)
    return Layout(width=width, height=height, viewport=vp, panel=panel, legend=legend, body_h=body)

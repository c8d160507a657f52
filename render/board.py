"""``render_board`` and ``render_order_preview``: a state snapshot in, PNG bytes out (DESIGN §5).

Pure and deterministic: the same snapshot, viewer and options give the same bytes. The static layer comes from a
value-keyed cache, already mapped onto the board's fixed palette; pieces are drawn on a copy with palette indexes
(text from cached anti-aliased sprites), and the result is written with a fast PNG level. The naive baseline
redraws everything in RGB instead. Fog (FOG-1, NGT-9): a unit the viewer cannot see is not drawn at all — no counter,
no vector, no panel row, no trail, no firing line from or to it.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from data.i18n import has, t
from render import colors as C
from render.board_palette import board_palette
from render.canvas import Canvas
from render.colors import RGB, Theme
from render.counters import CounterLook, draw_counter, draw_unknown, radius_for, vector_token
from render.fog import view_for
from render.geometry import compass
from render.layout import Layout, plan
from render.options import BoardSnapshot, RenderOptions
from render.overlays import ghost_vector, highlight_ring, marker_glyph, preview_path, shot, trail
from render.panel import LegendItem, header, legend, panel, panel_need
from render.png import encode_palette_png
from render.static_layer import draw_hex, hex_fill, static_layer
from render.stats import health
from render.viewport import Viewport
from rules.events import ShotResolved, UnitMoved
from rules.hexgrid import Hex, hexes_within
from rules.registry import ruleset_for
from rules.ruleset import DIRECTOR, PUBLIC, FacingKind, Visibility
from rules.state import EncounterState, Marker, Unit

STACK_SCALE = 0.6
LIT_KINDS = ("flare", "illumination")
DEFAULT_LIT_RADIUS = {"flare": 1, "illumination": 2}  # NGT-3: flare = hex + six around; IR radius 2 [HOUSE]


@dataclass(frozen=True, slots=True)
class Preview:
    unit_id: str
    path: tuple[Hex, ...]
    end_facing: int
    ghost_vector: Hex | None


@dataclass(slots=True)
class _Frame:
    """Per-render working data: what is visible and where counters sit."""

    state: EncounterState
    theme: Theme
    vis: Visibility
    colours: dict[str, RGB]
    layout: Layout
    vertex_facing: bool
    centres: dict[str, tuple[float, float]] = field(default_factory=lambda: dict[str, tuple[float, float]]())
    radii: dict[str, float] = field(default_factory=lambda: dict[str, float]())

    @property
    def vp(self) -> Viewport:
        return self.layout.viewport


def render_board(
    snapshot: BoardSnapshot,
    *,
    viewer: str,
    highlight: Iterable[Hex | str] = (),
    options: RenderOptions | None = None,
    framing: Iterable[Hex] = (),
) -> bytes:
    """The board as ``viewer`` (a side id, ``"director"`` or ``"public"``) may see it, as PNG bytes.

    ``framing``: more hexes the viewport must include (a replay frames every step alike so the board stays put).
    """
    opts = options or RenderOptions()
    return _render(snapshot, viewer, tuple(highlight), opts, None, use_cache=True, framing=tuple(framing))


def interest_hexes(snapshot: BoardSnapshot, *, viewer: str) -> list[Hex]:
    """The hexes ``render_board`` frames for this viewer: only what the viewer may see (FOG-1, NGT-9)."""
    seen, concealed, markers, moves = _in_view(snapshot, view_for(snapshot.state, viewer))
    return _interest(seen, concealed, markers, moves, None, [])


def render_order_preview(
    snapshot: BoardSnapshot,
    *,
    viewer: str,
    unit_id: str,
    path: tuple[Hex, ...],
    end_facing: int,
    ghost_vector: Hex | None = None,
    options: RenderOptions | None = None,
) -> bytes:
    """The private preview of one unit's order: projected path, ghost counter and (exo) its new vector.

    The caller computes the path (the renderer knows no rules). The viewer must see the unit, so a preview can
    never be drawn for someone else's hidden piece.
    """
    preview = Preview(unit_id, tuple(path), end_facing, ghost_vector)
    return _render(snapshot, viewer, (), options or RenderOptions(), preview, use_cache=True)


def viewport_for(
    snapshot: BoardSnapshot,
    *,
    viewer: str,
    options: RenderOptions | None = None,
    preview_hexes: Sequence[Hex] = (),
) -> Viewport:
    """Where ``render_board`` puts the board for this snapshot (hex → pixel), for callers and tests."""
    in_view = _in_view(snapshot, view_for(snapshot.state, viewer))
    return _plan(snapshot.state, in_view, None, list(preview_hexes), options or RenderOptions()).viewport


def render_board_uncached(snapshot: BoardSnapshot, *, viewer: str, options: RenderOptions) -> bytes:
    """The same picture redrawn from scratch every time (the naive baseline of ``bench/render.py``)."""
    return _render(snapshot, viewer, (), options, None, use_cache=False)


# --- the pipeline ------------------------------------------------------------------------------------------


def _render(
    snapshot: BoardSnapshot,
    viewer: str,
    highlight: tuple[Hex | str, ...],
    opts: RenderOptions,
    preview: Preview | None,
    *,
    use_cache: bool,
    framing: tuple[Hex, ...] = (),
) -> bytes:
    state = snapshot.state
    vis = view_for(state, viewer)
    if preview is not None and not vis.sees(preview.unit_id):
        raise ValueError(f"viewer {viewer!r} cannot see unit {preview.unit_id!r}: no preview")
    in_view = _in_view(snapshot, vis)
    seen, concealed, markers, moves = in_view
    shots = [
        e
        for e in snapshot.events
        if isinstance(e, ShotResolved) and vis.sees(e.shooter) and vis.sees(e.target)
    ]
    lights = {h: h for h in _highlight_hexes(state, vis, highlight)}

    layout = _plan(state, in_view, preview, [*lights, *framing], opts)
    theme = C.theme_for(state)
    static = static_layer(theme, state.board, layout, use_cache=use_cache)
    frame = _Frame(state, theme, vis, C.side_colors(state), layout, _vertex_facing(state))

    if opts.palette:
        pal = board_palette(theme, tuple(frame.colours[s.id] for s in state.sides), static.fills)
        cv = Canvas(static.indexed(pal).copy(), palette=pal)
    else:
        cv = Canvas(static.image.copy(), cached=use_cache)
    fogged = _tint_hexes(cv, frame, markers)
    for m in markers:
        if m.kind != "concealed" and frame.vp.shows(m.at):
            marker_glyph(cv, m.kind, frame.vp.center(m.at), frame.vp.size, theme.outline)
    for h in lights:
        if frame.vp.shows(h):
            highlight_ring(cv, frame.vp.center(h), frame.vp.size)
    _place_counters(frame, seen, concealed, markers)
    for mv in moves:
        if any(frame.vp.shows(h) for h in (mv.frm, *mv.path, mv.to) if h is not None):
            _draw_trail(cv, frame, mv)
    _draw_vectors(cv, frame, seen)
    for s in shots:
        ends = (state.units[s.shooter].at, state.units[s.target].at)
        if (
            s.shooter in frame.centres
            and s.target in frame.centres
            and any(h is not None and frame.vp.shows(h) for h in ends)
        ):
            shot(
                cv,
                frame.centres[s.shooter],
                frame.centres[s.target],
                frame.vp.size,
                frame.radii.get(s.target, radius_for(frame.vp.size)),
                hit=s.hit,
                spent=s.spent,
                damage=s.damage,
            )
    _draw_counters(cv, frame, seen, concealed, markers)
    if preview is not None:
        _draw_preview(cv, frame, preview)

    locale = opts.locale
    if layout.panel is not None:
        first = viewer if viewer not in (DIRECTOR, PUBLIC) else None
        panel(cv, layout.panel, state, theme, seen, frame.colours, locale=locale, first_side=first)
    title = opts.title or snapshot.title or state.name
    header(
        cv,
        state,
        theme,
        width=layout.width,
        title=title,
        subtitle=_subtitle(state, viewer, preview, locale),
        locale=locale,
    )
    items = _legend_items(frame, static.terrain_kinds, markers, moves, shots, seen, preview, fogged, locale)
    legend(cv, layout.legend, theme, items)
    return _encode(cv, opts)


class _InView(NamedTuple):
    """What the viewer may see of a snapshot (FOG-1, NGT-9); nothing else is drawn or framed."""

    seen: list[Unit]
    concealed: list[Unit]  # drawn as '?' counters only
    markers: list[Marker]
    moves: list[UnitMoved]


def _in_view(snapshot: BoardSnapshot, vis: Visibility) -> _InView:
    state = snapshot.state
    return _InView(
        seen=[u for uid, u in sorted(state.units.items()) if uid in vis.units],
        concealed=[u for uid, u in sorted(state.units.items()) if uid in vis.concealed and u.at is not None],
        markers=[m for m in state.markers if _marker_seen(m, vis)],
        moves=[e for e in snapshot.events if isinstance(e, UnitMoved) and vis.sees(e.unit)],
    )


def _plan(
    state: EncounterState, in_view: _InView, preview: Preview | None, extra: list[Hex], opts: RenderOptions
) -> Layout:
    """Frame the board around what is in view (plus ``extra`` hexes: highlights or a preview's path)."""
    seen, concealed, markers, moves = in_view
    return plan(
        state.board,
        _interest(seen, concealed, markers, moves, preview, extra),
        width=opts.width,
        show_panel=opts.show_panel,
        whole_board=opts.whole_board,
        panel_need=panel_need(state, seen),
    )


def _marker_seen(m: Marker, vis: Visibility) -> bool:
    # Light is seen from anywhere (NGT-2); anything else only where the viewer sees the hex.
    return m.kind in LIT_KINDS or vis.hexes is None or m.at in vis.hexes


def _highlight_hexes(state: EncounterState, vis: Visibility, items: Sequence[Hex | str]) -> list[Hex]:
    out: list[Hex] = []
    for item in items:
        if isinstance(item, Hex):
            out.append(item)
        elif vis.sees(item) and item in state.units and state.units[item].at is not None:
            at = state.units[item].at
            assert at is not None
            out.append(at)
    return out


def _interest(
    seen: list[Unit],
    concealed: list[Unit],
    markers: list[Marker],
    moves: list[UnitMoved],
    preview: Preview | None,
    lights: list[Hex],
) -> list[Hex]:
    hexes: list[Hex] = list(lights)
    for u in seen:
        if u.at is not None:
            hexes.append(u.at)
            vec = getattr(u, "vector", None)
            if isinstance(vec, Hex) and not u.destroyed:
                hexes.append(vec)
    hexes.extend(u.at for u in concealed if u.at is not None)
    hexes.extend(m.at for m in markers)
    for mv in moves:
        hexes.extend(h for h in (mv.frm, *mv.path, mv.to) if h is not None)
    if preview is not None:
        hexes.extend(preview.path)
        if preview.ghost_vector is not None:
            hexes.append(preview.ghost_vector)
    return hexes


def _vertex_facing(state: EncounterState) -> bool:
    try:
        return ruleset_for(state).facing == FacingKind.VERTEX
    except KeyError:
        return False


def _tint_hexes(cv: Canvas, frame: _Frame, markers: list[Marker]) -> bool:
    """Repaint hexes that changed colour this step: unseen (night fog), lit by flares, burning. Returns fogged."""
    vp, board, theme = frame.vp, frame.state.board, frame.theme
    tints: dict[Hex, RGB] = {}
    fogged = False
    if frame.vis.hexes is not None:
        visible = frame.vis.hexes
        for h in vp.hexes(board):
            if h not in visible:
                tints[h] = C.mix(hex_fill(theme, board, h), theme.fog, C.FOG_MIX)
                fogged = True
    for m in markers:
        if m.kind in LIT_KINDS:
            radius = m.radius or DEFAULT_LIT_RADIUS[m.kind]
            for h in hexes_within(m.at, radius):
                if board.contains(h):
                    tints[h] = C.mix(hex_fill(theme, board, h), C.MARKER["flare"], C.LIT_MIX)
    for m in markers:
        if m.kind == "fire" and board.contains(m.at):
            tints[m.at] = C.mix(hex_fill(theme, board, m.at), C.MARKER["fire"], C.FIRE_MIX)
    for h, fill in sorted(tints.items()):
        if vp.shows(h):
            draw_hex(cv, theme, vp.size, vp.center(h), fill, h.label)
    return fogged


def _place_counters(frame: _Frame, seen: list[Unit], concealed: list[Unit], markers: list[Marker]) -> None:
    """Centre and radius of every counter; several in one hex share it, smaller and spread around."""
    by_hex: dict[Hex, list[str]] = {}
    for u in [*seen, *concealed]:
        if u.at is not None:
            by_hex.setdefault(u.at, []).append(u.id)
    for m in markers:
        if m.kind == "concealed":
            by_hex.setdefault(m.at, []).append(f"?marker:{m.at.q},{m.at.r}:{m.label}")
    size = frame.vp.size
    for h, ids in by_hex.items():
        cx, cy = frame.vp.center(h)
        if len(ids) == 1:
            frame.centres[ids[0]] = (cx, cy)
            frame.radii[ids[0]] = radius_for(size)
            continue
        for i, uid in enumerate(sorted(ids)):
            frame.centres[uid] = compass((cx, cy), 300 + i * 360 / len(ids), size * 0.4)
            frame.radii[uid] = radius_for(size, STACK_SCALE)


def _draw_trail(cv: Canvas, frame: _Frame, mv: UnitMoved) -> None:
    unit = frame.state.units.get(mv.unit)
    hexes = [h for h in (mv.frm, *mv.path, mv.to) if h is not None]
    pts: list[tuple[float, float]] = []
    for h in hexes:
        p = frame.vp.center(h)
        if not pts or pts[-1] != p:
            pts.append(p)
    if mv.unit in frame.centres and pts:
        pts[-1] = frame.centres[mv.unit]
    colour = C.mix(_colour_of(frame, unit) if unit else C.MISS, C.WHITE, 0.4)
    trail(cv, pts, frame.vp.size, colour, frame.radii.get(mv.unit, radius_for(frame.vp.size)))


def _draw_vectors(cv: Canvas, frame: _Frame, seen: list[Unit]) -> None:
    """Exo vector counters (EXO-1.1), read by field name so render/ needs no ruleset import."""
    for u in seen:
        vec = getattr(u, "vector", None)
        if not isinstance(vec, Hex) or u.at is None or u.destroyed or u.id not in frame.centres:
            continue
        colour = _colour_of(frame, u)
        light = C.mix(colour, C.WHITE, 0.4)
        ship = frame.centres[u.id]
        target = frame.vp.center(vec) if vec != u.at else ship
        vector_token(cv, ship, target, frame.vp.size, colour, light, frame.radii[u.id])


def _draw_counters(
    cv: Canvas, frame: _Frame, seen: list[Unit], concealed: list[Unit], markers: list[Marker]
) -> None:
    size, theme = frame.vp.size, frame.theme
    for u in sorted(seen, key=lambda u: (not u.destroyed, u.id)):  # wrecks first, live counters on top
        if u.at is None or u.id not in frame.centres or not frame.vp.shows(u.at):
            continue
        neutral = u.kind in C.NEUTRAL  # exo debris and asteroids (EXO-1.2): no side, no facing
        look = CounterLook(
            colour=_colour_of(frame, u),
            outline=theme.outline,
            label=u.short,
            facing=None if neutral else u.facing % 6,
            vertex_facing=frame.vertex_facing,
            health=health(u),
            destroyed=u.destroyed,
            hidden=u.hidden,
        )
        scale = frame.radii[u.id] / radius_for(size)
        draw_counter(cv, frame.centres[u.id], size, look, scale, hex_center=frame.vp.center(u.at))
    unknown = [u.id for u in concealed] + [k for k in frame.centres if k.startswith("?marker:")]
    for key in unknown:
        scale = frame.radii[key] / radius_for(size)
        draw_unknown(cv, frame.centres[key], size, theme.outline, scale)


def _colour_of(frame: _Frame, unit: Unit) -> RGB:
    """The side colour, or a neutral grey for pieces that belong to no one (exo debris, asteroids)."""
    return C.NEUTRAL.get(unit.kind) or frame.colours.get(unit.side, C.MISS)


def _draw_preview(cv: Canvas, frame: _Frame, preview: Preview) -> None:
    unit = frame.state.units[preview.unit_id]
    vp = frame.vp
    start = unit.at
    hexes = [h for h in (start, *preview.path) if h is not None]
    pts: list[tuple[float, float]] = []
    for h in hexes:
        p = vp.center(h)
        if not pts or pts[-1] != p:
            pts.append(p)
    preview_path(cv, pts, vp.size)
    end = hexes[-1] if hexes else None
    if end is None:
        return
    r = radius_for(vp.size)
    if preview.ghost_vector is not None:
        ghost_vector(cv, vp.center(end), vp.center(preview.ghost_vector), vp.size, r)
    colour = frame.colours.get(unit.side, C.MISS)
    look = CounterLook(
        colour=colour,
        outline=frame.theme.outline,
        label=unit.short,
        facing=preview.end_facing % 6,
        vertex_facing=frame.vertex_facing,
        ghost=True,
    )
    draw_counter(cv, vp.center(end), vp.size, look, hex_center=vp.center(end))


def _subtitle(state: EncounterState, viewer: str, preview: Preview | None, locale: str) -> str:
    if viewer == DIRECTOR:
        who = t("render.viewer.director", locale)
    elif viewer == PUBLIC:
        who = t("render.viewer.public", locale)
    else:
        who = t("render.viewer.side", locale, side=state.side(viewer).name)
    if state.round == 0 or state.phase in ("", "start"):
        when = (
            t("render.start", locale)
            if state.step == 0
            else t("render.round_phase", locale, round=state.round, phase=state.phase or "-")
        )
    else:
        when = t("render.round_phase", locale, round=state.round, phase=state.phase)
    parts = [when, who]
    if preview is not None:
        parts.append(t("render.preview", locale, unit=state.units[preview.unit_id].name))
    return " · ".join(parts)


def _legend_items(
    frame: _Frame,
    kinds: Sequence[str],
    markers: list[Marker],
    moves: list[UnitMoved],
    shots: list[ShotResolved],
    seen: list[Unit],
    preview: Preview | None,
    fogged: bool,
    locale: str,
) -> list[LegendItem]:
    theme = frame.theme
    items = [
        LegendItem(
            t(f"render.terrain.{k}", locale) if _known(f"render.terrain.{k}") else k,
            "hex",
            C.terrain_color(k),
        )
        for k in kinds
    ]
    marker_kinds = sorted({m.kind for m in markers})
    for k in marker_kinds:
        if k in LIT_KINDS:
            lit = C.mix(theme.hex_fill, C.MARKER["flare"], C.LIT_MIX)
            items.append(LegendItem(t(f"render.legend.{k}", locale), "hex", lit))
        elif k == "concealed":
            items.append(LegendItem(t("render.legend.concealed", locale), "ring", C.MARKER["concealed"]))
        else:
            items.append(
                LegendItem(t(f"render.legend.{k}", locale), "glyph", C.MARKER.get(k, C.MISS), glyph=k)
            )
    if fogged:
        items.append(
            LegendItem(t("render.legend.fog", locale), "hex", C.mix(theme.hex_fill, theme.fog, C.FOG_MIX))
        )
    if any(isinstance(getattr(u, "vector", None), Hex) for u in seen):
        items.append(LegendItem(t("render.legend.vector", locale), "ring", theme.panel_text))
    if moves:
        items.append(LegendItem(t("render.legend.trail", locale), "dash", theme.panel_dim))
    if any(s.hit and not s.spent for s in shots):
        items.append(LegendItem(t("render.legend.hit", locale), "line", C.HIT))
    if any(not s.hit and not s.spent for s in shots):
        items.append(LegendItem(t("render.legend.miss", locale), "dash", C.MISS))
    if preview is not None:
        items.append(LegendItem(t("render.legend.path", locale), "dash", C.PREVIEW))
    return items


def _known(key: str) -> bool:
    return has(key)


# --- encoding ----------------------------------------------------------------------------------------------


def _encode(cv: Canvas, opts: RenderOptions) -> bytes:
    if cv.palette is not None:
        return encode_palette_png(cv.img, cv.palette.plte, level=opts.png_level)
    buf = io.BytesIO()
    cv.img.save(buf, "PNG", compress_level=opts.png_level)
    return buf.getvalue()

"""``render_board`` and ``render_order_preview``: a state snapshot in, PNG bytes out (DESIGN §5).

Pure and deterministic: the same snapshot, viewer and options give the same bytes. The static layer comes from a
value-keyed cache, already mapped onto the board's fixed palette; pieces are drawn on a copy with palette indexes
(text from cached anti-aliased sprites), and the result is written with a fast PNG level. The naive baseline
redraws everything in RGB instead. Fog (FOG-1, NGT-9): a unit the viewer cannot see is not drawn at all — no counter,
no vector, no panel row, no trail, no firing line from or to it.

What is common to every ruleset is drawn here: grid and terrain, fog, highlights, counters with their facing, '?'
counters, firing lines (``ShotResolved``) and the order preview. The rest — exo vectors, trails, markers, lit
areas, stat bars — is each ruleset's and layer's overlay (``render/rulesets/``); this module names none of them.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from data.i18n import has, t
from render import colors as C
from render.board_palette import board_palette
from render.canvas import Canvas
from render.colors import RGB
from render.counters import CounterLook, draw_counter, draw_unknown, radius_for
from render.fog import view_for
from render.geometry import compass
from render.layout import Layout, plan
from render.options import BoardSnapshot, RenderOptions
from render.overlays import ghost_vector, highlight_ring, preview_path, shot
from render.panel import LegendItem, header, legend, panel, panel_need
from render.phase import phase_title
from render.png import encode_palette_png
from render.rulesets import Overlay, overlays_for
from render.scene import Scene, View
from render.static_layer import draw_hex, hex_fill, static_layer
from render.stats import health
from render.viewport import Viewport
from rules.hexgrid import Hex
from rules.registry import ruleset_for
from rules.ruleset import DIRECTOR, PUBLIC, FacingKind, Visibility
from rules.state import EncounterState

STACK_SCALE = 0.6
CONCEALED = "concealed"  # a marker drawn as a '?' counter: something is there, identity unknown (NGT-2)


@dataclass(frozen=True, slots=True)
class Preview:
    unit_id: str
    path: tuple[Hex, ...]
    end_facing: int
    ghost_vector: Hex | None


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
    view = View.of(snapshot, view_for(snapshot.state, viewer))
    return _interest(view, overlays_for(snapshot.state), None, [])


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
    view = View.of(snapshot, view_for(snapshot.state, viewer))
    overlays = overlays_for(snapshot.state)
    return _plan(view, overlays, None, list(preview_hexes), options or RenderOptions()).viewport


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
    """Fog and tints, highlights, the overlays' under layer, firing lines, counters, the overlays' over layer,
    the preview; then the panel, header and legend around the board."""
    state = snapshot.state
    vis = view_for(state, viewer)
    if preview is not None and not vis.sees(preview.unit_id):
        raise ValueError(f"viewer {viewer!r} cannot see unit {preview.unit_id!r}: no preview")
    view = View.of(snapshot, vis)
    overlays = overlays_for(state)
    lights = {h: h for h in _highlight_hexes(state, vis, highlight)}

    layout = _plan(view, overlays, preview, [*lights, *framing], opts)
    theme = C.theme_for(state)
    static = static_layer(theme, state.board, layout, use_cache=use_cache)
    scene = Scene(
        view, overlays, theme, layout.viewport, C.side_colors(state), _vertex_facing(state), opts.locale
    )

    if opts.palette:
        sides = tuple(scene.side_colours[s.id] for s in state.sides)
        extra = tuple(c for o in overlays for c in o.palette(theme))
        pal = board_palette(theme, sides, static.fills, extra)
        cv = Canvas(static.indexed(pal).copy(), palette=pal)
    else:
        cv = Canvas(static.image.copy(), cached=use_cache)
    vp = scene.viewport
    fogged = _tint_hexes(cv, scene)
    for h in lights:
        if vp.shows(h):
            highlight_ring(cv, vp.center(h), vp.size)
    _place_counters(scene)
    for overlay in overlays:
        overlay.under(cv, scene)
    for s in view.shots:
        ends = (state.units[s.shooter].at, state.units[s.target].at)
        if (
            s.shooter in scene.centres
            and s.target in scene.centres
            and any(h is not None and vp.shows(h) for h in ends)
        ):
            shot(
                cv,
                scene.centres[s.shooter],
                scene.centres[s.target],
                vp.size,
                scene.radius(s.target),
                hit=s.hit,
                spent=s.spent,
                damage=s.damage,
            )
    _draw_counters(cv, scene)
    for overlay in overlays:
        overlay.over(cv, scene)
    if preview is not None:
        _draw_preview(cv, scene, preview)

    locale = opts.locale
    if layout.panel is not None:
        first = viewer if viewer not in (DIRECTOR, PUBLIC) else None
        panel(
            cv,
            layout.panel,
            state,
            theme,
            view.seen,
            scene.side_colours,
            locale=locale,
            first_side=first,
            colour_of=scene.colour_of,
            bars_of=scene.stat_bars,
        )
    title = opts.title or snapshot.title or state.name
    header(
        cv,
        state,
        theme,
        width=layout.width,
        title=title,
        subtitle=_subtitle(state, viewer, preview, locale, snapshot.step),
        locale=locale,
    )
    legend(cv, layout.legend, theme, _legend_items(scene, static.terrain_kinds, preview, fogged))
    return _encode(cv, opts)


def _plan(
    view: View, overlays: tuple[Overlay, ...], preview: Preview | None, extra: list[Hex], opts: RenderOptions
) -> Layout:
    """Frame the board around what is in view (plus ``extra`` hexes: highlights or a preview's path)."""
    state = view.state
    return plan(
        state.board,
        _interest(view, overlays, preview, extra),
        width=opts.width,
        show_panel=opts.show_panel,
        whole_board=opts.whole_board,
        panel_need=panel_need(state, view.seen),
    )


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
    view: View, overlays: tuple[Overlay, ...], preview: Preview | None, extra: list[Hex]
) -> list[Hex]:
    """Units, '?' counters, what each overlay frames, a preview's path, and ``extra``."""
    hexes: list[Hex] = list(extra)
    hexes.extend(u.at for u in (*view.seen, *view.concealed) if u.at is not None)
    hexes.extend(m.at for m in view.markers if m.kind == CONCEALED)
    for overlay in overlays:
        hexes.extend(overlay.frame(view))
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


def _tint_hexes(cv: Canvas, scene: Scene) -> bool:
    """Repaint hexes that changed colour this step: unseen (fog, FOG-1), then each overlay's tints (later ones
    win). Returns whether any hex in view is fogged."""
    vp, board, theme = scene.viewport, scene.state.board, scene.theme
    tints: dict[Hex, RGB] = {}
    fogged = False
    visible = scene.view.vis.hexes
    if visible is not None:
        for h in vp.hexes(board):
            if h not in visible:
                tints[h] = C.mix(hex_fill(theme, board, h), theme.fog, C.FOG_MIX)
                fogged = True
    for overlay in scene.overlays:
        tints.update(overlay.tints(scene))
    for h, fill in sorted(tints.items()):
        if vp.shows(h):
            draw_hex(cv, theme, vp.size, vp.center(h), fill, h.label)
    return fogged


def _place_counters(scene: Scene) -> None:
    """Centre and radius of every counter; several in one hex share it, smaller and spread around."""
    view = scene.view
    by_hex: dict[Hex, list[str]] = {}
    for u in (*view.seen, *view.concealed):
        if u.at is not None:
            by_hex.setdefault(u.at, []).append(u.id)
    for m in view.markers:
        if m.kind == CONCEALED:
            by_hex.setdefault(m.at, []).append(f"?marker:{m.at.q},{m.at.r}:{m.label}")
    size = scene.viewport.size
    for h, ids in by_hex.items():
        cx, cy = scene.viewport.center(h)
        if len(ids) == 1:
            scene.centres[ids[0]] = (cx, cy)
            scene.radii[ids[0]] = radius_for(size)
            continue
        for i, uid in enumerate(sorted(ids)):
            scene.centres[uid] = compass((cx, cy), 300 + i * 360 / len(ids), size * 0.4)
            scene.radii[uid] = radius_for(size, STACK_SCALE)


def _draw_counters(cv: Canvas, scene: Scene) -> None:
    vp, theme = scene.viewport, scene.theme
    size = vp.size
    for u in sorted(scene.view.seen, key=lambda u: (not u.destroyed, u.id)):  # wrecks first, live on top
        if u.at is None or u.id not in scene.centres or not vp.shows(u.at):
            continue
        neutral = scene.neutral_colour(u) is not None  # a piece of no side: no facing
        look = CounterLook(
            colour=scene.colour_of(u),
            outline=theme.outline,
            label=u.short,
            facing=None if neutral else u.facing % 6,
            vertex_facing=scene.vertex_facing,
            health=health(scene.stat_bars(u), destroyed=u.destroyed),
            destroyed=u.destroyed,
            hidden=u.hidden,
        )
        scale = scene.radii[u.id] / radius_for(size)
        draw_counter(cv, scene.centres[u.id], size, look, scale, hex_center=vp.center(u.at))
    unknown = [u.id for u in scene.view.concealed] + [k for k in scene.centres if k.startswith("?marker:")]
    for key in unknown:
        scale = scene.radii[key] / radius_for(size)
        draw_unknown(cv, scene.centres[key], size, theme.outline, scale)


def _draw_preview(cv: Canvas, scene: Scene, preview: Preview) -> None:
    unit = scene.state.units[preview.unit_id]
    vp = scene.viewport
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
    colour = scene.side_colours.get(unit.side, C.MISS)
    look = CounterLook(
        colour=colour,
        outline=scene.theme.outline,
        label=unit.short,
        facing=preview.end_facing % 6,
        vertex_facing=scene.vertex_facing,
        ghost=True,
    )
    draw_counter(cv, vp.center(end), vp.size, look, hex_center=vp.center(end))


def _subtitle(
    state: EncounterState,
    viewer: str,
    preview: Preview | None,
    locale: str,
    step: tuple[int, str] | None = None,
) -> str:
    if viewer == DIRECTOR:
        who = t("render.viewer.director", locale)
    elif viewer == PUBLIC:
        who = t("render.viewer.public", locale)
    else:
        who = t("render.viewer.side", locale, side=state.side(viewer).name)
    if step is not None:  # the step just resolved, as its account names it
        round_no, phase = step
        when = t("render.start", locale) if phase == "start" else phase_title(state, round_no, phase, locale)
    elif state.round == 0 or state.phase in ("", "start"):
        when = (
            t("render.start", locale)
            if state.step == 0
            else t("render.round_phase", locale, round=state.round, phase=state.phase or "-")
        )
    else:
        when = phase_title(state, state.round, state.phase, locale)
    parts = [when, who]
    if preview is not None:
        parts.append(t("render.preview", locale, unit=state.units[preview.unit_id].name))
    return " · ".join(parts)


def _legend_items(
    scene: Scene, kinds: Sequence[str], preview: Preview | None, fogged: bool
) -> list[LegendItem]:
    """Terrain in view, then each overlay's entries, then the common symbols this picture used."""
    theme, view, locale = scene.theme, scene.view, scene.locale
    items = [
        LegendItem(
            t(f"render.terrain.{k}", locale) if _known(f"render.terrain.{k}") else k,
            "hex",
            C.terrain_color(k),
        )
        for k in kinds
    ]
    for overlay in scene.overlays:
        items.extend(overlay.legend(scene))
    if view.concealed or any(m.kind == CONCEALED for m in view.markers):
        items.append(LegendItem(t("render.legend.concealed", locale), "ring", C.MARKER["concealed"]))
    if fogged:
        items.append(
            LegendItem(t("render.legend.fog", locale), "hex", C.mix(theme.hex_fill, theme.fog, C.FOG_MIX))
        )
    if any(s.hit and not s.spent for s in view.shots):
        items.append(LegendItem(t("render.legend.hit", locale), "line", C.HIT))
    if any(not s.hit and not s.spent for s in view.shots):
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

"""``render_board`` and ``render_order_preview``: a state snapshot in, PNG bytes out (DESIGN §5).

Pure and deterministic: the same snapshot, viewer and options give the same bytes. The static layer comes from a
value-keyed cache, already mapped onto the board's fixed palette; pieces are drawn on a copy with palette indexes
(text from cached anti-aliased sprites), and the result is written with a fast PNG level. The naive baseline
redraws everything in RGB instead. Fog (FOG-1, NGT-9): a unit the viewer cannot see is not drawn at all — no counter,
no vector, no panel row, no trail, no firing line from or to it.

What is common to every ruleset is drawn here: grid and terrain, fog, highlights, counters with their facing
(several in one hex fanned out round it, each still readable), '?' counters, firing lines (``ShotResolved`` and
each overlay's own attacks, as arrows with their damage badges: ``render/shots.py``), the step's story on the
counters (a ring round the units whose turn it is, a crack across those damaged this step), the order preview,
and ``/unit arcs`` pictures (``render_arcs``: the sections and range bands a ruleset names, each section in its own
colour). The rest — exo vectors, trails, markers, lit areas, elevation, stat bars — is each ruleset's and layer's
overlay (``render/rulesets/``); this module names none of them.
"""

from __future__ import annotations

import io
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from PIL import Image

from data.i18n import has, phase_text, t
from render import colours as C
from render.canvas import Canvas, text_width
from render.colours import RGB, board_palette
from render.counters import (
    ACTING,
    MARKS,
    CounterLook,
    acting_ring,
    draw_counter,
    draw_unknown,
    hurt_mark,
    paint_counter,
    radius_for,
)
from render.fog import view_for
from render.geometry import compass, hex_polygon
from render.ghosts import draw_ghosts, ghost_hexes, ghost_legend
from render.layout import Layout, plan
from render.legend import LegendItem, legend, legend_height
from render.options import BoardSnapshot, RenderOptions
from render.phase import phase_title
from render.png import encode_palette_png
from render.rulesets import Overlay, overlays_for
from render.scene import Scene, View
from render.shapes import ghost_vector, highlight_ring, line_width, preview_path
from render.shots import (
    Badge,
    Box,
    Shot,
    ShotMark,
    damage_symbol,
    draw_badge,
    draw_shot,
    hit_symbol,
    miss_symbol,
    plan_badges,
    plan_shots,
    spent_symbol,
)
from render.side_panel import header, panel, panel_need
from render.static_layer import (
    LABEL_MIN_SIZE,
    StaticLayer,
    board_area,
    board_label,
    draw_hex,
    hex_fill,
    label_box,
    label_boxes,
    label_fits,
    label_font,
    static_layer,
)
from render.stats import health
from render.viewport import Viewport
from rules.hexgrid import Hex
from rules.registry import ruleset_for
from rules.ruleset import DIRECTOR, PUBLIC, FacingKind, Visibility
from rules.state import EncounterState

#: a counter's size in a hex of 2, 3, 4 counters (more: STACK_SCALE_MANY), so that the fan fits the hex
STACK_SCALE = {2: 0.8, 3: 0.68, 4: 0.58}
STACK_SCALE_MANY = 0.46
STACK_GAP = 2.0  # px between fanned counters
CONCEALED = "concealed"  # a marker drawn as a '?' counter: something is there, identity unknown (NGT-2)


@dataclass(slots=True)
class BoardTrace:
    """What one picture put where, in pixels: for tests and callers that must know (``trace_board``)."""

    width: int = 0
    height: int = 0
    board_area: Box = (0.0, 0.0, 0.0, 0.0)
    labels: list[tuple[Hex, Box]] = field(default_factory=lambda: list[tuple[Hex, Box]]())
    #: the larger hex numbers of occupied hexes, each in a tag under its counters (``_hex_tags``)
    hex_tags: list[tuple[Hex, Box]] = field(default_factory=lambda: list[tuple[Hex, Box]]())
    shots: list[ShotMark] = field(default_factory=lambda: list[ShotMark]())
    badges: list[Badge] = field(default_factory=lambda: list[Badge]())
    counters: dict[str, tuple[tuple[float, float], float]] = field(
        default_factory=lambda: dict[str, tuple[tuple[float, float], float]]()
    )
    legend: list[str] = field(default_factory=lambda: list[str]())  # the legend's entries, in order
    legend_box: tuple[int, int, int, int] = (0, 0, 0, 0)
    viewport: Viewport | None = None


@dataclass(frozen=True, slots=True)
class ArcPicture:
    """What :func:`render_arcs` draws for one unit (``/unit arcs``): its firing sections as (legend text, hexes),
    each in its own colour (``colors.ARC``, in this order; a hex in two sections shows both, halved), and the
    range bands of a chosen weapon as (legend text, first, last distance), nearest first, each a shade; ``reach``:
    (legend text, hexes) the unit can move to, ringed; ``colours``: each section's place in ``colors.ARC`` (by
    default its place here), so a section keeps its colour when a weapon or a choice shows fewer. A section with no
    hex on the board gets no legend entry."""

    unit_id: str
    sections: tuple[tuple[str, frozenset[Hex]], ...]
    bands: tuple[tuple[str, int, int], ...] = ()
    reach: tuple[str, frozenset[Hex]] = ("", frozenset())
    colours: tuple[int, ...] = ()

    def colour_of(self, index: int) -> RGB:
        """The colour of the ``index``-th section here."""
        return arc_colour(self.colours[index] if index < len(self.colours) else index)


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


def render_arcs(
    snapshot: BoardSnapshot,
    *,
    viewer: str,
    arcs: ArcPicture,
    options: RenderOptions | None = None,
    trace: BoardTrace | None = None,
) -> bytes:
    """``/unit arcs``: the board framed on the unit and its sections, each section in a distinct colour, the range
    bands as shades with their outer edges drawn, and a legend naming each section and band. The viewer must see
    the unit (FOG-1). Drawn in RGB: the section blends are not in the board palette."""
    opts = options or RenderOptions()
    return _render(snapshot, viewer, (), opts, None, use_cache=True, trace=trace, arcs=arcs)


def trace_board(snapshot: BoardSnapshot, *, viewer: str, options: RenderOptions | None = None) -> BoardTrace:
    """Where ``render_board`` puts the labels, counters, firing arrows and damage badges of this picture."""
    trace = BoardTrace()
    _render(snapshot, viewer, (), options or RenderOptions(), None, use_cache=True, trace=trace)
    return trace


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
    highlight: Iterable[Hex] = (),
) -> bytes:
    """The private preview of one unit's order: projected path, ghost counter, (exo) its new vector and hexes
    to light up (mech: the arcs of the weapons chosen).

    The caller computes the path (the renderer knows no rules). The viewer must see the unit, so a preview can
    never be drawn for someone else's hidden piece.
    """
    preview = Preview(unit_id, tuple(path), end_facing, ghost_vector)
    return _render(snapshot, viewer, tuple(highlight), options or RenderOptions(), preview, use_cache=True)


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
    trace: BoardTrace | None = None,
    arcs: ArcPicture | None = None,
) -> bytes:
    """Lay the picture out, paint the board (:func:`_paint_board`), then the panel, header and legend round it
    (:func:`_paint_frame`)."""
    state = snapshot.state
    vis = view_for(state, viewer)
    if preview is not None and not vis.sees(preview.unit_id):
        raise ValueError(f"viewer {viewer!r} cannot see unit {preview.unit_id!r}: no preview")
    if arcs is not None and not vis.sees(arcs.unit_id):
        raise ValueError(f"viewer {viewer!r} cannot see unit {arcs.unit_id!r}: no arcs")
    view = View.of(snapshot, vis)
    overlays = overlays_for(state)
    lights = list(dict.fromkeys(_highlight_hexes(state, vis, highlight)))
    layout = _layout(view, overlays, preview, arcs, [*lights, *framing], opts)
    theme = C.scheme_theme(C.theme_for(state), opts.scheme)
    static = static_layer(theme, state.board, layout, use_cache=use_cache)
    scene = _scene(view, overlays, theme, layout, opts.locale, arcs is None, opts.scheme)
    cv = _canvas(scene, static, opts, use_cache=use_cache, fast=opts.palette and arcs is None)
    board = _paint_board(cv, scene, board_area(layout), lights, preview, arcs)
    title = opts.title or snapshot.title or state.name
    cv, items, box = _paint_frame(
        cv, scene, layout, title, snapshot.step, viewer, preview, static, board, arcs
    )
    if trace is not None:
        trace.width, trace.height = cv.img.size
        trace.board_area = board.area
        trace.labels = [*label_boxes(state.board, layout), *scene_labels(scene, board.area)]
        trace.shots, trace.badges, trace.hex_tags = board.marks, board.badges, board.tags
        trace.counters = {k: (c, scene.radius(k)) for k, c in scene.centres.items()}
        trace.legend, trace.legend_box = [i.text for i in items], box
        trace.viewport = scene.viewport
    return _encode(cv, opts)


@dataclass(frozen=True, slots=True)
class _Painted:
    """What :func:`_paint_board` drew that the frame round the board and a trace need."""

    area: Box
    fogged: bool
    marks: list[ShotMark]
    badges: list[Badge]
    tags: list[tuple[Hex, Box]]


def _layout(
    view: View,
    overlays: tuple[Overlay, ...],
    preview: Preview | None,
    arcs: ArcPicture | None,
    extra: list[Hex],
    opts: RenderOptions,
) -> Layout:
    """Where the board goes: round what is in view, or (``/unit arcs``) round the unit and its sections alone."""
    if arcs is None:
        return _plan(view, overlays, preview, extra, opts)
    state = view.state
    return plan(
        state.board,
        _arc_frame(state, arcs),
        width=opts.width,
        show_panel=opts.show_panel,
        whole_board=False,
        panel_need=panel_need(state, view.seen),
    )


def _scene(
    view: View,
    overlays: tuple[Overlay, ...],
    theme: C.Theme,
    layout: Layout,
    locale: str,
    story: bool,
    scheme: str = "",
) -> Scene:
    """The scene with every counter placed; ``story``: with the step's story too (firing lines, who acts, who
    was hurt), which an arcs picture leaves out."""
    state = view.state
    sides = C.side_colors(state, scheme)
    scene = Scene(view, overlays, theme, layout.viewport, sides, _vertex_facing(state), locale)
    _place_counters(scene)
    if story:
        scene.shots = (*view.shots, *(s for o in overlays for s in o.shots(view)))
        drawn = {u.id for u in view.seen if u.on_board and u.id in scene.centres}
        scene.acting = frozenset(uid for o in overlays for uid in o.acting(view)) & drawn
        hit = {s.target for s in scene.shots if s.hit and not s.spent and s.damage > 0}
        hurt = hit | {uid for o in overlays for uid in o.hurt(view)}
        scene.hurt = frozenset(hurt) & drawn
    return scene


def _canvas(scene: Scene, static: StaticLayer, opts: RenderOptions, *, use_cache: bool, fast: bool) -> Canvas:
    """A copy of the static layer to draw on: indexed on the board palette (the fast path), or RGB."""
    if not fast:
        return Canvas(static.image.copy(), cached=use_cache)
    theme, state = scene.theme, scene.state
    sides = tuple(scene.side_colours[s.id] for s in state.sides)
    extra = tuple(c for o in scene.overlays for c in o.palette(theme))
    pal = board_palette(theme, sides, static.fills, (*extra, *MARKS))
    return Canvas(static.indexed(pal).copy(), palette=pal)


def _paint_board(
    cv: Canvas, scene: Scene, area: Box, lights: list[Hex], preview: Preview | None, arcs: ArcPicture | None
) -> _Painted:
    """Fog and tints, an arcs picture's sections, highlights, the overlays' under layer, firing lines, counters
    and their marks (who acts, who was hurt), the arrows' heads, the overlays' over layer, damage badges, the
    preview."""
    vp = scene.viewport
    fogged = _tint_hexes(cv, scene, area)
    if arcs is not None:
        _draw_arcs(cv, scene, arcs, area)
    for h in lights:
        if vp.shows(h):
            highlight_ring(cv, vp.center(h), vp.size)
    for overlay in scene.overlays:
        overlay.under(cv, scene)
    draw_ghosts(cv, scene)
    marks = _plan_shots(scene)
    for mark in marks:
        draw_shot(cv, mark, vp.size, head=False)
    tags = _hex_tags(scene, area)
    for h, box in tags:
        _draw_hex_tag(cv, scene, h, box)
    _draw_acting(cv, scene)
    _draw_counters(cv, scene)
    _draw_hurt(cv, scene)
    for mark in marks:  # heads over the counters' noses and faced edges, so the direction always shows
        draw_shot(cv, mark, vp.size, shaft=False)
    for overlay in scene.overlays:
        overlay.over(cv, scene)
    counters = {k: (c, scene.radius(k)) for k, c in scene.centres.items()}
    badges = plan_badges(marks, counters, _noses(scene), area, vp.size)
    for badge in badges:  # over everything on the board: no counter hides a damage number
        draw_badge(cv, badge)
    if preview is not None:
        _draw_preview(cv, scene, preview)
    return _Painted(area, fogged, marks, badges, tags)


def _paint_frame(
    cv: Canvas,
    scene: Scene,
    layout: Layout,
    title: str,
    step: tuple[int, str] | None,
    viewer: str,
    preview: Preview | None,
    static: StaticLayer,
    board: _Painted,
    arcs: ArcPicture | None,
) -> tuple[Canvas, list[LegendItem], tuple[int, int, int, int]]:
    """The side panel, the header and the legend (the strip grows a row rather than drop an entry)."""
    state, theme, locale = scene.state, scene.theme, scene.locale
    if layout.panel is not None:
        first = viewer if viewer not in (DIRECTOR, PUBLIC) else None
        panel(
            cv,
            layout.panel,
            state,
            theme,
            scene.view.seen,
            scene.side_colours,
            locale=locale,
            first_side=first,
            colour_of=scene.colour_of,
            bars_of=scene.stat_bars,
            doll_of=scene.doll,
        )
    header(
        cv,
        state,
        theme,
        width=layout.width,
        title=title,
        subtitle=_subtitle(state, viewer, preview, locale, step),
        locale=locale,
    )
    items = _legend_items(scene, static.terrain_kinds, preview, board.fogged, bool(board.badges))
    if arcs is not None:
        items = [*_arc_legend(scene, arcs), *items]
    box = layout.legend
    extra = legend_height(items, layout.width) - (box[3] - box[1])
    if extra > 0:  # every symbol gets its entry: the strip grows a row rather than drop one
        cv = _taller(cv, extra, theme.panel)
        box = (box[0], box[1], box[2], box[3] + extra)
    legend(cv, box, theme, items)
    return cv, items, box


def _arc_frame(state: EncounterState, arcs: ArcPicture) -> list[Hex]:
    at = state.units[arcs.unit_id].at
    covers = (*(covered for _, covered in arcs.sections), arcs.reach[1])
    hexes = sorted({h for covered in covers for h in covered if state.board.contains(h)})
    return [at, *hexes] if at is not None else hexes


def _arc_shade(arcs: ArcPicture, distance: int) -> float:
    """How much of a section's colour a hex at ``distance`` takes: by band, nearest strongest."""
    for i, (_, first, last) in enumerate(arcs.bands):
        if first <= distance <= last:
            return C.ARC_MIX[min(i, len(C.ARC_MIX) - 1)]
    return C.ARC_MIX_ALL if not arcs.bands else C.ARC_MIX[-1]


def arc_colour(index: int) -> RGB:
    """The colour of the ``index``-th section (they repeat past the sixth)."""
    return C.ARC[index % len(C.ARC)]


def _band_line(theme: C.Theme) -> RGB:
    return C.WHITE if theme.name == "space" else theme.outline


def _draw_arcs(cv: Canvas, scene: Scene, arcs: ArcPicture, area: Box) -> None:
    """Each section's hexes in its colour (a hex on a boundary: the first section above, the second below), then
    the outer edge of every range band."""
    state, vp, theme = scene.state, scene.viewport, scene.theme
    origin = state.units[arcs.unit_id].at
    if origin is None:
        return
    tinted = _tinted(scene)
    where: dict[Hex, list[int]] = {}
    for i, (_, covered) in enumerate(arcs.sections):
        for h in covered:
            if state.board.contains(h) and vp.shows(h):
                where.setdefault(h, []).append(i)
    for h, idx in sorted(where.items()):
        base = tinted.get(h) or hex_fill(theme, state.board, h)
        shade = _arc_shade(arcs, origin.distance(h))
        if state.board.terrain_at(h):  # terrain keeps its own colour readable under the section's
            shade *= C.ARC_TERRAIN
        centre = vp.center(h)
        draw_hex(cv, theme, vp.size, centre, C.mix(base, arcs.colour_of(idx[0]), shade), board_label(h), area)
        if len(idx) > 1:  # the lower half (under the label) in the second section's colour
            corners = hex_polygon(centre, vp.size)
            cv.draw.polygon(corners[1:5], fill=cv.ink(C.mix(base, arcs.colour_of(idx[1]), shade)))
    lasts = {last for _, _, last in arcs.bands}
    width = line_width(vp.size, 0.08, 2)
    for h in sorted(where):
        d = origin.distance(h)
        if d not in lasts:
            continue
        corners = hex_polygon(vp.center(h), vp.size)
        for side in range(6):
            if origin.distance(h.neighbor(side)) > d:  # HEX-2: side k lies between corners k-1 and k
                a, b = corners[(side - 1) % 6], corners[side]
                cv.draw.line((a, b), fill=cv.ink(_band_line(theme)), width=width)
    for h in sorted(arcs.reach[1]):
        if vp.shows(h):
            highlight_ring(cv, vp.center(h), vp.size)


def _arc_legend(scene: Scene, arcs: ArcPicture) -> list[LegendItem]:
    """Every section in its colour, then every band as a shade of the first section's colour."""
    fill, board = scene.theme.hex_fill, scene.state.board
    shade = C.ARC_MIX[0] if arcs.bands else C.ARC_MIX_ALL
    items = [
        LegendItem(text, "hex", C.mix(fill, arcs.colour_of(i), shade))
        for i, (text, covered) in enumerate(arcs.sections)
        if any(board.contains(h) for h in covered)
    ]
    for i, (text, _, _) in enumerate(arcs.bands):
        colour = C.mix(fill, arcs.colour_of(0), C.ARC_MIX[min(i, len(C.ARC_MIX) - 1)])
        items.append(LegendItem(text, "hex", colour, _band_line(scene.theme)))
    if arcs.reach[1]:
        items.append(LegendItem(arcs.reach[0], "ring", C.HIGHLIGHT))
    return items


def _taller(cv: Canvas, extra: int, fill: RGB) -> Canvas:
    w, h = cv.img.size
    if cv.palette is not None:
        img = Image.new("P", (w, h + extra), cv.palette.index(fill))
        img.paste(cv.img, (0, 0))
        return Canvas(img, palette=cv.palette)
    img = Image.new("RGB", (w, h + extra), fill)
    img.paste(cv.img, (0, 0))
    return Canvas(img, cached=cv.cached)


def _plan_shots(scene: Scene) -> list[ShotMark]:
    """The firing arrows of this step between counters on the picture (FOG-1: the view holds only shots between
    units the viewer sees)."""
    vp, state = scene.viewport, scene.state
    shots: list[Shot] = []
    for s in scene.shots:
        ends = (state.units[s.shooter].at, state.units[s.target].at)
        if (
            s.shooter in scene.centres
            and s.target in scene.centres
            and any(h is not None and vp.shows(h) for h in ends)
        ):
            frm, to = scene.centres[s.shooter], scene.centres[s.target]
            r_from, r_to = scene.radius(s.shooter), scene.radius(s.target)
            shots.append(Shot(s.shooter, s.target, s.hit, s.spent, s.damage, frm, to, r_from, r_to))
    return plan_shots(shots, vp.size)


def _noses(scene: Scene) -> dict[str, float]:
    """The compass angle of each drawn counter's facing nose (HEX-2), for what must not cover it."""
    out: dict[str, float] = {}
    for u in scene.view.seen:
        if u.id in scene.centres and not u.destroyed and scene.neutral_colour(u) is None:
            out[u.id] = 60.0 * (u.facing % 6) + (30.0 if scene.vertex_facing else 0.0)
    return out


def scene_labels(scene: Scene, area: Box) -> list[tuple[Hex, Box]]:
    """Labels redrawn on tinted hexes this step (fog, lights, fire), as ``_tint_hexes`` draws them."""
    vp = scene.viewport
    if vp.size < LABEL_MIN_SIZE:
        return []
    out: list[tuple[Hex, Box]] = []
    for h in _tinted(scene):
        text = board_label(h)
        if text is not None and vp.shows(h):
            box = label_box(vp.center(h), vp.size, text)
            if label_fits(box, area):
                out.append((h, box))
    return out


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
    hexes.extend(ghost_hexes(view))
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


def _tinted(scene: Scene) -> dict[Hex, RGB]:
    """Hexes that change colour this step: unseen (fog, FOG-1), then each overlay's tints (later ones win)."""
    vp, board, theme = scene.viewport, scene.state.board, scene.theme
    tints: dict[Hex, RGB] = {}
    visible = scene.view.vis.hexes
    if visible is not None:
        for h in vp.hexes(board):
            if h not in visible:
                tints[h] = C.mix(hex_fill(theme, board, h), theme.fog, C.FOG_MIX)
    for overlay in scene.overlays:
        tints.update(overlay.tints(scene))
    return tints


def _tint_hexes(cv: Canvas, scene: Scene, area: Box) -> bool:
    """Repaint the hexes :func:`_tinted` lists. Returns whether any hex in view is fogged."""
    vp, theme = scene.viewport, scene.theme
    visible = scene.view.vis.hexes
    fogged = visible is not None and any(h not in visible for h in vp.hexes(scene.state.board))
    for h, fill in sorted(_tinted(scene).items()):
        if vp.shows(h):
            draw_hex(cv, theme, vp.size, vp.center(h), fill, board_label(h), area)
    return fogged


def _place_counters(scene: Scene) -> None:
    """Centre and radius of every counter. Several in one hex fan out round its centre, side by side first (the
    hex is widest across: HEX-2, a side at the top), each as large as still lets none cover another, so every
    label stays readable."""
    view = scene.view
    by_hex: dict[Hex, list[str]] = {}
    for u in (*view.seen, *view.concealed):
        if u.at is not None:
            by_hex.setdefault(u.at, []).append(u.id)
    for m in view.markers:
        if m.kind == CONCEALED:
            by_hex.setdefault(m.at, []).append(f"?marker:{m.at.q},{m.at.r}:{m.label}")
    size, grow = scene.viewport.size, scene.viewport.counter_scale
    for h, ids in by_hex.items():
        centre = scene.viewport.center(h)
        for uid, (at, radius) in zip(sorted(ids), fan(centre, size, len(ids), grow), strict=True):
            scene.centres[uid], scene.radii[uid] = at, radius


def fan(
    centre: tuple[float, float], size: float, count: int, grow: float = 1.0
) -> list[tuple[tuple[float, float], float]]:
    """Where ``count`` counters in one hex go, and their radius: one in the middle; more evenly round the centre
    from the left, just far enough apart that neighbours' discs do not meet. ``grow``: the viewport's
    ``counter_scale`` (small hexes of a wide action get counters larger than the hex's share, to stay readable)."""
    if count == 1:
        return [(centre, radius_for(size, grow))]
    r = radius_for(size, STACK_SCALE.get(count, STACK_SCALE_MANY) * grow)
    away = (r + STACK_GAP / 2) / math.sin(math.pi / count)  # neighbours' centres 2r + gap apart
    return [(compass(centre, 270 + i * 360 / count, away), r) for i in range(count)]


def _hex_tags(scene: Scene, area: Box) -> list[tuple[Hex, Box]]:
    """Where the hex number of each hex with a counter goes when the grid's own number is too small to read at
    Discord's preview width (the viewport's ``min_label``; HEX-1): in a tag just under the hex's counters, or
    just over them at the board's foot. Only hexes of counters the viewer sees (FOG-1)."""
    vp = scene.viewport
    size = vp.min_label
    if size <= label_font(vp.size):
        return []
    by_hex: dict[Hex, list[str]] = {}
    for u in (*scene.view.seen, *scene.view.concealed):
        if u.at is not None and u.id in scene.centres and vp.shows(u.at):
            by_hex.setdefault(u.at, []).append(u.id)
    out: list[tuple[Hex, Box]] = []
    for h, ids in sorted(by_hex.items()):
        text = board_label(h)
        if text is None:
            continue
        x = vp.center(h)[0]
        half_w, tall = text_width(text, size) / 2 + 3, size + 2
        below = max(scene.centres[k][1] + scene.radius(k) * (1 + _foot(scene, k)) for k in ids) + 1
        above = min(scene.centres[k][1] - scene.radius(k) for k in ids) - 1 - tall
        for top in (below, above):
            box = (x - half_w, top, x + half_w, top + tall)
            if label_fits(box, area):
                out.append((h, box))
                break
    return out


def _foot(scene: Scene, uid: str) -> float:
    unit = scene.state.units[uid]
    return max((o.foot(unit) for o in scene.overlays), default=0.0)


def _draw_hex_tag(cv: Canvas, scene: Scene, h: Hex, box: Box) -> None:
    fill = scene.theme.hex_fill
    cv.draw.rounded_rectangle(box, radius=4, fill=cv.ink(fill), outline=cv.ink(scene.theme.grid), width=1)
    centre = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
    text = board_label(h) or ""
    cv.text(centre, text, size=scene.viewport.min_label, fill=C.label_color(fill), anchor="mm", bg=fill)


def _draw_acting(cv: Canvas, scene: Scene) -> None:
    """A ring round each unit whose turn it is, under its counter's nose."""
    for uid in sorted(scene.acting):
        acting_ring(cv, scene.centres[uid], scene.radius(uid), scene.viewport.size)


def _draw_hurt(cv: Canvas, scene: Scene) -> None:
    """A crack across each counter damaged this step (a wreck is mark enough)."""
    for u in scene.view.seen:
        if u.id in scene.hurt and not u.destroyed:
            hurt_mark(cv, scene.centres[u.id], scene.radius(u.id))


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
        draw_counter(
            cv,
            scene.centres[u.id],
            size,
            look,
            scale,
            hex_center=vp.center(u.at),
            grow=vp.counter_scale,
            min_label=vp.min_label,
        )
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
    r = radius_for(vp.size, vp.counter_scale)
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
    draw_counter(
        cv, vp.center(end), vp.size, look, vp.counter_scale, vp.center(end), vp.counter_scale, vp.min_label
    )


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
        who = t("render.viewer.side", locale, side=state.side(viewer).name_in(locale))
    if step is not None:  # the step just resolved, as its account names it
        round_no, phase = step
        when = t("render.start", locale) if phase == "start" else phase_title(state, round_no, phase, locale)
    elif state.round == 0 or state.phase in ("", "start"):
        when = (
            t("render.start", locale)
            if state.step == 0
            else t(
                "render.round_phase",
                locale,
                round=state.round,
                phase=phase_text(state.ruleset, state.phase, locale) or "-",
            )
        )
    else:
        when = phase_title(state, state.round, state.phase, locale)
    parts = [when, who]
    if preview is not None:
        parts.append(t("render.preview", locale, unit=state.units[preview.unit_id].name))
    return " · ".join(parts)


def _legend_items(
    scene: Scene, kinds: Sequence[str], preview: Preview | None, fogged: bool, damage: bool
) -> list[LegendItem]:
    """Terrain in view, then each overlay's entries, then the common symbols this picture used."""
    theme, view, locale = scene.theme, scene.view, scene.locale
    items = [
        LegendItem(
            t(f"render.terrain.{k}", locale) if _known(f"render.terrain.{k}") else k,
            "hex",
            C.terrain_in(theme, k),
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
    drawn = [u for u in view.seen if u.id in scene.centres]
    if scene.acting:
        items.append(LegendItem(t("render.legend.acting", locale), "ring", ACTING))
    if any(u.id in scene.hurt and not u.destroyed for u in drawn):
        items.append(LegendItem(t("render.legend.hurt", locale), "glyph", C.HIT, glyph=hurt_symbol))
    if any(u.hidden for u in drawn):
        items.append(LegendItem(t("render.legend.hidden", locale), "ring", C.HIDDEN_TAG))
    if any(u.destroyed for u in drawn):
        items.append(LegendItem(t("render.legend.destroyed", locale), "glyph", C.WRECK, glyph=wreck_symbol))
    if any(s.hit and not s.spent for s in scene.shots):
        items.append(LegendItem(t("render.legend.hit", locale), "glyph", C.HIT, glyph=hit_symbol))
    if damage:
        items.append(LegendItem(t("render.legend.damage", locale), "glyph", C.HIT, glyph=damage_symbol))
    if any(not s.hit and not s.spent for s in scene.shots):
        items.append(LegendItem(t("render.legend.miss", locale), "glyph", C.MISS, glyph=miss_symbol))
    if any(s.spent for s in scene.shots):
        items.append(LegendItem(t("render.legend.spent", locale), "glyph", C.SPENT, glyph=spent_symbol))
    items.extend(ghost_legend(scene))
    if preview is not None:
        items.append(LegendItem(t("render.legend.path", locale), "dash", C.PREVIEW))
    return items


def wreck_symbol(cv: Canvas, at: tuple[float, float], size: float, outline: RGB) -> None:
    look = CounterLook(
        colour=C.WRECK, outline=outline, label="", facing=None, vertex_facing=False, destroyed=True
    )
    paint_counter(cv, at, 17.0, look)


def hurt_symbol(cv: Canvas, at: tuple[float, float], size: float, outline: RGB) -> None:
    look = CounterLook(colour=C.MISS, outline=outline, label="", facing=None, vertex_facing=False)
    paint_counter(cv, at, 17.0, look)
    hurt_mark(cv, at, radius_for(17.0))


def _known(key: str) -> bool:
    return has(key)


# --- encoding ----------------------------------------------------------------------------------------------


def _encode(cv: Canvas, opts: RenderOptions) -> bytes:
    if cv.palette is not None:
        return encode_palette_png(cv.img, cv.palette.plte, level=opts.png_level)
    buf = io.BytesIO()
    cv.img.save(buf, "PNG", compress_level=opts.png_level)
    return buf.getvalue()

"""``/unit arcs`` pictures: each firing section in its own colour, the chosen weapon's range
bands as shades with their outer edges drawn, a legend naming every section and band, framed on the unit.

Probed in the lower part of a hex (the label sits in the upper part): a hex of one section is that section's
colour blended into the hex fill; a hex on a boundary shows the second section in its lower half.
"""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from PIL import Image

from render import ArcPicture, BoardSnapshot, RenderOptions, render_arcs
from render.board import BoardTrace, arc_colour
from render.colours import ARC_MIX, ARC_MIX_ALL, SPACE, WHITE, mix
from render.viewport import Viewport
from rules.exo.arcs import SFD, SFI, SPD, SPI, sections
from rules.exo.weapons import parse_weapon
from rules.hexgrid import Hex, hexes_within
from rules.registry import ruleset_for
from rules.state import EncounterState, replace_unit
from tests.render_fixtures import H, decode, exo_state, share_of, skirmish_state

NAMES = {SFD: "front right", SFI: "front left", SPD: "rear right", SPI: "rear left"}


def armed() -> EncounterState:
    """Halcón at 0505 facing NE with a bow light weapon (#1, L: 1-3, 4-6, 7-9) and a starboard heavy one (#2)."""
    state = exo_state()
    ship = state.units["halcon"]
    return state.replace(
        units={
            **state.units,
            "halcon": replace_unit(ship, weapons=(*parse_weapon("L"), *parse_weapon("Pl(D)"))),
        }
    )


Picture = tuple[Image.Image, BoardTrace, Viewport, Mapping[str, frozenset[Hex]]]


def picture(state: EncounterState, unit: str, weapon: str | None, viewer: str = "director") -> Picture:
    """As ``/unit arcs`` draws it: each section keeps the colour of its place among all the unit's sections."""
    ruleset = ruleset_for(state)
    found, bands = ruleset.weapon_reach(state, unit, weapon)
    order = list(ruleset.firing_arcs(state, unit))
    arcs = ArcPicture(
        unit,
        tuple((NAMES.get(name, name), hexes) for name, hexes in found.items()),
        tuple((f"{b.name} {b.first}-{b.last}", b.first, b.last) for b in bands),
        colours=tuple(order.index(name) for name in found),
    )
    trace = BoardTrace()
    png = render_arcs(BoardSnapshot(state), viewer=viewer, arcs=arcs, options=RenderOptions(), trace=trace)
    assert trace.viewport is not None
    return decode(png), trace, trace.viewport, found


def lower(vp: Viewport, h: Hex) -> tuple[float, float]:
    """A point in the lower part of ``h``, clear of its label (and of a hex's boundary split line)."""
    x, y = vp.center(h)
    return x, y + vp.size * 0.5


def only_in(state: EncounterState, found: Mapping[str, frozenset[Hex]], name: str, distance: int) -> Hex:
    """A hex at ``distance`` from Halcón lying in section ``name`` alone, with no unit on it."""
    ship = state.units["halcon"]
    assert ship.at is not None
    taken = {u.at for u in state.units.values()}
    for h in sorted(found[name]):
        if (
            ship.at.distance(h) == distance
            and sections(ship.at, ship.facing, h) == frozenset({name})
            and h not in taken
        ):
            return h
    raise AssertionError(f"no hex of {name} alone at {distance}")


def test_exo_sections_are_drawn_in_distinct_colours_EXO_1_4() -> None:
    state = armed()
    img, trace, vp, found = picture(state, "halcon", None)
    assert list(found) == [SFD, SFI, SPD, SPI]
    colours = [mix(SPACE.hex_fill, arc_colour(i), ARC_MIX_ALL) for i in range(4)]
    assert len(set(colours)) == 4
    for i, name in enumerate(found):
        h = only_in(state, found, name, 4)
        assert share_of(img, lower(vp, h), 2, colours[i]) > 0.9, (name, h)
    assert trace.legend[:4] == [NAMES[n] for n in (SFD, SFI, SPD, SPI)]


def test_a_hex_dead_ahead_lies_in_both_bow_sections_and_shows_both_EXO_1_4() -> None:
    state = armed()
    img, _, vp, found = picture(state, "halcon", None)
    ship = state.units["halcon"]
    assert ship.at is not None
    ahead = ship.at.neighbor(ship.facing).neighbor(ship.facing)  # bearing 0: SFD and SFI alike
    assert ahead in found[SFD] and ahead in found[SFI]
    x, y = vp.center(ahead)
    top, bottom = (x, y - vp.size * 0.55), (x, y + vp.size * 0.55)
    assert share_of(img, top, 1, mix(SPACE.hex_fill, arc_colour(0), ARC_MIX_ALL)) > 0.8
    assert share_of(img, bottom, 1, mix(SPACE.hex_fill, arc_colour(1), ARC_MIX_ALL)) > 0.8


def test_the_chosen_weapons_sections_and_range_bands_are_drawn_EXO_3_4() -> None:
    """A bow light weapon covers SFD and SFI (EXO-1.4) out to 9 hexes: short 1-3, medium 4-6, long 7-9, each a
    fainter shade; the rear sections and anything beyond 9 hexes stay undrawn; each band's outer edge is a line."""
    state = armed()
    img, trace, vp, found = picture(state, "halcon", "1")
    assert list(found) == [SFD, SFI]
    assert trace.legend[:5] == [NAMES[SFD], NAMES[SFI], "short 1-3", "medium 4-6", "long 7-9"]
    for distance, shade in ((2, ARC_MIX[0]), (5, ARC_MIX[1]), (8, ARC_MIX[2])):
        h = only_in(state, found, SFD, distance)
        assert share_of(img, lower(vp, h), 2, mix(SPACE.hex_fill, arc_colour(0), shade)) > 0.9, distance
    ship = state.units["halcon"]
    assert ship.at is not None
    assert max(ship.at.distance(h) for hexes in found.values() for h in hexes) == 9
    behind = ship.at.neighbor((ship.facing + 3) % 6).neighbor((ship.facing + 3) % 6)
    if vp.shows(behind):
        assert share_of(img, lower(vp, behind), 2, SPACE.hex_fill) > 0.9
    # the short band's outer edge: between a hex at 3 and its neighbour at 4, straight ahead
    at3 = ship.at
    for _ in range(3):
        at3 = at3.neighbor(ship.facing)
    a, b = vp.center(at3), vp.center(at3.neighbor(ship.facing))
    edge = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
    assert share_of(img, edge, 1, WHITE) > 0.5


def test_a_broadside_weapon_draws_only_its_side_each_section_in_its_own_colour_EXO_1_4() -> None:
    """A starboard weapon covers SFD and SPD; SPD keeps the colour it has in the whole picture (the third)."""
    state = armed()
    img, trace, vp, found = picture(state, "halcon", "2")
    assert list(found) == [SFD, SPD]
    h = only_in(state, found, SPD, 3)
    assert share_of(img, lower(vp, h), 2, mix(SPACE.hex_fill, arc_colour(2), ARC_MIX[0])) > 0.9
    assert trace.legend[:2] == [NAMES[SFD], NAMES[SPD]]
    assert [t for t in trace.legend if t.startswith(("short", "medium", "long"))] == [
        "short 1-5",
        "medium 6-10",
        "long 11-15",
    ]


def test_the_picture_is_framed_on_the_unit_and_its_arcs() -> None:
    state = armed()
    _, _, vp, found = picture(state, "halcon", "1")
    ship = state.units["halcon"]
    assert ship.at is not None and vp.shows(ship.at)
    assert all(vp.shows(h) for hexes in found.values() for h in hexes)
    far = [h for h in hexes_within(ship.at, 14) if ship.at.distance(h) == 14]
    assert not all(vp.shows(h) for h in far)  # not the whole neighbourhood: the weapon's reach


def test_no_arcs_picture_of_a_unit_the_viewer_cannot_see_FOG_1() -> None:
    state = exo_state()  # Sombra is hidden from the red side
    arcs = ArcPicture("sombra", (("x", frozenset({H("1208")})),))
    with pytest.raises(ValueError):
        render_arcs(BoardSnapshot(state), viewer="red", arcs=arcs)


def test_skirmish_vertex_arc_in_sight_and_blocked_in_distinct_colours_SK_3_2() -> None:
    """Kara at 0305 faces vertex 1 (NE-SE); the obstacle at 0506 hides what lies behind it in her arc."""
    state = skirmish_state()
    state = state.replace(units={**state.units, "kara": replace_unit(state.units["kara"], ranged=14)})
    img, trace, vp, found = picture(state, "kara", "ranged")
    assert list(found) == ["in_sight", "blocked"]
    assert found["blocked"] and found["in_sight"]
    assert H("0506") not in found["blocked"]  # the wall itself is drawn as a wall
    kara = state.units["kara"]
    assert kara.at is not None
    assert all(2 <= kara.at.distance(h) <= 12 for hexes in found.values() for h in hexes)
    taken = {u.at for u in state.units.values()}
    for i, name in enumerate(found):
        h = next(h for h in sorted(found[name]) if h not in taken and not state.board.terrain_at(h))
        d = kara.at.distance(h)
        shade = ARC_MIX[0]  # one band (2-12) without the long-range option
        assert d <= 12
        assert share_of(img, lower(vp, h), 2, mix((232, 226, 208), arc_colour(i), shade)) > 0.9, (name, h)
    assert trace.legend[:3] == ["in_sight", "blocked", "range 2-12"]


def test_a_section_with_no_hex_gets_no_legend_entry_SK_5_1() -> None:
    """Melee reaches the adjacent hexes of the arc: none hidden there, so only the seen part is named."""
    state = skirmish_state()
    _, trace, _, found = picture(state, "kara", "melee")
    assert found["in_sight"] and not found["blocked"]
    assert trace.legend[:2] == ["in_sight", "melee 1-1"]

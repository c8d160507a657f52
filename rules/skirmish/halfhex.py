"""SK-2.5 half hexes (the seed's optional rule; scenario option ``half_hexes = true``).

Seed: "Un personaje activo puede ocupar dos medios hexágonos de dos hexágonos adyacentes … Sólo se consideran
hexágonos adyacentes si comparten uno de sus lados y no hay ningún obstáculo entre ambos." Representation: a
character astride stands on the midpoint of the side two adjacent hexes share; ``Character.at`` is one of them
(the one the board draws it in) and ``Character.astride`` the other. Choices the seed leaves open ([HOUSE]):

- **Halves.** A character astride holds the half of each hex on their shared side. A hex therefore holds one
  whole character, or two characters astride across its *opposite* sides (their halves do not overlap).
- **Facing.** Astride, a character faces along the side it stands on: one of its two ends (``astride_facings``).
- **Moving in.** As the seed advises ("colocarlo entre dos medios hexágonos … en el último movimiento"), a whole
  hex is left for a position astride the two hexes of the facing vertex (a forward move, SK-2.2 cost) or of the
  opposite vertex (a backward move, SK-2.3 cost), ending with one of the two astride facings.
- **Moving out.** From astride, forward goes to the hex beyond the end of the side it faces, backward to the hex
  beyond the other end (the same straight line a character crossing the vertex would follow).
- **Passing a half hex.** "Un personaje puede pasar por un medio hexágono a un coste del doble … Sin embargo no
  puede permanecer en dicho hexágono": ``move <hex> via <half hex>`` enters a hex whose other half is taken at
  double cost and goes straight on, in the same action, to a free hex (or two halves) ahead of it.
- **Distance** between two characters is the least distance between their hexes (shooting needs 2-12, melee 0-1).
"""

from __future__ import annotations

from rules.hexgrid import Hex, Spot, bearing_from_vertex, vertex_ahead, vertex_behind
from rules.skirmish.model import Character
from rules.state import EncounterState

OPTION = "half_hexes"


def enabled(state: EncounterState) -> bool:
    return bool(state.option(OPTION, False))


def hexes_of(ch: Character) -> tuple[Hex, ...]:
    """The hexes a character stands in: one, or two when astride."""
    assert ch.at is not None
    return (ch.at,) if ch.astride is None else (ch.at, ch.astride)


def position(ch: Character) -> Spot:
    """Where lines of sight start and end: the hex centre, or the midpoint of the shared side."""
    assert ch.at is not None
    return ch.at if ch.astride is None else (ch.at, ch.astride)


def gap(a: Character, b: Character) -> int:
    """The least hex distance between two characters' hexes."""
    return min(x.distance(y) for x in hexes_of(a) for y in hexes_of(b))


def side_between(a: Hex, b: Hex) -> int | None:
    """The side of ``a`` that ``b`` lies across, or None when they are not adjacent."""
    return next((s for s in range(6) if a.neighbor(s) == b), None)


def astride_facings(a: Hex, b: Hex) -> tuple[int, int]:
    """The two vertex facings along the side ``a`` and ``b`` share: towards its clockwise end (vertex ``s`` of
    ``a``, compass 60s + 90) and towards the other end."""
    s = side_between(a, b)
    assert s is not None
    return (s + 1) % 6, (s + 4) % 6


def ends_of_side(a: Hex, b: Hex, facing: int) -> tuple[Hex, Hex]:
    """From astride (a, b) facing along the side: the hex beyond the end ahead, then the one beyond the other end."""
    s = side_between(a, b)
    assert s is not None
    one, other = a.neighbor(s - 1), a.neighbor(s + 1)
    if abs(bearing_from_vertex((a, b), facing, one)) < 90.0:
        return one, other
    return other, one


def half_of(ch: Character, h: Hex) -> Hex | None:
    """The neighbour of ``h`` whose side the character's half of ``h`` lies on (None: it holds ``h`` whole)."""
    if ch.astride is None:
        return None
    return ch.astride if h == ch.at else ch.at


def occupants(state: EncounterState, h: Hex, *, besides: str = "") -> list[Character]:
    """Living characters with a whole or a half of ``h`` (except ``besides``)."""
    return [
        u
        for u in state.units_of(Character)
        if u.alive and u.at is not None and u.id != besides and h in hexes_of(u)
    ]


def clash(a: Character, b: Character) -> Hex | None:
    """A hex both characters hold more than their share of (SK-2.4: one character a hex; SK-2.5: two astride
    across its opposite sides), or None."""
    for h in set(hexes_of(a)) & set(hexes_of(b)):
        side_a, side_b = half_of(a, h), half_of(b, h)
        if side_a is None or side_b is None:
            return h
        s = side_between(h, side_a)
        assert s is not None
        if side_b != h.neighbor(s + 3):
            return h
    return None


def is_half_hex(state: EncounterState, h: Hex, *, besides: str = "") -> bool:
    """Half of ``h`` is taken by a character astride, the other half is free: a hex one may pass but not stop in."""
    found = occupants(state, h, besides=besides)
    return len(found) == 1 and found[0].astride is not None


def halves_free(state: EncounterState, a: Hex, b: Hex, *, besides: str = "") -> Character | None:
    """Who keeps a character out of the halves of ``a`` and ``b`` on their shared side (None: they are free).

    Each hex may already hold one character astride across the opposite side, never a whole one."""
    for h, other in ((a, b), (b, a)):
        s = side_between(h, other)
        assert s is not None
        opposite = h.neighbor(s + 3)
        for occupant in occupants(state, h, besides=besides):
            if half_of(occupant, h) != opposite:
                return occupant
    return None


def forward_cells(h: Hex, facing: int, *, backward: bool, halves: bool) -> list[Hex | tuple[Hex, Hex]]:
    """Where one step from the whole hex ``h`` may end: the two hexes at the facing vertex (SK-2.2) or at the
    opposite vertex (SK-2.3), and with half hexes also astride that pair."""
    one, two = vertex_behind(h, facing) if backward else vertex_ahead(h, facing)
    cells: list[Hex | tuple[Hex, Hex]] = [one, two]
    if halves:
        cells.append((one, two))
    return cells

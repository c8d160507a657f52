"""The director's hand on mechs: damage by location (``/director damage``, MECH-2.3) and the arcs ``/unit arcs``
draws (MECH-1.3)."""

from __future__ import annotations

from rules.by_hand import RULE, positive_amount
from rules.errors import IllegalOrderError
from rules.events import DirectorOverride, Event
from rules.hexgrid import Hex, hexes_within
from rules.mech.damage import apply_damage
from rules.mech.geometry import FRONT, LEFT, REAR, RIGHT, arc_of, mount_arcs
from rules.mech.model import Mech, MechWeapon
from rules.mech.tables import tables
from rules.state import EncounterState

#: what a director may type for a location besides its code (Spanish initials as on a record sheet)
LOCATION_WORDS = {
    "cab": "head",
    "cabeza": "head",
    "tc": "ct",
    "ti": "lt",
    "td": "rt",
    "bi": "la",
    "bd": "ra",
    "pi": "ll",
    "pd": "rl",
    "frente": "front",
    "frontal": "front",
    "izquierda": "left",
    "derecha": "right",
    "trasera": "rear",
    "torreta": "turret",
}
#: ``/unit arcs`` sections of a mech, by the mount whose weapons fire into them (MECH-1.3)
MECH_SECTIONS = {"front": (FRONT,), "left_arm": (FRONT, LEFT), "right_arm": (FRONT, RIGHT), "rear": (REAR,)}
SECTION_OF_LOC = {"la": "left_arm", "ra": "right_arm"}


def by_hand_damage(state: EncounterState, unit: Mech, text: str) -> tuple[EncounterState, tuple[Event, ...]]:
    """``"ct 5"`` or ``"5 ct"``: armour then structure then inward, as ``apply_damage`` does for a hit."""
    words = text.lower().replace("=", " ").replace(",", " ").split()
    numbers = [w for w in words if w.isdigit()]
    places = [LOCATION_WORDS.get(w, w) for w in words if not w.isdigit()]
    if len(numbers) != 1 or len(places) != 1 or places[0] not in unit.locations:
        raise IllegalOrderError(
            f"{unit.name}: type a location and an amount, like 'ct 5' (locations: {', '.join(unit.locations)})",
            code="mech.damage_by_hand",
            rule="MECH-2.3",
            params={"unit": unit.id, "name": unit.name, "locations": ", ".join(unit.locations)},
        )
    amount = positive_amount(numbers[0])
    location = places[0]
    new_state, events = apply_damage(state, unit.id, location, amount, rule=RULE)
    record = DirectorOverride(
        rule=RULE, action="damage-at", unit=unit.id, args=(("amount", amount), ("location", location))
    )
    return new_state, (record, *events)


def arcs_by_mount(state: EncounterState, unit: Mech, *, only: int | None = None) -> dict[str, frozenset[Hex]]:
    """Each mount's arc out to the longest range of its usable weapons (a mech's front, left arm, right arm and
    rear from the torso; a vehicle's hull sides and turret from the hull), or of the weapon at index ``only``. A
    mount with no weapon is left out, but a mech always shows its front."""
    assert unit.at is not None
    reach: dict[str, int] = {}
    for index, w in enumerate(unit.weapons):
        if not unit.weapon_usable(index) or (only is not None and index != only):
            continue
        if unit.is_mech:
            section = "rear" if w.rear else SECTION_OF_LOC.get(w.loc, "front")
        else:
            section = w.loc
        reach[section] = max(reach.get(section, 0), w.spec.long)
    if unit.is_mech and only is None:
        reach.setdefault("front", max(reach.values(), default=1))
    out: dict[str, frozenset[Hex]] = {}
    for section, distance in reach.items():
        if unit.is_mech:
            arcs, heading = MECH_SECTIONS[section], unit.torso
        else:
            arcs, heading = mount_arcs(unit, _vehicle_mount(unit, section))[0], unit.facing
        out[section] = frozenset(
            h
            for h in hexes_within(unit.at, distance)
            if h != unit.at and state.board.contains(h) and arc_of(unit.at, heading, h) in arcs
        )
    return out


def _vehicle_mount(unit: Mech, loc: str) -> MechWeapon:
    return next(w for w in unit.weapons if w.loc == loc)


def air_target_arcs(state: EncounterState, unit: Mech) -> dict[str, frozenset[Hex]]:
    """MECH-5 "Blancos aéreos": the hexes from which a shot at this fighter is +2 (its front arc, ``air_front``)
    or +4 (its side arcs, and [HOUSE] its rear: ``air_side``), out to the longest range any weapon has."""
    assert unit.at is not None
    reach = max(w.long for w in tables().weapons.values())
    front: set[Hex] = set()
    side: set[Hex] = set()
    for h in hexes_within(unit.at, reach):
        if h == unit.at or not state.board.contains(h):
            continue
        (front if arc_of(unit.at, unit.facing, h) == FRONT else side).add(h)
    return {"air_front": frozenset(front), "air_side": frozenset(side)}

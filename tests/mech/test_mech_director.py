"""The director's hand on mechs: secret declarations switched during play take effect from the next turn
(MECH-1.1), damage by location (MECH-2.3, ``/director damage``), and the arcs ``/unit arcs`` draws (MECH-1.3)."""

from __future__ import annotations

from typing import Any

import pytest

from bot.results import Refused
from bot.transforms import overrides
from rules.errors import IllegalOrderError
from rules.events import Event
from rules.hexgrid import Hex
from rules.state import EncounterState
from tests.mech_fixtures import MECH, build, mech, of_type, play_turn, step, unit


def _declare(
    state: EncounterState, uid: str, raw: dict[str, Any]
) -> tuple[EncounterState, tuple[Event, ...]]:
    order = MECH.parse_order(state, uid, raw)
    MECH.validate_order(state, uid, order)
    return step(state, {uid: order})


def test_mech_1_1_a_switch_to_secret_mid_turn_waits_for_the_next_initiative() -> None:
    state = build(unit("a", "red", "0810", initiative=0), unit("b", "blue", "0805", facing="S", initiative=9))
    state, _ = step(state.replace(dice_script=(1, 1, 1, 1)))  # initiative rolled: this turn is open
    state, _ = overrides.set_option(state, "secret_declarations", True)
    state, events = _declare(state, "a", {"mode": "walk", "path": ["0809"]})
    assert of_type(events, "DeclarationLocked")[0].key == "mech.declared"  # still open this turn
    state, events = play_turn(state, {})
    state, _ = step(state.replace(dice_script=(1, 1, 1, 1)))  # the next initiative: now secret
    state, events = _declare(state, "a", {"mode": "walk", "path": ["0808"]})
    assert of_type(events, "DeclarationLocked")[0].key == "mech.declared_secret"


def test_only_the_switches_a_ruleset_lists_can_be_set() -> None:
    state = build(unit("a", "red", "0810"), unit("b", "blue", "0805"))
    assert MECH.director_switches() == ("secret_declarations", "rolls_per_weapon")
    with pytest.raises(Refused):
        overrides.set_option(state, "fog", True)


def test_mech_2_3_director_damage_takes_a_location() -> None:
    state = build(unit("a", "red", "0810"), unit("b", "blue", "0805"))
    before = mech(state, "a")
    state, events = overrides.damage(state, "a", "ct 5")
    after = mech(state, "a")
    assert after.armor["ct"] == before.armor["ct"] - 5
    assert type(events[0]).__name__ == "DirectorOverride" and type(events[1]).__name__ == "DamageDealt"
    state, _ = overrides.damage(state, "a", "7 bi")  # either order, Spanish initials too
    assert mech(state, "a").armor["la"] == before.armor["la"] - 7
    assert MECH.damage_locations(state, "a") == before.locations
    with pytest.raises(IllegalOrderError) as err:
        overrides.damage(state, "a", "5")
    assert err.value.code == "mech.damage_by_hand"


def test_mech_1_3_unit_arcs_are_the_mounts_arcs_from_the_torso() -> None:
    weapons = [
        {"type": "medium_laser", "loc": "la"},
        {"type": "medium_laser", "loc": "ra"},
        {"type": "small_laser", "loc": "ct", "rear": True},
    ]
    state = build(unit("a", "red", "0810", weapons=weapons), unit("b", "blue", "0805"))
    arcs = MECH.firing_arcs(state, "a")
    assert set(arcs) == {"front", "left_arm", "right_arm", "rear"}
    ahead, behind = Hex.parse("0808"), Hex.parse("0812")
    assert ahead in arcs["front"] and ahead in arcs["left_arm"] and ahead in arcs["right_arm"]
    assert behind in arcs["rear"] and behind not in arcs["front"]
    assert not arcs["left_arm"] & arcs["rear"] and not arcs["right_arm"] & arcs["rear"]


def test_unit_arcs_for_one_weapon_draw_its_mount_and_its_range_bands() -> None:
    """``/unit arcs`` for the selected weapon shows the arc it fires into (MECH-1.3) and its short,
    medium and long bands from the weapon table (MECH-2.1)."""
    from rules.mech.tables import tables
    from rules.registry import ruleset_for
    from rules.scenario import load_scenario
    from tests.paths import ROOT

    state = load_scenario((ROOT / "data/scenarios/mech-duel.toml").read_text(encoding="utf-8")).state
    ruleset = ruleset_for(state)
    mech = next(u for u in state.units.values() if getattr(u, "weapons", ()))
    weapons = ruleset.arc_weapons(state, mech.id)
    assert weapons and all(label.startswith(f"#{key} ") for key, label in weapons.items())
    whole, no_bands = ruleset.weapon_reach(state, mech.id, None)
    assert no_bands == () and "front" in whole
    for key in weapons:
        w = mech.weapons[int(key) - 1]  # type: ignore[attr-defined]
        spec = tables().weapons[w.type]
        sections, bands = ruleset.weapon_reach(state, mech.id, key)
        assert len(sections) == 1
        (hexes,) = sections.values()
        assert hexes and max(mech.at.distance(h) for h in hexes) <= spec.long  # type: ignore[union-attr]
        assert [(b.name, b.first, b.last) for b in bands] == [
            ("short", 1, spec.short),
            ("medium", spec.short + 1, spec.medium),
            ("long", spec.medium + 1, spec.long),
        ]

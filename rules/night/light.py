"""Wind (NGT-1), flares and illuminating rounds (NGT-3), gunflashes (NGT-4) and the end-of-round clean-up."""

from __future__ import annotations

from dataclasses import replace

from rules.dice import Dice
from rules.events import Event, RollMade
from rules.hexgrid import Hex, HexSide
from rules.night.events import NightGunflash, NightLightPlaced, NightMarkersCleared, NightWind
from rules.night.state import night_of, with_night
from rules.night.tables import GUNFLASH, NIGHT_MARKERS, tables
from rules.state import EncounterState, Marker

Change = tuple[EncounterState, list[Event]]


def wind(state: EncounterState, dice: Dice) -> Change:
    """NGT-1 [HOUSE]: a d6 at the start of the round; 1 → NVR −1, 6 → +1 (``data/night/night.toml``)."""
    tab = tables()
    ns = night_of(state)
    rolled = dice.d6(rule="NGT-1", purpose="wind")
    roll = rolled.total
    change = tab.wind_change.get(roll, 0)
    nvr = max(tab.min_nvr, min(tab.max_nvr, ns.nvr + change))
    state = with_night(state, replace(ns, nvr=nvr))
    return state, [
        RollMade.of(rolled, purpose_key="night.wind"),
        NightWind(rule="NGT-1", roll=roll, change=nvr - ns.nvr, nvr=nvr),
    ]


def place_light(state: EncounterState, kind: str, aimed: Hex, dice: Dice) -> Change:
    """NGT-3: a flare or an illuminating round aimed at ``aimed`` drifts [HOUSE] d6 direction (1 N … 6 NW),
    ``drift_hexes`` hexes, and lights its radius until the end of the round."""
    tab = tables()
    rolled = dice.d6(rule="NGT-3", purpose=f"{kind} drift")
    roll = rolled.total
    side = HexSide(roll - 1)
    at = aimed
    for _ in range(tab.drift_hexes):
        at = at.neighbor(side)
    radius = tab.radius(kind)
    marker = Marker(kind=kind, at=at, radius=radius)
    state = state.replace(markers=(*state.markers, marker))
    drift = side.name if tab.drift_hexes else ""
    return state, [
        RollMade.of(rolled, purpose_key="night.drift", kind=kind),
        NightLightPlaced(rule="NGT-3", kind=kind, aimed=aimed, drift=drift, roll=roll, at=at, radius=radius),
    ]


def gunflash(state: EncounterState, unit_id: str) -> Change:
    """NGT-4: a gunflash on the unit's hex until the end of the round (one per unit, where it last fired)."""
    unit = state.units.get(unit_id)
    if unit is None or unit.at is None:
        return state, []
    kept = tuple(m for m in state.markers if not (m.kind == GUNFLASH and m.owner == unit_id))
    state = state.replace(markers=(*kept, Marker(kind=GUNFLASH, at=unit.at, owner=unit_id)))
    return state, [NightGunflash(rule="NGT-4", unit=unit_id, at=unit.at)]


def end_of_round(state: EncounterState, ended: int) -> Change:
    """NGT-3: every flare, illuminating round, gunflash and TI marker is removed; the round's memory of moving
    vehicles (NGT-2) and of units steadied by a friendly unit (NGT-5) too."""
    kept = tuple(m for m in state.markers if m.kind not in NIGHT_MARKERS)
    count = len(state.markers) - len(kept)
    state = with_night(state.replace(markers=kept), replace(night_of(state), moved=(), steady=()))
    return state, [NightMarkersCleared(rule="NGT-3", round=ended, count=count)] if count else []

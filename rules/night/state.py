"""The night layer's own state (``state.layer_state["night"]``) and its scenario keys (DESIGN §7.3)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, cast

from rules.errors import Phrase, describe, shown
from rules.hexgrid import Hex
from rules.night.tables import DISCIPLINES, tables
from rules.serial import serializable
from rules.state import EncounterState, RulesetState

if TYPE_CHECKING:
    from rules.scenario import ScenarioContext

LAYER_ID = "night"


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class NightState(RulesetState):
    """NVR (NGT-1), the units' discipline (NGT-5), lights queued for the start of a round (NGT-3), the vehicles
    that moved this round (NGT-2) and the round whose start (wind, flares) has been played."""

    nvr: int = 2
    wind: bool = False
    discipline: tuple[tuple[str, str], ...] = ()
    motorized: tuple[str, ...] = ()
    tracked: tuple[str, ...] = ()
    queued: tuple[tuple[str, Hex], ...] = ()  # (flare | illumination, aimed hex)
    moved: tuple[str, ...] = ()
    round_started: int = 0
    #: NGT-5: units that strayed onto a friendly unit in good order: they move on without straying this round
    steady: tuple[str, ...] = ()
    #: NGT-5.1: the terrain classes that conceal, as the scenario names them (None: the base ruleset's default)
    concealing: tuple[str, ...] | None = None

    def concealing_for(self, ruleset: str) -> tuple[str, ...]:
        return self.concealing if self.concealing is not None else tables().concealing.get(ruleset, ())

    def discipline_of(self, unit_id: str) -> str:
        return dict(self.discipline).get(unit_id, tables().default_discipline)


def night_of(state: EncounterState) -> NightState:
    found = state.layer_state.get(LAYER_ID)
    return found if isinstance(found, NightState) else NightState(nvr=tables().default_nvr)


def with_night(state: EncounterState, ns: NightState) -> EncounterState:
    return state.replace(layer_state={**state.layer_state, LAYER_ID: ns})


def read_top(raw: Mapping[str, Any], state: EncounterState, ctx: ScenarioContext) -> EncounterState:
    """``[night]`` nvr, wind; per unit ``discipline``, ``motorized``, ``tracked`` (DESIGN §7.3)."""
    tab = tables()
    found: object = raw.get("night", {})
    table: Mapping[str, Any] = {}
    if isinstance(found, Mapping):
        table = cast(Mapping[str, Any], found)
    else:
        ctx.error("night", "problem.expected", expected=Phrase.of("problem.kind.dict"), got=describe(found))
    for key in table:
        if key not in ("nvr", "wind", "concealing"):
            ctx.error(f"night.{key}", "problem.unknown_key", key=key, allowed="nvr, wind, concealing")
    nvr = ctx.number(table, "nvr", "night", default=tab.default_nvr, low=tab.min_nvr, high=tab.max_nvr)
    wind: object = table.get("wind", False)
    if not isinstance(wind, bool):
        ctx.error(
            "night.wind", "problem.expected", expected=Phrase.of("problem.kind.bool"), got=describe(wind)
        )
        wind = False
    concealing: tuple[str, ...] | None = None
    classes: object = table.get("concealing")
    if classes is not None:
        listed_classes = cast(list[object], classes) if isinstance(classes, list) else None
        if listed_classes is not None and all(isinstance(c, str) for c in listed_classes):
            concealing = tuple(str(c) for c in listed_classes)
        else:
            ctx.error(
                "night.concealing",
                "problem.expected",
                expected=Phrase.of("problem.kind.list"),
                got=describe(cast(object, classes)),
            )
    discipline: list[tuple[str, str]] = []
    motorized: list[str] = []
    tracked: list[str] = []
    listed: object = raw.get("units", [])
    for i, entry in enumerate(cast(list[object], listed) if isinstance(listed, list) else []):
        if not isinstance(entry, Mapping):
            continue  # the base ruleset reports a [[units]] entry that is not a table
        u = cast(Mapping[str, Any], entry)
        uid = str(u.get("id", ""))
        d = u.get("discipline")
        if d is not None:
            if d not in DISCIPLINES:
                known = ", ".join(DISCIPLINES)
                ctx.error(f"units[{i}].discipline", "problem.night.discipline", known=known, got=shown(d))
            else:
                discipline.append((uid, str(d)))
        for key, into in (("motorized", motorized), ("tracked", tracked)):
            v = u.get(key)
            if v is None:
                continue
            if not isinstance(v, bool):
                bool_kind = Phrase.of("problem.kind.bool")
                ctx.error(f"units[{i}].{key}", "problem.expected", expected=bool_kind, got=describe(v))
            elif v:
                into.append(uid)
    ns = NightState(
        nvr=nvr,
        wind=wind,
        discipline=tuple(discipline),
        motorized=tuple(motorized),
        tracked=tuple(tracked),
        concealing=concealing,
    )
    return with_night(state, ns)


def set_nvr(state: EncounterState, nvr: int) -> EncounterState:
    tab = tables()
    return with_night(state, replace(night_of(state), nvr=max(tab.min_nvr, min(tab.max_nvr, nvr))))

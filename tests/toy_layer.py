"""A toy layer over ``toy-sim``, registered through the same registry path as ``night``: a dark board where a side
sees the other side's pawns only within ``[toydark] radius`` of one of its own, unless the pawn carries a lantern
(a unit key of the layer). It proves that a layer composes with a base ruleset without a line in either: its own
scenario keys, its own state, its own visibility and a step after each resolution."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar, cast

from rules.dice import Dice
from rules.events import Note
from rules.layer import Layer
from rules.registry import Plugin, add, register
from rules.ruleset import DIRECTOR, PhaseResult, Visibility
from rules.serial import serializable
from rules.state import EncounterState, RulesetState

LAYER_ID = "toy-dark"
add(Plugin(LAYER_ID, "layer", engine=__name__, panel="", overlay="", applies_to=("toy-sim",)))


@serializable(ns="toydark")
@dataclass(frozen=True, slots=True, kw_only=True)
class DarkState(RulesetState):
    radius: int = 1
    lanterns: tuple[str, ...] = ()
    resolutions: int = 0


def dark_of(state: EncounterState) -> DarkState:
    found = state.layer_state.get(LAYER_ID)
    return found if isinstance(found, DarkState) else DarkState()


@register
class ToyDark(Layer):
    id = LAYER_ID
    unit_keys: ClassVar[frozenset[str]] = frozenset({"lantern"})
    top_keys: ClassVar[frozenset[str]] = frozenset({"toydark"})

    def read_top(self, raw: Mapping[str, Any], state: EncounterState, ctx: Any) -> EncounterState:
        table = cast(Mapping[str, Any], raw.get("toydark", {}))
        radius = ctx.number(table, "radius", "toydark", default=1, low=0, high=20)
        units = cast(list[Mapping[str, Any]], raw.get("units", []))
        lanterns = tuple(str(u["id"]) for u in units if u.get("lantern") is True)
        dark = DarkState(radius=radius, lanterns=lanterns)
        return state.replace(layer_state={**state.layer_state, LAYER_ID: dark})

    def after_resolve(self, before: EncounterState, result: PhaseResult, dice: Dice) -> PhaseResult:
        dark = dark_of(result.state)
        state = result.state.replace(
            layer_state={
                **result.state.layer_state,
                LAYER_ID: replace(dark, resolutions=dark.resolutions + 1),
            }
        )
        return PhaseResult(state, (*result.events, Note(rule="TOY-DARK", key="toy.dark")), result.pending)

    def visible_to(self, state: EncounterState, side: str, base: Visibility) -> Visibility:
        if side == DIRECTOR:
            return base
        dark = dark_of(state)
        mine = [u.at for u in state.units.values() if u.side == side and u.at is not None]
        seen = frozenset(
            uid
            for uid in base.units
            if (u := state.units[uid]).side == side
            or uid in dark.lanterns
            or any(u.at is not None and u.at.distance(h) <= dark.radius for h in mine)
        )
        return Visibility(units=seen, concealed=base.concealed & seen, hexes=base.hexes)

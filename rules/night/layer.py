"""The ``night`` layer (RULES.md §5, DESIGN §7.3): wraps skirmish, mech, pbw or ocs.

Before the base ruleset resolves: at the start of a round the wind d6 (NGT-1) and the drift of the round's
flares (NGT-3); then a straying check (NGT-5/6) for every order that is about to move a unit. After it:
gunflashes on every unit that attacked (NGT-4), the vehicles that moved (NGT-2), and at the end of the round every
night marker cleared (NGT-3). What a side sees is NGT-2 (``sight.py``); each side gets its own board (NGT-9).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar, cast

from rules.dice import Dice, phase_seed
from rules.errors import IllegalOrderError, InvalidOrderError, Phrase, ScenarioError, describe
from rules.events import Event, RollMade
from rules.hexgrid import Hex
from rules.layer import Layer
from rules.night import light, stray
from rules.night.events import NightNvrSet
from rules.night.sight import gunflash_units, is_vehicle, lit_hexes, side_view
from rules.night.state import night_of, read_top, set_nvr, with_night
from rules.night.tables import FLARE, ILLUMINATION, tables
from rules.registry import register
from rules.ruleset import (
    Change,
    MoveSurcharge,
    Order,
    PhaseResult,
    RoundSpec,
    Ruleset,
    Ruling,
    Visibility,
)
from rules.state import EncounterState

if TYPE_CHECKING:
    from rules.scenario import ScenarioContext

ROUND_KEYS = {"flares": FLARE, "illuminating_rounds": ILLUMINATION}


@register
class NightLayer(Layer):
    id: ClassVar[str] = "night"
    unit_keys: ClassVar[frozenset[str]] = frozenset({"discipline", "motorized", "tracked"})
    round_keys: ClassVar[frozenset[str]] = frozenset({"night"})
    top_keys: ClassVar[frozenset[str]] = frozenset({"night"})

    # --- scenario files ----------------------------------------------------------------------------------
    def read_top(self, raw: Mapping[str, Any], state: EncounterState, ctx: ScenarioContext) -> EncounterState:
        return read_top(raw, state, ctx)

    def check_round(self, spec: RoundSpec, state: EncounterState, path: str, ctx: ScenarioContext) -> None:
        read_round_lights(spec, path, ctx)

    def start_round(self, state: EncounterState, spec: RoundSpec) -> EncounterState:
        """DESIGN §7.3 ``night = { flares = [...], illuminating_rounds = [...] }``: placed at the round's start.
        Read by :func:`read_round_lights`, as the loader checked it; a round no loader checked (built by hand)
        is refused with the same problems."""
        from rules.scenario import ScenarioContext

        ctx = ScenarioContext()
        ctx.board = state.board
        queued = read_round_lights(spec, f"rounds[{spec.index - 1}]", ctx)
        if ctx.problems:
            raise ScenarioError(ctx.problems)
        if not queued:
            return state
        ns = night_of(state)
        return with_night(state, replace(ns, queued=(*ns.queued, *queued)))

    # --- play ----------------------------------------------------------------------------------------------
    def validate_order(self, base: Ruleset, state: EncounterState, actor: str, order: Order) -> None:
        """NGT-2: a unit attacks only what its side sees, fully or as a '?' counter; checked before the base so
        an unseen unit's existence is never confirmed by the base's own refusals (FOG-1)."""
        unit = state.units.get(order.unit)
        if unit is not None:
            view = self.visible_to(state, unit.side, base.visible_to(state, unit.side))
            for target in base.order_targets(state, order):
                if target not in view.units and target not in view.concealed:
                    raise IllegalOrderError(
                        f"{unit.name} sees no such target in the dark (NGT-2).",
                        code="night.unseen_target",
                        rule="NGT-2",
                        params={"unit": unit.id, "name": unit.name},
                    )
        base.validate_order(state, actor, order)

    def resolve(
        self, base: Ruleset, state: EncounterState, orders: Mapping[str, Order], dice: Dice
    ) -> PhaseResult:
        before = state
        state, events = self.round_start(state, dice)
        left = dict(orders)
        took = False
        for uid, order in orders.items():
            intent = base.move_intent(state, order)
            if intent is None:
                continue
            state, checked, taken = stray.check(base, state, intent, dice)
            events.extend(checked)
            if taken:
                took = True
                if intent.rest is None:
                    del left[uid]
                else:
                    left[uid] = intent.rest
        if took and not left:
            result = PhaseResult(state, ())
        else:
            result = base.resolve(state, left, dice)
        after = result.state
        events.extend(result.events)
        for uid in sorted(base.attackers(result.events)):  # NGT-4
            after, flash = light.gunflash(after, uid)
            events.extend(flash)
        after = _moved_vehicles(before, after)
        if after.round != before.round or (after.over and not before.over):  # NGT-3: the round is over
            after, cleared = light.end_of_round(after, before.round)
            events.extend(cleared)
        return PhaseResult(after, tuple(events), result.pending)

    def round_start(self, state: EncounterState, dice: Dice) -> tuple[EncounterState, list[Event]]:
        """NGT-1 wind (if on), then each queued flare's drift (NGT-3), once per round."""
        ns = night_of(state)
        if ns.round_started == state.round or state.over:
            return state, []
        events: list[Event] = []
        if ns.wind:
            state, more = light.wind(state, dice)
            events.extend(more)
        for kind, at in ns.queued:
            state, more = light.place_light(state, kind, at, dice)
            events.extend(more)
        state = with_night(state, replace(night_of(state), queued=(), round_started=state.round))
        return state, events

    def visible_to(self, state: EncounterState, side: str, base: Visibility) -> Visibility:
        return side_view(state, side, base)

    def move_surcharge(self, state: EncounterState, base: MoveSurcharge) -> MoveSurcharge:
        """NGT-5.1: infantry-scale units pay more to enter concealing terrain, vehicles per hexside turned."""
        tab = tables()
        terrain = frozenset(night_of(state).concealing_for(state.ruleset))
        return MoveSurcharge(
            terrain=base.terrain | terrain,
            enter=base.enter + tab.conceal_cost,
            per_turn=base.per_turn + tab.turn_cost,
        )

    def private_views(self, state: EncounterState, base: tuple[str, ...]) -> tuple[str, ...]:
        """NGT-9: every side gets its own board."""
        return tuple(dict.fromkeys((*base, *state.side_ids())))

    def rulings(self, base: Mapping[str, Ruling]) -> Mapping[str, Ruling]:
        return {**base, **RULINGS}

    def board_summary(self, state: EncounterState, summary: dict[str, Any]) -> dict[str, Any]:
        """DESIGN §7.3: ``"night": {nvr, illuminated, gunflashes, seen: {side: {visible, concealed}}}``."""
        from rules.engine import visibility
        from rules.registry import ruleset_for

        ruleset = ruleset_for(state)
        seen: dict[str, Any] = {}
        for s in state.sides:
            v = visibility(ruleset, state, s.id)
            seen[s.id] = {"visible": sorted(v.units), "concealed": sorted(v.concealed)}
        night = {
            "nvr": night_of(state).nvr,
            "illuminated": sorted(h.label for h in lit_hexes(state)),
            "gunflashes": sorted(gunflash_units(state)),
            "seen": seen,
        }
        return {**summary, "night": night}


def read_round_lights(spec: RoundSpec, path: str, ctx: ScenarioContext) -> list[tuple[str, Hex]]:
    """The lights a ``[[rounds]]`` entry places (NGT-3), each aimed at a hex of the board; what is not one is
    reported to ``ctx`` and left out. The one reader of the round's ``night`` table, for ``validate`` and ``sim``."""
    where = f"{path}.night"
    found: object = spec.raw.get("night", {})
    if not isinstance(found, Mapping):
        ctx.error(where, "problem.expected", expected=Phrase.of("problem.kind.dict"), got=describe(found))
        return []
    table = cast(Mapping[str, Any], found)
    ctx.check_keys(table, frozenset(ROUND_KEYS), where)
    queued: list[tuple[str, Hex]] = []
    for key, kind in ROUND_KEYS.items():
        labels = ctx.take(table, key, list, where, default=[])
        for i, label in enumerate(cast(list[Any], labels)):
            aimed = ctx.position(label, f"{where}.{key}[{i}]")
            if aimed is not None:
                queued.append((kind, aimed))
    return queued


def _moved_vehicles(before: EncounterState, after: EncounterState) -> EncounterState:
    """NGT-2: vehicles that changed hex this round are "moving" until its end."""
    ns = night_of(after)
    moved = [
        u.id
        for u in after.units.values()
        if u.id in before.units
        and before.units[u.id].at != u.at
        and is_vehicle(ns, u)
        and u.id not in ns.moved
    ]
    if not moved:
        return after
    return with_night(after, replace(ns, moved=(*ns.moved, *moved)))


# --- the director's rulings (``/director ruling flare 0707``), each undoable as every override ----------------


def _ruling_dice(state: EncounterState) -> Dice:
    return Dice(phase_seed(state.seed, state.round, f"{state.phase}#{state.step}:night"), state.dice_script)


def _hex_words(words: tuple[str, ...], code: str, rule: str) -> Hex:
    try:
        (word,) = words
        return Hex.parse(word)
    except ValueError:
        raise InvalidOrderError(f"Write one hex, e.g. 0707 ({rule}).", code=code, rule=rule) from None


def _light_ruling(kind: str) -> Any:
    def apply(state: EncounterState, words: tuple[str, ...]) -> Change:
        aimed = _hex_words(words, f"night.ruling_{kind}_words", "NGT-3")
        if not state.board.contains(aimed):
            raise InvalidOrderError(f"{aimed.label} is off the board.", code="night.off_board", rule="NGT-3")
        dice = _ruling_dice(state)
        state, events = light.place_light(state, kind, aimed, dice)
        reported = {e.index for e in events if isinstance(e, RollMade)}
        rolls = tuple(RollMade.of(r) for r in dice.rolls if r.index not in reported)
        return state.replace(dice_script=dice.script_left), (*events, *rolls)

    return apply


def _nvr_ruling(state: EncounterState, words: tuple[str, ...]) -> Change:
    tab = tables()
    if len(words) != 1 or not words[0].isdigit() or not tab.min_nvr <= int(words[0]) <= tab.max_nvr:
        raise InvalidOrderError(
            f"Write the NVR in hexes, {tab.min_nvr} to {tab.max_nvr} (NGT-1).",
            code="night.ruling_nvr_words",
            rule="NGT-1",
        )
    state = set_nvr(state, int(words[0]))
    return state, (NightNvrSet(rule="NGT-1", nvr=night_of(state).nvr),)


RULINGS: dict[str, Ruling] = {
    "flare": Ruling("flare", "NGT-3", "ruling.night.flare", _light_ruling(FLARE)),
    "illuminate": Ruling("illuminate", "NGT-3", "ruling.night.illuminate", _light_ruling(ILLUMINATION)),
    "nvr": Ruling("nvr", "NGT-1", "ruling.night.nvr", _nvr_ruling),
}

__all__ = ["RULINGS", "NightLayer"]

"""The ``exo`` ruleset (RULES.md §1): five simultaneous phases per round, secret orders, vector movement.

Phase 1 takes orders in two steps kept in ``ExoState.step``: first the open crew rolls (EXO-2.1, they set Manta),
then the secret movement and fire orders (EXO-2.3, EXO-2.4), validated against that Manta. Phases 2-5 take no
orders, except the answer to a piloting critical (EXO-4.1) asked through ``state.pending`` in phase 3.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, cast

from rules.by_hand import damage_events, positive_amount
from rules.dice import Dice, phase_seed
from rules.engine import resolve_phase
from rules.errors import IllegalOrderError, InvalidOrderError, did_you_mean
from rules.events import Event, Note, RollMade
from rules.exo.arcs import coverage
from rules.exo.combat import resolve_combat
from rules.exo.crew import find_crew, resolve_crew_ref
from rules.exo.damage import resolve_damage
from rules.exo.events import BroadsideSideRolled, OrdersLocked
from rules.exo.legality import check_crew_rolls, check_moves, check_ship_orders
from rules.exo.model import Ship, SpaceObject
from rules.exo.orders import (
    EMPTY_MOVES,
    CrewRolls,
    FireOrder,
    PilotChange,
    ShipOrders,
    parse_crew_rolls,
    parse_moves,
    parse_ship_orders,
)
from rules.exo.phase_crew import resolve_crew_step
from rules.exo.piloting import answer_decision, execute_movement, next_decision, roll_piloting
from rules.exo.preview import arcs, reachable, weapon_reach
from rules.exo.repairs import repair_work, resolve_repairs
from rules.exo.rulings import RULINGS
from rules.exo.scenario_io import SHIP_KEYS, build_exo_unit
from rules.exo.state import CREW_STEP, ORDERS_STEP, ExoState, ext_of
from rules.exo.turrets import turret_handler
from rules.exo.weapons import PORT, STARBOARD, Mount, parse_weapon
from rules.hexgrid import Hex, HexSide
from rules.registry import register, ruleset_for
from rules.ruleset import (
    DiceFactory,
    FacingKind,
    Order,
    OrderMode,
    PhaseResult,
    PhaseSpec,
    RangeBand,
    RoundSpec,
    Ruleset,
    Ruling,
    SimStep,
)
from rules.state import EncounterState, Unit, replace_unit

if TYPE_CHECKING:
    from rules.scenario import ScenarioContext

PHASES = ("1", "2", "3", "4", "5")


def _lock(state: EncounterState, ship: Ship, order: ShipOrders) -> ShipOrders:
    """Orders as locked at the end of phase 1: every ``by`` turned into the crew member's name."""

    def name(ref: str) -> str:
        member = resolve_crew_ref(ship.crew, ref, state.round)
        return member.name if member is not None else ref

    return dataclasses.replace(
        order,
        fire=tuple(dataclasses.replace(f, by=name(f.by)) for f in order.fire),
        repairs=tuple(dataclasses.replace(r, by=name(r.by)) for r in order.repairs),
        stations=tuple(dataclasses.replace(s, by=name(s.by)) for s in order.stations),
    )


def _cancelled_by_the_end(state: EncounterState, ext: ExoState) -> list[Event]:
    """EXO-5.1: the encounter ended in phase 4, so phase 5 never comes: repairs and station changes declared with
    the round's orders are cancelled, and the log says so."""
    notes: list[Event] = []
    for uid, orders in ext.locked.items():
        unit = state.units.get(uid)
        if not isinstance(unit, Ship) or unit.destroyed or not (orders.repairs or orders.stations):
            continue
        count = len(orders.repairs) + len(orders.stations)
        notes.append(Note(rule="EXO-5.1", key="exo.cancelled_game_over", unit=uid, args=(("count", count),)))
    return notes


def _playable(state: EncounterState, orders: dict[str, Order], notes: list[Event]) -> dict[str, Order]:
    """Offline only: a scripted round cannot foresee the dice, so orders of a ship already destroyed, fire at a
    destroyed ship, fire by a crew member who fell and fire with a weapon disabled meanwhile are dropped with a note instead of stopping the
    simulation (the bot never offers them). Every other illegal order still stops it."""
    out: dict[str, Order] = {}
    for uid, order in orders.items():
        unit = state.units.get(uid)
        if isinstance(unit, Ship) and unit.destroyed:
            if not any(isinstance(n, Note) and n.unit == uid for n in notes):
                notes.append(Note(rule="EXO-5.1", key="exo.orders_dropped", unit=uid))
            continue
        if isinstance(order, ShipOrders) and isinstance(unit, Ship):
            keep: list[FireOrder] = []
            for f in order.fire:
                target = state.units.get(f.target)
                if isinstance(target, Ship) and target.destroyed:
                    notes.append(
                        Note(rule="EXO-5.1", key="exo.fire_dropped", unit=uid, args=(("target", f.target),))
                    )
                elif ((member := find_crew(unit.crew, f.by)) is not None and member.down) or (
                    member is None and resolve_crew_ref(unit.crew, f.by, state.round) is None
                ):
                    notes.append(
                        Note(rule="EXO-5.2", key="exo.fire_dropped_crew", unit=uid, args=(("crew", f.by),))
                    )
                elif 1 <= f.weapon <= len(unit.weapons) and not unit.weapons[f.weapon - 1].usable:
                    label = unit.weapon_label(f.weapon - 1)
                    notes.append(
                        Note(
                            rule="EXO-3.5", key="exo.fire_dropped_weapon", unit=uid, args=(("weapon", label),)
                        )
                    )
                else:
                    keep.append(f)
            order = dataclasses.replace(order, fire=tuple(keep))
        out[uid] = order
    return out


def ship_details(ship: Ship) -> dict[str, Any]:
    """The ``phase_end`` fields added after the stats, so a game can be checked from outside: Manta (EXO-2.2),
    the small-target flag (EXO-3.7), every crew member's station and state (EXO-1.5, EXO-5.2, EXO-6.2, EXO-5.3)
    and every weapon's state, with the sections it covers now: a turret with a gunner covers all four, without one
    it fires as bow (EXO-1.3, EXO-1.4)."""
    crew = [
        {
            "name": c.name,
            "station": c.station,
            "state": c.status,  # active, or the EXO-5.2 injury
            "repaired_round": c.repaired_round,  # EXO-6.2: busy the round after
            "turret": ship.weapon_label(c.turret - 1) if 0 < c.turret <= len(ship.weapons) else None,
            "damage": c.damage,  # EXO-5.3
        }
        for c in ship.crew
    ]
    weapons: list[dict[str, Any]] = []
    for i, w in enumerate(ship.weapons):
        gunner = turret_handler(ship.weapons, ship.crew, i)
        state = "beyond_repair" if w.beyond_repair else "disabled" if w.disabled else "ok"
        weapons.append(
            {
                "weapon": ship.weapon_label(i),
                "mount": w.mount.value,
                "side": w.side or None,
                "state": state,
                "gunner": gunner.name if gunner is not None else None,
                "sections": sorted(coverage(w, manned=gunner is not None)),
            }
        )
    return {"manta": ship.manta, "small": ship.small, "crew": crew, "weapons": weapons}


@register
class ExoRuleset(Ruleset):
    id = "exo"
    facing = FacingKind.SIDE
    order_mode = OrderMode.SIMULTANEOUS
    phases: ClassVar[tuple[PhaseSpec, ...]] = (
        PhaseSpec("1", takes_orders=True, secret=True),
        PhaseSpec("2"),
        PhaseSpec("3"),
        PhaseSpec("4"),
        PhaseSpec("5", takes_orders=True, secret=True),  # repairs and station changes, after the damage
    )
    unit_keys = SHIP_KEYS
    unbounded_by_default = True
    fixed_stats = frozenset(
        {"crew", "weapons", "vector"}
    )  # crew and weapons have their own rules; vector moves

    # --- orders -------------------------------------------------------------------------------------------
    def parse_order(self, state: EncounterState, unit_id: str, raw: Any) -> Order:
        if state.pending is not None and state.pending.kind == "pilot_change":
            table = cast(Mapping[str, Any], raw) if isinstance(raw, Mapping) else {"pilot_change": raw}
            value: Any = table.get("pilot_change", table.get("moves"))
            return PilotChange(unit=unit_id, moves=parse_moves(unit_id, value, key="pilot_change"))
        if ext_of(state.ext).step == CREW_STEP and state.phase in ("", "1"):
            value = cast(Mapping[str, Any], raw).get("crew_rolls", []) if isinstance(raw, Mapping) else raw
            return parse_crew_rolls(unit_id, value)
        return parse_ship_orders(unit_id, raw)

    def validate_order(self, state: EncounterState, actor: str, order: Order) -> None:
        ship = state.unit_as(order.unit, Ship)
        if ship.destroyed:
            raise IllegalOrderError(
                f"{ship.name} is destroyed.", code="exo.destroyed", rule="EXO-5.1", params={"unit": ship.id}
            )
        if isinstance(order, CrewRolls):
            check_crew_rolls(state, ship, order)
        elif isinstance(order, ShipOrders):
            if state.phase == "5" and (order.move or order.fire or order.pilot_change is not None):
                raise IllegalOrderError(
                    f"{ship.name}: phase 5 takes only repairs and station changes.",
                    code="exo.phase5_only_repairs",
                    rule="EXO-6.1",
                    params={"unit": ship.id},
                )
            check_ship_orders(state, ship, order)
        elif isinstance(order, PilotChange):
            self._check_pilot_change(state, ship, order)
        else:
            raise InvalidOrderError(
                f"{ship.name}: not an exo order.", code="exo.orders_syntax", params={"unit": ship.id}
            )

    def _check_pilot_change(self, state: EncounterState, ship: Ship, order: PilotChange) -> None:
        pending = state.pending
        if pending is None or pending.kind != "pilot_change" or pending.unit != ship.id:
            raise IllegalOrderError(
                f"{ship.name}: no piloting critical is waiting for a change.",
                code="exo.no_pilot_change",
                rule="EXO-4.1",
                params={"unit": ship.id},
            )
        if (order.moves or EMPTY_MOVES) not in pending.options:
            raise IllegalOrderError(
                f"{ship.name}: {order.moves!r} is not one letter replaced or deleted.",
                code="exo.pilot_change",
                rule="EXO-4.1",
                params={"unit": ship.id, "change": order.moves},
            )
        check_moves(ship, order.moves, what="orders in pilot_change")

    def awaiting(self, state: EncounterState) -> tuple[str, ...]:
        if state.over:
            return ()
        if state.pending is not None:
            return (state.pending.unit,)
        if state.phase == "5":
            return self._repair_crews(state)
        if state.phase not in ("", "1"):
            return ()
        ships = [u for u in state.units.values() if isinstance(u, Ship) and u.active]
        if ext_of(state.ext).step == CREW_STEP:
            from rules.exo.crew import station_one

            return tuple(
                s.id
                for s in ships
                if any(station_one(s.crew, st, state.round) for st in ("captain", "engineer", "navigator"))
            )
        return tuple(s.id for s in ships)

    def optional_orders(self, state: EncounterState) -> bool:
        return state.phase == "5" and state.pending is None  # no repairs declared: none are tried (EXO-6.1)

    @staticmethod
    def _repair_crews(state: EncounterState) -> tuple[str, ...]:
        """Phase 5 (EXO-6.1): "tras comprobar si la nave sobrevive" the crew decides its repairs and station
        changes, knowing this round's damage. A ship is asked when it has something to repair and someone on
        their feet to try, unless its round orders already declared repairs (scenario files and scripts declare
        them with the round's orders)."""
        ext = ext_of(state.ext)
        asked: list[str] = []
        for unit in state.units.values():
            if not isinstance(unit, Ship) or not unit.active:
                continue
            declared = ext.locked.get(unit.id)
            if declared is not None and declared.repairs:
                continue
            if repair_work(unit) and any(not c.down for c in unit.crew):
                asked.append(unit.id)
        return tuple(asked)

    # --- resolution ---------------------------------------------------------------------------------------
    def resolve(self, state: EncounterState, orders: Mapping[str, Order], dice: Dice) -> PhaseResult:
        state = state if state.phase else state.replace(phase="1")
        ext = ext_of(state.ext)
        phase = state.phase
        events: list[Event]
        if phase == "1" and ext.step == CREW_STEP:
            state, events = resolve_crew_step(state, orders, dice)
            return PhaseResult(state, tuple(events))
        if phase == "1":
            return self._lock_orders(state, orders)
        if phase == "2":
            ext, events = resolve_combat(state, ext, dice)
            return PhaseResult(state.replace(ext=ext, phase="3"), tuple(events))
        if phase == "3":
            return self._resolve_movement(state, ext, orders, dice)
        if phase == "4":
            state, events = resolve_damage(state, ext, dice)
            if state.over:
                events.extend(_cancelled_by_the_end(state, ext))
            return PhaseResult(state.replace(phase="5"), tuple(events))
        ext = self._phase5_declarations(state, ext, orders)
        state, events = resolve_repairs(state, ext, dice)
        return PhaseResult(state.replace(phase="1", round=state.round + 1, ext=ExoState()), tuple(events))

    @staticmethod
    def _phase5_declarations(state: EncounterState, ext: ExoState, orders: Mapping[str, Order]) -> ExoState:
        """Repairs given in phase 5 take the place of any declared with the round's orders; a station change
        given in phase 5 replaces the one declared earlier for the same crew member, the others stand."""
        locked = dict(ext.locked)
        for uid, order in orders.items():
            unit = state.units.get(uid)
            if not isinstance(order, ShipOrders) or not isinstance(unit, Ship) or not unit.active:
                continue
            declared = _lock(state, unit, order)
            base = locked.get(uid) or ShipOrders(unit=uid)
            restated = {s.by for s in declared.stations}
            stations = (*(s for s in base.stations if s.by not in restated), *declared.stations)
            locked[uid] = dataclasses.replace(base, repairs=declared.repairs, stations=stations)
        return dataclasses.replace(ext, locked=locked)

    def _lock_orders(self, state: EncounterState, orders: Mapping[str, Order]) -> PhaseResult:
        ext = ext_of(state.ext)
        locked: dict[str, ShipOrders] = {}
        events: list[Event] = []
        for unit in state.units.values():
            order = orders.get(unit.id)
            if not isinstance(unit, Ship) or not isinstance(order, ShipOrders) or not unit.active:
                continue
            check_ship_orders(state, unit, order)
            locked[unit.id] = _lock(state, unit, order)
            events.append(OrdersLocked(rule="EXO-2.3", unit=unit.id))
        ext = dataclasses.replace(ext, step=ORDERS_STEP, locked=locked)
        return PhaseResult(state.replace(ext=ext, phase="2"), tuple(events))

    def _resolve_movement(
        self, state: EncounterState, ext: ExoState, orders: Mapping[str, Order], dice: Dice
    ) -> PhaseResult:
        events: list[Event] = []
        if state.pending is None:
            ext, events = roll_piloting(state, ext, dice)
        else:
            answer = orders.get(state.pending.unit)
            ship = state.unit_as(state.pending.unit, Ship)
            moves = answer.moves if isinstance(answer, PilotChange) else ext.piloting[ship.id].executed
            if isinstance(answer, PilotChange):
                self._check_pilot_change(state, ship, answer)
            ext, events = answer_decision(state, ext, ship.id, moves)
        decision = next_decision(state, ext)
        if decision is not None:
            return PhaseResult(state.replace(ext=ext, pending=decision), tuple(events), decision)
        state, moved = execute_movement(state.replace(ext=ext, pending=None), ext)
        return PhaseResult(state.replace(phase="4"), (*events, *moved))

    # --- scenario files and offline simulation ------------------------------------------------------------
    def build_unit(
        self, raw: Mapping[str, Any], common: Unit, path: str, ctx: ScenarioContext
    ) -> Unit | None:
        return build_exo_unit(raw, common, path, ctx)

    def setup(self, state: EncounterState) -> EncounterState:
        """EXO-1.3: a broadside weapon without a side gets one from a d10 (even port, odd starboard), recorded.

        DICE-1: like every die, the d10 takes the scenario's scripted dice first; what is left of the script is
        carried to round 1."""
        dice = Dice(phase_seed(state.seed, 0, "setup"), state.dice_script)
        events: list[Event] = []
        changed: list[Unit] = []
        for unit in state.units.values():
            if not isinstance(unit, Ship):
                continue
            weapons = list(unit.weapons)
            for i, w in enumerate(weapons):
                if w.mount is Mount.BROADSIDE and not w.side:
                    roll = dice.d10(
                        rule="EXO-1.3", purpose=f"EXO-1.3 broadside side, {unit.name} {w.code}#{i + 1}"
                    )
                    side = PORT if roll.total % 2 == 0 else STARBOARD
                    weapons[i] = w.with_side(side)
                    events.append(
                        RollMade.of(
                            roll, actor=unit.id, purpose_key="exo.broadside", weapon=f"{w.code}#{i + 1}"
                        )
                    )
                    events.append(
                        BroadsideSideRolled(
                            rule="EXO-1.3", unit=unit.id, weapon=f"{weapons[i].code}#{i + 1}", side=side
                        )
                    )
            if weapons != list(unit.weapons):
                changed.append(dataclasses.replace(unit, weapons=tuple(weapons)))
        return state.with_units(changed).replace(
            phase="1", ext=ExoState(setup_events=tuple(events)), dice_script=dice.script_left
        )

    def check_round(self, spec: RoundSpec, state: EncounterState, path: str, ctx: ScenarioContext) -> None:
        orders = spec.raw.get("orders", {})
        if not isinstance(orders, Mapping):
            ctx.error(f"{path}.orders", "problem.exo.orders_table")
            return
        for uid, raw in cast(Mapping[str, Any], orders).items():
            where = f"{path}.orders.{uid}"
            unit = state.units.get(uid)
            if not isinstance(unit, Ship):
                ctx.error(where, "problem.exo.not_a_ship", unit=uid)
                continue
            try:
                if isinstance(raw, Mapping):
                    table = cast(Mapping[str, Any], raw)
                    parse_crew_rolls(uid, table.get("crew_rolls", []))
                    parsed = parse_ship_orders(uid, {k: v for k, v in table.items() if k != "crew_rolls"})
                else:
                    parsed = parse_ship_orders(uid, raw)
            except InvalidOrderError as exc:
                ctx.error_from(where, exc)
                continue
            _check_references(parsed, unit, state, where, ctx)

    def simulate_round(
        self, state: EncounterState, spec: RoundSpec, dice_for: DiceFactory
    ) -> Iterator[SimStep]:
        raw_orders = cast(Mapping[str, Any], spec.raw.get("orders", {}))
        rnd = state.round
        crew_orders: dict[str, Order] = {}
        ship_orders: dict[str, Order] = {}
        for uid, raw in raw_orders.items():
            table = cast(Mapping[str, Any], raw) if isinstance(raw, Mapping) else {"move": raw}
            if table.get("crew_rolls"):
                crew_orders[uid] = parse_crew_rolls(uid, table["crew_rolls"])
            ship_orders[uid] = parse_ship_orders(uid, {k: v for k, v in table.items() if k != "crew_rolls"})
        # Phase 1: the open crew step, then the secret orders validated against the Manta it set.
        skipped: list[Event] = []
        crew_orders = _playable(state, crew_orders, skipped)
        ship_orders = _playable(state, ship_orders, skipped)
        for uid, order in crew_orders.items():
            self.validate_order(state, uid, order)
        composed = ruleset_for(state)
        first = resolve_phase(composed, state, crew_orders, dice_for=dice_for)
        for uid, order in ship_orders.items():
            self.validate_order(first.state, uid, order)
        second = resolve_phase(composed, first.state, ship_orders, dice_for=dice_for)
        state = second.state
        yield SimStep(rnd, "1", state, (*skipped, *first.events, *second.events))
        for phase in ("2", "3", "4", "5"):
            result = resolve_phase(composed, state, {}, dice_for=dice_for)
            events = list(result.events)
            # EXO-4.1: offline, a critical without pilot_change in the orders keeps the written orders.
            while result.pending is not None:
                answer = PilotChange(
                    unit=result.pending.unit, moves=result.pending.default.replace(EMPTY_MOVES, "")
                )
                result = resolve_phase(composed, result.state, {answer.unit: answer}, dice_for=dice_for)
                events.extend(result.events)
            state = result.state
            yield SimStep(rnd, phase, state, tuple(events))
            if state.over:
                return

    # --- pictures ------------------------------------------------------------------------------------------
    def firing_arcs(self, state: EncounterState, unit_id: str) -> Mapping[str, frozenset[Hex]]:
        """EXO-1.4: each section's hexes within the ship's longest usable weapon range."""
        if not isinstance(state.units.get(unit_id), Ship):
            return {}
        return {name: frozenset(hexes) for name, hexes in arcs(state, unit_id).items()}

    def arc_weapons(self, state: EncounterState, unit_id: str) -> Mapping[str, str]:
        """EXO-1.3: each usable weapon by its 1-based place, labelled ``"Pl(D)#2"``."""
        ship = state.units.get(unit_id)
        if not isinstance(ship, Ship):
            return {}
        return {str(i + 1): ship.weapon_label(i) for i, w in enumerate(ship.weapons) if w.usable}

    def arc_weapon(self, state: EncounterState, unit_id: str, typed: str) -> str | None:
        """Also the scenario's EXO-1.3 notation: ``Lx2`` names the first usable ``L`` (``"L#2"``)."""
        found = super().arc_weapon(state, unit_id, typed)
        if found is not None:
            return found
        try:
            codes = {w.code for w in parse_weapon(typed.strip())}
        except InvalidOrderError:
            return None
        labels = self.arc_weapons(state, unit_id).items()
        return next((key for key, label in labels if label.rsplit("#", 1)[0] in codes), None)

    def weapon_reach(
        self, state: EncounterState, unit_id: str, weapon: str | None
    ) -> tuple[Mapping[str, frozenset[Hex]], tuple[RangeBand, ...]]:
        """EXO-1.4, EXO-3.4: the sections the weapon covers, out to its maximum range, and its bands."""
        if weapon is None or weapon not in self.arc_weapons(state, unit_id):
            return self.firing_arcs(state, unit_id), ()
        found, bands = weapon_reach(state, unit_id, int(weapon))
        return {name: frozenset(hexes) for name, hexes in found.items()}, bands

    def reachable(self, state: EncounterState, unit_id: str) -> frozenset[Hex]:
        ship = state.units.get(unit_id)
        if not isinstance(ship, Ship) or ship.at is None or ship.destroyed:
            return frozenset()
        return reachable(state, unit_id)

    def rulings(self) -> Mapping[str, Ruling]:
        """EXO-4.5: collision, docking and boarding are the director's to rule (rules/exo/rulings.py)."""
        return RULINGS

    # --- the director's hand ---------------------------------------------------------------------------------
    def check_placement(self, state: EncounterState, unit: Unit, to: Hex) -> None:
        """EXO-4.4: space has no edge, so only a scenario's bounded board limits where a ship goes; EXO-4.5: ships,
        debris and asteroids may share a hex (the director rules what follows), so no hex is refused for that."""
        super().check_placement(state, unit, to)

    def place(self, state: EncounterState, unit: Unit, to: Hex, facing: int | None) -> Unit:
        """EXO-1.1: a ship keeps its velocity, so its vector moves by the same displacement."""
        placed = super().place(state, unit, to, facing)
        if isinstance(unit, Ship) and unit.vector is not None and unit.at is not None:
            placed = replace_unit(placed, vector=to + (unit.vector - unit.at))
        return placed

    def damage_by_hand(
        self, state: EncounterState, unit_id: str, amount: str
    ) -> tuple[EncounterState, tuple[Event, ...]]:
        """Armour first, then structure (EXO-3.5 order); structure 0 destroys the ship."""
        unit = state.unit(unit_id)
        if not isinstance(unit, Ship):
            return super().damage_by_hand(state, unit_id, amount)
        left = positive_amount(amount)
        absorbed = min(unit.armor, left)
        structure = max(0, unit.structure - (left - absorbed))
        hit = replace_unit(
            unit, armor=unit.armor - absorbed, structure=structure, destroyed=unit.destroyed or structure == 0
        )
        return state.with_units([hit]), damage_events(unit, hit, left)

    def unit_summary(self, unit: Unit) -> dict[str, Any]:
        base: dict[str, Any] = {
            "at": unit.at.label if unit.at else None,
            "facing": HexSide(unit.facing).name,
            "kind": unit.kind,
        }
        if isinstance(unit, Ship):
            base.update(
                vector=unit.vector.label if unit.vector else None,
                maneuverability=unit.maneuverability,
                engines=unit.engines,
                armor=unit.armor,
                structure=unit.structure,
                cabin=unit.cabin,
                cargo=unit.cargo,
                **ship_details(unit),
            )
        elif isinstance(unit, SpaceObject):
            base["vector"] = unit.vector.label if unit.vector else None
        base["destroyed"] = unit.destroyed
        return base


def _check_references(
    orders: ShipOrders, ship: Ship, state: EncounterState, where: str, ctx: ScenarioContext
) -> None:
    """What a scripted round names must exist: the crew member or station that fires or repairs, the weapon
    (1-based, EXO-2.4) and the target ship, so ``validate`` reports it instead of ``sim`` failing later."""
    crew_names = sorted(c.name for c in ship.crew)

    def check_crew(ref: str, at: str) -> None:
        if resolve_crew_ref(ship.crew, ref, 1) is not None or find_crew(ship.crew, ref) is not None:
            return
        hint = did_you_mean(ref, crew_names)
        ctx.error(at, "problem.exo.not_crew", crew=ref, ship=ship.id, hint=hint, known=", ".join(crew_names))

    others = sorted(u for u in state.units if u != ship.id)
    for i, shot in enumerate(orders.fire):
        spot = f"{where}.fire[{i}]"
        check_crew(shot.by, f"{spot}.by")
        if not 1 <= shot.weapon <= len(ship.weapons):
            count = len(ship.weapons)
            ctx.error(
                f"{spot}.weapon", "problem.exo.weapon_number", ship=ship.id, count=count, weapon=shot.weapon
            )
        if shot.target not in others:
            hint = did_you_mean(shot.target, others)
            ctx.error(
                f"{spot}.target", "problem.exo.target", target=shot.target, hint=hint, known=", ".join(others)
            )
    for i, repair in enumerate(orders.repairs):
        check_crew(repair.by, f"{where}.repairs[{i}].by")

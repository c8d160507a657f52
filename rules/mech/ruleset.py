"""The ``mech`` ruleset (RULES.md §3.1 MECH-1.1 … MECH-5): BattleMechs, vehicles and air units, declarations
made one at a time by initiative (lowest first), each public when locked (or secret, all revealed together),
then the turn resolved at once.

A turn, as the bot drives it (``OrderMode.SEQUENTIAL_OPEN``):

1. ``initiative`` — automatic: every unit rolls 2d6 + Initiative + tactics (MECH-1.1).
2. ``declare`` — ``awaiting`` names exactly one unit, the next declarer; ``resolve(state, {unit: order}, dice)``
   locks its declaration (``DeclarationLocked``) and rolls its Gunnery and Piloting 2d6 (MECH-2.1a, unless the
   [HOUSE] ``rolls = "weapon"``). A missing declaration (deadline, the director) locks standing still (a fighter
   flies straight on at cruise, MECH-5). After the last one the phase moves on.
3. ``resolve`` — automatic: movement, fire, physical attacks, heat (MECH-4); then the next turn's initiative.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from itertools import pairwise
from typing import TYPE_CHECKING, Any, ClassVar

from rules.dice import Dice
from rules.errors import IllegalOrderError, InvalidOrderError
from rules.events import Event, Note, RollMade
from rules.hexgrid import Hex, HexSide
from rules.mech import scenario_io, sim
from rules.mech.by_hand import SECTION_OF_LOC, air_target_arcs, arcs_by_mount, by_hand_damage
from rules.mech.events import (
    DeclarationLocked,
    DeclarationOrder,
    InitiativeRolled,
    InitiativeTie,
    PhysicalAttackMade,
    WeaponFired,
)
from rules.mech.geometry import sight
from rules.mech.legality import check_declaration
from rules.mech.model import MECH as MECH_KIND
from rules.mech.model import Mech
from rules.mech.movement import cruise_order, mp_available, out_of_control_order, path_cost, step_problem
from rules.mech.orders import CRUISE, JUMP, WALK, ForcedStand, MechOrder, parse_order, stand_order
from rules.mech.resolution import resolve_turn
from rules.mech.rolls import roll_declaration
from rules.mech.state import (
    DECLARE,
    INITIATIVE,
    RESOLVE,
    ROLLS_PER_WEAPON,
    SECRET_DECLARATIONS,
    MechState,
    ext_of,
    per_weapon,
    secret,
)
from rules.mech.tables import tables
from rules.placement import impassable, occupied
from rules.registry import register, ruleset_for
from rules.ruleset import (
    DiceFactory,
    FacingKind,
    MoveIntent,
    Order,
    OrderMode,
    PhaseResult,
    PhaseSpec,
    RangeBand,
    RoundSpec,
    Ruleset,
    SimStep,
)
from rules.state import Board, EncounterState, Unit

if TYPE_CHECKING:
    from rules.scenario import ScenarioContext


def declarers(state: EncounterState) -> tuple[str, ...]:
    """Units still to declare this turn, in order (MECH-1.1): on the board, not shut down (a shut-down unit
    does nothing, MECH-3.2)."""
    ext = ext_of(state)
    done = ext.declared
    out: list[str] = []
    for uid in ext.order:
        unit = state.units.get(uid)
        if isinstance(unit, Mech) and unit.active and not unit.shutdown and uid not in done:
            out.append(uid)
    return tuple(out)


def reenter(state: EncounterState) -> tuple[EncounterState, list[Event]]:
    """MECH-5 [HOUSE]: a fighter that flew off the board comes back, before the turn's initiative, on the hex it
    left from, facing back in; if another unit holds that hex it stays off one more turn."""
    events: list[Event] = []
    back: list[Unit] = []
    held = {u.at for u in state.units.values() if isinstance(u, Mech) and u.active}
    for unit in state.units.values():
        if not isinstance(unit, Mech) or unit.destroyed or unit.at is not None or unit.off_board is None:
            continue
        if unit.off_board in held:
            continue
        held.add(unit.off_board)
        back.append(dataclasses.replace(unit, at=unit.off_board, off_board=None))
        events.append(
            Note(rule="MECH-5", key="mech.reentered", unit=unit.id, args=(("at", unit.off_board.label),))
        )
    return (state.with_units(back) if back else state), events


def stand_in(state: EncounterState, uid: str) -> MechOrder:
    """What a missing declaration locks (the deadline passed, or the director resolved): standing still; a fighter,
    which cannot stand still (MECH-5), flies straight on at cruise speed as far as the rules let it."""
    unit = state.unit_as(uid, Mech)
    if not unit.is_fighter:
        return stand_order(uid)
    full = cruise_order(state.board, unit)
    for n in range(len(full.path), 0, -1):
        order = dataclasses.replace(full, path=full.path[:n])
        try:
            check_declaration(state, order)
        except IllegalOrderError:
            continue
        return order
    return stand_order(uid)  # boxed in: it keeps its hex this turn [HOUSE]


def roll_initiative(state: EncounterState, dice: Dice) -> tuple[EncounterState, list[Event]]:
    """MECH-1.1: every unit on the board, in file order, rolls 2d6 + Initiative + tactics. Declarations go from
    the lowest total to the highest; ties: the higher Initiative attribute counts as higher, then file order
    (earlier = lower)."""
    state, events = reenter(state)
    totals: dict[str, int] = {}
    keys: list[tuple[int, int, int, str]] = []
    for index, unit in enumerate(state.units.values()):
        if not isinstance(unit, Mech) or not unit.active:
            continue
        roll = dice.two_d6(rule="MECH-1.1", purpose=f"MECH-1.1 initiative, {unit.name}")
        total = roll.total + unit.initiative + unit.tactics
        totals[unit.id] = total
        keys.append((total, unit.initiative, index, unit.id))
        events.append(RollMade.of(roll, actor=unit.id, total=total))
        events.append(
            InitiativeRolled(
                rule="MECH-1.1",
                unit=unit.id,
                initiative=total,
                roll=roll.total,
                attribute=unit.initiative,
                tactics=unit.tactics,
            )
        )
    ranked = sorted(keys)
    events.extend(_ties(ranked))
    order = tuple(uid for *_, uid in ranked)
    events.append(DeclarationOrder(rule="MECH-1.1", units=order))
    turn_secret = bool(state.option(SECRET_DECLARATIONS, False))  # fixed for the turn (MECH-1.1)
    turn_per_weapon = bool(state.option(ROLLS_PER_WEAPON, False))  # and so is how it rolls (MECH-2.1a)
    state = state.replace(
        phase=DECLARE,
        ext=MechState(initiative=totals, order=order, secret=turn_secret, per_weapon=turn_per_weapon),
    )
    if not declarers(state):
        state = state.replace(phase=RESOLVE)
    return state, events


def _ties(ranked: list[tuple[int, int, int, str]]) -> list[Event]:
    """MECH-1.1: how each tie in the ranked totals (lowest first) was broken, one line per pair of neighbours
    with the same total, so the order of declarations never rests on an unexplained choice."""
    out: list[Event] = []
    for (total, attribute, _, lower), (other_total, other_attribute, _, higher) in pairwise(ranked):
        if total == other_total:
            by = "attribute" if attribute != other_attribute else "file_order"
            out.append(
                InitiativeTie(rule="MECH-1.1", key=f"mech.tie.{by}", unit=lower, other=higher, total=total)
            )
    return out


def declaration_event(state: EncounterState, order: MechOrder) -> DeclarationLocked:
    """``DeclarationLocked``: with its content when declarations are open, only the unit when secret."""
    if isinstance(order, ForcedStand):  # the director's doing, never told as the player's declaration
        key = "mech.declared_secret_forced" if secret(state) else "mech.declared_forced"
        return DeclarationLocked(rule="MECH-1.1", key=key, unit=order.unit)
    if secret(state):
        return DeclarationLocked(rule="MECH-1.1", key="mech.declared_secret", unit=order.unit)
    raw = order.to_raw()
    fire_text = ", ".join(f"#{f['weapon']}→{f['target']}" for f in raw["fire"])
    physical_text = ", ".join(
        f"{p['kind']}{'/' + p['limb'] if p.get('limb') else ''}→{p['target']}" for p in raw["physical"]
    )
    args: tuple[tuple[str, Any], ...] = (
        ("mode", raw["mode"]),
        ("path", order.path),
        ("facing", raw.get("facing", "")),
        ("twist", raw.get("twist", "")),
        ("fire", raw["fire"]),
        ("physical", raw["physical"]),
        ("fire_text", fire_text or "—"),
        ("physical_text", physical_text or "—"),
        # the same with the targets' names, as the channel reads it (the ids above stay for sim --json readers)
        ("fire_named", _named(state, fire_text) or "—"),
        ("physical_named", _named(state, physical_text) or "—"),
        # each shot as (weapon number, weapon type, target): the account names the weapon, not its number
        ("shots", _shots(state, order.unit, raw["fire"])),
    )
    return DeclarationLocked(rule="MECH-1.2", key="mech.declared", unit=order.unit, args=args)


def _shots(state: EncounterState, unit_id: str, fire: Any) -> tuple[tuple[int, str, str], ...]:
    weapons = state.unit_as(unit_id, Mech).weapons
    shots: list[tuple[int, str, str]] = []
    for f in fire:
        n, target = int(f["weapon"]), str(f["target"])
        shots.append((n, weapons[n - 1].type if 0 < n <= len(weapons) else "", target))
    return tuple(shots)


def _named(state: EncounterState, text: str) -> str:
    """``#1→wolverine`` with each target id replaced by the unit's name."""
    return ", ".join(
        f"{head}→{state.units[tid].name}" if tid in state.units else part
        for part in filter(None, text.split(", "))
        for head, _, tid in (part.rpartition("→"),)
    )


@register
class MechRuleset(Ruleset):
    id: ClassVar[str] = "mech"
    facing: ClassVar[FacingKind] = FacingKind.SIDE
    order_mode: ClassVar[OrderMode] = OrderMode.SEQUENTIAL_OPEN
    phases: ClassVar[tuple[PhaseSpec, ...]] = (
        PhaseSpec(INITIATIVE),
        PhaseSpec(DECLARE, takes_orders=True),
        PhaseSpec(RESOLVE),
    )
    unit_keys: ClassVar[frozenset[str]] = scenario_io.UNIT_KEYS
    board_keys: ClassVar[frozenset[str]] = scenario_io.BOARD_KEYS
    option_keys: ClassVar[frozenset[str]] = scenario_io.OPTION_KEYS
    top_keys: ClassVar[frozenset[str]] = scenario_io.TOP_KEYS

    # --- orders ------------------------------------------------------------------------------------------
    def parse_order(self, state: EncounterState, unit_id: str, raw: Any) -> Order:
        unit = state.unit_as(unit_id, Mech)
        return parse_order(unit_id, raw, vehicle=not unit.is_mech)

    def validate_order(self, state: EncounterState, actor: str, order: Order) -> None:
        if not isinstance(order, MechOrder):
            raise InvalidOrderError(
                f"{actor}: not a mech declaration", code="mech.syntax", params={"unit": actor}
            )
        unit = state.unit_as(order.unit, Mech)
        waiting = self.awaiting(state)
        if state.phase != DECLARE or order.unit not in waiting:
            now = state.units[waiting[0]].name if waiting else "nobody"
            raise IllegalOrderError(
                f"{unit.name}: it is not its turn to declare (now: {now})",
                code="mech.not_your_turn",
                rule="MECH-1.1",
                params={"unit": unit.id, "name": unit.name, "now": now},
            )
        check_declaration(state, order)

    def awaiting(self, state: EncounterState) -> tuple[str, ...]:
        """Exactly one unit while declarations are open: the next declarer, lowest initiative first."""
        if state.over or state.phase != DECLARE:
            return ()
        return declarers(state)[:1]

    def turn_of_play(self, before: EncounterState, events: tuple[Event, ...]) -> str | None:
        """MECH-1.1: a turn (initiative, the declarations from lowest to highest, their resolution) is one turn
        of play."""
        return str(before.round)

    # --- resolution ---------------------------------------------------------------------------------------
    def resolve(self, state: EncounterState, orders: Mapping[str, Order], dice: Dice) -> PhaseResult:
        if state.over:
            return PhaseResult(state, ())
        phase = state.phase or INITIATIVE
        if phase == INITIATIVE:
            state, events = roll_initiative(state.replace(phase=INITIATIVE), dice)
            return PhaseResult(state, tuple(events))
        if phase == DECLARE:
            return self._lock(state, orders, dice)
        state, events = resolve_turn(state, dice)
        return PhaseResult(state, tuple(events))

    def _lock(self, state: EncounterState, orders: Mapping[str, Order], dice: Dice) -> PhaseResult:
        waiting = self.awaiting(state)
        if not waiting:
            return PhaseResult(state.replace(phase=RESOLVE), ())
        uid = waiting[0]
        order = orders.get(uid)
        standing_in = order is None
        if order is None:
            order = stand_in(state, uid)  # the deadline passed or the director resolved
        if not isinstance(order, MechOrder) or order.unit != uid:
            raise InvalidOrderError(
                f"{uid}: not a mech declaration", code="mech.syntax", params={"unit": uid}
            )
        unit = state.unit_as(uid, Mech)
        if not (standing_in and unit.is_fighter):
            check_declaration(state, order)
        if unit.is_fighter and unit.out_of_control:
            # MECH-5 [HOUSE]: out of control, it flies straight on at flank speed and fires nothing (the move
            # stops short where the board is held, as any move does when the turn resolves)
            order = out_of_control_order(state.board, unit)
        ext = ext_of(state)
        ext = dataclasses.replace(ext, locked=(*ext.locked, order))
        events: list[Event] = [declaration_event(state, order)]
        if not per_weapon(state):
            rolls, rolled = roll_declaration(state, uid, dice)
            ext = dataclasses.replace(ext, rolls={**ext.rolls, uid: rolls})
            events.extend(rolled)
        state = state.replace(ext=ext)
        if not declarers(state):
            state = state.replace(phase=RESOLVE)
        return PhaseResult(state, tuple(events))

    def stand_in(self, state: EncounterState, unit_id: str) -> Order | None:
        """MECH-1.1: the declarer whose player gave none stands still, told as forced by the director."""
        if state.phase == DECLARE and declarers(state)[:1] == (unit_id,):
            return ForcedStand(unit=unit_id)
        return super().stand_in(state, unit_id)

    # --- the director's hand, pictures ----------------------------------------------------------------------
    def director_switches(self) -> tuple[str, ...]:
        """MECH-1.1: the director may switch an encounter to secret declarations (all revealed together);
        MECH-2.1a [HOUSE]: to a roll per shot and per physical attack instead of one pair per declaration."""
        return (SECRET_DECLARATIONS, ROLLS_PER_WEAPON)

    def damage_locations(self, state: EncounterState, unit_id: str) -> tuple[str, ...]:
        unit = state.units.get(unit_id)
        return unit.locations if isinstance(unit, Mech) else ()

    def check_placement(self, state: EncounterState, unit: Unit, to: Hex) -> None:
        """MECH-1.2: a unit never ends in a hex another unit holds, and a vehicle only on terrain vehicles may
        enter (the terrain table's ``vehicles``)."""
        super().check_placement(state, unit, to)
        kind = state.board.terrain_at(to)
        if isinstance(unit, Mech) and not unit.is_mech and not tables().terrain_kind(kind).vehicles:
            raise impassable(to, kind or "clear", "MECH-1.2")
        for other in state.units.values():
            if other.id != unit.id and other.at == to and not other.destroyed:
                raise occupied(to, other, "MECH-1.2")

    def damage_by_hand(
        self, state: EncounterState, unit_id: str, amount: str
    ) -> tuple[EncounterState, tuple[Event, ...]]:
        """MECH-2.3 by hand: ``"ct 5"`` (a location and an amount, either order) goes on that location's armour,
        then its structure, then inward, as a hit would (``damage.apply_damage``)."""
        unit = state.units.get(unit_id)
        if not isinstance(unit, Mech):
            return super().damage_by_hand(state, unit_id, amount)
        return by_hand_damage(state, unit, amount)

    def firing_arcs(self, state: EncounterState, unit_id: str) -> Mapping[str, frozenset[Hex]]:
        """MECH-1.3: each mount's arc (front, left arm, right arm, rear; a vehicle's hull sides and turret) from
        the torso as it stands, out to the longest range of the weapons mounted there; for a fighter (MECH-5) also
        its air-target arcs, ``air_front`` and ``air_side``."""
        unit = state.units.get(unit_id)
        if not isinstance(unit, Mech) or not unit.active:
            return {}
        if unit.is_fighter:  # MECH-5: and where a shot at it is +2 (its front) or +4 (its sides)
            return {**arcs_by_mount(state, unit), **air_target_arcs(state, unit)}
        return arcs_by_mount(state, unit)

    def arc_weapons(self, state: EncounterState, unit_id: str) -> Mapping[str, str]:
        """Each usable weapon by its 1-based place (the number a declaration fires), labelled ``"#2 medium_laser"``."""
        unit = state.units.get(unit_id)
        if not isinstance(unit, Mech) or not unit.active:
            return {}
        return {str(i + 1): f"#{i + 1} {w.type}" for i, w in enumerate(unit.weapons) if unit.weapon_usable(i)}

    def weapon_reach(
        self, state: EncounterState, unit_id: str, weapon: str | None
    ) -> tuple[Mapping[str, frozenset[Hex]], tuple[RangeBand, ...]]:
        """MECH-1.3, MECH-2.1: the mount's arc the weapon fires into, out to its long range, and its short, medium
        and long bands (data/mech/weapons.toml; a hex inside the minimum range is in the short band, MECH-2.1)."""
        if weapon is None or weapon not in self.arc_weapons(state, unit_id):
            return self.firing_arcs(state, unit_id), ()
        unit = state.unit_as(unit_id, Mech)
        index = int(weapon) - 1
        w = unit.weapons[index]
        section = ("rear" if w.rear else SECTION_OF_LOC.get(w.loc, "front")) if unit.is_mech else w.loc
        spec = w.spec
        arcs = arcs_by_mount(state, unit, only=index)
        bands = tuple(
            RangeBand(name, first, last)
            for name, first, last in (
                ("short", 1, spec.short),
                ("medium", spec.short + 1, spec.medium),
                ("long", spec.medium + 1, spec.long),
            )
            if first <= last
        )
        return {section: arcs.get(section, frozenset())}, bands

    # --- scenario files ----------------------------------------------------------------------------------
    def build_unit(
        self, raw: Mapping[str, Any], common: Unit, path: str, ctx: ScenarioContext
    ) -> Unit | None:
        return scenario_io.build_mech(raw, common, path, ctx)

    def read_board(self, raw: Mapping[str, Any], board: Board, ctx: ScenarioContext) -> Board:
        return scenario_io.read_elevation(raw, board, ctx)

    def read_top(self, raw: Mapping[str, Any], state: EncounterState, ctx: ScenarioContext) -> EncounterState:
        return scenario_io.read_rolls(raw, state, ctx)

    def check_state(self, state: EncounterState, ctx: ScenarioContext) -> None:
        scenario_io.check_mechs(state, ctx)

    def check_round(self, spec: RoundSpec, state: EncounterState, path: str, ctx: ScenarioContext) -> None:
        scenario_io.check_round(self, spec, state, path, ctx)

    def setup(self, state: EncounterState) -> EncounterState:
        return state.replace(phase=INITIATIVE, ext=MechState())

    # --- a layer's straying (NGT-5: checked when a moving declaration is locked) and gunflashes (NGT-4) ------
    def attackers(self, events: tuple[Event, ...]) -> frozenset[str]:
        return frozenset(e.unit for e in events if isinstance(e, WeaponFired | PhysicalAttackMade))

    def sees_hex(self, state: EncounterState, unit_id: str, target: Hex) -> bool:
        """MECH-2.1 line of sight (elevation; a mech's height) from the unit to a mech-sized piece on ``target``."""
        unit = state.units.get(unit_id)
        if unit is None or unit.at is None:
            return False
        return unit.at == target or sight(state.board, unit.at, unit.kind, target, MECH_KIND).clear

    def public_event(self, event: Event, seen: frozenset[str], known: frozenset[str]) -> Event | None:
        """A secret declaration's MECH-2.1a rolls stay sealed until the reveal: nobody but the director reads
        them before (the reveal shows them with the declaration)."""
        if isinstance(event, RollMade) and event.get("sealed"):
            return None
        return super().public_event(event, seen, known)

    def order_targets(self, state: EncounterState, order: Order) -> tuple[str, ...]:
        if not isinstance(order, MechOrder):
            return ()
        return tuple(dict.fromkeys([*(f.target for f in order.fire), *(p.target for p in order.physical)]))

    def move_intent(self, state: EncounterState, order: Order) -> MoveIntent | None:
        """A declaration with a path, judged before each hex it enters (a jump once, from where it starts); a stray
        replaces the rest of it with standing (no more move, no fire)."""
        if state.phase != DECLARE or not isinstance(order, MechOrder) or not order.moves or not order.path:
            return None
        unit = state.unit_as(order.unit, Mech)
        if unit.is_air:  # MECH-5: it flies over the dark ground and does not lose its way on it [HOUSE]
            return None
        points = mp_available(unit).get(order.mode, 0)
        return MoveIntent(
            unit=unit.id,
            points=points,
            vehicle=not unit.is_mech,
            rest=stand_order(unit.id),
            path=() if order.mode == JUMP else tuple(order.path),
        )

    def enter_cost(self, state: EncounterState, unit_id: str, frm: Hex, to: Hex) -> int | None:
        """MECH-1.2: the MP of one step (terrain, climb; turns are free to a straying unit); None off the board,
        into terrain the kind cannot enter, or into a hex another unit holds."""
        unit = state.unit_as(unit_id, Mech)
        if not state.board.contains(to) or any(u.id != unit_id for u in state.units_at(to)):
            return None
        mode = WALK if unit.is_mech else CRUISE
        cost = path_cost(state.board, unit, mode, (to,), start=frm, start_facing=frm_facing(frm, to))
        if step_problem(state.board, unit, mode, cost, frm) is not None:
            return None
        return cost.total

    def simulate_round(
        self, state: EncounterState, spec: RoundSpec, dice_for: DiceFactory
    ) -> Iterator[SimStep]:
        return sim.play_round(ruleset_for(state), state, spec, dice_for)

    def unit_summary(self, unit: Unit) -> dict[str, Any]:
        """DESIGN §7.1 ``phase_end`` fields: at, facing, torso, heat, armor, structure, destroyed, immobile,
        shutdown (plus kind and prone; a fighter's out_of_control and off_board, MECH-5)."""
        if not isinstance(unit, Mech):
            return super().unit_summary(unit)
        summary = {
            "at": unit.at.label if unit.at else None,
            "facing": HexSide(unit.facing % 6).name,
            "torso": HexSide(unit.torso).name,
            "heat": unit.heat,
            "armor": dict(unit.armor),
            "structure": dict(unit.structure),
            "destroyed": unit.destroyed,
            "immobile": unit.immobile,
            "shutdown": unit.shutdown,
            "kind": unit.kind,
            "prone": unit.prone,
        }
        if unit.is_fighter:  # MECH-5
            summary["out_of_control"] = unit.out_of_control
            summary["off_board"] = unit.off_board.label if unit.off_board else None
        return summary


def frm_facing(frm: Hex, to: Hex) -> int:
    """The hexside from ``frm`` toward ``to`` (a straying unit turns for free)."""
    return next(s for s in range(6) if frm.neighbor(s) == to)

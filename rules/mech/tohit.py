"""To-hit numbers (MECH-2.1 fire, MECH-2.2 physical attacks) with every modifier and its reason.

A modifier is data (a reason code, its value and what it was read from) so an account or an order panel can
show the sum a player can check with a pencil: ``15 + 3 (medium range, 5 hexes) + 2 (walked) = 20``. Locale
templates: ``mech.modifier.<code>``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rules.hexgrid import Hex
from rules.mech.geometry import FRONT, Sight, arc_of, sight
from rules.mech.heat import heat_to_hit
from rules.mech.model import HELICOPTER, Mech
from rules.mech.orders import FLANK, JUMP, STAND
from rules.mech.tables import Fraction, WeaponType, tables
from rules.state import Board


@dataclass(frozen=True, slots=True)
class Modifier:
    """One MECH-2.1 modifier: ``code`` names the reason (``range_medium``, ``shooter_walk``, ``woods`` ...)."""

    code: str
    value: int
    params: tuple[tuple[str, Any], ...] = ()

    def pair(self) -> tuple[str, int]:
        return self.code, self.value


@dataclass(frozen=True, slots=True)
class Motion:
    """A unit's movement this turn, as the MECH-2.1 modifiers read it. ``known`` is False while a target has
    not declared yet (its movement may still add up to +8, or +10 if it jumps)."""

    mode: str = STAND
    hexes: int = 0
    known: bool = True

    @property
    def jumped(self) -> bool:
        return self.mode == JUMP


def shooter_modifiers(mode: str, shooter: Mech | None = None) -> list[Modifier]:
    """MECH-2.1 attacker movement: walk/cruise +2, run/flank +4, jump +6; standing still none. A fighter (MECH-5,
    the seed's "cazas aeroespaciales o atmosféricos: +2 si se ha usado velocidad máxima") +2 at flank speed only."""
    if shooter is not None and shooter.is_fighter:
        value = tables().air["fighter_flank"] if mode == FLANK else 0
        return [Modifier("shooter_fighter_flank", value)] if value else []
    value = tables().shooter_modifier.get(mode, 0)
    return [Modifier(f"shooter_{mode}", value)] if value else []


def target_modifiers(target: Mech, motion: Motion) -> list[Modifier]:
    """MECH-2.1 target: immobile −8 (shut down or a destroyed leg), moved 3-4 +2 … 10+ +8, jumped +2 more."""
    tb = tables()
    out: list[Modifier] = []
    if target.shutdown or target.immobile:
        out.append(Modifier("target_immobile", tb.immobile))
    moved = tb.target_moved_modifier(motion.hexes)
    if moved:
        out.append(Modifier("target_moved", moved, (("hexes", motion.hexes),)))
    if motion.jumped:
        out.append(Modifier("target_jumped", tb.jumped))
    if target.kind == HELICOPTER:  # MECH-5: the seed's "+2 adicional si ... es un helicóptero"
        out.append(Modifier("target_helicopter", tb.air["helicopter"]))
    return out


def air_target_modifiers(shooter_at: Hex, target: Mech, target_at: Hex, target_facing: int) -> list[Modifier]:
    """MECH-5 "Blancos aéreos": a fighter is +2 to a shooter in its front arc, +4 from either side arc (MECH-1.3
    arcs of the fighter's facing; [HOUSE] its rear counts as a side)."""
    if not target.is_fighter:
        return []
    air = tables().air
    if arc_of(target_at, target_facing, shooter_at) == FRONT:
        return [Modifier("air_front", air["front"])]
    return [Modifier("air_side", air["side"])]


@dataclass(frozen=True, slots=True)
class ShotOdds:
    """The number a shot needs and why. ``band`` is None beyond long range; ``sight.clear`` False: no line."""

    distance: int
    band: str | None
    sight: Sight
    modifiers: tuple[Modifier, ...]
    target_number: int

    def need(self, skill: int) -> int:
        """What 2d6 must reach (before DICE-3: a double 1 always misses, a double 6 always hits)."""
        return self.target_number - skill


def fire_odds(
    board: Board,
    shooter: Mech,
    at: Hex,
    mode: str,
    spec: WeaponType,
    target: Mech,
    target_at: Hex,
    target_motion: Motion,
    *,
    primary: bool = True,
    seen: Sight | None = None,
    target_facing: int | None = None,
) -> ShotOdds:
    """MECH-2.1 target number of one weapon: 15 [HOUSE] + range + minimum range + shooter movement + target
    movement + woods + partial cover + secondary target + heat (MECH-3.2). ``seen``: the line of sight, when
    the caller already traced it for this pair of hexes; ``target_facing``: where a fighter target will face
    (MECH-5 air target arcs; its facing now when not given)."""
    tb = tables()
    distance = at.distance(target_at)
    band = spec.band(distance)
    if seen is None:
        seen = sight(board, at, shooter.kind, target_at, target.kind)
    mods: list[Modifier] = []
    if band is not None:
        mods.append(Modifier(f"range_{band}", tb.range_modifier[band], (("distance", distance),)))
    minimum = spec.minimum_penalty(distance)
    if minimum:
        mods.append(Modifier("minimum_range", minimum, (("minimum", spec.minimum), ("distance", distance))))
    mods.extend(shooter_modifiers(mode, shooter))
    mods.extend(target_modifiers(target, target_motion))
    facing = target.facing if target_facing is None else target_facing
    mods.extend(air_target_modifiers(at, target, target_at, facing))
    if seen.woods:
        mods.append(Modifier("woods", seen.woods * tb.woods, (("hexes", seen.woods),)))
    if seen.cover:
        mods.append(Modifier("partial_cover", tb.partial_cover))
    if not primary:
        mods.append(Modifier("secondary_target", tb.secondary_target))
    heat = heat_to_hit(shooter.heat) if shooter.keeps_heat else 0
    if heat:
        mods.append(Modifier("heat", heat, (("heat", shooter.heat),)))
    return ShotOdds(distance, band, seen, tuple(mods), tb.base + sum(m.value for m in mods))


def physical_odds(mode: str, target: Mech, target_motion: Motion) -> tuple[tuple[Modifier, ...], int]:
    """MECH-2.2: Piloting against the same difficulty and movement modifiers as fire, no range modifier."""
    mods = (*shooter_modifiers(mode), *target_modifiers(target, target_motion))
    return mods, tables().base + sum(m.value for m in mods)


def ceil_fraction(f: Fraction, *factors: int) -> int:
    """``num × factors / den`` computed exactly and rounded up once (MECH-2.2 [HOUSE])."""
    top = f.num
    for x in factors:
        top *= x
    return -(-top // f.den)


def physical_damage(kind: str, attacker: Mech, target: Mech, straight: int = 0) -> tuple[int, int]:
    """(damage to the target, damage to the attacker) of a hit, MECH-2.2: punch tonnage/10, kick and melee
    tonnage/5, charge hexes × tonnage/10 (attacker: target tonnage/10), death from above 3 × tonnage/5 (attacker:
    tonnage/5 to its legs), push none."""
    p = tables().physical
    if kind == "charge":
        return ceil_fraction(p["charge"], attacker.tonnage, straight), ceil_fraction(
            p["charge_self"], target.tonnage
        )
    if kind == "dfa":
        return ceil_fraction(p["dfa"], attacker.tonnage), ceil_fraction(p["dfa_self"], attacker.tonnage)
    if kind in ("punch", "kick", "melee"):
        return ceil_fraction(p[kind], attacker.tonnage), 0
    return 0, 0


def cluster_hits(missiles: int, roll: int) -> int:
    """MECH-2.3 / DESIGN §7.1: max(1, n × 2d6 / 12) rounded to nearest, .5 up (exact integer arithmetic)."""
    return max(1, (missiles * roll * 2 + 12) // 24)


def damage_groups(spec: WeaponType, hits: int) -> tuple[int, ...]:
    """The damage amounts of a hit, one location roll each: a gun one; SRMs one per missile (2 each); LRMs one
    per group of 5 missiles (the last group smaller)."""
    if not spec.missiles:
        return (spec.damage,)
    out: list[int] = []
    left = hits
    while left > 0:
        n = min(spec.group, left)
        out.append(n * spec.damage)
        left -= n
    return tuple(out)

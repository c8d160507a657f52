"""Exo units in scenario files (DESIGN §7): ships with stats, weapons, vector and crew; debris and asteroids."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from rules.errors import InvalidOrderError
from rules.exo.crew import SKILLS, STATIONS, Crew, npc_crew
from rules.exo.model import Ship, SpaceObject, cruise_vector
from rules.exo.tables import tables
from rules.exo.turrets import assign_turrets
from rules.exo.weapons import Weapon, parse_weapon
from rules.state import Unit

if TYPE_CHECKING:
    from rules.scenario import ScenarioContext

STAT_KEYS = ("maneuverability", "engines", "armor", "structure", "cabin", "cargo")
SHIP_KEYS = frozenset({*STAT_KEYS, "weapons", "vector", "speed", "crew", "kind", "small"})
CREW_KEYS = frozenset({"name", "station", "skills"})
OBJECT_KINDS = ("debris", "asteroid")


def _common(common: Unit) -> dict[str, Any]:
    return {f: getattr(common, f) for f in ("id", "side", "name", "at", "facing", "label", "hidden")}


def _weapons(raw: Mapping[str, Any], path: str, ctx: ScenarioContext) -> tuple[Weapon, ...]:
    value = ctx.take(raw, "weapons", list, path, default=[])
    out: list[Weapon] = []
    for i, notation in enumerate(cast(list[Any], value)):
        where = f"{path}.weapons[{i}]"
        if not isinstance(notation, str):
            ctx.error(where, "problem.exo.weapon_text")
            continue
        try:
            out.extend(parse_weapon(notation))
        except InvalidOrderError as exc:
            ctx.error_from(where, exc)
    return tuple(out)


def _crew(raw: Mapping[str, Any], path: str, ctx: ScenarioContext, cabin: int) -> tuple[Crew, ...]:
    if "crew" not in raw:
        t = tables()
        return npc_crew(cabin, t.npc_stations, t.npc_skills)  # EXO-1.5b
    members: list[Crew] = []
    shape = "problem.exo.crew_table"
    for _, where, table in ctx.table_entries(raw, "crew", path, CREW_KEYS, not_a_table=shape):
        name = ctx.bounded_text(table, "name", where, ctx.max_name, required=True) or None
        station = ctx.take(table, "station", str, where, required=True)
        if station is not None and station not in STATIONS:
            ctx.error(
                f"{where}.station", "problem.exo.unknown_station", station=station, known=", ".join(STATIONS)
            )
            station = None
        skills_raw = cast(dict[str, Any], ctx.take(table, "skills", dict, where, default={}))
        skills: dict[str, int] = {}
        for key in skills_raw:
            if key not in SKILLS:
                ctx.error(
                    f"{where}.skills.{key}", "problem.exo.unknown_skill", skill=key, known=", ".join(SKILLS)
                )
            else:
                skills[key] = ctx.number(skills_raw, key, f"{where}.skills", low=0, high=40)
        if name is None or station is None:
            continue
        if any(m.name.casefold() == name.casefold() for m in members):
            ctx.error(f"{where}.name", "problem.exo.crew_twice", name=name)
        members.append(Crew(name=name, station=station, skills=skills))
    if sum(1 for m in members if m.station == "captain") > 1:
        ctx.error(f"{path}.crew", "problem.exo.two_captains")
    if len(members) > cabin:
        ctx.error(f"{path}.crew", "problem.exo.crew_cabin", count=len(members), cabin=cabin)
    return tuple(members)


def build_exo_unit(raw: Mapping[str, Any], common: Unit, path: str, ctx: ScenarioContext) -> Unit | None:
    kind = ctx.take(raw, "kind", str, path, default="ship")
    if kind in OBJECT_KINDS:
        extra = sorted(k for k in raw if k in SHIP_KEYS and k not in ("kind", "vector"))
        for key in extra:
            ctx.error(f"{path}.{key}", "problem.exo.object_key", kind=kind, key=key)
        vector = ctx.position(raw["vector"], f"{path}.vector") if "vector" in raw else None
        return SpaceObject(**_common(common), kind=kind, vector=vector)
    if kind != "ship":
        ctx.error(f"{path}.kind", "problem.exo.kind", got=kind)
        return None
    stats = {
        k: ctx.number(raw, k, path, default=1 if k == "structure" else 0, low=0, high=99) for k in STAT_KEYS
    }
    if stats["structure"] < 1:
        ctx.error(f"{path}.structure", "problem.exo.structure")
    weapons = _weapons(raw, path, ctx)
    crew = assign_turrets(weapons, _crew(raw, path, ctx, stats["cabin"]))  # EXO-1.5 turret gunners
    vector = None
    if "vector" in raw and "speed" in raw:
        ctx.error(f"{path}.speed", "problem.exo.vector_and_speed")
    if "vector" in raw:
        vector = ctx.position(raw["vector"], f"{path}.vector")
    elif common.at is not None:
        # EXO-1.6: the scenario's speed, or cruise speed 2×M straight ahead.
        speed = ctx.number(raw, "speed", path, default=-1, low=0, high=99) if "speed" in raw else None
        if speed is None or speed < 0:
            vector = cruise_vector(common.at, common.facing, stats["maneuverability"])
        else:
            vector = common.at
            for _ in range(speed):
                vector = vector.neighbor(common.facing)
    numbers: dict[str, Any] = {**stats, **{f"max_{k}": v for k, v in stats.items()}}
    small = bool(ctx.take(raw, "small", bool, path, default=False))  # EXO-3.7
    return Ship(
        **_common(common),
        small=small,
        vector=vector,
        weapons=weapons,
        crew=crew,
        manta=stats["maneuverability"],
        **numbers,
    )

"""Hypothesis properties of the mech ruleset: heat never goes negative, structure (and armour) never rises, a
shot out of arc is never legal."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.errors import IllegalOrderError
from rules.hexgrid import Hex, HexSide
from rules.mech import fire_options
from rules.mech.damage import apply_damage
from rules.mech.geometry import arc_of, mount_arcs
from rules.mech.heat import end_heat
from rules.mech.legality import check_declaration
from rules.mech.model import Mech
from rules.mech.orders import MechOrder
from rules.mech.tables import MECH_LOCATIONS
from rules.state import EncounterState
from tests.mech_fixtures import MECH, build, mech, play_turn, step, unit, with_unit

WEAPONS = [
    {"type": "ac20", "loc": "rt"},
    {"type": "medium_laser", "loc": "la"},
    {"type": "ppc", "loc": "ra"},
    {"type": "srm6", "loc": "ct"},
    {"type": "small_laser", "loc": "ct", "rear": True},
    {"type": "lrm10", "loc": "lt"},
    {"type": "mg", "loc": "ll"},
]
BASE = build(
    unit("a", "red", "0809", weapons=WEAPONS, heat_sinks=10, gunnery=10, piloting=9, initiative=0),
    unit(
        "b", "blue", "0805", facing="S", weapons=WEAPONS, heat_sinks=10, gunnery=10, piloting=9, initiative=9
    ),
    width=16,
    height=17,
)
hexes = st.builds(lambda c, r: Hex.from_offset(c, r), st.integers(2, 15), st.integers(2, 16))
facings = st.integers(0, 5)


def _placed(a_at: Hex, a_facing: int, b_at: Hex, b_facing: int, heat: int = 0) -> EncounterState:
    state = with_unit(BASE, "a", at=a_at, facing=a_facing, heat=heat)
    return with_unit(state, "b", at=b_at, facing=b_facing)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    a_at=hexes,
    b_at=hexes,
    a_facing=facings,
    b_facing=facings,
    heat=st.integers(0, 35),
    seed=st.integers(0, 10_000),
    fire_mask=st.integers(0, 127),
    mode=st.sampled_from(["stand", "walk", "run"]),
)
def test_heat_never_goes_negative_and_structure_never_rises_over_a_turn(
    a_at: Hex, b_at: Hex, a_facing: int, b_facing: int, heat: int, seed: int, fire_mask: int, mode: str
) -> None:
    if a_at == b_at:
        return
    state = _placed(a_at, a_facing, b_at, b_facing, heat).replace(seed=seed)
    state, _ = step(state)  # initiative
    raw: dict[str, dict[str, object]] = {}
    for uid, target in (("a", "b"), ("b", "a")):
        options = fire_options(state, uid, target)
        fire = [
            {"weapon": o.weapon, "target": target}
            for o in options
            if o.legal and fire_mask >> (o.weapon - 1) & 1
        ]
        raw[uid] = {"mode": mode, "path": [], "fire": fire} if mode != "stand" else {"fire": fire}
    before = {u: mech(state, u) for u in ("a", "b")}
    after, _ = play_turn(state, raw)
    for uid in ("a", "b"):
        now = mech(after, uid)
        assert now.heat >= 0
        for loc in MECH_LOCATIONS:
            assert now.structure[loc] <= before[uid].structure[loc]
            assert now.armor[loc] <= before[uid].armor[loc]


@given(heat=st.integers(0, 60), generated=st.integers(0, 60), sinks=st.integers(0, 40))
def test_end_heat_is_never_negative(heat: int, generated: int, sinks: int) -> None:
    m = mech(BASE, "a")
    assert end_heat(Mech(**{**_fields(m), "heat": heat, "heat_sinks": sinks}), generated) >= 0


def _fields(m: Mech) -> dict[str, object]:
    return {f: getattr(m, f) for f in m.__dataclass_fields__}


@given(hits=st.lists(st.tuples(st.sampled_from(MECH_LOCATIONS), st.integers(0, 40)), max_size=25))
def test_structure_and_armour_never_rise_under_any_sequence_of_damage(hits: list[tuple[str, int]]) -> None:
    state = BASE
    for loc, amount in hits:
        before = mech(state, "b")
        state, _ = apply_damage(state, "b", loc, amount)
        after = mech(state, "b")
        for where in MECH_LOCATIONS:
            assert 0 <= after.structure[where] <= before.structure[where]
            assert 0 <= after.armor[where] <= before.armor[where]
        assert after.destroyed >= before.destroyed


@settings(max_examples=150, deadline=None)
@given(
    a_at=hexes,
    b_at=hexes,
    a_facing=facings,
    twist=st.sampled_from([-1, 0, 1]),
    weapon=st.integers(1, len(WEAPONS)),
)
def test_a_shot_out_of_arc_is_never_legal(
    a_at: Hex, b_at: Hex, a_facing: int, twist: int, weapon: int
) -> None:
    if a_at == b_at:
        return
    state = _placed(a_at, a_facing, b_at, 3)
    state, _ = step(state.replace(dice_script=(1, 1, 6, 6)))  # a declares first
    a = mech(state, "a")
    arcs, from_torso = mount_arcs(a, a.weapons[weapon - 1])
    heading = (a_facing + twist) % 6 if from_torso else a_facing
    in_arc = arc_of(a_at, heading, b_at) in arcs
    order = MechOrder(unit="a", twist=twist, fire=(_fire(weapon),))
    try:
        check_declaration(state, order)
        legal = True
    except IllegalOrderError as exc:
        legal = False
        if not in_arc:
            assert exc.rule == "MECH-1.3"
    if not in_arc:
        assert not legal, (
            f"weapon {weapon} fired out of arc at {b_at.label} from {a_at.label} {HexSide(a_facing).name}"
        )
    option = fire_options(state, "a", "b", twist=twist)[weapon - 1]
    assert option.legal == legal


def _fire(weapon: int):  # type: ignore[no-untyped-def]
    from rules.mech.orders import FireEntry

    return FireEntry(weapon=weapon, target="b")


@settings(max_examples=40, deadline=None)
@given(b_path=st.lists(st.sampled_from([0, 1, 2, 3, 4, 5]), min_size=1, max_size=4), seed=st.integers(0, 999))
def test_no_shot_is_rolled_at_a_target_out_of_arc_after_movement(b_path: list[int], seed: int) -> None:
    """At resolution a weapon whose target moved out of its arc is spent, never rolled."""
    state = _placed(Hex.parse("0809"), 0, Hex.parse("0806"), 3).replace(seed=seed)
    state, _ = step(state)
    hexes_: list[str] = []
    here = Hex.parse("0806")
    for side in b_path:
        here = here.neighbor(side)
        hexes_.append(here.label)
    raw = {"a": {"fire": [{"weapon": 1, "target": "b"}]}, "b": {"mode": "walk", "path": hexes_}}
    first = MECH.awaiting(state)[0]
    try:
        if first == "a":
            check_declaration(state, MECH.parse_order(state, "a", raw["a"]))
        after, events = play_turn(state, raw)
    except IllegalOrderError:
        return  # b's path was not legal (over MP, reverse at run, occupied): nothing to resolve
    b = mech(after, "b")
    a = mech(after, "a")
    fired = [e for e in events if type(e).__name__ == "WeaponFired" and e.unit == "a"]
    assert b.at is not None and a.at is not None
    if arc_of(a.at, a.torso, b.at) != "front":
        assert not fired


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    a_at=hexes,
    b_at=hexes,
    a_facing=facings,
    b_facing=facings,
    steps=st.lists(st.integers(0, 5), max_size=3),
    mode=st.sampled_from(["walk", "run", "jump"]),
    twist=st.sampled_from([-1, 0, 1]),
    heat=st.integers(0, 16),
)
def test_the_panel_never_offers_what_the_rules_refuse(
    a_at: Hex, b_at: Hex, a_facing: int, b_facing: int, steps: list[int], mode: str, twist: int, heat: int
) -> None:
    """Every end facing, weapon and physical attack the queries call legal validates as a declaration, and every
    weapon they call illegal is refused."""
    from rules.mech import end_facings, physical_options
    from rules.mech.orders import FireEntry, PhysicalEntry

    if a_at == b_at:
        return
    state = _placed(a_at, a_facing, b_at, b_facing, heat)
    state = with_unit(state, "a", jump=4)
    state, _ = step(state.replace(dice_script=(1, 1, 6, 6)))  # a declares first
    path: list[Hex] = []
    here = a_at
    for side in steps:
        here = here.neighbor(side)
        path.append(here)
    for facing in end_facings(state, "a", mode, tuple(path)):
        order = MechOrder(unit="a", mode=mode, path=tuple(path), facing=facing, twist=twist)
        try:
            end = check_declaration(state, order)
        except IllegalOrderError as exc:
            # the facing is affordable; only the board (edge, occupied, climbs, reverse at run) may refuse it
            assert exc.rule == "MECH-1.2" and exc.code not in ("mech.over_mp", "mech.over_mp_heat"), exc
            continue
        at = end.end if end is not None else a_at
        for option in fire_options(state, "a", "b", mode=mode, at=at, facing=facing, twist=twist):
            fired = MechOrder(
                unit="a",
                mode=mode,
                path=tuple(path),
                facing=facing,
                twist=twist,
                fire=(FireEntry(weapon=option.weapon, target="b"),),
            )
            try:
                check_declaration(state, fired)
                assert option.legal, option
            except IllegalOrderError:
                assert not option.legal, option
        for p in physical_options(state, "a", mode=mode, path=tuple(path), facing=facing, twist=twist):
            check_declaration(
                state,
                MechOrder(
                    unit="a",
                    mode=mode,
                    path=tuple(path),
                    facing=facing,
                    twist=twist,
                    physical=(PhysicalEntry(kind=p.kind, limb=p.limb, target=p.target),),
                ),
            )

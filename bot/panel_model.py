"""The private order panel as data: what a player may choose now, the draft being composed, and the raw order
the draft becomes on Submit. Pure (no Discord); the cog draws it as an embed with buttons and selects.

The draft travels with the panel message (a disabled button's custom id, ``hexd:draft:{phase}:{payload}``), so a
panel keeps working after a restart without keeping anything in memory, and nothing secret touches the shared
event log before the player submits. Everything in a draft is re-checked by the rules on Submit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from rules.hexgrid import Hex
from rules.registry import ruleset_for
from rules.state import EncounterState

DRAFT_PREFIX = "hexd:draft:"
MAX_OPTIONS = 25  # Discord: options per select menu
_DRAFT = re.compile(r"^hexd:draft:(?P<phase>\d+):(?P<body>.*)$")
MOVE_LETTERS = ("I", "D", "A")  # exo: turn port (izquierda), starboard (derecha), accelerate


@dataclass(frozen=True, slots=True)
class Draft:
    moves: str = ""
    fire: tuple[str, ...] = ()  # fire option values
    crew: tuple[str, ...] = ()  # crew-roll option values
    choice: str = ""  # the answer to a pending decision
    action: str = ""  # skirmish: the action text being composed (``move 0506``), a fifth field when set

    def encode(self, phase_no: int) -> str:
        body = f"{self.moves}|{','.join(self.fire)}|{','.join(self.crew)}|{self.choice}"
        if self.action:
            body += f"|{self.action.replace('|', ' ')}"
        return f"{DRAFT_PREFIX}{phase_no}:{body}"[:100]

    @classmethod
    def decode(cls, custom_id: str) -> tuple[int, Draft] | None:
        m = _DRAFT.match(custom_id)
        if not m:
            return None
        parts = [*m.group("body").split("|"), "", "", "", "", ""][:5]
        moves = "".join(c for c in parts[0].upper() if c in MOVE_LETTERS)[:12]
        fire = tuple(v for v in parts[1].split(",") if v)[:MAX_OPTIONS]
        crew = tuple(v for v in parts[2].split(",") if v)[:6]
        return int(m.group("phase")), cls(moves, fire, crew, parts[3][:20], parts[4][:80])


@dataclass(frozen=True, slots=True)
class Option:
    value: str
    label: str  # already readable (unit names, weapon codes); the cog localizes the frame around it
    key: str = ""  # optional i18n key for the label (crew rolls, skirmish actions): ``t(key, target=label)``
    params: tuple[tuple[str, str], ...] = ()  # more parameters for ``key`` (skirmish: the AP cost)
    group: str = ""  # skirmish: which select offers it (move, turn, attack, other)


@dataclass(frozen=True, slots=True)
class PanelModel:
    encounter_id: int
    phase_no: int
    unit_id: str
    unit_name: str
    side: str
    step: str  # "crew" | "orders" | "repairs" | "decision" | "wait"
    round: int
    phase: str
    stats: tuple[tuple[str, str], ...] = ()
    manta: int | None = None
    max_moves: int = 0
    can_accelerate: bool = False
    fire_options: tuple[Option, ...] = ()
    crew_options: tuple[Option, ...] = ()
    decision_options: tuple[Option, ...] = ()
    draft: Draft = field(default_factory=Draft)
    submitted: bool = False
    ruleset: str = "exo"
    action_options: tuple[Option, ...] = ()  # skirmish: every legal action now, grouped by ``Option.group``
    repair_options: tuple[
        Option, ...
    ] = ()  # exo phase 5: (crew member, repair) pairs; chosen ones in draft.crew
    station_options: tuple[
        Option, ...
    ] = ()  # exo phase 5: (crew member, new station); chosen ones in draft.crew
    lines: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()  # extra i18n lines (key, params)

    def apply(self, action: str) -> Draft:
        """A button press → the new draft (pure; limits follow the rules so the panel never offers the illegal)."""
        d = self.draft
        if action in MOVE_LETTERS:
            if len(d.moves) >= self.max_moves or (action == "A" and not self.can_accelerate):
                return d
            return replace(d, moves=d.moves + action)
        if action == "back":
            return replace(d, moves=d.moves[:-1])
        if action == "clear":
            return Draft()
        return d

    def raw_order(self) -> Any:
        """The order as the ruleset's ``parse_order`` reads it."""
        if self.ruleset == "skirmish":
            from bot.panel_skirmish import skirmish_raw_order

            return skirmish_raw_order(self)
        if self.step == "crew":
            return {"crew_rolls": list(self.draft.crew)}
        if self.step == "decision":
            return {"pilot_change": self.draft.choice or "-"}
        if self.step == "repairs":
            return _repairs_order(self)
        known = {o.value for o in self.fire_options}
        fire = [_fire_entry(v) for v in self.draft.fire if v in known]
        order: dict[str, Any] = {"move": self.draft.moves or "-", "fire": fire}
        stations = _repairs_order(self)["stations"]
        if stations:
            order["stations"] = stations
        return order


def _fire_entry(value: str) -> dict[str, Any]:
    by, weapon, target = value.split(".", 2)
    return {"by": by, "weapon": int(weapon), "target": target}


def projected(
    state: EncounterState, unit_id: str, moves: str
) -> tuple[tuple[Hex, ...], int, Hex | None] | None:
    """Where an exo ship ends after ``moves`` (EXO-4.2, EXO-4.3): path, facing, new vector."""
    unit = state.units.get(unit_id)
    if state.ruleset != "exo" or unit is None or unit.at is None or unit.destroyed:
        return None
    from rules.exo.preview import project_orders

    at, facing, vector = project_orders(state, unit_id, moves)
    return (unit.at, at), facing, vector


def build_panel(
    state: EncounterState,
    unit_id: str,
    *,
    encounter_id: int,
    phase_no: int,
    draft: Draft,
    submitted: bool,
    owing: bool,
) -> PanelModel:
    unit = state.units[unit_id]
    base = PanelModel(
        encounter_id,
        phase_no,
        unit_id,
        unit.name,
        unit.side,
        "wait",
        state.round,
        state.phase,
        draft=draft,
        submitted=submitted,
        ruleset=state.ruleset,
    )
    if state.ruleset == "skirmish":
        from bot.panel_skirmish import skirmish_panel

        return skirmish_panel(state, base, owing)
    if state.ruleset != "exo":
        return base
    return _exo_panel(state, base, owing)


def _exo_panel(state: EncounterState, base: PanelModel, owing: bool) -> PanelModel:
    from rules.exo.crew import roster
    from rules.exo.ship import Ship
    from rules.exo.state import CREW_STEP, ext_of

    ship = state.units[base.unit_id]
    if not isinstance(ship, Ship):
        return base
    stats = (
        ("maneuverability", f"{ship.maneuverability}/{ship.max_maneuverability}"),
        ("engines", f"{ship.engines}/{ship.max_engines}"),
        ("armor", f"{ship.armor}/{ship.max_armor}"),
        ("structure", f"{ship.structure}/{ship.max_structure}"),
        ("cabin", f"{ship.cabin}/{ship.max_cabin}"),
        ("cargo", f"{ship.cargo}/{ship.max_cargo}"),
        ("weapons", " ".join(ship.weapon_label(i) for i in range(len(ship.weapons))) or "-"),
        ("at", f"{ship.at.label if ship.at else '-'} → {ship.vector.label if ship.vector else '-'}"),
    )
    model = replace(base, stats=stats, manta=ship.manta)
    if not owing:
        return model
    if state.pending is not None and state.pending.unit == ship.id:
        options = tuple(Option(o or "-", o or "—") for o in state.pending.options[:MAX_OPTIONS])
        return replace(model, step="decision", decision_options=options)
    if ext_of(state.ext).step == CREW_STEP and state.phase == "1":
        crew: list[Option] = []
        if roster(ship.crew, "engineer", state.round):
            crew.append(Option("engineer", "engineer", "panel.crew.engineer"))
        if roster(ship.crew, "navigator", state.round):
            crew.append(Option("navigator", "navigator", "panel.crew.navigator"))
        if roster(ship.crew, "captain", state.round):
            helped = ["engineer", "navigator"] + [
                f"gunner{i + 1}" for i in range(len(roster(ship.crew, "gunner", state.round)))
            ]
            crew.extend(Option(f"captain:{h}", h, "panel.crew.captain") for h in helped)
        return replace(model, step="crew", crew_options=tuple(crew[:MAX_OPTIONS]))
    if state.phase == "5":  # EXO-6.1/6.4/6.5: decided knowing this round's damage
        return replace(
            model,
            step="repairs",
            repair_options=_repair_options(ship),
            station_options=_station_options(state, ship),
        )
    if ship.adrift:
        max_moves, accelerate = 0, False
    elif ship.manta <= 0:
        from rules.exo.tables import tables

        max_moves, accelerate = tables().turns_without_manta, False
    else:
        max_moves, accelerate = ship.manta, True
    return replace(
        model,
        step="orders",
        max_moves=max_moves,
        can_accelerate=accelerate,
        fire_options=_fire_options(state, ship),
        station_options=_station_options(state, ship),  # EXO-6.5, effective at the end of the round
    )


def _fire_options(state: EncounterState, ship: Any) -> tuple[Option, ...]:
    """Every (shooter, weapon, target) the rules allow now: able gunners and the pilot at the controls as
    shooters (EXO-2.4, EXO-3.2), weapons in arc and range (EXO-1.4, ``legal_targets``), each triple accepted by
    the ruleset's own order validation (EXO-1.5: a turret is its gunner's, silent while that gunner is down or
    repairing; the pilot fires unmanned turrets as bow weapons and the non-turret weapons, EXO-1.3)."""
    from rules.exo.crew import roster, station_one
    from rules.exo.preview import legal_targets

    if ship.at is None:
        return ()
    gunners = roster(ship.crew, "gunner", state.round)
    shooters = [(f"gunner{i + 1}", g.name) for i, g in enumerate(gunners)]
    pilot = station_one(ship.crew, "pilot", state.round)
    if pilot is not None:
        shooters.append(("pilot", pilot.name))
    names = {u.id: u.name for u in state.units.values()}
    out: list[Option] = []
    for ref, crew_name in shooters:
        for index in range(1, len(ship.weapons) + 1):
            for target in legal_targets(state, ship.id, index, by=crew_name):
                if state.units[target].hidden or not _fire_legal(state, ship.id, ref, index, target):
                    continue
                label = f"{ref} · {ship.weapon_label(index - 1)} → {names.get(target, target)}"
                out.append(Option(f"{ref}.{index}.{target}", label))
    return tuple(out[:MAX_OPTIONS])


def _fire_legal(state: EncounterState, ship_id: str, ref: str, index: int, target: str) -> bool:
    """One fire declaration alone, through the ruleset's parser and validator (the check Submit runs)."""
    from rules.errors import GameError

    ruleset = ruleset_for(state)
    raw = {"move": "-", "fire": [{"by": ref, "weapon": index, "target": target}]}
    try:
        ruleset.validate_order(state, ship_id, ruleset.parse_order(state, ship_id, raw))
    except GameError:
        return False
    return True


# --- exo phase 5: repairs and station changes -------------------------------------------------------------------
# Option values are short (the draft rides in a 100-character custom id): ``r{crew}.{item}[.{n}]`` with the crew
# member's index, the item's letter (e engines, c cargo, w weapon n, k first aid to crew member n), and
# ``s{crew}.{station index}``. Each is turned back into the rules' repair/station tables on Submit, where the
# rules check it (one repair per crew member, EXO-6.1; no station change for a repairer, EXO-6.5).
REPAIR_CODES = {"engines": "e", "cargo": "c", "weapon": "w", "cabin": "k"}
CANDIDATES_PER_REPAIR = 3  # the crew members offered for each repair, best skill first


def _repair_options(ship: Any) -> tuple[Option, ...]:
    from rules.exo.repairs import SKILL_FOR, repair_work

    crew = list(ship.crew)
    able = [i for i, c in enumerate(crew) if not c.down]
    repairs: list[Option] = []
    for work in repair_work(ship):
        skill = SKILL_FOR[work.item]
        best = sorted(able, key=lambda i: -crew[i].skill(skill))[:CANDIDATES_PER_REPAIR]
        for i in best:
            if work.item == "weapon":
                code, what = f"w.{work.weapon}", ship.weapon_label(work.weapon - 1)
            elif work.item == "cabin":
                patient = next(j for j, c in enumerate(crew) if c.name == work.patient)
                code, what = f"k.{patient}", work.patient
            else:
                code, what = REPAIR_CODES[work.item], work.item
            repairs.append(
                Option(
                    f"r{i}.{code}",
                    what,
                    f"panel.repair.{work.item}",
                    (("crew", crew[i].name), ("skill", str(crew[i].skill(skill)))),
                )
            )
    return tuple(repairs[:MAX_OPTIONS])


def _station_options(state: EncounterState, ship: Any) -> tuple[Option, ...]:
    from rules.exo.crew import STATIONS, station_one

    crew = list(ship.crew)
    able = [i for i, c in enumerate(crew) if not c.down]
    # stations nobody can fill now come first (someone fell), then the others
    vacant = [s for s in STATIONS if station_one(crew, s, state.round + 1) is None]
    ordered = vacant + [s for s in STATIONS if s not in vacant]
    stations = [
        Option(f"s{i}.{STATIONS.index(s)}", s, "panel.station", (("crew", crew[i].name),))
        for s in ordered
        for i in able
        if crew[i].station != s
    ]
    return tuple(stations[:MAX_OPTIONS])


def _repairs_order(model: PanelModel) -> dict[str, Any]:
    """The chosen phase-5 options as the rules' order table (names, not indexes: the rules resolve them)."""
    from rules.exo.crew import STATIONS

    offered = {o.value: o for o in (*model.repair_options, *model.station_options)}
    repairs: list[dict[str, Any]] = []
    stations: list[dict[str, Any]] = []
    for value in model.draft.crew:
        option = offered.get(value)
        if option is None:
            continue
        by = dict(option.params)["crew"]
        _, _, rest = value[1:].partition(".")
        if value.startswith("s"):
            stations.append({"by": by, "station": STATIONS[int(rest)]})
            continue
        item, _, n = rest.partition(".")
        entry: dict[str, Any] = {"by": by, "item": {v: k for k, v in REPAIR_CODES.items()}[item]}
        if item == "w":
            entry["weapon"] = int(n)
        elif item == "k":
            entry["patient"] = option.label
        repairs.append(entry)
    return {"repairs": repairs, "stations": stations}

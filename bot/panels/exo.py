"""The exo order panel (RULES.md EXO): crew rolls (phase 1), the secret movement and fire orders, the pilot's
decision after a piloting critical (EXO-4.1), and repairs and station changes after the damage (phase 5).

Nothing here decides legality: each fire triple is kept only if the ruleset's own ``parse_order`` and
``validate_order`` accept it, and the movement buttons follow the rules' limits (EXO-2.3 Manta, EXO-6.2 no pilot
at the controls). Everything in a draft is re-checked by the rules on Submit.

Draft fields: ``move`` (the letters), ``fire`` (fire option values ``{shooter}.{weapon}.{target}``), ``stations``
(``s{crew}.{station}``), ``crew`` (crew-roll option values), ``repairs`` (``r{crew}.{item}[.{n}]``) and ``choice``
(the pilot's decision). The multi-selects' picks ride packed (:mod:`bot.panels.picks`), so the 100-character
custom id never limits them: each select offers only what the rules take together with what is already picked
(EXO-3.3: a weapon fires at one ship; EXO-6.5: one station change per crew member, EXO-1.5: one captain), and as
many picks as the rules allow.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from bot.panels import ModulePanel, accepted
from bot.panels.draft import Draft
from bot.panels.memo import per_state
from bot.panels.model import (
    MAX_OPTIONS,
    Button,
    Control,
    Field,
    Option,
    PanelModel,
    Preview,
    Select,
    Stat,
    Text,
    blank_panel,
    submit_button,
)
from bot.panels.picks import Together, pack, together, unpack
from rules.exo.crew import STATIONS, Crew, roster, station_one
from rules.exo.model import Ship
from rules.exo.preview import legal_targets, project_orders
from rules.exo.repairs import SKILL_FOR, repair_work
from rules.exo.state import CREW_STEP, ext_of
from rules.exo.tables import tables
from rules.state import EncounterState

MOVE_LETTERS = ("I", "D", "A")  # turn port (izquierda), turn starboard (derecha), accelerate
ACCELERATE = "A"
BACK, CLEAR = "back", "clear"
FIRE, STATIONS_SELECT, CREW, REPAIRS, DECIDE = "fire", "stations", "crew", "repairs", "decide"
MOVE, CHOICE = "move", "choice"  # draft fields without a select of the same name
#: exo phase 5 repair codes: e engines, c cargo, w weapon n, k first aid to crew member n
REPAIR_CODES = {"engines": "e", "cargo": "c", "weapon": "w", "cabin": "k"}
CANDIDATES_PER_REPAIR = 3  # the crew members offered for each repair, best skill first
#: combinations of picks the rules were asked about, per state: a click builds its panel twice on one state
COMBINATIONS_KEPT = 4096


# --- the plug-in interface (bot.panels.PanelPlugin, wired up in the class at the end) ---------------------


def build_panel(state: EncounterState, unit_id: str, *, draft: Draft, owing: bool) -> PanelModel:
    ship = state.units[unit_id]
    base = replace(blank_panel(state, unit_id), lines=(_step_line("wait"),))
    if not isinstance(ship, Ship):
        return base
    model = replace(base, stats=_stats(ship))
    if not owing:
        return model
    if state.pending is not None and state.pending.unit == ship.id:
        return _decision(model, state, draft)
    if ext_of(state.ext).step == CREW_STEP and state.phase == "1":
        return _crew_rolls(model, state, ship, draft)
    if state.phase == "5":  # EXO-6.1/6.4/6.5: decided knowing this round's damage
        return _repairs(model, state, ship, draft)
    return _orders(model, state, ship, draft)


def apply(model: PanelModel, action: str, values: tuple[str, ...] | None) -> Draft:
    draft = model.draft
    if values is not None:
        offered = {o.value for o in model.options(action)}
        picked = [v for v in values if v in offered]
        if action == DECIDE:
            return draft.replace(choice=picked[:1])
        return draft.replace(**{action: picked})  # the select's own field; trimmed to fit by build_panel
    control = model.control(action)
    if action in MOVE_LETTERS and isinstance(control, Button) and control.enabled:
        return draft.replace(move=draft.text(MOVE) + action)
    if action == BACK:
        return draft.replace(move=draft.text(MOVE)[:-1])
    if action == CLEAR:
        return Draft()
    return draft


def raw_order(model: PanelModel) -> Any:
    draft = model.draft
    if model.step == "crew":
        return {"crew_rolls": list(_chosen(model, CREW))}
    if model.step == "decision":
        return {"pilot_change": draft.text(CHOICE) or "-"}
    if model.step == "repairs":
        return {
            "repairs": _repairs_order(model.options(REPAIRS), _chosen(model, REPAIRS)),
            "stations": _stations_order(model.options(STATIONS_SELECT), _chosen(model, STATIONS_SELECT)),
        }
    fire = [_fire_entry(v) for v in _chosen(model, FIRE)]
    order: dict[str, Any] = {"move": draft.text(MOVE) or "-", "fire": fire}
    stations = _stations_order(model.options(STATIONS_SELECT), _chosen(model, STATIONS_SELECT))
    if stations:
        order["stations"] = stations
    return order


def _chosen(model: PanelModel, action: str) -> tuple[str, ...]:
    """What the select ``action`` of a built panel holds (the draft's packed picks, read back by the build)."""
    control = model.control(action)
    return control.chosen if isinstance(control, Select) else ()


def draft_from_raw(state: EncounterState, unit_id: str, raw: Any) -> Draft:
    if not isinstance(raw, dict):
        return Draft()
    order: dict[str, Any] = raw  # type: ignore[assignment]
    ship = state.units.get(unit_id)
    if not isinstance(ship, Ship):
        return Draft()
    if "crew_rolls" in order:
        return Draft(
            crew=_packed(_crew_options(state, unit_id), (str(c) for c in order.get("crew_rolls") or ()))
        )
    if "pilot_change" in order:
        return Draft(choice=str(order.get("pilot_change") or ""))
    crew = list(ship.crew)
    step = "repairs" if "repairs" in order else "orders"
    fire = (_fire_code(f) for f in order.get("fire") or ())
    stations = (_station_code(crew, s) for s in order.get("stations") or ())
    repairs = (_repair_code(crew, r) for r in order.get("repairs") or ())
    return Draft(
        move=str(order.get("move") or "").replace("-", ""),
        fire=_packed(_fire_options(state, unit_id), fire) if step == "orders" else "",
        stations=_packed(_station_options(state, unit_id, step), stations),
        repairs=_packed(_repair_options(state, unit_id), repairs) if step == "repairs" else "",
    )


def _packed(options: tuple[Option, ...], values: Iterable[str]) -> str:
    return pack([o.value for o in options], values)


def preview(state: EncounterState, model: PanelModel) -> Preview | None:
    """The projected path of the written movement (EXO-4.2, EXO-4.3), with the ship's new vector."""
    unit = state.units.get(model.unit_id)
    if model.step != "orders" or unit is None or unit.at is None or unit.destroyed:
        return None
    at, facing, vector = project_orders(state, model.unit_id, model.draft.text(MOVE))
    return Preview((unit.at, at), facing, vector)


# --- the steps -----------------------------------------------------------------------------------------------


def _step_line(step: str) -> Text:
    return Text.of(f"panel.step.{step}")


def _stats(ship: Ship) -> tuple[Stat, ...]:
    return (
        Stat("maneuverability", f"{ship.maneuverability}/{ship.max_maneuverability}"),
        Stat("engines", f"{ship.engines}/{ship.max_engines}"),
        Stat("armor", f"{ship.armor}/{ship.max_armor}"),
        Stat("structure", f"{ship.structure}/{ship.max_structure}"),
        Stat("cabin", f"{ship.cabin}/{ship.max_cabin}"),
        Stat("cargo", f"{ship.cargo}/{ship.max_cargo}"),
        Stat("weapons", " ".join(ship.weapon_label(i) for i in range(len(ship.weapons))) or "-"),
        Stat("at", f"{ship.at.label if ship.at else '-'} → {ship.vector.label if ship.vector else '-'}"),
        Stat("manta", str(ship.manta)),
    )


def _decision(model: PanelModel, state: EncounterState, draft: Draft) -> PanelModel:
    """EXO-4.1: after a piloting critical the pilot picks the order string to run."""
    assert state.pending is not None
    options = tuple(Option(o or "-", o or "—") for o in state.pending.options[:MAX_OPTIONS])
    choice = _offered(options, draft.list(CHOICE))[:1]
    chosen = choice[0] if choice else ""
    return replace(
        model,
        step="decision",
        lines=(_step_line("decision"),),
        draft=Draft(choice=choice),
        fields=(Field(Text.of("panel.decision"), (Text.plain(f"`{chosen or '—'}`"),)),),
        controls=(
            Select(DECIDE, Text.of("panel.decision_placeholder"), options, choice, min_values=1),
            submit_button(enabled=bool(choice)),  # no choice is no answer (EXO-4.1)
        ),
    )


def _crew_rolls(model: PanelModel, state: EncounterState, ship: Ship, draft: Draft) -> PanelModel:
    """EXO-2.1: who rolls in phase 1 (engineer, navigator, the captain helping one of them or a gunner)."""
    offered = _crew_options(state, ship.id)
    crew = _picks(state, ship.id, CREW, "crew", _unpacked(offered, draft.text(CREW)), ())
    texts = {o.value: o.text for o in offered}
    chosen = tuple(texts[v] for v in crew.kept)
    controls: list[Control] = []
    if crew.offered:
        controls.append(_multi(CREW, "panel.crew_placeholder", crew))
    return replace(
        model,
        step="crew",
        lines=(_step_line("crew"),),
        draft=Draft(crew=_packed(offered, crew.kept)),
        fields=(
            Field(
                Text.of("panel.crew_rolls"),
                chosen or (Text.of("panel.no_crew_rolls"),),
            ),
        ),
        controls=(*controls, submit_button()),
    )


@per_state
def _crew_options(state: EncounterState, ship_id: str) -> tuple[Option, ...]:
    ship = state.unit_as(ship_id, Ship)
    options: list[Option] = []
    if roster(ship.crew, "engineer", state.round):
        options.append(Option("engineer", "engineer", "panel.crew.engineer"))
    if roster(ship.crew, "navigator", state.round):
        options.append(Option("navigator", "navigator", "panel.crew.navigator"))
    if roster(ship.crew, "captain", state.round):
        gunners = roster(ship.crew, "gunner", state.round)
        helped: list[tuple[str, str, Text]] = [
            ("engineer", "panel.crew.captain_station", Text.of("station.engineer")),
            ("navigator", "panel.crew.captain_station", Text.of("station.navigator")),
            *(
                (f"gunner{i + 1}", "panel.crew.captain", _shooter_text(g, "gunner", i + 1))
                for i, g in enumerate(gunners)
            ),
        ]
        options.extend(Option(f"captain:{h}", h, key, (("target", text),)) for h, key, text in helped)
    return tuple(options[:MAX_OPTIONS])


def _orders(model: PanelModel, state: EncounterState, ship: Ship, draft: Draft) -> PanelModel:
    """The round's secret orders: movement letters (EXO-2.3), fire (EXO-3.x) and station changes (EXO-6.5,
    effective at the end of the round)."""
    max_moves, accelerate = _movement(state, ship)
    allowed = MOVE_LETTERS if accelerate else tuple(c for c in MOVE_LETTERS if c != ACCELERATE)
    moves = "".join(c for c in draft.text(MOVE) if c in allowed)[:max_moves]
    fire_options, station_options = _fire_options(state, ship.id), _station_options(state, ship.id, "orders")
    fire = _picks(state, ship.id, FIRE, "orders", _unpacked(fire_options, draft.text(FIRE)), ())
    picked_stations = _unpacked(station_options, draft.text(STATIONS_SELECT))
    stations = _picks(state, ship.id, STATIONS_SELECT, "orders", picked_stations, fire.kept)
    draft = Draft(
        move=moves,
        fire=_packed(fire_options, fire.kept),
        stations=_packed(station_options, stations.kept),
    )
    more = len(moves) < max_moves
    controls: list[Control] = [
        Button("I", Text.plain("↺ I"), enabled=more),
        Button("D", Text.plain("↻ D"), enabled=more),
        Button(ACCELERATE, Text.plain("▲ A"), "primary", enabled=more and accelerate),
        Button(BACK, Text.plain("⌫"), enabled=max_moves > 0),
        Button(CLEAR, Text.of("panel.clear"), "danger"),
    ]
    if fire.offered:
        controls.append(_multi(FIRE, "panel.fire_placeholder", fire))
    if stations.offered:
        controls.append(_multi(STATIONS_SELECT, "panel.stations_placeholder", stations))
    labels = {o.value: o.text for o in (*fire_options, *station_options)}
    fire_lines = tuple(labels[v] for v in fire.kept) or (Text.of("panel.no_fire"),)
    fields = [
        Field(Text.of("panel.moves", max=str(max_moves)), (Text.plain(f"`{moves or '—'}`"),)),
        Field(Text.of("panel.fire"), fire_lines),
    ]
    if stations.kept:
        fields.append(Field(Text.of("panel.stations"), tuple(labels[v] for v in stations.kept)))
    return replace(
        model,
        step="orders",
        lines=(_step_line("orders"),),
        draft=draft,
        fields=tuple(fields),
        controls=(*controls, submit_button()),
        summary=moves,
    )


def _repairs(model: PanelModel, state: EncounterState, ship: Ship, draft: Draft) -> PanelModel:
    """Phase 5: who tries which repair (EXO-6.1, EXO-6.4) and who changes station (EXO-6.5)."""
    repair_options, station_options = (
        _repair_options(state, ship.id),
        _station_options(state, ship.id, "repairs"),
    )
    repairs = _picks(state, ship.id, REPAIRS, "repairs", _unpacked(repair_options, draft.text(REPAIRS)), ())
    picked_stations = _unpacked(station_options, draft.text(STATIONS_SELECT))
    stations = _picks(state, ship.id, STATIONS_SELECT, "repairs", picked_stations, repairs.kept)
    controls: list[Control] = []
    if repairs.offered:
        controls.append(_multi(REPAIRS, "panel.repairs_placeholder", repairs))
    if stations.offered:
        controls.append(_multi(STATIONS_SELECT, "panel.stations_placeholder", stations))
    labels = {o.value: o.text for o in (*repair_options, *station_options)}
    chosen = tuple(labels[v] for v in (*repairs.kept, *stations.kept))
    return replace(
        model,
        step="repairs",
        lines=(_step_line("repairs"),),
        draft=Draft(
            repairs=_packed(repair_options, repairs.kept),
            stations=_packed(station_options, stations.kept),
        ),
        fields=(Field(Text.of("panel.repairs"), chosen or (Text.of("panel.no_repairs"),)),),
        controls=(*controls, submit_button()),
    )


def _unpacked(options: tuple[Option, ...], field: str) -> tuple[str, ...]:
    return unpack(tuple(o.value for o in options), field)


def _options_of(state: EncounterState, ship_id: str, action: str, step: str) -> tuple[Option, ...]:
    if action == CREW:
        return _crew_options(state, ship_id)
    if action == FIRE:
        return _fire_options(state, ship_id)
    if action == REPAIRS:
        return _repair_options(state, ship_id)
    return _station_options(state, ship_id, step)


def _picks_now(
    state: EncounterState,
    ship_id: str,
    action: str,
    step: str,
    picked: tuple[str, ...],
    beside: tuple[str, ...],
) -> Together:
    """The picks of the select ``action`` kept to what the rules take together, next to ``beside`` (the kept fire
    for station changes in the orders, the kept repairs in phase 5): nothing the rules would refuse on Submit is
    kept or offered."""
    options = _options_of(state, ship_id, action, step)
    return together(options, picked, lambda picks: _takes(state, ship_id, action, step, picks, beside))


_picks = per_state(_picks_now, size=COMBINATIONS_KEPT)


def _takes_now(
    state: EncounterState,
    ship_id: str,
    action: str,
    step: str,
    picks: tuple[str, ...],
    beside: tuple[str, ...],
) -> bool:
    """The rules take these picks of ``action`` together (with ``beside``) in an order of ``step``."""
    return accepted(state, ship_id, _order_of(state, ship_id, action, step, picks, beside)) is not None


_takes = per_state(_takes_now, size=COMBINATIONS_KEPT)


def _order_of(
    state: EncounterState,
    ship_id: str,
    action: str,
    step: str,
    picks: tuple[str, ...],
    beside: tuple[str, ...],
) -> dict[str, Any]:
    if action == CREW:
        return {"crew_rolls": list(picks)}
    if action == FIRE:
        return {"move": "-", "fire": _shots(picks)}
    if action == REPAIRS:
        return {"repairs": _repairs_order(_repair_options(state, ship_id), picks), "stations": []}
    stations = _stations_order(_station_options(state, ship_id, step), picks)
    if step == "repairs":
        return {"repairs": _repairs_order(_repair_options(state, ship_id), beside), "stations": stations}
    return {"move": "-", "fire": _shots(beside), "stations": stations}


def _multi(action: str, placeholder: str, picks: Together) -> Select:
    """A select of the options the rules take with the picks kept, up to the rules' own maximum."""
    return Select(
        action,
        Text.of(placeholder),
        picks.offered,
        chosen=picks.kept,
        max_values=max(1, min(picks.most, len(picks.offered))),
    )


def _offered(options: tuple[Option, ...], values: tuple[str, ...]) -> tuple[str, ...]:
    known = {o.value for o in options}
    return tuple(v for v in values if v in known)


# --- what the rules allow ------------------------------------------------------------------------------------


def _movement(state: EncounterState, ship: Ship) -> tuple[int, bool]:
    """How many letters may be written and whether A is one of them: none adrift (EXO-2.3) or with no pilot at
    the controls (EXO-6.2: down, or busy the round after a repair); only turns with Manta 0 (EXO-2.3)."""
    if ship.adrift or station_one(ship.crew, "pilot", state.round) is None:
        return 0, False
    if ship.manta <= 0:
        return tables().turns_without_manta, False
    return ship.manta, True


def crew_text(member: Crew) -> str | Text:
    """A crew member's name for a reader: an NPC crew member is named by its station (EXO-1.5b), shown in the
    reader's language ("artillero", "artillero 2")."""
    if not member.npc:
        return member.name
    base, _, n = member.name.partition("-")
    if base not in STATIONS:
        return member.name
    return Text.plain("{station}{n}", station=Text.of(f"station.{base}"), n=f" {n}" if n else "")


def _shooter_text(member: Crew, station: str, n: int) -> Text:
    """ "Kal (artillero 1)", "Rhea (piloto)"; an NPC is its station alone: "artillero 1", "piloto" (EXO-3.2)."""
    if member.npc:
        return Text.plain("{station}{n}", station=Text.of(f"station.{station}"), n=f" {n}" if n else "")
    if station == "pilot":
        return Text.of("panel.shooter.pilot", name=member.name)
    return Text.of("panel.shooter.gunner", name=member.name, n=str(n))


@per_state
def _fire_options(state: EncounterState, ship_id: str) -> tuple[Option, ...]:
    """Every (shooter, weapon, target) the rules allow now: able gunners and the pilot at the controls as
    shooters (EXO-2.4, EXO-3.2), weapons in arc and range (EXO-1.4, ``legal_targets``), each triple accepted by
    the ruleset's own order validation (EXO-1.5: a turret is its gunner's, silent while that gunner is down or
    repairing; the pilot fires unmanned turrets as bow weapons and the non-turret weapons, EXO-1.3)."""
    ship = state.unit_as(ship_id, Ship)
    if ship.at is None:
        return ()
    gunners = roster(ship.crew, "gunner", state.round)
    shooters = [(f"gunner{i + 1}", g.name, _shooter_text(g, "gunner", i + 1)) for i, g in enumerate(gunners)]
    pilot = station_one(ship.crew, "pilot", state.round)
    if pilot is not None:
        shooters.append(("pilot", pilot.name, _shooter_text(pilot, "pilot", 0)))
    names = {u.id: u.name for u in state.units.values()}
    out: list[Option] = []
    for ref, crew_name, shooter in shooters:
        for index in range(1, len(ship.weapons) + 1):
            for target in legal_targets(state, ship.id, index, by=crew_name):
                entry = _fire_entry(f"{ref}.{index}.{target}")
                if state.units[target].hidden or not _offerable(
                    state, ship.id, {"move": "-", "fire": [entry]}
                ):
                    continue
                params = (("shooter", shooter), ("weapon", ship.weapon_label(index - 1)))
                label = names.get(target, target)
                out.append(Option(f"{ref}.{index}.{target}", label, "panel.fire_option", params))
    return tuple(out[:MAX_OPTIONS])


def _offerable(state: EncounterState, ship_id: str, raw: dict[str, Any]) -> bool:
    """One choice alone, as an order the rules take (the check Submit runs)."""
    return accepted(state, ship_id, raw) is not None


def _shots(values: Iterable[str]) -> list[dict[str, Any]]:
    return [_fire_entry(v) for v in values]


def _fire_entry(value: str) -> dict[str, Any]:
    by, weapon, target = value.split(".", 2)
    return {"by": by, "weapon": int(weapon), "target": target}


@per_state
def _repair_options(state: EncounterState, ship_id: str) -> tuple[Option, ...]:
    """EXO-6.1/6.4: each repair the ship needs, offered to its best able crew for it, each accepted by the rules
    alone; the value is ``r{crew index}.{code}`` (see REPAIR_CODES), turned back into the rules' repair table on
    Submit."""
    ship = state.unit_as(ship_id, Ship)
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
            params = (
                ("crew", crew[i].name),
                ("who", crew_text(crew[i])),
                ("skill", str(crew[i].skill(skill))),
            )
            option = Option(f"r{i}.{code}", what, f"panel.repair.{work.item}", params)
            if _offerable(
                state, ship.id, {"repairs": _repairs_order((option,), (option.value,)), "stations": []}
            ):
                repairs.append(option)
    return tuple(repairs[:MAX_OPTIONS])


@per_state
def _station_options(state: EncounterState, ship_id: str, step: str) -> tuple[Option, ...]:
    """EXO-6.5: an able crew member to another station, ``s{crew index}.{station index}``, each accepted by the
    rules alone in an order of ``step`` (EXO-1.5: one captain); stations nobody can fill next round come first
    (someone fell), then the others."""
    ship = state.unit_as(ship_id, Ship)
    frame: dict[str, Any] = {"repairs": []} if step == "repairs" else {"move": "-", "fire": []}
    crew = list(ship.crew)
    able = [i for i, c in enumerate(crew) if not c.down]
    vacant = [s for s in STATIONS if station_one(crew, s, state.round + 1) is None]
    ordered = vacant + [s for s in STATIONS if s not in vacant]
    stations: list[Option] = []
    for s in ordered:
        for i in (i for i in able if crew[i].station != s):
            if len(stations) < MAX_OPTIONS and _offerable(
                state, ship.id, {**frame, "stations": [{"by": crew[i].name, "station": s}]}
            ):
                target = Text.of(f"station.{s}")
                code = f"s{i}.{STATIONS.index(s)}"
                stations.append(
                    Option(
                        code,
                        s,
                        "panel.station",
                        (("crew", crew[i].name), ("who", crew_text(crew[i])), ("target", target)),
                    )
                )
    return tuple(stations)


def _repairs_order(offered: tuple[Option, ...], chosen: tuple[str, ...]) -> list[dict[str, Any]]:
    """The chosen repairs as the rules' table (names, not indexes: the rules resolve them)."""
    by_value = {o.value: o for o in offered}
    out: list[dict[str, Any]] = []
    for value in chosen:
        option = by_value.get(value)
        if option is None:
            continue
        item, _, n = value.partition(".")[2].partition(".")
        entry: dict[str, Any] = {"by": option.param("crew"), "item": _ITEM_OF_CODE[item]}
        if item == "w":
            entry["weapon"] = int(n)
        elif item == "k":
            entry["patient"] = option.label
        out.append(entry)
    return out


def _stations_order(offered: tuple[Option, ...], chosen: tuple[str, ...]) -> list[dict[str, Any]]:
    by_value = {o.value: o for o in offered}
    return [
        {"by": by_value[v].param("crew"), "station": STATIONS[int(v.partition(".")[2])]}
        for v in chosen
        if v in by_value
    ]


_ITEM_OF_CODE = {code: item for item, code in REPAIR_CODES.items()}


def _crew_index(crew: list[Crew], name: object) -> int | None:
    return next((i for i, c in enumerate(crew) if c.name == name), None)


def _fire_code(entry: object) -> str:
    if not isinstance(entry, dict):
        return ""
    fields: dict[str, Any] = entry  # type: ignore[assignment]
    return f"{fields.get('by')}.{fields.get('weapon')}.{fields.get('target')}"


def _station_code(crew: list[Crew], entry: object) -> str:
    """A stored station change back into its option value ("" when it no longer names a crew member)."""
    if not isinstance(entry, dict):
        return ""
    fields: dict[str, Any] = entry  # type: ignore[assignment]
    i = _crew_index(crew, fields.get("by"))
    station = fields.get("station")
    return f"s{i}.{STATIONS.index(station)}" if i is not None and station in STATIONS else ""


def _repair_code(crew: list[Crew], entry: object) -> str:
    """A stored repair back into its option value ("" when it no longer fits the crew)."""
    if not isinstance(entry, dict):
        return ""
    fields: dict[str, Any] = entry  # type: ignore[assignment]
    i, code = _crew_index(crew, fields.get("by")), REPAIR_CODES.get(str(fields.get("item")))
    if i is None or code is None:
        return ""
    if code == "w":
        return f"r{i}.w.{fields.get('weapon')}"
    if code == "k":
        patient = _crew_index(crew, fields.get("patient"))
        return f"r{i}.k.{patient}" if patient is not None else ""
    return f"r{i}.{code}"


PANEL = ModulePanel(build_panel, apply, raw_order, draft_from_raw, preview)

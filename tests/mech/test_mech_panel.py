"""The mech declaration panel (bot/panels/mech.py) on small boards: the MP counter never passes the mode's MP
(MECH-1.2), reverse is never offered at run, shots are labelled with their need on 2d6 (MECH-2.1), the heat line
(MECH-3.2), a stored declaration reopens as the same draft, and a long declaration always fits its custom id."""

from __future__ import annotations

from typing import Any

from bot.panels import accepted, press
from bot.panels import mech as panel
from bot.panels.draft import encode_draft
from bot.panels.model import Button, PanelModel, Select
from rules.mech.query import mp_by_mode, physical_options
from rules.mech.tables import tables
from rules.state import EncounterState
from tests.mech_fixtures import MECH, build, step, unit, with_unit


def opened(state: EncounterState) -> tuple[EncounterState, str, PanelModel]:
    state, _ = step(state)  # initiative
    uid = MECH.awaiting(state)[0]
    return state, uid, panel.build_panel(state, uid, draft=panel.draft_from_raw(state, uid, None), owing=True)


def enabled(model: PanelModel, action: str) -> bool:
    control = model.control(action)
    return isinstance(control, Button) and control.enabled


def spent(model: PanelModel) -> tuple[int, int]:
    value = model.stat("mech_mp")
    assert value is not None and not isinstance(value, str)
    params = dict(value.params)
    return int(str(params["spent"])), int(str(params["mp"]))


def test_mech_1_2_the_pad_stops_where_the_mode_runs_out_of_mp() -> None:
    state = build(
        unit("a", "red", "0810", initiative=0, walk=3), unit("b", "blue", "0302", facing="S", initiative=9)
    )
    state, uid, model = opened(state)
    model = press(panel, state, model, "m_w")
    presses = 0
    while enabled(model, "fwd") and presses < 20:
        model = press(panel, state, model, "fwd")
        presses += 1
        used, mp = spent(model)
        assert used <= mp == mp_by_mode(state, uid)["walk"]
        assert accepted(state, uid, panel.raw_order(model)) is not None
    assert presses == 3 and not enabled(model, "left") and not enabled(model, "back")
    model = press(panel, state, model, "undo")
    assert spent(model)[0] == 2 and enabled(model, "left")


def test_mech_1_2_reverse_is_never_offered_at_run() -> None:
    state = build(unit("a", "red", "0810", initiative=0), unit("b", "blue", "0302", facing="S", initiative=9))
    state, _, model = opened(state)
    assert enabled(press(panel, state, model, "m_w"), "back")
    assert not enabled(press(panel, state, model, "m_r"), "back")


def test_mech_2_1_shots_are_labelled_with_their_need_and_the_heat_line_follows() -> None:
    state = build(
        unit("a", "red", "0810", initiative=0, heat_sinks=1, weapons=[{"type": "ppc", "loc": "ra"}]),
        unit("b", "blue", "0806", facing="S", initiative=9, name="Raven"),
    )
    state, _, model = opened(state)
    (option,) = model.options("w")
    assert option.text.render("es").startswith("CPP → Raven: ") and "+ en 2d6" in option.text.render("es")
    assert option.text.render("en").startswith("PPC → Raven: ")
    model = press(panel, state, model, "w", (option.value,))
    heat = next(f for f in model.fields if f.name.key == "panel.mech.heat")
    # MECH-3.1: PPC 10 heat − 1 sink = 9 → MECH-3.2 the heat line says what it does next turn
    assert heat.lines[0].render("es").startswith("calor 9 → ") and "próximo turno" in heat.lines[0].render(
        "es"
    )
    raw: Any = panel.raw_order(model)
    assert raw["fire"] == [{"weapon": 1, "target": "b"}]


def test_a_stored_declaration_reopens_as_the_same_draft() -> None:
    state = build(unit("a", "red", "0810", initiative=0), unit("b", "blue", "0805", facing="S", initiative=9))
    state, uid, model = opened(state)
    for action in ("m_w", "fwd", "left", "fwd", "tr"):
        model = press(panel, state, model, action)
    raw = panel.raw_order(model)
    again = panel.build_panel(state, uid, draft=panel.draft_from_raw(state, uid, raw), owing=True)
    assert again.draft == model.draft and panel.raw_order(again) == raw


def test_a_long_jump_with_every_weapon_still_fits_its_custom_id() -> None:
    weapons = [{"type": "medium_laser", "loc": loc} for loc in ("la", "ra", "lt", "rt", "ct", "head")]
    state = build(
        unit("a", "red", "0812", initiative=0, walk=8, run=12, jump=12, heat_sinks=30, weapons=weapons),
        unit("b", "blue", "0806", facing="S", initiative=9),
        width=30,
        height=30,
    )
    state, uid, model = opened(state)
    model = press(panel, state, model, "m_j")
    values = tuple(o.value for o in model.options("w"))
    model = press(panel, state, model, "w", values)
    for _ in range(60):  # a player zig-zagging: turn, forward, turn back, forward …
        for action in ("left", "fwd", "right", "right", "fwd", "left"):
            if enabled(model, action):
                model = press(panel, state, model, action)
            encode_draft(model.draft, 9_999_999)  # never DraftTooLong
    assert accepted(state, uid, panel.raw_order(model)) is not None
    assert not enabled(model, "fwd")


def test_mech_2_1_a_second_target_shows_the_secondary_target_need() -> None:
    weapons = [{"type": "medium_laser", "loc": "la"}, {"type": "medium_laser", "loc": "ra"}]
    state = build(
        unit("a", "red", "0810", initiative=0, weapons=weapons),
        unit("b", "blue", "0807", facing="S", initiative=8, name="Raven"),
        unit("c", "blue", "0907", facing="S", initiative=9, name="Locust"),
    )
    state, _, model = opened(state)
    by_target = {(o.value[0], o.label): o for o in model.options("w")}
    first, second = by_target[("1", "Raven")], by_target[("2", "Locust")]
    model = press(panel, state, model, "w", (first.value, second.value))
    fire = next(f for f in model.fields if f.name.key == "panel.mech.fire")
    lines = [line.render("en") for line in fire.lines]
    assert lines[0] == first.text.render("en")
    need = int(second.param("need"))
    assert lines[1].startswith("Medium Laser → Locust: ") and lines[1].endswith("(secondary target)")
    extra = tables().secondary_target  # MECH-2.1 [HOUSE] secondary target (data/mech/rules.toml)
    assert int(lines[1].split(": ")[1].split("+")[0]) == min(12, need + extra)


def test_mech_5_a_fighters_panel_offers_only_a_straight_flight() -> None:
    """MECH-5: a fighter never stands still nor reverses, and turns one hexside only after 2 hexes: its panel offers
    cruise and flank (the flight starts one hex ahead), never ▼, and a turn only once two hexes are flown."""
    state = build(
        unit(
            "f", "red", "0814", initiative=0, kind="fighter", walk=6, weapons=[{"type": "mg", "loc": "front"}]
        ),
        unit("b", "blue", "0302", facing="S", initiative=9),
    )
    state, uid, model = opened(state)
    # it opens at cruise, one hex ahead: a declaration the rules take as it stands (never "stand")
    assert model.control("m_s") is None and not enabled(model, "m_c") and enabled(model, "m_f")
    assert spent(model)[0] == 1 and accepted(state, uid, panel.raw_order(model)) is not None
    assert not enabled(model, "back") and not enabled(model, "left") and not enabled(model, "right")
    model = press(panel, state, model, "fwd")
    assert enabled(model, "left") and enabled(model, "right") and not enabled(model, "back")
    model = press(panel, state, model, "left")
    assert not enabled(model, "left")  # one hexside at most
    assert accepted(state, uid, panel.raw_order(model)) is not None


def test_mech_5_no_physical_attack_is_offered_to_or_against_an_air_unit() -> None:
    state = build(
        unit("h", "red", "0810", initiative=0, kind="helicopter", weapons=[{"type": "mg", "loc": "front"}]),
        unit("b", "blue", "0809", facing="S", initiative=9),
    )
    state, _ = step(state)  # initiative
    assert physical_options(state, "h") == ()  # the helicopter makes none
    assert physical_options(state, "b") == ()  # and none reaches it


def test_mech_5_an_out_of_control_fighters_panel_offers_nothing_to_choose() -> None:
    """MECH-5 [HOUSE]: out of control, the rules fly it straight at flank speed and it fires nothing: its panel
    offers no mode to pick and no shot, and the declaration as it stands is accepted."""
    state = build(
        unit(
            "f", "red", "0814", initiative=0, kind="fighter", walk=6, weapons=[{"type": "mg", "loc": "front"}]
        ),
        unit("b", "blue", "0812", facing="S", initiative=9),
    )
    state = with_unit(state, "f", out_of_control=True)
    state, uid, model = opened(state)
    assert not enabled(model, "m_c") and not enabled(model, "m_f") and not enabled(model, "fwd")
    assert model.control("w") is None
    assert accepted(state, uid, panel.raw_order(model)) is not None


def test_mech_2_2_a_melee_weapon_attack_reads_as_mechs_melee_weapon_not_pbws_way_to_fight() -> None:
    """The physical attack ``melee`` (MECH-2.2) is a melee weapon: the panel says so in mech's own words, not with
    the word pbw uses for fighting in melee (both plug-ins say "melee", each means its own thing)."""
    state = build(unit("a", "red", "0505", initiative=0), unit("b", "blue", "0504", facing="S", initiative=9))
    state, uid, model = opened(state)
    assert any(p.kind == "melee" for p in physical_options(state, uid))
    texts = {
        lang: [o.text.render(lang) for c in model.controls if isinstance(c, Select) for o in c.options]
        for lang in ("en", "es")
    }
    assert any(s.startswith("melee weapon → ") for s in texts["en"]), texts["en"]
    assert any(s.startswith("golpe con arma cuerpo a cuerpo → ") for s in texts["es"]), texts["es"]
    assert not any("fight in melee" in s for s in texts["en"])

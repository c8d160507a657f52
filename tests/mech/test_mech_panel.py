"""The mech declaration panel (bot/panels/mech.py) on small boards: a move is one pick of its end hex, then its
facing, no destination passes its mode's MP (MECH-1.2), reverse is never offered at run, shots are labelled with their need on 2d6 (MECH-2.1), the heat line
(MECH-3.2), a stored declaration reopens as the same draft, and a long declaration always fits its custom id."""

from __future__ import annotations

from typing import Any

from bot.panels import accepted, press
from bot.panels import mech as panel
from bot.panels.draft import encode_draft
from bot.panels.model import Button, Option, PanelModel, Select
from rules.mech.queries import mp_by_mode, physical_options
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


def destination_options(state: EncounterState, model: PanelModel) -> list[tuple[PanelModel, Option]]:
    """Every hex line of the destination menu with the panel it is offered on (each direction's too, when the
    menu lists directions)."""
    out: list[tuple[PanelModel, Option]] = []
    for option in model.options(panel.DEST):
        if option.value.startswith(panel.HEADING):
            way = press(panel, state, model, panel.DEST, (option.value,))
            out.extend((way, o) for o in way.options(panel.DEST) if not o.value.startswith(panel.HEADING))
        else:
            out.append((model, option))
    return list({o.value: (m, o) for m, o in out}.values())


def pick(state: EncounterState, model: PanelModel, label: str) -> tuple[PanelModel, Option]:
    """The panel once the destination line starting with ``label`` is picked, and that line."""
    shown, option = next(
        (m, o) for m, o in destination_options(state, model) if o.text.render("en").startswith(label)
    )
    return press(panel, state, shown, panel.DEST, (option.value,)), option


def test_mech_1_2_a_move_is_one_pick_of_its_end_hex_then_its_facing() -> None:
    """MECH-1.2: the destination menu labels each hex with its mode and MP; one pick drafts the whole path, the
    facing menu then offers the end facings the MP left allow, each with the movement's whole MP, and the
    declaration still lists every hex entered."""
    state = build(
        unit("a", "red", "0810", initiative=0, walk=3, run=5),
        unit("b", "blue", "0302", facing="S", initiative=9),
    )
    state, uid, model = opened(state)
    assert model.control("fwd") is None and model.control("m_w") is None, "no pad, no mode buttons"
    model, three = pick(state, model, "0807 ·")
    assert (
        three.text.render("en") == "0807 · Walk · 3 MP" and three.text.render("es") == "0807 · Andar · 3 PM"
    )
    raw: Any = panel.raw_order(model)
    assert raw["mode"] == "walk" and raw["path"] == ["0809", "0808", "0807"] and raw["facing"] == "N"
    assert spent(model) == (3, 3) and accepted(state, uid, raw) is not None
    facings = model.options(panel.FACE)
    assert [o.label for o in facings] == ["N"], "no MP left to turn"
    model, two = pick(state, model, "0808 ·")
    labels = {o.label: o.text.render("en") for o in model.options(panel.FACE)}
    assert labels == {
        "N": "facing N · 2 MP in all",
        "NE": "facing NE · 3 MP in all",
        "NW": "facing NW · 3 MP in all",
    }
    turned = next(o for o in model.options(panel.FACE) if o.label == "NE")
    model = press(panel, state, model, panel.FACE, (turned.value,))
    raw = panel.raw_order(model)
    assert raw["path"] == ["0809", "0808"] and raw["facing"] == "NE" and spent(model) == (3, 3)
    assert model.control(panel.DEST).chosen == (two.value,)  # type: ignore[union-attr]


def test_mech_1_2_every_destination_is_within_its_modes_mp_and_the_rules_take_it() -> None:
    state = build(
        unit("a", "red", "0810", initiative=0, walk=3, run=5, jump=3),
        unit("b", "blue", "0808", facing="S", initiative=9),
    )
    state, uid, model = opened(state)
    found = destination_options(state, model)
    options = [o for _, o in found]
    modes = {o.value[0] for o in options}
    assert modes == {"s", "w", "r", "j"}, modes
    for shown, option in found:
        chosen = press(panel, state, shown, panel.DEST, (option.value,))
        used, mp = spent(chosen)
        assert used <= mp == mp_by_mode(state, uid)[panel.MODE_OF[option.value[0]]] or option.value == "s"
        assert accepted(state, uid, panel.raw_order(chosen)) is not None, option.value
    # the enemy's hex is never an end, and but for a jump never on the way
    assert not any(o.text.render("en").startswith("0808 ·") for o in options)
    assert any(o.text.render("en") == "0807 · Jump · 3 MP" for o in options), "over the enemy"


def test_mech_1_2_reverse_is_never_offered_at_run() -> None:
    state = build(unit("a", "red", "0810", initiative=0), unit("b", "blue", "0302", facing="S", initiative=9))
    state, _, model = opened(state)
    options = [o for _, o in destination_options(state, model)]
    assert any(o.value == "wB" for o in options), "a walk backs into the hex behind for 1 MP"
    assert not any(o.value.startswith("r") and "B" in o.value for o in options)


def test_mech_1_2_a_menu_too_long_lists_directions_and_says_when_a_direction_is_cut() -> None:
    state = build(
        unit("a", "red", "1515", initiative=0, walk=8, run=12, jump=8),
        unit("b", "blue", "0302", facing="S", initiative=9),
        width=30,
        height=30,
    )
    state, _, model = opened(state)
    menu = model.control(panel.DEST)
    assert isinstance(menu, Select) and len(menu.options) <= 25
    heads = [o for o in menu.options if o.value.startswith(panel.HEADING)]
    assert len(heads) == 6 and heads[0].text.render("en").startswith("Towards N (")
    way = press(panel, state, model, panel.DEST, (heads[0].value,))
    menu = way.control(panel.DEST)
    assert isinstance(menu, Select) and len(menu.options) == 25
    count = int(heads[0].param("count"))
    assert menu.placeholder.render("en") == f"Where to end: the 18 nearest of {count}"
    assert menu.placeholder.render("es") == f"Dónde terminar: los 18 más cercanos de {count}"


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
    model, _ = pick(state, model, "0709 · Walk")
    model = press(panel, state, model, panel.FACE, (model.options(panel.FACE)[-1].value,))
    model = press(panel, state, model, "tr")
    raw = panel.raw_order(model)
    assert raw["path"] == ["0809", "0709"] and raw["twist"] == "R", raw
    again = panel.build_panel(state, uid, draft=panel.draft_from_raw(state, uid, raw), owing=True)
    # the direction picked on the menu is where the panel was, not part of the declaration
    assert again.draft == model.draft.replace(g="") and panel.raw_order(again) == raw


def test_a_long_jump_with_every_weapon_still_fits_its_custom_id() -> None:
    weapons = [{"type": "medium_laser", "loc": loc} for loc in ("la", "ra", "lt", "rt", "ct", "head")]
    state = build(
        unit("a", "red", "0812", initiative=0, walk=8, run=12, jump=12, heat_sinks=30, weapons=weapons),
        unit("b", "blue", "0806", facing="S", initiative=9),
        width=30,
        height=30,
    )
    state, uid, model = opened(state)
    jumps = [(m, o) for m, o in destination_options(state, model) if o.value.startswith("j")]
    assert jumps
    for (
        shown,
        option,
    ) in jumps:  # every jump, the farthest zig-zags included, each with every weapon it may fire
        model = press(panel, state, shown, panel.DEST, (option.value,))
        values = tuple(o.value for o in model.options("w"))
        if values:
            model = press(panel, state, model, "w", values)
        for face in model.options(panel.FACE):
            encode_draft(press(panel, state, model, panel.FACE, (face.value,)).draft, 9_999_999)
        encode_draft(model.draft, 9_999_999)  # never DraftTooLong
        assert accepted(state, uid, panel.raw_order(model)) is not None


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
    """MECH-5: a fighter never stands still nor reverses, and turns one hexside only after 2 hexes: its destination
    menu offers cruise and flank flights only (the flight starts one hex ahead), none in reverse, and a turn only
    once two hexes are flown."""
    state = build(
        unit(
            "f", "red", "0814", initiative=0, kind="fighter", walk=6, weapons=[{"type": "mg", "loc": "front"}]
        ),
        unit("b", "blue", "0302", facing="S", initiative=9),
    )
    state, uid, model = opened(state)
    # it opens at cruise, one hex ahead: a declaration the rules take as it stands (never "stand")
    assert spent(model)[0] == 1 and accepted(state, uid, panel.raw_order(model)) is not None
    found = destination_options(state, model)
    options = [o for _, o in found]
    assert options and {o.value[0] for o in options} == {"c", "f"}, "no stand, no turn in place"
    for shown, option in found:
        value = option.value[1:]
        assert "B" not in value and not value.startswith(("L", "R", "FL", "FR")), (
            value
        )  # 2 hexes before a turn
        assert "LL" not in value and "RR" not in value, value
        assert accepted(state, uid, panel.raw_order(press(panel, state, shown, panel.DEST, (option.value,))))
    assert any("L" in o.value for o in options) and any("R" in o.value for o in options)


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
    offers no destination to pick and no shot, and the declaration as it stands is accepted."""
    state = build(
        unit(
            "f", "red", "0814", initiative=0, kind="fighter", walk=6, weapons=[{"type": "mg", "loc": "front"}]
        ),
        unit("b", "blue", "0812", facing="S", initiative=9),
    )
    state = with_unit(state, "f", out_of_control=True)
    state, uid, model = opened(state)
    assert model.control(panel.DEST) is None and model.control(panel.FACE) is None
    assert model.control("w") is None
    assert accepted(state, uid, panel.raw_order(model)) is not None


def test_mech_1_2_a_vehicle_picks_cruise_or_flank_ends_and_never_water() -> None:
    """MECH-1.2: a vehicle moves at cruise or flank (no jump, no torso to twist) and cannot enter water: no line
    of its destination menu ends in or crosses it."""
    state = build(
        unit(
            "t",
            "red",
            "0810",
            initiative=0,
            kind="vehicle",
            walk=3,
            weapons=[{"type": "ac5", "loc": "turret"}],
        ),
        unit("b", "blue", "0302", facing="S", initiative=9),
        terrain={"0809": "water"},
    )
    state, uid, model = opened(state)
    found = destination_options(state, model)
    assert {o.value[0] for _, o in found} == {"s", "c", "f"}
    assert model.control("tl") is None and model.control("tr") is None
    for shown, option in found:
        raw: Any = panel.raw_order(press(panel, state, shown, panel.DEST, (option.value,)))
        assert "0809" not in raw["path"] and accepted(state, uid, raw) is not None, raw


def test_mech_5_a_helicopter_flies_over_woods_at_one_mp_a_hex() -> None:
    """MECH-5: a helicopter ignores terrain costs: the hex past heavy woods is two MP away, as in the open."""
    state = build(
        unit(
            "h",
            "red",
            "0810",
            initiative=0,
            kind="helicopter",
            walk=3,
            weapons=[{"type": "mg", "loc": "front"}],
        ),
        unit("b", "blue", "0302", facing="S", initiative=9),
        terrain={"0809": "heavy_woods", "0808": "heavy_woods"},
    )
    state, _, model = opened(state)
    _, option = pick(state, model, "0808 ·")
    assert option.text.render("en") == "0808 · Cruise · 2 MP"


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

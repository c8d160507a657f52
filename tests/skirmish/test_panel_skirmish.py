"""The skirmish order panel (bot/panels/skirmish.py) on the bundled corridor: only the actions the rules accept
now are offered (SK-1.1, SK-1.2, SK-2.x, SK-3.x, SK-4.1, SK-5.1, SK-6.x), a hidden enemy is never a target, AP
are shown, every offered action is text the skirmish parser reads; the overwatch question panel; the draft in its
custom id; and what "/director resolve" does for an absent player (the service's stand-in ``end``)."""

from __future__ import annotations

import dataclasses

import pytest

from bot.panels import skirmish as sk_panel
from bot.panels.draft import Draft, DraftTooLong, decode_draft, encode_draft
from bot.panels.model import PanelModel, Preview, Text
from bot.permissions import Actor
from bot.service import EncounterService
from data import SCENARIO_DIR
from rules.engine import resolve_phase
from rules.hexgrid import Hex, HexSide
from rules.registry import get_ruleset
from rules.ruleset import DiceFactory
from rules.scenario import load_scenario
from rules.skirmish.activation import ext_of
from rules.skirmish.model import Character, SkEnd, SkMove, SkOverwatch, SkReaction, SkShoot, SkTurn
from rules.state import EncounterState, replace_unit

CORRIDOR = (SCENARIO_DIR / "skirmish-corridor.toml").read_text(encoding="utf-8")
RULES = get_ruleset("skirmish")


def step(state: EncounterState, orders: dict[str, str] | None = None) -> EncounterState:
    parsed = {u: RULES.parse_order(state, u, text) for u, text in (orders or {}).items()}
    return resolve_phase(RULES, state, parsed, dice_for=DiceFactory()).state


def drawn(*plan: str) -> EncounterState:
    """The corridor after the first chit draw, chits in ``plan`` order (SK-1.1)."""
    state = load_scenario(CORRIDOR).state
    ext = dataclasses.replace(ext_of(state), draw_plan=plan)
    return step(state.replace(ext=ext))


def panel(state: EncounterState, unit: str, draft: Draft | None = None) -> PanelModel:
    owing = unit in RULES.awaiting(state)
    return sk_panel.build_panel(state, unit, draft=draft or Draft(), owing=owing)


def offered(model: PanelModel, group: str | None = None) -> list[str]:
    """The actions offered (a direction on the Move menu is not one: it lists that direction's hexes)."""
    return [
        o.value
        for g in sk_panel.GROUPS
        if group in (None, g)
        for o in model.options(g)
        if not o.value.startswith(f"{sk_panel.WAY} ")
    ]


def all_moves(state: EncounterState, unit: str) -> list[str]:
    """Every hex the Move menu offers, whichever direction it sits in, as the action text of its cheapest end."""
    ways = ("", *(side.name for side in HexSide))
    found = (o.value for w in ways for o in sk_panel.move_options(state, unit, w))
    return list(dict.fromkeys(v for v in found if not v.startswith(f"{sk_panel.WAY} ")))


def test_the_activated_character_gets_only_actions_the_rules_accept() -> None:
    state = drawn("delta")
    assert RULES.awaiting(state) == ("kara", "zug")
    model = panel(state, "kara")
    assert model.step == "orders"
    values = offered(model)
    assert values, "an active character always has something to do"
    for option in (o for g in sk_panel.GROUPS for o in model.options(g)):
        if option.value.startswith(f"{sk_panel.WAY} "):
            continue
        order = RULES.parse_order(state, "kara", option.value)
        RULES.validate_order(state, "kara", order)  # raises if illegal
        assert option.param("cost").isdigit()
    # SK-2.2: Kara (1405, facing SW-NW) may step into 1305 or 1306, but Brak stands in 1306 (SK-2.4): no path
    # goes there or through it
    moves = all_moves(state, "kara")
    assert "move 1305" in moves, "one step keeping the facing is written as SK-2.2's own move"
    assert not any("1306" in v.split() for v in moves)
    assert not any(v.startswith("back") for v in moves), "nothing behind her on the board (SK-2.3)"
    assert "turn SW-NW" not in values, "turning to the facing she has is not an action (SK-2.1)"
    # SK-3.1: Kira at 13 hexes is out of range for a shot; a grenade has no range limit ([HOUSE])
    assert "shoot kira" not in values and "grenade kira" in values
    assert not any(v.endswith(("zug", "tyrano", "brak")) for v in offered(model, "attack")), "no friends"
    assert "overwatch ask" in values and "act search" in values
    # a character of another chit, and a friend of the same chit, are not Kara's to order
    assert panel(state, "veddio").step == "wait"


def test_ap_shown_and_actions_beyond_the_ap_left_are_not_offered() -> None:
    state = drawn("delta")
    model = panel(state, "kara")
    assert model.stat("ap") == "7/7"
    kara = state.unit_as("kara", Character)
    tired = state.with_units([replace_unit(kara, ap_left=1)])
    model = panel(tired, "kara")
    assert model.stat("ap") == "1/7"
    values = offered(model)
    assert not any(v.startswith(("shoot", "overwatch")) for v in values), "2 AP each (SK-1.2)"
    assert "move 1305" in values and "act search" in values, "1 AP actions remain"  # a grenade too (SK-6.2)
    assert all(len(v.split()) <= 4 for v in offered(model, "move")), "one AP: one hex at most"
    assert "turn NE-SE" not in values, "three vertices cost 2 AP (SK-2.1)"


def test_a_hidden_enemy_is_never_offered_as_a_target() -> None:
    state = drawn("delta")
    assert "shoot veddio" in offered(panel(state, "kara"))
    veddio = state.unit_as("veddio", Character)
    hidden = state.with_units([replace_unit(veddio, hidden=True)])
    values = offered(panel(hidden, "kara"))
    assert not any("veddio" in v for v in values), "a hidden enemy is not offered, even in clear sight"
    assert "shoot lana" in values


def test_every_offered_action_becomes_a_raw_order_the_parser_reads() -> None:
    state = drawn("delta")
    model = panel(state, "kara")
    kinds: set[type] = set()
    for value in [*offered(model), *all_moves(state, "kara")]:
        raw = sk_panel.raw_order(panel(state, "kara", Draft(action=value)))
        assert raw == value and isinstance(raw, str)
        order = RULES.parse_order(state, "kara", raw)
        RULES.validate_order(state, "kara", order)
        kinds.add(type(order))
    assert {SkMove, SkTurn, SkShoot, SkOverwatch} <= kinds
    ended = panel(state, "kara", sk_panel.apply(model, "end", None))
    assert isinstance(RULES.parse_order(state, "kara", sk_panel.raw_order(ended)), SkEnd)
    forged = panel(state, "kara", Draft(action="shoot kira"))
    assert sk_panel.raw_order(forged) == "", "a draft action that is not offered now is dropped"
    assert sk_panel.raw_order(dataclasses.replace(model, draft=Draft(action="shoot kira"))) == ""


def test_a_move_previews_its_path_and_end_facing() -> None:
    state = drawn("delta")
    chosen = panel(state, "kara", Draft(action="move 1305 facing NW-N"))
    assert sk_panel.preview(state, chosen) == Preview((Hex.parse("1405"), Hex.parse("1305")), 5, None)
    assert sk_panel.preview(state, panel(state, "kara", Draft(action="shoot veddio"))) is None
    assert sk_panel.projection(state, "kara", "move 0101") is None, "not a legal destination: no preview"


def test_the_overwatch_question_goes_to_the_watcher_as_fire_or_hold() -> None:
    state = drawn("delta", "alpha")
    state = step(state, {"kara": "overwatch ask"})  # SK-4.1: entering overwatch ends her activation
    state = step(state, {"zug": "end"})
    state = step(state)  # chit alpha
    assert set(RULES.awaiting(state)) == {"veddio", "lana"}
    state = step(state, {"veddio": "move 0305"})
    assert state.pending is not None and state.pending.unit == "kara"
    model = panel(state, "kara")
    assert model.step == "decision"
    assert [o.value for o in model.options("decide")] == ["fire", "hold"]
    assert [o.key for o in model.options("decide")] == ["panel.sk.answer.fire", "panel.sk.answer.hold"]
    _, question = model.lines
    params = dict(question.params)
    assert question.key == "panel.sk.question" and params["actor"] == "Veddio"
    assert params["action"] == Text.of("panel.sk.kind.move")
    raw = sk_panel.raw_order(panel(state, "kara", sk_panel.apply(model, "decide", ("fire",))))
    assert isinstance(RULES.parse_order(state, "kara", raw), SkReaction)
    waiting = panel(state, "veddio")
    assert waiting.step == "wait", "the mover waits for the answer"
    assert waiting.lines[1:] == (Text.of("panel.sk.turn_of", names="Kara"),)


def test_the_draft_carries_the_action_and_a_draft_too_long_is_refused_not_cut() -> None:
    draft = Draft(action="move 1305 facing NW-N")
    encoded = encode_draft(draft, 12345)
    assert len(encoded) <= 100
    assert decode_draft(encoded) == (12345, draft)
    assert encode_draft(Draft(), 7) == "hexd:draft:7:"
    with pytest.raises(DraftTooLong, match="100"):
        encode_draft(Draft(action="grenade " + "x" * 120), 999999)


async def test_director_resolve_with_nobody_playing_ends_the_activation(service: EncounterService) -> None:
    created = await service.create(10, 20, 1, ruleset="skirmish", toml_text=CORRIDOR)
    enc = created.encounter_id
    opened = await service.start(enc, Actor(1))
    _, state, _ = await service.load(enc)
    first = RULES.awaiting(state)
    assert opened.opened_phase_no is not None and len(first) == 2, "a chit is drawn and waits (SK-1.1)"
    result = await service.resolve(enc, forced=True)
    events = [e for s in result.steps for e in s.events]
    assert [e.type for e in events] == ["SkActivationForced"], "one absent character passes, no dice rolled"
    _, state, _ = await service.load(enc)
    assert len(RULES.awaiting(state)) == 1 and RULES.awaiting(state)[0] in first


async def test_one_submitted_action_resolves_at_once_in_activation_mode(service: EncounterService) -> None:
    created = await service.create(10, 20, 1, ruleset="skirmish", toml_text=CORRIDOR)
    enc = created.encounter_id
    _, state, _ = await service.load(enc)
    units = [u.id for u in state.units_of(Character)]
    for unit in units:
        await service.join(enc, 2 if state.units[unit].side == "rfp" else 3, unit=unit)
    await service.start(enc, Actor(1))
    _, state, phase_no = await service.load(enc)
    actor = RULES.awaiting(state)[0]
    user = 2 if state.units[actor].side == "rfp" else 3
    choice = all_moves(state, actor)[0]
    sent = await service.submit(enc, user, actor, choice, phase_no=phase_no)
    assert sent.all_in, "the other character of the chit need not order anything"
    result = await service.resolve(enc, expected_phase_no=phase_no, all_in=True)
    assert [e.type for s in result.steps for e in s.events][:2] == ["SkApSpent", "UnitMoved"]
    _, after, _ = await service.load(enc)
    assert RULES.awaiting(after) == (actor,), "the same character keeps acting with its AP left"
    assert result.opened_phase_no is not None


def test_a_hex_held_by_a_hidden_enemy_is_still_offered_as_a_move() -> None:
    """Leaving it out would tell the player an unseen enemy stands there (FOG-1)."""
    state = drawn("delta")
    first_move = all_moves(state, "kara")[0]
    target = Hex.parse(first_move.split()[1])
    veddio = state.unit_as("veddio", Character)
    lurking = state.with_units([replace_unit(veddio, at=target, hidden=True)])
    assert f"move {target.label}" in all_moves(lurking, "kara")
    assert not any("veddio" in v for v in offered(panel(lurking, "kara")))
    # Submit meets the real board: refused, without naming who is there
    from rules.errors import GameError

    with pytest.raises(GameError) as bumped:
        RULES.validate_order(lurking, "kara", RULES.parse_order(lurking, "kara", first_move))
    assert bumped.value.code == "skirmish.occupied_unseen"
    assert "eddio" not in str(bumped.value) and "eddio" not in repr(bumped.value.params)

"""The bot's pure parts: /roll expressions, the order panel model, director overrides, permissions, the
translator, error texts and log redaction."""

from __future__ import annotations

import io
import logging
from dataclasses import replace
from datetime import UTC, datetime

import pytest
from discord import Locale, app_commands

from bot.logs import RedactSecrets
from bot.panels import exo as exo_panel
from bot.panels import press
from bot.panels.draft import DRAFT_ROOM, Draft, DraftTooLong, decode_draft, encode_draft
from bot.panels.model import Button
from bot.permissions import Actor, is_director
from bot.process.client import error_text, in_their_words
from bot.results import Refused
from bot.storage import Encounter, Participant
from bot.transforms import overrides
from bot.transforms.dice_expr import CheckExpr, SombraExpr, SumExpr, parse_roll, roll_expression
from bot.translator import HexTranslator, tr
from data import SCENARIO_DIR
from data.i18n import t
from rules.dice import Dice
from rules.errors import IllegalOrderError, InvalidOrderError
from rules.events import DirectorOverride, UnitDestroyed
from rules.hexgrid import Hex
from rules.scenario import load_scenario
from rules.state import EncounterState
from tests.paths import ROOT


def duel() -> EncounterState:
    return load_scenario((SCENARIO_DIR / "exo-duel.toml").read_text(encoding="utf-8")).state


# --- /roll (DICE-1..3) ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("3d6+2", SumExpr),
        ("d10", SumExpr),
        ("4d6k3 - 1", SumExpr),
        ("sombra 17", SombraExpr),
        ("Sombra 15 +3", SombraExpr),
        ("2d6+5 vs 15", CheckExpr),
        ("2d6 vs 8", CheckExpr),
    ],
)
def test_roll_expressions_parse(text: str, expected: type) -> None:
    assert isinstance(parse_roll(text), expected)


@pytest.mark.parametrize(
    "text", ["", "hello", "3d", "0d6", "1000d6", "2d1", "3d6++2", "sombra", "d6 d6", "4d6k5"]
)
def test_bad_roll_expressions_are_refused_with_a_code(text: str) -> None:
    with pytest.raises(InvalidOrderError) as err:
        parse_roll(text)
    assert err.value.code == "roll.syntax"


@pytest.mark.parametrize(
    "text", ["-1d6", "- 2d6+3", "-d20", "sombra ١٧", "٢d6", "2d٦", "2d6+٣", "2d6 vs ١٥", "３d6"]
)
def test_dice_1_negative_dice_counts_and_non_ascii_digits_are_refused(text: str) -> None:
    """DICE-1: ``-1d6`` is no roll (it answered −4); only 0-9 are digits, not Arabic-Indic or full-width ones."""
    with pytest.raises(InvalidOrderError) as err:
        parse_roll(text)
    assert err.value.code == "roll.syntax"


def test_dice_1_a_dice_term_may_still_be_subtracted_after_another() -> None:
    outcome = roll_expression(parse_roll("2d6-1d4+1"), Dice(1, (3, 4, 2)))
    assert outcome.params["total"] == 3 + 4 - 2 + 1


def test_sum_roll_keeps_the_highest_and_adds_constants() -> None:
    outcome = roll_expression(parse_roll("4d6k3+2"), Dice(1, (6, 1, 5, 3)))
    assert outcome.params["total"] == 6 + 5 + 3 + 2
    assert outcome.params["dice_text"] == "[6, 1, 5, 3]"


def test_sombra_roll_dice_2_quality_and_modifier() -> None:
    outcome = roll_expression(parse_roll("sombra 17 +2"), Dice(1, (2, 6, 4)))
    assert (outcome.params["de"], outcome.params["high"], outcome.params["low"]) == (2, 6, 4)
    assert outcome.params["total"] == 14 and outcome.params["quality"] == "success"
    critical = roll_expression(parse_roll("sombra 10"), Dice(1, (1, 1, 1)))
    assert critical.params["quality"] == "critical"


def test_2d6_check_dice_3_naturals() -> None:
    assert roll_expression(parse_roll("2d6+20 vs 10"), Dice(1, (1, 1))).params["quality"] == "fumble"
    assert roll_expression(parse_roll("2d6 vs 30"), Dice(1, (6, 6))).params["quality"] == "critical"
    assert roll_expression(parse_roll("2d6+5 vs 15"), Dice(1, (5, 5))).params["quality"] == "success"
    assert roll_expression(parse_roll("2d6+5 vs 15"), Dice(1, (4, 5))).params["quality"] == "failure"


# --- the order panel model ----------------------------------------------------------------------------------
def test_draft_round_trips_through_a_custom_id_within_discord_limits() -> None:
    draft = Draft(move="DDA", fire=("gunner1.1.pirata", "pilot.2.pirata"))
    cid = encode_draft(draft, 12)
    assert len(cid) <= 100 and cid.startswith("hexd:draft:12:")
    assert decode_draft(cid) == (12, draft)
    assert draft.list("fire") == ("gunner1.1.pirata", "pilot.2.pirata") and draft.text("move") == "DDA"
    assert decode_draft("hexd:enc:1:unit:x:D") is None
    assert decode_draft("hexd:draft:3:XYZ|||") == (3, Draft()), "junk fields are dropped"
    odd = Draft(action="a;b=c%d é")
    assert decode_draft(encode_draft(odd, 1)) == (1, odd), "separators and non-ASCII survive"


def test_a_draft_that_would_pass_the_custom_id_limit_is_refused_never_cut() -> None:
    fits = Draft(note="x" * (DRAFT_ROOM - len("note=")))
    assert len(encode_draft(fits, 9_999_999)) == 100, "the room holds in the longest phase number"
    with pytest.raises(DraftTooLong, match="100-character"):
        encode_draft(fits.replace(note="x" * (DRAFT_ROOM - 4)), 1)
    with pytest.raises(DraftTooLong):
        encode_draft(Draft(), 10**7)
    with pytest.raises(ValueError, match="contain"):
        Draft(fire=["a,b"])


def exo_orders_state() -> EncounterState:
    from rules.exo.state import ORDERS_STEP, ext_of

    state = duel()
    return state.replace(phase="1", ext=replace(ext_of(state.ext), step=ORDERS_STEP))


def test_panel_offers_manta_letters_and_only_legal_fire() -> None:
    state = exo_orders_state()
    model = exo_panel.build_panel(state, "halcon", draft=Draft(), owing=True)
    manta = state.units["halcon"].manta  # type: ignore[attr-defined]
    assert model.step == "orders" and model.fields[0].name.params == (("max", str(manta)),)
    from rules.exo.preview import legal_targets

    for option in model.options("fire"):
        _, weapon, target = option.value.split(".")
        assert target in legal_targets(state, "halcon", int(weapon))
    for letter in "DAAAA":
        model = press(exo_panel.PANEL, state, model, letter)
    assert len(model.draft.text("move")) == manta  # never more letters than Manta (EXO-2.3)
    full = [c for c in model.controls if isinstance(c, Button) and c.action in ("I", "D", "A")]
    assert not any(b.enabled for b in full), "a full movement offers no more letters"
    assert press(exo_panel.PANEL, state, model, "back").draft.text("move") == model.draft.text("move")[:-1]
    assert press(exo_panel.PANEL, state, model, "clear").draft == Draft()
    first = [o.value for o in model.options("fire")[:1]]
    raw = exo_panel.raw_order(
        exo_panel.build_panel(state, "halcon", draft=Draft(move="D", fire=first), owing=True)
    )
    assert raw["move"] == "D" and len(raw["fire"]) == min(1, len(model.options("fire")))


def test_panel_of_a_unit_that_owes_nothing_offers_nothing() -> None:
    model = exo_panel.build_panel(duel(), "halcon", draft=Draft(), owing=False)
    assert model.step == "wait" and not model.controls


# --- director overrides ---------------------------------------------------------------------------------
def test_move_keeps_the_ships_velocity_exo_1_1() -> None:
    state = duel()
    ship = state.units["halcon"]
    velocity = ship.vector - ship.at  # type: ignore[attr-defined,operator]
    to = Hex.parse("0303")
    moved, event = overrides.move(state, "halcon", to, facing=2)
    new = moved.units["halcon"]
    assert isinstance(event, DirectorOverride) and event.action == "move"
    assert new.at == to and new.facing == 2 and new.vector - new.at == velocity  # type: ignore[attr-defined,operator]


def test_damage_goes_through_armor_then_structure_and_destroys() -> None:
    state = duel()
    armor = state.units["pirata"].armor  # type: ignore[attr-defined]
    hit, events = overrides.damage(state, "pirata", str(armor + 1))
    assert hit.units["pirata"].armor == 0 and hit.units["pirata"].structure == 2  # type: ignore[attr-defined]
    dead, events = overrides.damage(state, "pirata", "99")
    assert dead.units["pirata"].destroyed and any(isinstance(e, UnitDestroyed) for e in events)


def test_set_refuses_unknown_stats_and_values_above_the_maximum() -> None:
    state = duel()
    changed, _ = overrides.set_stat(state, "halcon", "armor", "1")
    assert changed.units["halcon"].armor == 1  # type: ignore[attr-defined]
    for stat, value in (("vector", "0101"), ("armor", "99"), ("armor", "x"), ("nonsense", "1")):
        with pytest.raises(Refused):
            overrides.set_stat(state, "halcon", stat, value)


def test_add_and_remove_unit() -> None:
    state = duel()
    added, _ = overrides.add_unit(state, "raider", "blue", Hex.parse("1010"), like="pirata", name="Raider")
    assert added.units["raider"].side == "blue" and type(added.units["raider"]) is type(state.units["pirata"])
    with pytest.raises(Refused):
        overrides.add_unit(added, "raider", "blue", Hex.parse("1010"), like="pirata")
    removed, _ = overrides.remove_unit(added, "raider")
    assert "raider" not in removed.units


# --- permissions, translator, errors, logs -------------------------------------------------------------
def meta(created_by: int = 1) -> Encounter:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    return Encounter(1, 10, 20, "exo", "duel", created_by, "running", 1, {}, 0, now, now)


def test_director_is_creator_cohost_role_or_manage_server() -> None:
    parts = [Participant(1, 5, "codirector", None, None), Participant(1, 6, "player", "red", "halcon")]
    assert is_director(Actor(1), meta(), parts)
    assert is_director(Actor(5), meta(), parts)
    assert is_director(Actor(9, manage_guild=True), meta(), parts)
    assert is_director(Actor(9, role_ids=frozenset({77})), meta(), parts, director_role_id=77)
    assert is_director(Actor(9, role_names=frozenset({"GM"})), meta(), parts, director_role_name="GM")
    assert not is_director(Actor(6), meta(), parts)


async def test_translator_gives_spanish_names_and_leaves_english_alone() -> None:
    translator = HexTranslator()
    name_ctx = app_commands.TranslationContext(app_commands.TranslationContextLocation.command_name, None)
    assert (
        await translator.translate(tr("encounter", "cmd.encounter.name"), Locale.spain_spanish, name_ctx)
        == "encuentro"
    )
    assert (
        await translator.translate(
            tr("encounter", "cmd.encounter.name"), Locale.latin_american_spanish, name_ctx
        )
        == "encuentro"
    )
    assert (
        await translator.translate(tr("encounter", "cmd.encounter.name"), Locale.american_english, name_ctx)
        is None
    )
    param_ctx = app_commands.TranslationContext(app_commands.TranslationContextLocation.parameter_name, None)
    assert (
        await translator.translate(app_commands.locale_str("unit"), Locale.spain_spanish, param_ctx)
        == "unidad"
    )


def test_every_spanish_command_name_is_a_valid_discord_name() -> None:
    import re
    import tomllib

    table = tomllib.loads((ROOT / "data/locales/es/bot.toml").read_text("utf-8"))
    names = [v for k, v in table["cmd"].items() if k.endswith(".name")] + list(table["param"].values())
    for name in names:
        assert re.fullmatch(r"[-_\w]{1,32}", name) and name == name.lower(), name


def test_game_errors_are_shown_in_the_readers_language() -> None:
    err = IllegalOrderError("x", code="unit.not_yours", params={"unit": "halcon"})
    assert error_text(err, "es-ES") == "Esa unidad no es tuya."
    assert error_text(err, "en-US") == "That is not one of your units."
    unknown = IllegalOrderError("Halcón: something specific (EXO-9.9)", code="no.such.key", rule="EXO-9.9")
    assert error_text(unknown, "es-ES") == str(unknown)


def test_store_refusals_a_race_can_bring_are_shown_in_the_readers_words() -> None:
    """A race past the service's checks (the encounter ended, the phase resolved meanwhile) reached people as
    "The encounter store refused that: encounter 7 has ended; it accepts no more orders or resolutions", in
    English with an id; each such refusal now reads as the service's own."""
    from bot.storage import (
        ChannelBusyError,
        EncounterEndedError,
        EncounterNotFoundError,
        NothingToUndoError,
        StalePhaseError,
        UnitTakenError,
    )

    said = {
        EncounterEndedError(7): "Este encuentro ha terminado.",
        StalePhaseError(7, 1, 2): "La partida avanzó mientras lo aplicaba; vuelve a darlo.",
        EncounterNotFoundError(7): "Ese encuentro ya no existe, o ya no juegas en él.",
        ChannelBusyError(1, 2): "Este canal ya tiene un encuentro; termínalo antes con /encuentro terminar.",
        NothingToUndoError(7): "No hay nada que deshacer.",
    }
    for error, spanish in said.items():
        assert error_text(in_their_words(error), "es-ES") == spanish
    other = UnitTakenError(7, "halcon", 3)  # the service turns it into "unit.taken", with the unit's name
    assert in_their_words(other) is other


def test_logs_never_carry_the_token() -> None:
    token = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GabcdE.abcdefghijklmnopqrstuvwxyz0123456789"
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(RedactSecrets(token))
    logger = logging.getLogger("hexd-test-redaction")
    logger.addHandler(handler)
    logger.propagate = False
    logger.warning("connecting with %s", token)
    logger.warning("some other token-shaped thing MTAxMDEwMTAxMDEwMTAxMDEw.Gxxxxx.%s", "y" * 30)
    assert token not in stream.getvalue() and "<redacted>" in stream.getvalue()
    assert "Gxxxxx" not in stream.getvalue()


def test_the_account_names_sides_by_their_name_in_each_language() -> None:
    from bot.text.account import describe
    from rules.scenario import load_scenario
    from rules.skirmish.events import SkChitDrawn

    state = load_scenario(SCENARIO_DIR / "skirmish-corridor.toml").state
    side = state.sides[0]
    event = SkChitDrawn(rule="SK-1.1", chit="delta", side=side.id)
    for locale in ("en", "es"):
        line = describe(event, state, locale)
        assert f"({side.name})" in line and f"({side.id})" not in line, line


def test_a_thousand_dice_show_the_total_first_and_a_summary_that_fits() -> None:
    """10 terms of 100 dice each used to be cut at 2,000 characters before the total."""
    expression = "+".join(["100d100"] * 10)
    outcome = roll_expression(parse_roll(expression), Dice(7))
    text = t(outcome.key, "es", **dict(outcome.params))
    assert len(f"<@123456789012345678> 🎲 {text}") < 2000
    assert text.startswith(f"{expression} = **{outcome.params['total']}**")
    assert text.count("[100d100: Σ") == 10
    small = roll_expression(parse_roll("3d6"), Dice(1, (1, 2, 3)))
    assert t(small.key, "en", **dict(small.params)) == "3d6 = **6** · [1, 2, 3]"

"""The alt text of the bot's pictures (bot/alt_text.py): the step, what moved, what was hit, who acts and where the
units stand, in the reader's language, and never a unit the picture does not show (FOG-1)."""

from __future__ import annotations

from bot.alt_text import LIMIT, arcs_alt, board_alt, preview_alt
from rules.events import ShotResolved, UnitMoved
from rules.hexgrid import Hex
from rules.scenario import load_scenario
from rules.state import EncounterState
from tests.mech_fixtures import build, laser_at_locust, unit
from tests.paths import ROOT


def _ambush() -> EncounterState:
    """exo-ambush: the courier's escort Sombra waits hidden at 0906 (FOG-1: the corsairs do not see it)."""
    text = (ROOT / "data" / "scenarios" / "exo-ambush.toml").read_text(encoding="utf-8")
    return load_scenario(text).state


def _moved_and_fired() -> tuple[UnitMoved | ShotResolved, ...]:
    moved = UnitMoved(
        rule="EXO-2.1", unit="halcon", frm=Hex.parse("0512"), to=Hex.parse("0511"), facing_from=0, facing_to=0
    )
    hidden_moved = UnitMoved(
        rule="EXO-2.1", unit="sombra", frm=Hex.parse("0907"), to=Hex.parse("0906"), facing_from=0, facing_to=0
    )
    shot = ShotResolved(rule="EXO-3.4", shooter="sombra", target="halcon", weapon="L", hit=True, damage=3)
    return moved, hidden_moved, shot


def test_fog_1_a_side_that_cannot_see_a_unit_reads_nothing_of_it() -> None:
    state = _ambush()
    for viewer in ("public", "red"):
        text = board_alt(state, _moved_and_fired(), viewer=viewer, locale="en", step=(1, "1"))
        assert "Sombra" not in text and "0906" not in text and "0907" not in text, (viewer, text)
        assert "Halcón 0512 → 0511" in text, text
        assert "Hit:" not in text, "a shot from a unit the side cannot see is not told (FOG-1)"
    for viewer in ("director", "blue"):
        text = board_alt(state, _moved_and_fired(), viewer=viewer, locale="en", step=(1, "1"))
        assert "Sombra 0907 → 0906" in text and "Halcón by Sombra (3 damage)" in text, (viewer, text)


def test_the_step_moves_hits_and_places_read_in_the_readers_language() -> None:
    state = _ambush()
    en = board_alt(state, _moved_and_fired(), viewer="director", locale="en", step=(1, "1"))
    es = board_alt(state, _moved_and_fired(), viewer="director", locale="es", step=(1, "1"))
    assert en.startswith("Director view. Round 1"), en
    assert es.startswith("Vista del director. Ronda 1"), es
    assert "Moved:" in en and "Movido:" in es
    assert "Halcón por Sombra (3 de daño)" in es, es
    assert "Correo at 0604" in en and "Correo en 0604" in es


def test_an_opening_board_places_every_unit_it_shows() -> None:
    state = _ambush()
    text = board_alt(state, (), viewer="red", locale="en")
    for name, at in (("Halcón", "0511"), ("Cuervo", "0311"), ("Correo", "0604")):
        assert f"{name} at {at}" in text, text
    assert "Sombra" not in text


def test_mech_2_1_a_rulesets_own_attack_is_told_through_its_overlay() -> None:
    """MECH-2.1/2.3: a mech's WeaponFired is no common ShotResolved; the mech overlay's shots hook tells the hit."""
    state = build(unit("atlas", "red", "0405", "SE"), unit("locust", "blue", "0408", "N"))
    fired, dealt = laser_at_locust(True, damage=5)
    text = board_alt(state, (fired, dealt), viewer="public", locale="en")
    names = {u.id: u.name for u in state.units.values()}
    assert f"Hit: {names['locust']} by {names['atlas']}" in text, text


def test_a_crowded_board_is_cut_to_what_discord_keeps() -> None:
    units = [
        unit(f"u{i}", "red" if i % 2 else "blue", f"{1 + i % 16:02d}{1 + i // 16:02d}") for i in range(120)
    ]
    text = board_alt(build(*units), (), viewer="public", locale="en")
    assert len(text) <= LIMIT and text.endswith("…"), len(text)


def test_previews_and_arcs_name_their_unit() -> None:
    state = _ambush()
    path = (Hex.parse("0511"), Hex.parse("0510"))
    assert preview_alt(state, "halcon", path, "en") == "Order preview for Halcón: 0511 → 0510."
    assert (
        preview_alt(state, "halcon", (), "es") == "Vista previa de la orden de Halcón: se queda donde está."
    )
    assert arcs_alt("Halcón", ["Fore", "Aft"], "en") == "Firing arcs of Halcón: Fore, Aft."


def test_a_preview_that_stays_in_its_hex_says_so() -> None:
    state = _ambush()
    still = (Hex.parse("0511"), Hex.parse("0511"))
    assert preview_alt(state, "halcon", still, "en") == "Order preview for Halcón: it stays where it is."

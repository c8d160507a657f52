"""Skirmish roll lines anyone can check (SK-3.3, SK-3.5, DICE-2) and its phases named, never
its internal ids."""

from __future__ import annotations

from bot.text.account import describe
from render.phase import phase_title
from rules.events import RollMade
from tests.skirmish_fixtures import act, char, draw, make


def test_sk_3_5_long_range_penalty_shows_with_its_reason_and_the_direction() -> None:
    units = [char("a", "rfp", "alpha", "0105", "NE-SE", ranged=29), char("z", "tyr", "zulu", "0805")]
    state = draw(make(units, dice=[1, 1, 2], options={"long_range": True}, width=20), "alpha")
    result = act(state, "a", "shoot z")
    roll = next(e for e in result.events if isinstance(e, RollMade))
    assert roll.get("modifiers") == (("long_range", 5),) and roll.get("need") == "le"
    name = {u.id: u.name for u in state.units.values()}
    es = describe(roll, result.state, "es")
    assert (
        es
        == f"[SK-3.3] {name['a']} dispara a {name['z']}: 3d10 1+1+2 = 4, +5 (larga distancia) = 9 — necesita ≤ 29: éxito"
    )
    en = describe(roll, result.state, "en")
    assert en.endswith("3d10 1+1+2 = 4, +5 (long range) = 9 — needs ≤ 29: success")


def test_sk_1_1_phases_are_named_never_draw_or_activation() -> None:
    units = [char("a", "rfp", "alpha", "0105"), char("z", "tyr", "zulu", "0805")]
    state = make(units)
    assert phase_title(state, 2, "draw", "es") == "Ronda 2 · Fase 1 · Extracción de ficha directora"
    assert phase_title(state, 2, "activation", "en") == "Round 2 · Phase 2 · Activation"
    assert phase_title(state, 2, "alpha-a", "es").startswith("Ronda 2 · Fase 2 · Activación de ")

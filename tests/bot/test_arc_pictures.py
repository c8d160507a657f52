"""``/unit arcs`` without stripes (bot/arcs.py): sections that share a hex go to different pictures."""

from __future__ import annotations

from bot.arcs import pictured
from data import SCENARIO_DIR
from rules.registry import ruleset_for
from rules.scenario import load_scenario
from rules.state import EncounterState


def _state(sid: str) -> EncounterState:
    return load_scenario((SCENARIO_DIR / f"{sid}.toml").read_text(encoding="utf-8")).state


def test_EXO_1_4_no_picture_holds_a_hex_of_two_sections_and_every_section_is_drawn_once() -> None:
    for sid in ("exo-duel", "mech-duel", "skirmish-corridor"):
        state = _state(sid)
        ruleset = ruleset_for(state)
        for unit in state.units:
            sections, _ = ruleset.weapon_reach(state, unit, None)
            groups = pictured(sections, None)
            drawn = [name for names in groups for name in names]
            assert sorted(drawn) == sorted(n for n, h in sections.items() if h), (sid, unit)
            for names in groups:
                for i, a in enumerate(names):
                    for b in names[i + 1 :]:
                        assert not sections[a] & sections[b], (sid, unit, a, b)

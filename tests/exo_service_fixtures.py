"""Helpers shared by several test modules (a test module never imports another)."""

from __future__ import annotations

from bot.panels import exo as exo_panel
from bot.panels.draft import Draft
from bot.permissions import Actor
from bot.service import EncounterService
from data import SCENARIO_DIR

GUILD, CHANNEL, DIRECTOR, ANA, BEA = 10, 20, 1, 2, 3


DUEL = (SCENARIO_DIR / "exo-duel.toml").read_text(encoding="utf-8")


def with_dice(text: str, dice: str) -> str:
    """The duel with scripted dice (DICE-1), inserted before the first table."""
    return text.replace("\n[[sides]]", f"\ndice = {dice}\n\n[[sides]]", 1)


async def start_duel(service: EncounterService, text: str = DUEL) -> int:
    created = await service.create(GUILD, CHANNEL, DIRECTOR, ruleset="exo", toml_text=text)
    await service.join(created.encounter_id, ANA)
    await service.join(created.encounter_id, BEA)
    result = await service.start(created.encounter_id, Actor(DIRECTOR))
    assert result.opened_phase_no is not None
    return created.encounter_id


async def give(
    service: EncounterService, enc: int, unit: str, user: int, *, moves: str = "", fire: int = 2
) -> bool:
    """What a player's panel submits: the panel model's own raw order (decision: the first option)."""
    _, state, phase_no = await service.load(enc)
    model = exo_panel.build_panel(state, unit, draft=Draft(), owing=True)
    if model.step == "orders":
        draft = Draft(move=moves, fire=[o.value for o in model.options("fire")[:fire]])
        model = exo_panel.build_panel(state, unit, draft=draft, owing=True)
    elif model.step == "decision":
        draft = Draft(choice=model.options("decide")[-1].value)
        model = exo_panel.build_panel(state, unit, draft=draft, owing=True)
    raw = exo_panel.raw_order(model)
    return (await service.submit(enc, user, unit, raw, phase_no=phase_no)).all_in

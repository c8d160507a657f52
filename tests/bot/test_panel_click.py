"""The guards of a panel request (bot/service/panel_click.py), without Discord: their order, the read a panel let in
stores on, and an order given without a panel meeting the same guards. The forged custom id each guard refuses is
tested once, through the real client: tests/e2e/test_e2e_forged_ids.py."""

from __future__ import annotations

import pytest

from bot.click_limit import ClickLimiter
from bot.permissions import Actor
from bot.results import Refused
from bot.service import EncounterService
from bot.service.panel_click import ClickRefused, Opened, PanelRequest, open_panel
from tests import toy_ruleset  # noqa: F401  # pyright: ignore[reportUnusedImport]  (registers toy-sim)
from tests.toy_ruleset import TOY

GUILD, CHANNEL = 10, 20
DIRECTOR, ANA, BEA = 1, 2, 3


async def _running(service: EncounterService) -> tuple[int, int]:
    created = await service.create(
        GUILD, CHANNEL, DIRECTOR, ruleset="toy-sim", toml_text=TOY.format(ruleset="toy-sim")
    )
    enc = created.encounter_id
    await service.join(enc, ANA, unit="a")
    await service.join(enc, BEA, unit="b")
    await service.start(enc, Actor(DIRECTOR))
    return enc, (await service.read(enc)).phase_no


def _click(enc: int, unit: str, user: int, phase_no: int, *, guild_id: int | None = GUILD) -> PanelRequest:
    return PanelRequest(enc, unit, Actor(user), guild_id=guild_id, phase_no=phase_no, click=True)


async def _refused(service: EncounterService, request: PanelRequest) -> ClickRefused:
    opened = await open_panel(service, request)
    assert isinstance(opened, ClickRefused), opened
    return opened


async def test_opening_a_panel_that_waits_is_fine(service: EncounterService) -> None:
    """Only a click on a waiting panel is refused (the turn guard); ``/orders`` and a DM show it, waiting."""
    enc, _ = await _running(service)
    await service.set_status(enc, Actor(DIRECTOR), "paused")
    opening = await open_panel(service, PanelRequest(enc, "a", Actor(ANA), guild_id=GUILD))
    assert isinstance(opening, Opened) and opening.panel.model.waiting


async def test_an_order_given_without_a_panel_meets_the_panels_guards(service: EncounterService) -> None:
    """``EncounterService.submit`` (no panel, no custom id) is refused by the same guards, in the same words, as
    a click on a panel, and stores nothing."""
    enc, phase_no = await _running(service)
    cases = [("b", ANA, phase_no), ("zz", ANA, phase_no), ("a", ANA, phase_no - 1)]
    for unit, user, phase in cases:
        clicked = await _refused(service, _click(enc, unit, user, phase))
        with pytest.raises(Refused) as given:
            await service.submit(enc, user, unit, "move 0203", phase_no=phase)
        assert (given.value.code, given.value.params) == (clicked.error.code, clicked.error.params)
    await service.set_status(enc, Actor(DIRECTOR), "paused")
    clicked = await _refused(service, _click(enc, "a", ANA, phase_no))
    with pytest.raises(Refused) as given:
        await service.submit(enc, ANA, "a", "move 0203", phase_no=phase_no)
    assert clicked.error.code == given.value.code == "encounter.paused"  # why nobody takes orders now
    assert await service.storage.submitted_units(enc, phase_no) == []


async def test_the_guards_run_in_their_order(service: EncounterService) -> None:
    """A click forged on every count is refused by the first guard: the server before the holder before the
    phase, so a forged id tells nothing about an encounter of another server."""
    enc, phase_no = await _running(service)
    assert (await _refused(service, _click(enc, "b", ANA, phase_no - 1, guild_id=GUILD + 1))).error.code == (
        "encounter.gone"
    )
    assert (await _refused(service, _click(enc, "b", ANA, phase_no - 1))).error.code == "unit.not_yours"


async def test_a_panel_let_in_submits_on_the_read_it_was_checked_on(service: EncounterService) -> None:
    enc, phase_no = await _running(service)
    opened = await open_panel(
        service, _click(enc, "a", ANA, phase_no), clicks=ClickLimiter(clock=lambda: 0.0)
    )
    assert isinstance(opened, Opened) and opened.panel.model.unit_id == "a"
    done = await service.submit_opened(opened, "move 0203")
    assert (done.phase_no, done.all_in) == (phase_no, False)
    assert await service.my_order(enc, ANA, "a") == "move 0203"

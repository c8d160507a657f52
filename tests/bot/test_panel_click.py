"""The guards of a panel request (bot/service/panel_click.py), without Discord: one forged custom id per guard, each
refused by its own guard, in the documented order, before anything of another person's unit is read or written.
The end-to-end forged-id tests (tests/e2e/test_e2e_access.py, test_e2e_membership.py, test_e2e_click_burst.py)
drive the same guards through the real client."""

from __future__ import annotations

from bot.click_limit import ClickLimiter
from bot.membership import Membership
from bot.permissions import Actor
from bot.service import EncounterService
from bot.service.panel_click import ClickRefused, Opened, PanelRequest, open_panel
from tests import toy_ruleset  # noqa: F401  (registers toy-sim)
from tests.toy_ruleset import TOY

GUILD, CHANNEL = 10, 20
DIRECTOR, ANA, BEA, EVE = 1, 2, 3, 4


async def _running(service: EncounterService) -> tuple[int, int]:
    created = await service.create(
        GUILD, CHANNEL, DIRECTOR, ruleset="toy-sim", toml_text=TOY.format(ruleset="toy-sim")
    )
    enc = created.encounter_id
    await service.join(enc, ANA, unit="a")
    await service.join(enc, BEA, unit="b")
    await service.start(enc, Actor(DIRECTOR))
    return enc, (await service.read(enc)).phase_no


def _members(*present: int) -> Membership:
    async def fetch(guild_id: int, user_id: int) -> bool:
        return guild_id == GUILD and user_id in present

    return Membership(fetch, clock=lambda: 0.0)


def _click(enc: int, unit: str, user: int, phase_no: int, *, guild_id: int | None = GUILD) -> PanelRequest:
    return PanelRequest(enc, unit, Actor(user), guild_id=guild_id, phase_no=phase_no, click=True)


async def _refused(
    service: EncounterService,
    request: PanelRequest,
    *,
    clicks: ClickLimiter | None = None,
    membership: Membership | None = None,
) -> ClickRefused:
    opened = await open_panel(service, request, clicks=clicks, membership=membership)
    assert isinstance(opened, ClickRefused), opened
    return opened


async def test_a_burst_of_clicks_is_refused_before_anything_is_read(service: EncounterService) -> None:
    enc, phase_no = await _running(service)
    clicks = ClickLimiter(limit=1, clock=lambda: 0.0)
    assert isinstance(await open_panel(service, _click(enc, "a", ANA, phase_no), clicks=clicks), Opened)
    again = await _refused(service, _click(enc, "a", ANA, phase_no), clicks=clicks)
    assert again.error.code == "click.too_fast" and again.reading is None  # nothing was read


async def test_a_forged_id_of_an_encounter_in_another_server_is_answered_as_gone(
    service: EncounterService,
) -> None:
    enc, phase_no = await _running(service)
    refused = await _refused(service, _click(enc, "a", ANA, phase_no, guild_id=GUILD + 1))
    assert refused.error.code == "encounter.gone"


async def test_a_dm_click_of_someone_with_no_part_is_answered_as_gone(service: EncounterService) -> None:
    enc, phase_no = await _running(service)
    refused = await _refused(
        service, _click(enc, "a", EVE, phase_no, guild_id=None), membership=_members(EVE)
    )
    assert refused.error.code == "encounter.gone" and not refused.member_gone


async def test_a_dm_click_of_someone_who_left_the_server_hands_the_unit_over(
    service: EncounterService,
) -> None:
    enc, phase_no = await _running(service)
    refused = await _refused(
        service, _click(enc, "a", ANA, phase_no, guild_id=None), membership=_members(BEA)
    )
    assert refused.error.code == "member.gone" and refused.member_gone and refused.reading is not None
    opened = await open_panel(
        service, _click(enc, "b", BEA, phase_no, guild_id=None), membership=_members(BEA)
    )
    assert isinstance(opened, Opened)


async def test_a_forged_id_of_another_players_unit_is_not_yours(service: EncounterService) -> None:
    enc, phase_no = await _running(service)
    refused = await _refused(service, _click(enc, "b", ANA, phase_no))
    assert refused.error.code == "unit.not_yours"
    ghost = await _refused(service, _click(enc, "zz", ANA, phase_no))  # no such unit
    assert ghost.error.code == "unit.not_yours"


async def test_a_forged_id_of_an_older_phase_is_stale(service: EncounterService) -> None:
    enc, phase_no = await _running(service)
    refused = await _refused(service, _click(enc, "a", ANA, phase_no - 1))
    assert refused.error.code == "phase.stale"


async def test_a_click_on_a_panel_that_waits_is_refused(service: EncounterService) -> None:
    enc, phase_no = await _running(service)
    await service.set_status(enc, Actor(DIRECTOR), "paused")
    refused = await _refused(service, _click(enc, "a", ANA, phase_no))
    assert refused.error.code == "unit.not_awaiting" and refused.error.params["unit"]
    opening = await open_panel(service, PanelRequest(enc, "a", Actor(ANA), guild_id=GUILD))
    assert isinstance(opening, Opened) and opening.panel.model.waiting  # opening a waiting panel is fine


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

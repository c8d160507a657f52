"""Which click carries a person's DMs (bot/click_tokens.py): only their own, made in their own DM with the bot,
answered with something a follow-up may come after, and fresh by the time its id carries. The webhook itself is
exercised end to end in tests/e2e/test_e2e_click_tokens.py."""

from __future__ import annotations

import datetime as dt
from types import SimpleNamespace
from typing import cast

import discord

from bot.click_tokens import FRESH_FOR, ClickTokens

EPOCH = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
ANA, BEA = 11, 12
ANA_DM, BEA_DM = 21, 22
DM = discord.AppCommandContext(guild=False, dm_channel=True, private_channel=False)
GUILD = discord.AppCommandContext(guild=True, dm_channel=False, private_channel=False)
BETWEEN_PEOPLE = discord.AppCommandContext(guild=False, dm_channel=False, private_channel=True)


def click(
    user_id: int,
    channel_id: int,
    at: dt.datetime,
    *,
    guild_id: int | None = None,
    context: discord.AppCommandContext = DM,
    answer: discord.InteractionResponseType | None = discord.InteractionResponseType.deferred_message_update,
) -> discord.Interaction:
    made = discord.utils.time_snowflake(at)
    return cast(
        discord.Interaction,
        SimpleNamespace(
            id=made,
            created_at=discord.utils.snowflake_time(made),
            user=SimpleNamespace(id=user_id),
            channel_id=channel_id,
            guild_id=guild_id,
            context=context,
            response=SimpleNamespace(type=answer),
        ),
    )


def tokens(now: dt.datetime) -> ClickTokens:
    return ClickTokens(clock=lambda: now)


def test_a_click_carries_its_persons_dms_until_the_margin_before_discords_expiry() -> None:
    kept = click(ANA, ANA_DM, EPOCH)
    fresh = tokens(EPOCH + FRESH_FOR - dt.timedelta(seconds=1))
    fresh.seen(kept)
    assert fresh.click_of(ANA) is kept
    stale = tokens(EPOCH + FRESH_FOR)
    stale.seen(kept)
    assert stale.click_of(ANA) is None, "past the margin, though Discord would still take the token"
    assert dt.timedelta(minutes=15) > FRESH_FOR


def test_a_click_never_carries_another_persons_dms() -> None:
    clicks = tokens(EPOCH)
    clicks.seen(click(ANA, ANA_DM, EPOCH))
    assert clicks.click_of(BEA) is None


def test_only_a_click_in_the_persons_own_dm_with_the_bot_is_kept() -> None:
    clicks = tokens(EPOCH)
    clicks.seen(click(ANA, 31, EPOCH, guild_id=41, context=GUILD))  # a follow-up would be public there
    clicks.seen(click(BEA, 32, EPOCH, context=BETWEEN_PEOPLE))  # a DM between two people
    assert clicks.click_of(ANA) is None and clicks.click_of(BEA) is None


def test_a_click_not_answered_yet_or_answered_with_a_modal_carries_nothing() -> None:
    clicks = tokens(EPOCH)
    clicks.seen(click(ANA, ANA_DM, EPOCH, answer=None))
    clicks.seen(click(BEA, BEA_DM, EPOCH, answer=discord.InteractionResponseType.modal))
    assert clicks.click_of(ANA) is None and clicks.click_of(BEA) is None


def test_while_the_newest_click_waits_for_its_answer_the_one_before_carries_the_dm() -> None:
    clicks = tokens(EPOCH + dt.timedelta(minutes=1))
    before = click(ANA, ANA_DM, EPOCH)
    clicks.seen(before)
    clicks.seen(click(ANA, ANA_DM, EPOCH + dt.timedelta(seconds=5), answer=None))  # the Submit resolving
    assert clicks.click_of(ANA) is before


def test_once_the_newest_click_carries_the_dms_the_one_before_is_let_go() -> None:
    """A click holds the whole message it was made on (tens of KB): a person keeps one once the newest is
    answered."""
    clicks = tokens(EPOCH + dt.timedelta(minutes=1))
    clicks.seen(click(ANA, ANA_DM, EPOCH))
    answered = click(ANA, ANA_DM, EPOCH + dt.timedelta(seconds=5))
    clicks.seen(answered)
    assert clicks.click_of(ANA) is answered
    assert clicks._clicks[ANA] == (answered,)  # pyright: ignore[reportPrivateUsage]


def test_an_older_click_arriving_late_does_not_replace_the_newest() -> None:
    clicks = tokens(EPOCH + dt.timedelta(minutes=1))
    newest = click(ANA, ANA_DM, EPOCH + dt.timedelta(seconds=30))
    clicks.seen(newest)
    clicks.seen(click(ANA, ANA_DM, EPOCH))  # handed from another process after the newer one came
    assert clicks.click_of(ANA) is newest


def test_clicks_past_their_freshness_are_let_go() -> None:
    now = EPOCH
    clicks = ClickTokens(clock=lambda: now)
    clicks.seen(click(ANA, ANA_DM, EPOCH))
    now = EPOCH + FRESH_FOR
    clicks.seen(click(BEA, BEA_DM, now))
    assert clicks.click_of(BEA) is not None
    assert len(clicks) == 1, "Ana's click, past its freshness, is not kept"

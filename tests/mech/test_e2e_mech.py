"""Mech end to end (MECH-1.1 … MECH-4): the real HexBot and the unmodified discord.py client against
tests/fakediscord, in Spanish.

A director opens the bundled duel; Ana takes the red lance and Bea the blue one. Two whole turns are played on
DM panels the way people would (buttons and selects only): each turn the initiative order is posted, the
declarer owed now gets a panel (the next one only after the last is locked), each locked declaration is posted
in the channel in that order, and after the last the turn resolves and the board and the account of every roll
(target number and modifiers spelled out) reach the channel. A player who tries to declare out of turn is
refused privately. With secret declarations switched on by the director (``/director option``), nothing of a
declaration reaches the channel or the other player before the reveal.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from rules.mech.state import DECLARE, ext_of
from rules.registry import get_ruleset
from tests.e2e_helpers import Table, draft_in, forge, panel_for_phase, room
from tests.fakediscord import Channel, Message, Person

pytestmark = pytest.mark.slow

RULES = get_ruleset("mech")
RED = ("hunter", "centurion")
BLUE = ("wolverine", "griffin")


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Table]:
    async with room(tmp_path, lang="es", guild_name="Mechs", channel_name="kessel") as t:
        yield t


def public_text(channel: Channel) -> str:
    return json.dumps(
        [{"c": m.content, "e": m.embeds, "k": m.components} for m in channel.messages()], ensure_ascii=False
    )


def public_lines(channel: Channel) -> list[str]:
    """Every line the channel shows (message text and embed descriptions), in order."""
    out: list[str] = []
    for m in channel.messages():
        out.extend(m.content.splitlines())
        for e in m.embeds:
            out.extend(str(e.get("description", "")).splitlines())
    return out


async def open_duel(t: Table, *, secret: bool = False) -> int:
    created = await (
        await t.director.run_command(t.channel, "encounter new", {"ruleset": "mech", "scenario": "mech-duel"})
    ).final_response()
    assert created is not None and "Hunchback" in created.content
    for person, units in ((t.ana, RED), (t.bea, BLUE)):
        for unit in units:
            joined = await (
                await person.run_command(t.channel, "encounter join", {"unit": unit})
            ).final_response()
            assert joined.content
    if secret:  # MECH-1.1: the director switches the encounter to secret declarations
        switched = await (
            await t.director.run_command(
                t.channel, "director option", {"name": "secret_declarations", "value": True}
            )
        ).final_response()
        assert "declaraciones secretas" in switched.content, switched.content
    await (await t.director.run_command(t.channel, "encounter start")).final_response()
    guild = t.channel.guild
    assert guild is not None
    meta = await t.bot.service.storage.active_encounter_in_channel(guild.id, t.channel.id)
    assert meta is not None
    return meta.id


def holder(t: Table, unit: str) -> tuple[Person, Person]:
    return (t.ana, t.bea) if unit in RED else (t.bea, t.ana)


def control(panel: Message, unit: str, action: str) -> tuple[str, dict[str, object]] | None:
    for cid, comp in panel.custom_ids().items():
        if cid.endswith(f":unit:{unit}:{action}"):
            return cid, comp
    return None


async def pick(t: Table, person: Person, panel: Message, unit: str, action: str, value: str) -> None:
    found = control(panel, unit, action)
    assert found is not None
    before = draft_in(panel)
    await (await person.select(panel, found[0], [value])).acknowledged()
    await t.fd.wait_for(lambda: draft_in(panel) != before, what=f"the panel after {action}={value}")


async def walk_ahead(t: Table, person: Person, panel: Message, unit: str, hexes: int) -> None:
    """Pick, on the destination menu, the walk straight ahead as far as it goes up to ``hexes`` hexes (looking
    through each direction when the menu lists directions): one pick, whatever the hexes (MECH-1.2)."""
    wanted = ["w" + "F" * n for n in range(hexes, 0, -1)]

    def values() -> list[str]:
        found = control(panel, unit, "dest")
        assert found is not None, "the destination menu is offered"
        return [str(o["value"]) for o in found[1]["options"]]  # type: ignore[union-attr]

    seen: dict[str, str] = {v: "" for v in values() if v in wanted}  # walk → the direction it is listed under
    for head in [v for v in values() if v.startswith("~")]:
        await pick(t, person, panel, unit, "dest", head)
        seen.update({v: head for v in values() if v in wanted and v not in seen})
    best = next((w for w in wanted if w in seen), None)
    assert best is not None, f"no walk ahead on the destination menu: {values()}"
    if seen[best] and best not in values():
        await pick(t, person, panel, unit, "dest", seen[best])
    await pick(t, person, panel, unit, "dest", best)


async def declare(t: Table, person: Person, panel: Message, unit: str) -> list[str]:
    """Walk two hexes straight ahead (one pick on the destination menu), fire the first offered weapon, Submit.
    Returns the fire options' labels the panel showed."""
    await walk_ahead(t, person, panel, unit, 2)
    labels: list[str] = []
    found = control(panel, unit, "w")
    if found is not None and not found[1].get("disabled"):
        options = found[1]["options"]
        assert isinstance(options, list)
        labels = [str(o["label"]) for o in options]  # type: ignore[index]
        value = str(options[0]["value"])  # type: ignore[index]
        handle = await person.select(panel, found[0], [value])
        await handle.acknowledged()
        await t.fd.wait_for(lambda: (d := draft_in(panel)) is not None and value in d[1].list("w"))
    submit = control(panel, unit, "submit")
    assert submit is not None
    ack = (await (await person.click(panel, submit[0])).wait_for_replies(1, timeout=60))[0]
    # MECH-1.1: a declaration is locked when given (the order mode's words), never "you can change them"
    name = str(panel.embeds[0]["title"]).split(" · ")[0]  # the panel's title: "{unit} · {when}"
    assert ack.ephemeral and ack.content == f"Declaración de **{name}** bloqueada.", ack.content
    return labels


async def declaring(t: Table, enc: int) -> None:
    """Wait until a declaration is owed (the initiative and the resolution steps chain by themselves)."""
    for _ in range(3000):  # polling the database (60 s ceiling), not timing anything
        seen = await t.bot.service.read(enc)
        if seen.state.phase == DECLARE and RULES.awaiting(seen.state):
            return
        await asyncio.sleep(0.02)
    raise AssertionError("no declaration became due")


async def wait_step_after(t: Table, enc: int, phase_no: int) -> None:
    for _ in range(3000):  # polling the database (60 s ceiling for slow machines), not timing anything
        if (await t.bot.service.storage.get_encounter(enc)).phase_no > phase_no:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"step {phase_no} did not resolve")


async def out_of_turn(t: Table, enc: int, person: Person, old: Message, unit: str, phase_no: int) -> None:
    """A player whose unit has already declared this turn edits the Submit of its old panel to name the step now
    open (another unit's turn): refused privately with a message that says the unit takes no orders now;
    nothing stored, the step still open."""
    submit = control(old, unit, "submit")
    assert submit is not None
    forged = forge(old, submit[0], re.sub(r":phase:\d+:", f":phase:{phase_no}:", submit[0]))
    refusal = (await (await person.click(old, forged)).wait_for_replies(1))[0]
    assert refusal.ephemeral and "no recibe órdenes ahora" in refusal.content, refusal.content
    assert await t.bot.service.storage.submitted_units(enc, phase_no) == []
    assert (await t.bot.service.storage.get_encounter(enc)).phase_no == phase_no


async def play_turns(t: Table, enc: int, turns: int, *, check: bool = True) -> list[str]:
    """Play ``turns`` whole turns by DM panels; returns the units in the order they declared."""
    declared: list[str] = []
    refused = False
    last: tuple[Person, Message, str] | None = None
    start_round = (await t.bot.service.read(enc)).state.round
    for _ in range(40):
        await declaring(t, enc)
        seen = await t.bot.service.read(enc)
        state, phase_no = seen.state, seen.phase_no
        if state.round >= start_round + turns:
            break
        assert state.phase == DECLARE and not state.over
        (unit,) = RULES.awaiting(state)  # one declarer owed at a time (sequential_open)
        person, _ = holder(t, unit)
        panel = await panel_for_phase(t.fd, person, unit, phase_no)
        assert panel.embeds and "Te toca declarar" in panel.embeds[0]["description"]
        if check and not refused and last is not None:
            await out_of_turn(t, enc, *last, phase_no)
            refused = True
        await declare(t, person, panel, unit)
        declared.append(unit)
        last = (person, panel, unit)
        await wait_step_after(t, enc, phase_no)
    return declared


def refused_once(declared: list[str]) -> bool:
    return len(declared) > 1  # play_turns ran the out-of-turn attempt before the second declaration


async def test_two_turns_of_the_duel_by_dm_panels(table: Table) -> None:
    t = table
    enc = await open_duel(t)
    declared = await play_turns(t, enc, 2)
    await t.bot.settle()
    assert refused_once(declared)
    assert len(declared) == 8, declared
    lines = public_lines(t.channel)
    text = public_text(t.channel)
    # MECH-1.1: the initiative order, posted at the start of each turn
    orders = [line for line in lines if "Declaraciones de este turno" in line]
    assert len(orders) >= 2, orders
    # each declaration posted when locked, in the declaration order
    names = {u.id: u.name for u in (await t.bot.service.read(enc)).state.units.values()}
    posted = [line for line in lines if " declara: " in line and "[MECH-1.2]" in line]
    assert [
        next(u for u, n in names.items() if line.split("] ", 1)[1].startswith(n)) for line in posted
    ] == declared
    # MECH-2.1a: each declaration is posted with its one Gunnery and one Piloting roll, right after it
    shown = [
        "declared" if line in posted else "rolled"
        for line in lines
        if line in posted or ("[MECH-2.1a]" in line and "Artillería 2d6" in line and "Pilotar 2d6" in line)
    ]
    assert shown == ["declared", "rolled"] * len(declared), shown
    for turn in range(2):
        order_line = orders[turn]
        expected = [names[u] for u in declared[turn * 4 : turn * 4 + 4]]
        assert order_line.endswith(", ".join(expected)), (order_line, expected)
    # the resolution: movement and heat for every mech, rolls with target numbers and modifiers spelled out
    assert "[MECH-1.2]" in text and "[MECH-3.1]" in text
    fired = [line for line in lines if "[MECH-2.1]" in line and " contra " in line]
    assert fired, "a shot's roll, with its target number, in the account"
    assert all("base 15" in line for line in fired), fired
    assert "Ahora actúa" in text, "the channel status names whose turn it is to declare"
    statuses = [m for m in t.channel.messages() if not m.deleted and "Ahora actúa" in m.content]
    assert len(statuses) == 1, "one status message, the newest: each declaration's step replaces the last one"
    assert sum(1 for m in t.channel.messages() if m.attachments) >= 2, "a board per resolved turn"
    for secret in ("hexd:draft", "hexd:enc"):
        assert secret not in text, f"{secret!r} from a private panel leaked into the channel"


async def test_a_turns_declarations_and_the_next_turns_opening_send_no_status_edit_of_their_own_mech_1_1(
    table: Table,
) -> None:
    """MECH-1.1: each declaration is a step added to the turn's post, and the status rides in that same edit; the
    resolution that ends the turn adds its last step to that post, taking the status text off in the same edit,
    and opens the next turn's post with the status. Not one edit of the status alone, in Spanish."""
    t = table
    enc = await open_duel(t)
    await t.bot.settle()
    mark = len(t.fd.requests)
    await play_turns(t, enc, 1, check=False)
    await t.bot.settle()
    route = re.compile(rf"/channels/{t.channel.id}/messages(/\d+)?")
    sent = [r for r in t.fd.requests[mark:] if route.fullmatch(r.path)]
    alone = [
        r
        for r in sent
        if r.method == "PATCH" and r.fields and set(r.fields) <= {"content", "allowed_mentions", "tts"}
    ]
    assert sent and not alone, [(r.method, r.fields) for r in sent]
    name = "**Duelo en el paso de Kessel** · "
    [status] = [m for m in t.channel.messages() if not m.deleted and m.content.startswith(name)]
    assert status.id == max(m.id for m in t.channel.messages() if m.embeds), "on the newest post"
    (unit,) = RULES.awaiting((await t.bot.service.read(enc)).state)
    assert "Ahora actúa:" in status.content and f"<@{holder(t, unit)[0].id}>" in status.content


async def test_a_refused_post_for_the_next_turn_leaves_the_status_once_on_the_newest_post_mech_1_1(
    table: Table,
) -> None:
    """MECH-1.1: the edit that ends a turn's post takes the status off it, and the next turn's post that would
    carry it is refused (Cloudflare's 429): the status goes back on the newest post meanwhile, the refused post is
    made again, and the channel ends with one status text, on it."""
    t = table
    enc = await open_duel(t)
    assert t.bot.announcer is not None
    t.bot.announcer.retry_backoff = (0.05, 0.05, 0.05)
    await t.bot.settle()
    before = {m.id for m in t.channel.messages()}
    t.fd.fail_next("POST", rf"^/channels/{t.channel.id}/messages$", status=429, via=False)
    await play_turns(t, enc, 1, check=False)
    await t.fd.wait_for(
        lambda: [m for m in t.channel.messages() if m.id not in before and m.embeds] or None,
        what="the next turn's post, made again",
        timeout=30,
    )
    await t.bot.settle()
    name = "**Duelo en el paso de Kessel** · "
    [status] = [m for m in t.channel.messages() if not m.deleted and m.content.startswith(name)]
    assert status.id == max(m.id for m in t.channel.messages() if m.embeds), "on the newest post"
    assert any(r.status == 429 for r in t.fd.requests), "the post was refused once"


async def test_secret_declarations_reach_nobody_before_the_reveal(table: Table) -> None:
    t = table
    enc = await open_duel(t, secret=True)
    await declaring(t, enc)
    seen = await t.bot.service.read(enc)
    assert seen.state.option("secret_declarations") is True
    first_round = seen.state.round
    for _ in range(4):  # the turn's four declarations, one by one
        await declaring(t, enc)
        seen = await t.bot.service.read(enc)
        state, phase_no = seen.state, seen.phase_no
        if state.round > first_round:
            break
        (unit,) = RULES.awaiting(state)
        person, foe = holder(t, unit)
        panel = await panel_for_phase(t.fd, person, unit, phase_no)
        await walk_ahead(t, person, panel, unit, 1)
        after = draft_in(panel)
        assert after is not None and after[1].text("v") == "F"
        submit = control(panel, unit, "submit")
        assert submit is not None
        await (await person.click(panel, submit[0])).wait_for_replies(1, timeout=60)
        await wait_step_after(t, enc, phase_no)
        await t.bot.settle()
        state = (await t.bot.service.read(enc)).state
        if state.round > first_round:
            break  # the last declaration: the turn is resolved and everything revealed
        locked = ext_of(state).declaration(unit)
        assert locked is not None and locked.path
        end = locked.path[-1].label
        leaks = [public_text(t.channel), json.dumps([m.content for m in foe.dms()], ensure_ascii=False)]
        leaks.append(json.dumps([m.embeds for m in foe.dms()], ensure_ascii=False))
        for where in leaks:
            assert " declara: " not in where, "a declaration's content in the channel or the other's DMs"
            assert end not in where, f"{unit}'s declared end hex {end} leaked before the reveal"
            assert "MECH-2.1a" not in where, (
                "a secret declaration's rolls (MECH-2.1a) shown before the reveal"
            )
        assert "ha declarado (en secreto" in public_text(t.channel)
    text = public_text(t.channel)
    assert "[MECH-3.1]" in text, "the turn resolved and its account was posted"
    assert "Artillería 2d6" in text, "the reveal shows each declaration's rolls (MECH-2.1a)"


async def test_the_directors_hand_and_the_arcs_of_a_mech(table: Table) -> None:
    """MECH-2.3 ``/director damage`` with a location; MECH-1.3 ``/unit arcs`` with one section; both through the
    real commands."""
    t = table
    enc = await open_duel(t)
    await declaring(t, enc)
    hit = await (
        await t.director.run_command(
            t.channel, "director damage", {"unit": "hunter", "amount": "5", "location": "ct"}
        )
    ).final_response()
    assert not hit.ephemeral and "Hunchback" in hit.content and "5 de daño (torso central)" in hit.content, (
        hit.content
    )
    state = (await t.bot.service.read(enc)).state
    hunter = state.units["hunter"]
    assert hunter.armor["ct"] == hunter.max_armor["ct"] - 5  # type: ignore[attr-defined]
    refused = await (
        await t.director.run_command(t.channel, "director damage", {"unit": "hunter", "amount": "5"})
    ).final_response()
    assert refused.ephemeral and "ct 5" in refused.content, refused.content
    arcs = await (
        await t.ana.run_command(t.channel, "unit arcs", {"unit": "hunter", "section": "left_arm"})
    ).final_response()
    assert arcs.ephemeral and arcs.attachments and "brazo izquierdo" in arcs.content, arcs.content
    whole = await (await t.ana.run_command(t.channel, "unit arcs", {"unit": "hunter"})).final_response()
    assert whole.ephemeral and whole.attachments


async def test_mech_5_the_air_scenario_through_the_real_commands(table: Table) -> None:
    """MECH-5 through Discord: the bundled ``mech-air`` opens with its helicopter and fighters; ``/unit arcs`` on
    a fighter draws where a shot at it is +4 (its sides); the director switches to a roll per shot (MECH-2.1a
    [HOUSE]) with ``/director option``."""
    t = table
    created = await (
        await t.director.run_command(t.channel, "encounter new", {"ruleset": "mech", "scenario": "mech-air"})
    ).final_response()
    assert created is not None and "Sparrowhawk" in created.content and "Yellow Jacket" in created.content
    for person, unit in ((t.ana, "sparrow"), (t.bea, "rifleman")):
        joined = await (
            await person.run_command(t.channel, "encounter join", {"unit": unit})
        ).final_response()
        assert joined.content
    switched = await (
        await t.director.run_command(
            t.channel, "director option", {"name": "rolls_per_weapon", "value": True}
        )
    ).final_response()
    assert "una tirada por disparo" in switched.content, switched.content
    await (await t.director.run_command(t.channel, "encounter start")).final_response()
    arcs = await (
        await t.ana.run_command(t.channel, "unit arcs", {"unit": "sparrow", "section": "air_side"})
    ).final_response()
    assert arcs.ephemeral and arcs.attachments and "blanco aéreo: +4" in arcs.content, arcs.content
    state = (await t.bot.service.read(await _encounter(t))).state
    assert state.option("rolls_per_weapon") is True


async def _encounter(t: Table) -> int:
    guild = t.channel.guild
    assert guild is not None
    meta = await t.bot.service.storage.active_encounter_in_channel(guild.id, t.channel.id)
    assert meta is not None
    return meta.id

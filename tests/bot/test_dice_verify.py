"""Dice anyone can verify (DICE-1): each step's dice are sealed while it is open, revealed after, and an export
is checked step by step (``bot/dice_seal.py``, ``bot/verify.py``), through the application layer on exo."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from bot.dice_seal import KEY_SETTING, SEAL_EVENT, commitment_of, rolls_public
from bot.log_text import trace_lines
from bot.permissions import Actor
from bot.process.cli import main
from bot.process.config import load_config
from bot.service import EncounterService
from bot.storage.export import seal
from bot.verify import report_lines, verify_document
from rules.engine import visibility
from rules.events import RollMade
from rules.registry import ruleset_for
from rules.ruleset import PUBLIC
from tests.exo_service_fixtures import ANA, BEA, DIRECTOR, give, start_duel
from tests.mech_fixtures import build, unit
from tests.night_fixtures import scene


@pytest.fixture
def service(service: EncounterService) -> EncounterService:
    """The application layer as the bot runs it: every step's dice sealed."""
    service.seal_dice = True
    return service


async def _play(service: EncounterService, enc: int, rounds: int) -> None:
    """Both pilots give the panel's own orders until ``rounds`` rounds are done (or the duel is over)."""
    for _ in range(rounds * 6):
        status = await service.status(enc)
        _, state, phase_no = await service.load(enc)
        if status.over or state.round > rounds:
            return
        for missing in status.missing:
            await give(service, enc, missing.unit, ANA if missing.user_id == ANA else BEA)
        await service.resolve(enc, expected_phase_no=phase_no, all_in=True)


def _body(document: dict[str, Any]) -> dict[str, Any]:
    """An export without its header and checksum: sealed again after an edit, as anyone can."""
    return {k: v for k, v in document.items() if k not in ("format", "version", "sha256")}


def _rolls(document: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        e
        for e in document["events"]
        if isinstance(e["payload"].get("event"), dict) and e["payload"]["event"].get("$t") == "RollMade"
    ]


async def test_dice_1_the_status_shows_the_commitment_the_account_reveals(service: EncounterService) -> None:
    enc = await start_duel(service)
    await give(service, enc, "halcon", ANA, moves="D")
    await give(service, enc, "pirata", BEA, moves="I")
    committed = (await service.status(enc)).dice
    assert len(committed) == 12
    result = await service.resolve(enc, all_in=True)
    revealed = result.steps[0].seal
    assert revealed is not None and revealed.public
    assert revealed.commitment == committed
    assert hashlib.sha256((revealed.salt + revealed.seed).encode()).hexdigest()[:12] == committed
    # the next step is sealed anew: its commitment is not the one just revealed
    assert (await service.status(enc)).dice not in ("", committed)


async def test_dice_1_an_exo_export_verifies_step_by_step(service: EncounterService) -> None:
    enc = await start_duel(service)
    await _play(service, enc, 3)
    document = await service.export(enc, Actor(DIRECTOR))
    assert KEY_SETTING not in document["encounter"]["settings"]  # the key would draw every future step
    report = verify_document(document)
    assert report.ok and report.checked >= 6 and _rolls(document)
    assert report_lines(report, "es")[-1].startswith("✅ Comprobado")
    seals = [e["payload"]["seal"] for e in document["events"] if e["type"] == SEAL_EVENT]
    assert all(commitment_of(s["seed"], s["salt"]) == s["commitment"] for s in seals)


async def test_dice_1_one_roll_changed_fails_naming_its_step(service: EncounterService) -> None:
    enc = await start_duel(service)
    await _play(service, enc, 2)
    document = await service.export(enc, Actor(DIRECTOR))
    tampered = copy.deepcopy(document)
    target = _rolls(tampered)[0]
    body = target["payload"]["event"]
    body["dice"] = [body["sides"] + 1 - d for d in body["dice"]]  # every die turned over: surely different
    report = verify_document(
        seal({k: v for k, v in tampered.items() if k not in ("format", "version", "sha256")})
    )
    assert not report.ok
    (failure,) = [f for f in report.findings if f.kind in ("roll", "result")]
    assert failure.kind == "roll" and failure.phase_no == target["phase_no"]
    assert failure.logged == tuple(body["dice"]) and failure.computed != failure.logged
    line = next(x for x in report_lines(report, "en") if x.startswith("❌ Step"))
    assert f"Step {target['phase_no']}" in line and "does not match" in line


async def test_dice_1_one_order_changed_fails_naming_its_step(service: EncounterService) -> None:
    enc = await start_duel(service)
    await _play(service, enc, 2)
    document = await service.export(enc, Actor(DIRECTOR))
    tampered = copy.deepcopy(document)
    moved = tampered["orders"][0]
    moved["order"]["order"]["move"] = "D"  # a ship that stood still now turns: its locked orders differ
    report = verify_document(tampered)
    failures = [f for f in report.findings if f.kind in ("roll", "result")]
    assert not report.ok and failures[0].phase_no == moved["phase_no"]


async def test_dice_1_the_directors_roll_is_shown_as_the_directors(service: EncounterService) -> None:
    enc = await start_duel(service)
    await service.set_review_rolls(enc, Actor(DIRECTOR), True)
    await give(service, enc, "halcon", ANA, moves="D")
    await give(service, enc, "pirata", BEA, moves="I")
    first = await service.resolve(enc, all_in=True)
    assert first.held is not None
    index, _, _, dice = first.held.rolls[0]
    await service.override_roll(enc, Actor(DIRECTOR), index, tuple(10 for _ in dice))
    applied = await service.resolve(enc, forced=True, approved=True)
    step = next(s for s in applied.steps if any(isinstance(e, RollMade) for e in s.events))
    report = verify_document(await service.export(enc, Actor(DIRECTOR)))
    assert report.ok
    (hand,) = [f for f in report.findings if f.kind == "override"]
    assert (hand.phase_no, hand.roll, hand.logged) == (step.phase_no, index, tuple(10 for _ in dice))
    assert any("set by the director" in line for line in report_lines(report, "en"))


def _seals(document: dict[str, Any], phase_no: int) -> list[str]:
    return [
        e["payload"]["seal"]["seed"]
        for e in document["events"]
        if e["type"] == SEAL_EVENT and e["phase_no"] == phase_no
    ]


async def test_dice_1_an_undone_step_is_listed_and_drawn_again_with_fresh_dice(
    service: EncounterService,
) -> None:
    enc = await start_duel(service)
    await _play(service, enc, 1)
    done = await service.undo_step(enc, Actor(DIRECTOR))
    _, _, phase_no = await service.load(enc)
    undone = verify_document(await service.export(enc, Actor(DIRECTOR)))
    assert undone.ok and {f.kind for f in undone.findings} == {"undone"}
    assert any(f.phase_no == phase_no for f in undone.findings)
    assert any("undone by the director" in line for line in report_lines(undone, "en"))
    assert done.state.round == 1
    # the step opens again from a new snapshot: the seed its first resolution revealed is not used again
    await _play(service, enc, 1)
    document = await service.export(enc, Actor(DIRECTOR))
    first, second = _seals(document, phase_no)[:2]
    assert first != second
    assert verify_document(document).ok


async def test_dice_1_hexdirector_verify_checks_an_export_file(
    service: EncounterService, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    enc = await start_duel(service)
    await _play(service, enc, 2)
    blob, _ = await service.export_file(enc, Actor(DIRECTOR))
    good = tmp_path / "duel.json"
    good.write_bytes(blob)
    assert main(["verify", str(good), "--lang", "es"]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1].startswith("✅ Comprobado")
    document = json.loads(blob)
    target = _rolls(document)[-1]
    target["payload"]["event"]["dice"] = [11 - d for d in target["payload"]["event"]["dice"]]
    bad = tmp_path / "edited.json"
    bad.write_text(json.dumps(seal(_body(document))), encoding="utf-8")
    assert main(["verify", str(bad)]) == 2
    out = capsys.readouterr().out
    assert f"❌ Step {target['phase_no']} " in out and "does not match" in out


def test_dice_1_the_bot_seals_unless_told_not_to() -> None:
    assert load_config({"DISCORD_TOKEN": "t"}, None).seal_dice
    assert not load_config({"DISCORD_TOKEN": "t", "HEXD_SEAL_DICE": "0"}, None).seal_dice


def test_dice_1_fog_1_a_seed_stays_sealed_when_a_roll_was_hidden_from_a_side() -> None:
    """A night straying roll of a unit the public cannot see (NGT-5, FOG-1): revealing the step's seed would let
    the other side draw that roll itself, so the seal is not public; a roll of a seen unit leaves it public."""
    state = scene()
    ruleset = ruleset_for(state)
    public = visibility(ruleset, state, PUBLIC).units
    assert "dune" not in public and "alba" in public
    hidden = RollMade(rule="NGT-5", purpose="stray direction", sides=6, dice=(2, 5), actor="dune")
    seen = RollMade(rule="NGT-5", purpose="stray direction", sides=6, dice=(2, 5), actor="alba")
    assert rolls_public(ruleset, state, state, [seen])
    assert not rolls_public(ruleset, state, state, [seen, hidden])


def test_dice_1_mech_2_1a_a_secret_declarations_rolls_keep_their_step_sealed() -> None:
    """MECH-1.1 secret declarations: the Gunnery and Piloting rolls made as a declaration locks stay sealed
    until the reveal, so the step that rolled them never reveals its seed (its later reveal names the rolls)."""
    state = build(unit("atlas", "red", "0101"), unit("catapult", "blue", "0505"))
    ruleset = ruleset_for(state)
    gunnery = RollMade(rule="MECH-2.1a", purpose="gunnery", sides=6, dice=(3, 4), actor="atlas")
    sealed = RollMade(
        rule="MECH-2.1a", purpose="gunnery", sides=6, dice=(3, 4), actor="atlas", detail=(("sealed", True),)
    )
    assert rolls_public(ruleset, state, state, [gunnery])
    assert not rolls_public(ruleset, state, state, [sealed])


async def test_dice_1_fog_1_a_players_check_leaves_out_a_step_with_hidden_rolls(
    service: EncounterService,
) -> None:
    """A step whose seal is not public (a roll some side could not see): the director's check draws it again,
    a player's only counts it, so no line of theirs names one of its rolls."""
    enc = await start_duel(service)
    await _play(service, enc, 1)
    document = await service.export(enc, Actor(DIRECTOR))
    hidden = next(
        e
        for e in document["events"]
        if e["type"] == SEAL_EVENT and any(r["phase_no"] == e["phase_no"] for r in _rolls(document))
    )
    hidden["payload"]["seal"]["public"] = False
    target = next(r for r in _rolls(document) if r["phase_no"] == hidden["phase_no"])
    target["payload"]["event"]["dice"] = [11 - d for d in target["payload"]["event"]["dice"]]
    director, player = verify_document(document), verify_document(document, director=False)
    assert [f.phase_no for f in director.findings if f.kind == "roll"] == [hidden["phase_no"]]
    assert player.ok and player.count("withheld") == 1
    lines = report_lines(player, "en")
    assert not any(target["payload"]["event"]["purpose"] in line for line in lines)
    assert "only the director can check it" in lines[0]


async def test_dice_1_the_encounter_log_repeats_each_steps_reveal(service: EncounterService) -> None:
    enc = await start_duel(service)
    await _play(service, enc, 1)
    _, state, _ = await service.load(enc)
    lines = trace_lines(await service.trace(enc), state, "es")
    reveals = [line for line in lines if line.startswith("🎲 Dados: semilla ")]
    document = await service.export(enc, Actor(DIRECTOR))
    commitments = {e["payload"]["seal"]["commitment"] for e in document["events"] if e["type"] == SEAL_EVENT}
    assert reveals and all(line.rsplit("→ ", 1)[1] in commitments for line in reveals)

"""The leak matrix (NGT-9, FOG-1): a night skirmish with hidden, concealed and merely unseen units, every surface
checked from every side's point of view, and the channel's. A surface leaks when it names, shows or hints at a
unit that viewer cannot see: the engine's view, the board image (pixel for pixel: a hidden unit's hex is the
same as an empty dark hex), the account of a step (a shot from the dark), the panels' target and move menus,
autocomplete and ``/unit info``, ``/encounter log``, the replay, and the side's own private board.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from bot.panels.skirmish import legal_actions
from bot.service.records import events_for
from bot.text.account import describe
from cogs.units import _visible_unit, seen_by  # pyright: ignore[reportPrivateUsage]
from render import BoardSnapshot, RenderOptions, render_board
from render.board import viewport_for
from render.replay import render_replay
from rules.engine import visibility
from rules.events import ShotResolved
from rules.night.sight import lit_hexes
from rules.ruleset import PUBLIC
from rules.skirmish.model import Character
from rules.state import EncounterState, Marker
from tests.night_fixtures import (
    NIGHT_SKIRMISH,
    H,
    char,
    decode,
    night_state,
    scene,
    with_markers,
)

VIEWERS = ("a", "b", PUBLIC)


def forbidden(state: EncounterState, viewer: str) -> set[str]:
    """The units ``viewer`` must never see in full."""
    expect = {
        "a": {"bex", "cora", "dune"},
        "b": {"ash"},
        PUBLIC: {"ash", "bex", "cora", "dune"},
    }
    return expect[viewer]


def no_hint(viewer: str) -> set[str]:
    """Units ``viewer`` must not even see as a '?' (hidden or simply in the dark, no gunflash)."""
    return {"a": {"bex", "dune"}, "b": {"ash"}, PUBLIC: {"ash", "bex", "dune"}}[viewer]


def png(state: EncounterState, viewer: str, events: tuple[object, ...] = ()) -> bytes:
    snap = BoardSnapshot(state, tuple(events))  # type: ignore[arg-type]
    return render_board(snap, viewer=viewer, options=RenderOptions(locale="es", whole_board=True))


def without(state: EncounterState, *ids: str) -> EncounterState:
    return state.replace(units={k: u for k, u in state.units.items() if k not in ids})


@pytest.mark.parametrize("viewer", VIEWERS)
def test_the_engine_view_never_holds_a_unit_the_viewer_cannot_see(viewer: str) -> None:
    state = scene()
    view = visibility(NIGHT_SKIRMISH, state, viewer)
    assert not view.units & forbidden(state, viewer)
    assert not view.concealed & no_hint(viewer)
    if viewer == "a":
        assert view.concealed == {"cora"} and "bruno" in view.units
    if viewer == PUBLIC:
        assert view.hexes == lit_hexes(state), "the channel sees lit hexes only: no side's sight outlined"


@pytest.mark.parametrize("viewer", VIEWERS)
def test_the_board_image_is_the_same_byte_for_byte_without_the_units_it_must_not_hint_at(viewer: str) -> None:
    state = scene()
    assert png(state, viewer) == png(without(state, *no_hint(viewer)), viewer)


@pytest.mark.parametrize("viewer", ["a", PUBLIC])
def test_a_concealed_counter_hides_identity_and_type(viewer: str) -> None:
    state = scene()
    cora = state.unit_as("cora", Character)
    other = replace(cora, id="cora", name="Zzz Other", label="ZZ", ap=9, ranged=20, wounds=2, max_wounds=5)
    assert png(state, viewer) == png(state.with_units([other]), viewer)
    assert "Cora" not in describe_all(state, viewer)


def describe_all(state: EncounterState, viewer: str) -> str:
    return " ".join(
        u.name for u in state.units.values() if u.id in visibility(NIGHT_SKIRMISH, state, viewer).units
    )


def test_pixel_probe_a_hidden_units_hex_is_identical_to_an_empty_dark_hex() -> None:
    state = scene()
    snap = BoardSnapshot(state, ())
    opts = RenderOptions(locale="es", whole_board=True)
    img = decode(render_board(snap, viewer="a", options=opts))
    vp = viewport_for(snap, viewer="a", options=opts)
    # Dune's hex in the dark against an empty dark hex two columns away: the same pixels around the centre
    for hidden, empty in (("dune", H("1009")), ("bex", H("0403"))):
        at = state.units[hidden].at
        assert at is not None and not state.units_at(empty)
        (cx, cy), (ex, ey) = vp.center(at), vp.center(empty)
        r = int(vp.size * 0.35)
        for dx in range(-r, r + 1, 3):
            for dy in range(-r // 2, r // 2 + 1, 3):
                assert img.getpixel((round(cx) + dx, round(cy) + dy)) == img.getpixel(
                    (round(ex) + dx, round(ey) + dy)
                ), f"{hidden}'s hex differs at ({dx}, {dy})"


def test_the_account_reads_a_shot_from_the_dark_and_never_names_the_shooter() -> None:
    state = scene()
    shot = ShotResolved(rule="SK-3.3", shooter="bex", target="alba", hit=True, damage=3)
    for viewer in ("a", PUBLIC):
        shown = events_for(state, (shot,), viewer)
        text = " ".join(describe(e, state, "es") for e in shown)
        if viewer == "a":
            assert "Disparo desde la oscuridad" in text and "Alba" in text
        assert "Bex" not in text and "bex" not in text
    assert "Bex" in describe(events_for(state, (shot,), "b")[0], state, "es")
    # a shot between two units the viewer cannot see at all: nothing
    assert events_for(state, (ShotResolved(rule="SK-3.3", shooter="dune", target="cora"),), "a") == ()


def test_panel_menus_offer_no_unseen_target_and_moves_as_if_the_hidden_enemy_were_not_there() -> None:
    from rules.skirmish.model import SkirmishState

    state = scene()
    checked = 0
    for unit_id, group in (("alba", "ga"), ("bruno", "gb")):
        # the chit of the unit's group is drawn (SK-1.1), so its panel offers every action it may take now
        drawn = state.replace(phase="activation", ext=SkirmishState(bag=("ga", "gb", "gc"), chit=group))
        assert unit_id in NIGHT_SKIRMISH.awaiting(drawn)
        actions = legal_actions(drawn, unit_id)
        offered = " ".join(f"{o.value} {o.label}" for options in actions.values() for o in options)
        side = drawn.units[unit_id].side
        for hidden in forbidden(state, side):
            assert f" {hidden}" not in offered and drawn.units[hidden].name not in offered, offered
        checked += 1
        if unit_id == "alba":
            assert "shoot bruno" in offered  # a seen enemy is offered
    assert checked == 2


@pytest.mark.parametrize("viewer", ["a", "b"])
def test_autocomplete_and_unit_info_answer_as_if_the_unseen_unit_did_not_exist(viewer: str) -> None:
    from bot.results import GameError

    state = scene()
    assert not seen_by(state, viewer) & forbidden(state, viewer)
    for uid in forbidden(state, viewer):
        with pytest.raises(GameError) as refused:
            _visible_unit(state, viewer, uid)
        with pytest.raises(GameError) as nonexistent:
            _visible_unit(state, viewer, "nobody")
        assert refused.value.code == nonexistent.value.code


def test_the_replay_for_a_side_is_fogged_frame_by_frame() -> None:
    state = scene()
    later = state.with_units([replace(state.unit_as("dune", Character), at=H("1208"))])
    frames = [BoardSnapshot(state, ()), BoardSnapshot(later, ())]
    plain = [BoardSnapshot(without(s.state, "dune", "bex"), ()) for s in frames]
    opts = RenderOptions(locale="es", whole_board=True)
    assert (
        render_replay(frames, viewer="a", options=opts).data
        == render_replay(plain, viewer="a", options=opts).data
    )


def test_the_encounter_log_reads_a_shot_from_the_dark_and_drops_what_nobody_public_saw() -> None:
    """``/encounter log`` (``public_history``, the service's own filter) over a stored chain: the hidden shooter
    is never named; a shot between units the public does not see is not there at all."""
    from bot.service.records import public_history
    from bot.storage.base import HistoryStep, StoredEvent
    from rules.serial import to_json

    state = scene()
    shots = (
        ShotResolved(rule="SK-3.3", shooter="bex", target="alba", hit=False),
        ShotResolved(rule="SK-3.3", shooter="dune", target="cora", hit=True, damage=2),
    )
    rows = []
    for shot in shots:
        row = StoredEvent.__new__(StoredEvent)  # the stored row's shape, filled by hand
        object.__setattr__(row, "payload", {"round": 1, "phase": "activation", "event": to_json(shot)})
        rows.append(row)
    stored = json.dumps(to_json(state))
    chain = [HistoryStep(1, 1, stored, ()), HistoryStep(2, 2, stored, tuple(rows))]
    public = public_history(chain)
    text = " ".join(describe(e, state, "es") for _, _, e in public)
    assert len(public) == 1 and "Disparo desde la oscuridad contra Alba" in text  # Alba is seen by both sides
    for name in ("Bex", "Dune", "Cora"):
        assert name not in text


def test_a_gunflash_marker_is_drawn_only_where_the_viewer_sees() -> None:
    state = scene()
    far = with_markers(state, Marker(kind="gunflash", at=H("1209"), owner="dune"))
    # for a, Dune is now a '?' (NGT-2) — never more: its counter is the same as any other unit's '?'
    renamed = far.with_units([replace(far.unit_as("dune", Character), name="Other", label="OT", ap=2)])
    assert png(far, "a") == png(renamed, "a")


def test_a_move_into_the_hex_of_an_enemy_in_the_dark_is_refused_without_naming_it() -> None:
    """NGT-2 (from a lit hex only lit hexes are seen): Alba stands in the light, an enemy waits in the dark hex
    ahead. The refusal says the hex is taken, never by whom (FOG-1)."""
    from rules.errors import IllegalOrderError
    from rules.skirmish.model import SkirmishState

    state = night_state(
        char("alba", "a", "0305", group="ga", facing="NE-SE"),
        char("lurker", "b", "0405", group="gb", facing="SW-NW"),
        nvr=2,
    )
    state = with_markers(state, Marker(kind="flare", at=H("0205"), radius=1))
    assert H("0305") in lit_hexes(state) and H("0405") not in lit_hexes(state)
    assert "lurker" not in visibility(NIGHT_SKIRMISH, state, "a").units
    drawn = state.replace(phase="activation", ext=SkirmishState(bag=("ga", "gb"), chit="ga"))
    order = NIGHT_SKIRMISH.parse_order(drawn, "alba", "move 0405")
    with pytest.raises(IllegalOrderError) as refused:
        NIGHT_SKIRMISH.validate_order(drawn, "alba", order)
    assert refused.value.code == "skirmish.occupied_unseen"
    assert "lurker" not in str(refused.value).lower() and "lurker" not in str(refused.value.params).lower()


def test_the_status_message_names_only_units_every_side_sees() -> None:
    """The channel's status line names a unit (and its player) only when it is public (NGT-9): at night, a unit
    in the dark is waited for without a name, like a hidden one."""
    from bot.service.base import ServiceBase

    state = scene()
    named = {uid for uid in state.units if ServiceBase.public_name(state, uid)}
    assert named == set(visibility(NIGHT_SKIRMISH, state, PUBLIC).units)
    assert not named & {"ash", "bex", "cora", "dune"}


def test_a_director_action_on_an_unseen_unit_is_nothing_a_side_or_the_channel_may_read() -> None:
    """NGT-9: judged over the states before and after the action, a unit counts as seen only when it is seen in
    both: removing, adding in the dark or moving a unit the viewer cannot see names nothing for that viewer
    (a removed unit is not in the state after, and so was taken for 'unknown' and shown)."""
    from bot.transforms import overrides
    from rules.seen import seen_events

    state = scene()
    for after, event in (
        overrides.remove_unit(state, "dune"),
        overrides.move(state, "bex", H("1008")),
        overrides.add_unit(state, "lurk", "b", H("1108"), like="dune"),
        overrides.reveal(state, "bex"),
    ):
        for viewer in ("a", PUBLIC):
            assert seen_events(state, after, (event,), viewer) == (), (event.action, viewer)
        assert seen_events(state, after, (event,), "b") == (event,)
    # a side's own unit, which it sees before and after: its account names it
    after, event = overrides.move(state, "alba", H("0304"))
    assert seen_events(state, after, (event,), "a") == (event,)


def test_the_replay_has_no_frame_for_a_ruling_the_viewer_could_not_see() -> None:
    """Two worlds that differ only in a director's ruling on a unit side a and the channel cannot see: their
    replays are the same file, frame count included; the director's replay shows the ruling."""
    from bot.transforms import overrides
    from rules.events import DirectorOverride

    state = scene()
    moved = state.with_units([replace(state.unit_as("alba", Character), at=H("0304"))])
    ruled, event = overrides.move(moved, "dune", H("1008"))
    step = (ShotResolved(rule="SK-3.3", shooter="alba", target="bruno", hit=False),)
    with_ruling = [BoardSnapshot(state, ()), BoardSnapshot(moved, step), BoardSnapshot(ruled, (event,))]
    without = [BoardSnapshot(state, ()), BoardSnapshot(moved, step)]
    assert isinstance(event, DirectorOverride)
    opts = RenderOptions(locale="es", whole_board=True)
    for viewer in ("a", PUBLIC):
        one, other = (
            render_replay(with_ruling, viewer=viewer, options=opts),
            render_replay(without, viewer=viewer, options=opts),
        )
        assert (one.frames, one.steps, one.data) == (other.frames, other.steps, other.data), viewer
    assert render_replay(with_ruling, viewer="director", options=opts).frames == 3

"""Render overlays (render/rulesets/): each ruleset and layer draws its own part of the board through one
protocol, found through the registry; the common renderer guesses nothing from unit fields. Every ruleset of the
registry is drawn from one of its bundled scenarios."""

from __future__ import annotations

import importlib
from dataclasses import replace

import pytest

from data import SCENARIO_DIR
from render import BoardSnapshot, RenderOptions, render_board
from render.board import trace_board, viewport_for
from render.colours import LIT_MIX, MARKER, PAPER, SIDE_DEFAULTS, mix
from render.layout import LEGEND_H
from render.rulesets import board_signature, overlays_for
from render.rulesets import exo as exo_overlay
from render.rulesets import night as night_overlay
from render.rulesets import skirmish as skirmish_overlay
from rules import registry
from rules.events import ShotResolved, UnitMoved
from rules.layer import Layer
from rules.registry import Plugin, layer
from rules.scenario import load_scenario
from rules.skirmish.model import Character
from rules.state import Board, EncounterState, Marker, Side
from tests import toy_overlay
from tests.render_fixtures import H, Ship, decode, exo_state, share_of, skirmish_state
from tests.toy_ruleset import Pawn

RED, BLUE = SIDE_DEFAULTS[0], SIDE_DEFAULTS[1]


def toy_state() -> EncounterState:
    units = [
        Pawn(id="ann", side="red", name="Ann", label="ANN", at=H("0303"), facing=0),
        Pawn(id="bob", side="blue", name="Bob", label="BOB", at=H("0605"), facing=3),
    ]
    return EncounterState(
        ruleset="toy-sim",
        name="Toy",
        board=Board(width=8, height=6),
        sides=(Side("red", "Red"), Side("blue", "Blue")),
        units={u.id: u for u in units},
    )


def colours_in(img_bytes: bytes, box: tuple[int, int, int, int] | None = None) -> set[tuple[int, int, int]]:
    img = decode(img_bytes)
    if box is not None:
        img = img.crop(box)
    return {c for _, c in img.getcolors(1 << 20) or []}


@pytest.mark.parametrize("palette", [True, False])
def test_a_plugin_overlay_draws_under_and_over_the_counters_and_in_the_legend(palette: bool) -> None:
    snap = BoardSnapshot(toy_state())
    data = render_board(snap, viewer="director", options=RenderOptions(palette=palette))
    img = decode(data)
    (x, y), r = trace_board(snap, viewer="director", options=RenderOptions(palette=palette)).counters["ann"]
    # under: the halo shows around the counter (beside it: its hex number is tagged under it), and the counter
    # covers it (below the label, away from the nose)
    assert share_of(img, (x - r * 1.2, y), 1, toy_overlay.HALO) == 1
    assert share_of(img, (x, y + r * 0.75), 1, RED) == 1
    # over: the badge sits on the counter's centre, on top of its disc and label
    assert share_of(img, (x, y), 2, toy_overlay.BADGE) == 1
    # the legend: a halo-coloured hex outlined in the badge's colour
    strip = colours_in(data, (0, img.height - LEGEND_H, img.width, img.height))
    assert {toy_overlay.HALO, toy_overlay.BADGE} <= strip


def bundled_state(rid: str) -> EncounterState:
    """The first bundled scenario of a ruleset of the registry (``data/scenarios/<id>-*.toml``)."""
    first = sorted(SCENARIO_DIR.glob(f"{rid}-*.toml"))[0]
    return load_scenario(first.read_text(encoding="utf-8")).state


#: every ruleset of the registry, so a new one is covered by its registry line
RULESET_IDS = sorted(p.id for p in registry.PLUGINS if p.kind == "ruleset")


@pytest.mark.parametrize("rid", RULESET_IDS)
def test_another_rulesets_board_has_nothing_of_the_toy_overlay(rid: str) -> None:
    found = colours_in(render_board(BoardSnapshot(bundled_state(rid)), viewer="director"))
    assert not found & {toy_overlay.HALO, toy_overlay.BADGE}


@pytest.mark.parametrize("rid", RULESET_IDS)
def test_each_rulesets_board_draws_its_own_overlay_first(rid: str) -> None:
    state = bundled_state(rid)
    own = importlib.import_module(registry.plugin_module(rid, "overlay"))
    assert overlays_for(state)[0] is own.OVERLAY


def test_a_ruleset_without_an_overlay_draws_only_the_common_things() -> None:
    """Exo ships on a state of a ruleset nobody registered: no vector, stat bar or trail is guessed from their
    fields; counters and firing lines are still drawn."""
    bare = exo_state(ruleset="render-test")
    hal = bare.units["halcon"]
    assert isinstance(hal, Ship)
    plain = bare.with_units([replace(hal, vector=None, armor=1)])
    moved = (UnitMoved(rule="X", unit="halcon", frm=H("0303"), to=H("0505"), facing_from=1, facing_to=1),)
    shot = (ShotResolved(rule="X", shooter="halcon", target="pirata", hit=True, damage=2),)

    def draw(state: EncounterState, events: tuple[UnitMoved | ShotResolved, ...] = ()) -> bytes:
        return render_board(BoardSnapshot(state, events), viewer="director")

    assert draw(bare) == draw(plain) == draw(bare, moved)
    assert draw(bare, shot) != draw(bare)
    assert overlays_for(bare) == ()
    # the same ships on an exo state do show their vectors, armor and trails
    exo = bare.replace(ruleset="exo")
    assert draw(exo) != draw(exo.with_units([replace(hal, vector=None)]))
    assert draw(exo) != draw(exo.with_units([replace(hal, armor=1)]))
    assert draw(exo) != draw(exo, moved)


def test_overlays_come_base_first_then_each_layer_and_unknown_ones_add_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delitem(registry._PLUGINS, "night", raising=False)  # pyright: ignore[reportPrivateUsage]
    assert overlays_for(exo_state()) == (exo_overlay.OVERLAY,)
    at_night = skirmish_state(layers=("night",))
    assert overlays_for(at_night) == (skirmish_overlay.OVERLAY,)  # the night layer is not registered yet
    monkeypatch.setitem(registry._PLUGINS, "night", layer("night", applies_to=("skirmish",)))  # pyright: ignore[reportPrivateUsage]
    assert overlays_for(at_night) == (skirmish_overlay.OVERLAY, night_overlay.OVERLAY)
    # registered, but no overlay module (yet): nothing of its own
    ghost = Plugin("render-ghost", "layer", "rules.render_ghost", "", "render.rulesets.render_ghost")
    monkeypatch.setitem(registry._PLUGINS, ghost.id, ghost)  # pyright: ignore[reportPrivateUsage]
    assert overlays_for(skirmish_state(layers=("render-ghost",))) == (skirmish_overlay.OVERLAY,)
    # an overlay module that exposes no Overlay is a mistake, said out loud
    broken = Plugin("render-broken", "layer", "rules.render_broken", "", __name__)
    monkeypatch.setitem(registry._PLUGINS, broken.id, broken)  # pyright: ignore[reportPrivateUsage]
    with pytest.raises(TypeError, match="OVERLAY"):
        overlays_for(skirmish_state(layers=("render-broken",)))


class NightStub(Layer):
    """Stands in for the night layer's engine (not written yet): plays exactly like the base ruleset."""

    id = "night"


def test_the_night_overlay_lights_flares_once_the_layer_is_registered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    flare = Marker(kind="flare", at=H("0606"))
    state = skirmish_state(layers=("night",), markers=(flare,))
    lit = mix(PAPER.hex_fill, MARKER["flare"], LIT_MIX)
    probe = H("0606").neighbor(2)  # NGT-3: the flare's hex and the six around it

    def lit_share() -> float:
        snap = BoardSnapshot(state)
        img = decode(render_board(snap, viewer="director"))
        return share_of(img, viewport_for(snap, viewer="director").center(probe), 3, lit)

    monkeypatch.delitem(registry._PLUGINS, "night", raising=False)  # pyright: ignore[reportPrivateUsage]
    assert lit_share() == 0  # not registered: the layer's overlay is skipped
    monkeypatch.setitem(registry._PLUGINS, "night", layer("night", applies_to=("skirmish",)))  # pyright: ignore[reportPrivateUsage]
    monkeypatch.setitem(registry._LAYERS, "night", NightStub())  # pyright: ignore[reportPrivateUsage]
    monkeypatch.setattr(registry, "_COMPOSED", {})
    assert lit_share() == 1
    strip = colours_in(render_board(BoardSnapshot(state), viewer="director"))
    assert lit in strip


def test_stat_bars_are_the_rulesets_own() -> None:
    ship = Ship(id="s", side="red", name="S", at=H("0101"), manta=2, cabin=1, max_cabin=2)
    bars = exo_overlay.OVERLAY.stat_bars(ship)
    assert [(b.label.rsplit(".", 1)[1], b.value, b.maximum, b.damage) for b in bars] == [
        ("armor", 8, 8, True),
        ("structure", 6, 6, True),
        ("engines", 3, 3, False),
        ("manta", 2, 4, False),  # EXO-2.2: this round's maneuverability out of the current one
        ("cabin", 1, 2, True),
        ("cargo", 0, 0, True),
    ]
    kara = Character(id="k", side="red", name="K", at=H("0101"), ap_left=2, wounds=1, max_wounds=3)
    ap, wounds = skirmish_overlay.OVERLAY.stat_bars(kara)
    assert (ap.value, ap.maximum, ap.damage, wounds.value, wounds.maximum) == (2, 6, False, 1, 3)
    assert wounds.health == pytest.approx(2 / 3)  # fewer wounds is better
    assert exo_overlay.OVERLAY.stat_bars(kara) == () == skirmish_overlay.OVERLAY.stat_bars(ship)


def test_board_signature_changes_with_what_the_board_shows() -> None:
    base = exo_state()
    hal = base.units["halcon"]
    assert isinstance(hal, Ship)
    before = board_signature(base)
    assert board_signature(exo_state()) == before
    for changed in (
        replace(hal, at=H("0506")),
        replace(hal, facing=3),
        replace(hal, vector=H("0704")),  # the vector counter (exo)
        replace(hal, armor=3),  # the damage bar (exo)
        replace(hal, destroyed=True),
    ):
        assert board_signature(base.with_units([changed])) != before, changed
    assert board_signature(base.replace(markers=(Marker(kind="fire", at=H("0101")),))) != before
    # the side panel's other numbers alone do not call for a new board
    assert board_signature(base.with_units([replace(hal, manta=1)])) == before
    # a ruleset without an overlay: the renderer reads no field by name, so neither does the signature
    bare = base.replace(ruleset="render-test")
    assert board_signature(bare.with_units([replace(hal, vector=H("0704"))])) == board_signature(bare)

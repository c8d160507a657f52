"""The plug-in contract, run over every registered ruleset and layer (the tests' toys included): what any new
ruleset must satisfy to be played by the bot, drawn by the renderer and read by the CLI (rules/registry.py)."""

from __future__ import annotations

import ast
import io
from pathlib import Path

import pytest

from bot.process.cli import simulate
from data import SCENARIO_DIR
from data.i18n import (
    _flatten,  # pyright: ignore[reportPrivateUsage]
    phrase_text,
)
from rules.engine import visibility
from rules.layer import LayeredRuleset
from rules.registry import (
    PLUGINS,
    compose,
    get_layer,
    get_ruleset,
    layer_ids,
    plugin,
    public_ruleset_ids,
    ruleset_for,
    ruleset_ids,
)
from rules.ruleset import DiceFactory
from rules.scenario import Scenario, load_scenario
from rules.serial import from_json, to_json
from tests import toy_layer, toy_ruleset
from tests.paths import ROOT

TOY_TEXT = """
ruleset = "{ruleset}"
name = "Toy"
seed = 3
{extra}
[board]
width = 8
height = 8

[[sides]]
id = "red"
[[sides]]
id = "blue"

[[units]]
id = "a"
side = "red"
at = "0202"
{lantern}
[[units]]
id = "b"
side = "blue"
at = "0606"

[[rounds]]
orders = {{ a = "move 0203", b = "move 0605" }}
"""


def toy_scenario(ruleset: str = "toy-sim", *, dark: bool = False) -> Scenario:
    extra = f'layers = ["{toy_layer.LAYER_ID}"]\n[toydark]\nradius = 2\n' if dark else ""
    return load_scenario(
        TOY_TEXT.format(ruleset=ruleset, extra=extra, lantern="lantern = true" if dark else "")
    )


def scenarios_of(rid: str) -> list[Scenario]:
    if rid in toy_ruleset.TOY_IDS:
        return [toy_scenario(rid)]
    return [load_scenario(p) for p in sorted(SCENARIO_DIR.glob(f"{rid}-*.toml"))]


def every_ruleset() -> list[str]:
    return [*public_ruleset_ids(), "toy-sim", "toy-seq"]


def test_the_registry_lists_the_public_rulesets_and_the_toys_through_the_same_path() -> None:
    assert set(public_ruleset_ids()) <= set(ruleset_ids())
    assert {"toy-sim", "toy-seq", "toy-act", "toy-dir"} <= set(ruleset_ids())
    assert toy_layer.LAYER_ID in layer_ids()
    for p in PLUGINS:
        assert plugin(p.id) is p
        if p.kind == "ruleset":
            assert get_ruleset(p.id).id == p.id
        else:
            assert get_layer(p.id).id == p.id


@pytest.mark.parametrize("rid", every_ruleset())
def test_a_ruleset_has_scenarios_that_simulate_to_the_end(rid: str) -> None:
    scenarios = scenarios_of(rid)
    assert scenarios, f"{rid} has no bundled scenario in data/scenarios/{rid}-*.toml"
    for scenario in scenarios:
        out = io.StringIO()
        assert simulate(scenario, as_json=True, stream=out) == 0, out.getvalue()[-2000:]
        assert '"phase_end"' in out.getvalue()


@pytest.mark.parametrize("rid", every_ruleset())
def test_state_events_and_orders_survive_a_json_round_trip(rid: str) -> None:
    for scenario in scenarios_of(rid):
        state = scenario.state
        assert from_json(to_json(state)) == state
        ruleset = ruleset_for(state)
        for spec in scenario.rounds:
            for unit, raw in dict(spec.raw.get("orders", {})).items():
                if unit in state.units:
                    try:
                        order = ruleset.parse_order(state, unit, raw)
                    except ValueError:
                        continue  # an order for a later step of the round: its step checks it
                    assert from_json(to_json(order)) == order
            for step in ruleset.simulate_round(state, spec, DiceFactory()):
                assert from_json(to_json(step.state)) == step.state
                assert from_json(to_json(step.events)) == step.events
                state = step.state
            if state.over:
                break


@pytest.mark.parametrize("rid", [*public_ruleset_ids(), *layer_ids()])
def test_a_plugin_speaks_spanish_and_english_with_the_same_keys(rid: str) -> None:
    import tomllib

    files = {lang: ROOT / "data" / "locales" / lang / f"{rid}.toml" for lang in ("en", "es")}
    if rid in toy_ruleset.TOY_IDS or rid == toy_layer.LAYER_ID:
        return  # the toys speak through keys only
    assert all(f.is_file() for f in files.values()), f"{rid} needs data/locales/{{en,es}}/{rid}.toml"
    keys = {
        lang: set(_flatten(tomllib.loads(f.read_text(encoding="utf-8")), "")) for lang, f in files.items()
    }
    assert sorted(keys["en"] ^ keys["es"]) == []


def test_a_layer_composes_with_its_base_ruleset_without_a_line_in_either() -> None:
    dark = toy_scenario(dark=True)
    plain = toy_scenario()
    ruleset = ruleset_for(dark.state)
    assert isinstance(ruleset, LayeredRuleset) and ruleset.layers == (toy_layer.LAYER_ID,)
    assert ruleset.innermost() is get_ruleset("toy-sim") is ruleset_for(plain.state)
    assert compose("toy-sim", (toy_layer.LAYER_ID,)) is ruleset  # composed once, then reused
    # the layer's own scenario keys landed in its own state, the base unit never saw them
    assert toy_layer.dark_of(dark.state) == toy_layer.DarkState(radius=2, lanterns=("a",))
    # visibility: blue sees the red lantern carrier from afar; red does not see blue at distance 4
    assert visibility(ruleset, dark.state, "blue").units == {"a", "b"}
    assert visibility(ruleset, dark.state, "red").units == {"a"}
    assert visibility(ruleset_for(plain.state), plain.state, "red").units == {"a", "b"}
    # a step after each resolution, and the state round-trips with the layer's data
    steps = list(ruleset.simulate_round(dark.state, dark.rounds[0], DiceFactory()))
    after = steps[-1].state
    assert from_json(to_json(after)) == after


def test_a_layer_refuses_a_ruleset_it_does_not_apply_to() -> None:
    from rules.errors import ScenarioError

    with pytest.raises(ScenarioError) as err:
        load_scenario(
            TOY_TEXT.format(ruleset="toy-seq", extra=f'layers = ["{toy_layer.LAYER_ID}"]\n', lantern="")
        )
    assert any("applies to toy-sim, not toy-seq" in phrase_text(p) for p in err.value.problems)


def test_a_ruleset_typo_stops_at_one_error_with_a_suggestion() -> None:
    from rules.errors import ScenarioError

    with pytest.raises(ScenarioError) as err:
        load_scenario('ruleset = "exoo"\nname = 3\n[board]\nwidht = 2\n')
    assert len(err.value.problems) == 1
    assert "did you mean 'exo'" in phrase_text(err.value.problems[0])


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


@pytest.mark.parametrize("rid", [p.id for p in PLUGINS])
def test_no_module_outside_a_plugins_own_folders_imports_it(rid: str) -> None:
    """A ruleset's code lives in rules/<id>/, bot/panels/<id>.py, render/rulesets/<id>.py, bot/rulesets/sheets/<id>.py
    and bot/rulesets/text/<id>.py;
    everything else in the program reaches it through the registry (benchmarks, like tests, may build a ruleset's
    units)."""
    p = plugin(rid)
    own = {p.engine, p.panel, p.overlay, p.sheet, p.text}
    bad: list[str] = []
    for folder in ("bot", "cogs", "render", "rules", "data"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            if any(module == m or module.startswith(f"{m}.") for m in own if m):
                continue
            for name in _imports(path):
                if name == p.engine or name.startswith(f"{p.engine}."):
                    bad.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not bad, "\n".join(bad)


def test_no_shared_module_branches_on_a_ruleset_id() -> None:
    """``state.ruleset == "exo"``-style branches belong in the plug-in's own folders (its hooks do the work)."""
    import re

    pattern = re.compile(r"ruleset[\w.]*\s*[!=]=\s*['\"]")
    bad: list[str] = []
    for folder in ("bot", "cogs", "render", "rules"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if any(rel.startswith(f"rules/{p.id}/") for p in PLUGINS):
                continue
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if pattern.search(line):
                    bad.append(f"{rel}:{n}: {line.strip()}")
    assert not bad, "\n".join(bad)


def test_serialized_tags_are_namespaced_and_data_written_before_still_decodes() -> None:
    """Two rulesets may both have a ``Weapon``: tags carry the namespace (``exo.Ship``); an export written
    before namespacing (bare ``Ship``, ``Weapon``) still imports."""
    state = load_scenario(SCENARIO_DIR / "exo-duel.toml").state
    data = to_json(state)
    ship = next(iter(data["units"].values()))
    assert ship["$t"] == "exo.Ship" and data["$t"] == "EncounterState"

    def bare(value: object) -> object:
        if isinstance(value, dict):
            out = {k: bare(v) for k, v in value.items()}
            for key in ("$t", "$e"):
                if isinstance(out.get(key), str):
                    out[key] = str(out[key]).rsplit(".", 1)[-1]
            return out
        if isinstance(value, list):
            return [bare(v) for v in value]
        return value

    assert from_json(bare(data)) == state


def test_a_layered_ruleset_passes_every_ruleset_hook_to_its_base() -> None:
    """A hook a layer forgot would silently fall back to the Ruleset default under every layer."""
    from rules.ruleset import Ruleset

    hooks = {n for n in vars(Ruleset) if not n.startswith("_") and callable(getattr(Ruleset, n))}
    missing = sorted(n for n in hooks if n not in vars(LayeredRuleset))
    assert not missing, f"LayeredRuleset does not pass on: {missing}"

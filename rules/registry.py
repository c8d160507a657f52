"""The one registry of rulesets and layers: the only place in the code that lists their ids.

A ruleset (or layer) is a plug-in: a folder in each layer of the program, named by its id, and **one line** in
:data:`PLUGINS` below. Every caller finds its part through here:

- the engine, ``rules/<id>/`` (``get_ruleset``, ``ruleset_for``, ``get_layer``);
- the panel model, ``bot/panels/<id>.py`` (pure, no Discord: what a player may choose, the draft, the order);
- the render overlay, ``render/rulesets/<id>.py`` (what the board draws under and over the counters, the legend,
  the side panel's stat bars);
- the record sheet ``/unit info`` shows, ``bot/rulesets/sheets/<id>.py`` (pure, no Discord: a unit's figures as text);
- what the account adds to its events' lines, ``bot/rulesets/text/<id>.py`` (optional: without it, the shared
  conventions show every field);
- the locale strings, ``data/locales/<lang>/<id>.toml``.

Nothing here imports those modules up front: they are imported by name on first use, so ``rules/`` stays pure
and a test can register a plug-in of its own (:func:`add`) that lives outside the package.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, TypeVar

if TYPE_CHECKING:
    from rules.layer import Layer
    from rules.ruleset import Ruleset
    from rules.state import EncounterState

Kind = Literal["ruleset", "layer"]


@dataclass(frozen=True, slots=True)
class Plugin:
    """Where a ruleset's or layer's parts live, by module name."""

    id: str
    kind: Kind
    engine: str  # imports and registers the Ruleset / Layer class(es) with @register
    panel: str  # the panel model (bot side, pure); "" for a layer or a ruleset with no orders panel
    overlay: str  # the render overlay; "" draws nothing of its own
    #: base rulesets a layer applies to (empty for a ruleset)
    applies_to: tuple[str, ...] = ()
    #: offered in Discord (``/encounter new``); False while only its engine, scenarios and CLI are in
    in_discord: bool = True
    #: the record sheet (``/unit info``); "" shows only what every unit has (hex, facing)
    sheet: str = ""
    #: what the account adds to the lines of its events (an absent module adds nothing)
    text: str = ""


def ruleset(rid: str, *, in_discord: bool = True) -> Plugin:
    """A ruleset laid out by convention: ``rules/<id>/``, ``bot/panels/<id>.py``, ``render/rulesets/<id>.py``,
    ``bot/rulesets/sheets/<id>.py``, ``bot/rulesets/text/<id>.py``.
    ``in_discord=False``: the engine plays in ``hexdirector sim``/``validate`` but has no panel yet, so the bot
    does not offer it."""
    return Plugin(
        rid,
        "ruleset",
        f"rules.{rid}",
        f"bot.panels.{rid}" if in_discord else "",
        f"render.rulesets.{rid}",
        in_discord=in_discord,
        sheet=f"bot.rulesets.sheets.{rid}",
        text=f"bot.rulesets.text.{rid}",
    )


def layer(lid: str, *, applies_to: tuple[str, ...]) -> Plugin:
    """A layer laid out by convention: ``rules/<id>/``, ``render/rulesets/<id>.py``, ``bot/rulesets/sheets/<id>.py``
    and ``bot/rulesets/text/<id>.py``."""
    return Plugin(
        lid,
        "layer",
        f"rules.{lid}",
        "",
        f"render.rulesets.{lid}",
        applies_to,
        sheet=f"bot.rulesets.sheets.{lid}",
        text=f"bot.rulesets.text.{lid}",
    )


# ---- one line per ruleset or layer --------------------------------------------------------------------------
PLUGINS: tuple[Plugin, ...] = (
    ruleset("exo"),
    ruleset("skirmish"),
    ruleset("mech"),
    ruleset("ocs"),
    ruleset("pbw"),
    layer("night", applies_to=("skirmish", "mech", "pbw", "ocs")),
)
# ------------------------------------------------------------------------------------------------------------

_PLUGINS: dict[str, Plugin] = {p.id: p for p in PLUGINS}
_RULESETS: dict[str, Ruleset] = {}
_LAYERS: dict[str, Layer] = {}
_COMPOSED: dict[tuple[str, tuple[str, ...]], Ruleset] = {}

R = TypeVar("R", bound="type[Ruleset] | type[Layer]")


def add(plugin: Plugin) -> None:
    """Register a plug-in that is not in :data:`PLUGINS` (the tests' toy rulesets)."""
    _PLUGINS[plugin.id] = plugin


def register(cls: R) -> R:
    """Class decorator for a plug-in's engine module: ``@register class ExoRuleset(Ruleset)``."""
    from rules.layer import Layer
    from rules.ruleset import Ruleset

    instance: object = cls()
    if isinstance(instance, Layer):
        _LAYERS[instance.id] = instance
    elif isinstance(instance, Ruleset):
        _RULESETS[instance.id] = instance
    else:
        raise TypeError(f"{cls!r} is neither a Ruleset nor a Layer")
    _COMPOSED.clear()
    return cls


def plugin(pid: str) -> Plugin:
    try:
        return _PLUGINS[pid]
    except KeyError:
        raise KeyError(f"unknown ruleset or layer {pid!r} (known: {', '.join(ruleset_ids())})") from None


def ruleset_ids() -> tuple[str, ...]:
    """Every registered ruleset id, in registry order (command choices, the CLI, the scenario loader)."""
    return tuple(p.id for p in _PLUGINS.values() if p.kind == "ruleset")


def layer_ids() -> tuple[str, ...]:
    return tuple(p.id for p in _PLUGINS.values() if p.kind == "layer")


def public_ruleset_ids() -> tuple[str, ...]:
    """The rulesets shipped with the bot (not the tests' toys): the CLI plays them all."""
    return tuple(p.id for p in PLUGINS if p.kind == "ruleset")


def discord_ruleset_ids() -> tuple[str, ...]:
    """The rulesets ``/encounter new`` offers: shipped ones with a Discord panel."""
    return tuple(p.id for p in PLUGINS if p.kind == "ruleset" and p.in_discord)


def get_ruleset(rid: str) -> Ruleset:
    """The base ruleset registered under ``rid`` (its engine module is imported on first use)."""
    found = _RULESETS.get(rid)
    if found is None:
        p = plugin(rid)
        if p.kind != "ruleset":
            raise KeyError(f"{rid!r} is a layer, not a ruleset")
        importlib.import_module(p.engine)
        found = _RULESETS.get(rid)
        if found is None:
            raise KeyError(f"{p.engine} registered no ruleset called {rid!r}")
    return found


def get_layer(lid: str) -> Layer:
    found = _LAYERS.get(lid)
    if found is None:
        p = plugin(lid)
        if p.kind != "layer":
            raise KeyError(f"{lid!r} is a ruleset, not a layer")
        importlib.import_module(p.engine)
        found = _LAYERS.get(lid)
        if found is None:
            raise KeyError(f"{p.engine} registered no layer called {lid!r}")
    return found


def compose(rid: str, layers: tuple[str, ...] = ()) -> Ruleset:
    """The base ruleset ``rid`` wrapped by ``layers`` in order (the first layer is innermost)."""
    key = (rid, layers)
    found = _COMPOSED.get(key)
    if found is None:
        found = get_ruleset(rid)
        for lid in layers:
            found = get_layer(lid).wrap(found)
        _COMPOSED[key] = found
    return found


def ruleset_for(state: EncounterState) -> Ruleset:
    """What plays ``state``: its base ruleset wrapped by the state's layers. Every caller goes through here."""
    return compose(state.ruleset, state.layers)


def plugin_module(pid: str, part: Literal["panel", "overlay", "sheet", "text"]) -> str:
    """The module name of a plug-in's panel, overlay, record sheet or account text ("" when it has none)."""
    p = plugin(pid)
    return {"panel": p.panel, "overlay": p.overlay, "sheet": p.sheet, "text": p.text}[part]

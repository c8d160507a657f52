"""The readable account of a phase: events → one line of text each, in the reader's language.

Templates live in the locale catalogs under ``event.<tag>``, the event's serial tag (``event.mech.WeaponFired``
for a plug-in's event, ``event.UnitMoved`` for a shared one: two plug-ins may name an event class alike);
fields that name units are shown by unit name, hexes by their ``CCRR`` label. An event type without a template
still prints (type, rule and fields), so a new event is never silently dropped from the account. A plug-in adds
the words its own events need (exo's crew by station, mech's shots by weapon) through its hook in
``bot/rulesets/text/<id>.py``; this module knows only the conventions every plug-in shares.
"""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

from bot.names import shown_name
from bot.rulesets.text import EventFields, EventText, texts_for
from data.i18n import has, t, term_key
from rules.events import UNIT_FIELDS, DirectorOverride, Event, Note, RollMade, ShotResolved
from rules.hexgrid import Hex, HexSide
from rules.serial import tag_of
from rules.state import EncounterState, Unit


def _plain(value: Any, names: Mapping[str, str]) -> Any:
    if isinstance(value, Hex):
        return value.label
    if isinstance(value, enum.Enum):
        return value.name.lower()
    if isinstance(value, tuple) and value and all(isinstance(v, Hex) for v in value):  # type: ignore[misc]
        return "→".join(v.label for v in value)  # type: ignore[union-attr]
    if isinstance(value, tuple | list):
        return ", ".join(str(_plain(v, names)) for v in value)  # type: ignore[misc]
    return value


def value_text(key: str, value: str, locale: str | None, plugin: str = "") -> str | None:
    """A keyword value in the reader's language: ``value.<field>.<value>`` first, then the term, ``plugin``'s
    own (``<plugin>.term.<value>``) before the shared ``term.<value>``."""
    if not value:
        return None
    if has(f"value.{key}.{value}", "en"):
        return t(f"value.{key}.{value}", locale)
    term = term_key(value, plugin)
    if has(term, "en"):
        return t(term, locale)
    return None


def plugins_of(event: Event) -> tuple[str, ...]:
    """The plug-ins an event's words may come from: its own (the namespace of its tag), or, for a shared roll or
    note a plug-in filled, the namespace of its key (``exo.hit``)."""
    key: object = ""
    if isinstance(event, RollMade):
        key = event.get("purpose_key")
    elif isinstance(event, Note):
        key = event.key
    owner = key.split(".", 1)[0] if isinstance(key, str) and "." in key else ""
    return tuple(dict.fromkeys(p for p in (plugin_of(event), owner) if p))


def event_key(event: Event) -> str:
    """The catalog key of an event's line: ``event.`` and its serial tag."""
    return f"event.{tag_of(type(event))}"


def plugin_of(event: Event) -> str:
    """The plug-in whose event this is (the namespace of its tag), "" for a shared engine event."""
    tag = tag_of(type(event))
    return tag.split(".", 1)[0] if "." in tag else ""


def display_value(key: str, value: object, locale: str | None) -> str:
    """A unit stat for a reader (``/unit info``): yes/no for flags, keyword values translated."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return t("value.yes" if value else "value.no", locale)
    if isinstance(value, enum.Enum):
        value = value.name.lower()
    if isinstance(value, str):
        if key == "facing":  # a side ("SW") or a vertex ("S-SW") in the reader's spelling (HEX-2: SO, NO)
            parts = value.split("-")
            if all(has(f"hexside.{p}", "en") for p in parts):
                return "-".join(t(f"hexside.{p}", locale) for p in parts)
        return value_text(key, value, locale) or value
    return str(value)


#: event fields that hold a list of unit ids (ocs combats name their attackers and defenders): shown by name
UNIT_LIST_FIELDS = ("units", "attackers", "defenders")
SIDE_FIELDS = (
    "side",
    "winner",
)  # event fields that hold a side id: shown by the side's name as ``<key>_name``


def template_params(
    event: Event,
    names: Mapping[str, str],
    locale: str | None,
    sides: Mapping[str, str] | None = None,
    *,
    plugins: Sequence[str] = (),
) -> dict[str, Any]:
    """The parameters of ``event``'s template: each field as shown (units and sides by name, hexes by label,
    keywords in the reader's words), then what the event's kind adds (a roll's dice, a shot's outcome), then
    what the event's own plug-in and ``plugins`` (the game's ruleset and layers) add (bot/rulesets/text)."""
    params: dict[str, Any] = {}
    plugin = plugin_of(event)  # a word two plug-ins mean differently reads as this event's plug-in means it
    texts = texts_for((*plugins_of(event), *plugins))
    fields = _fields(event, params, locale)
    for key, value in fields:
        _field_params(params, key, value, names, sides or {}, locale, plugin)
    _kind_params(event, params, locale, texts)
    raw = dict(fields)
    for text in texts:
        params.update(text.event_params(EventFields(event, raw, dict(params), names, locale)))
    _keyword_texts(params, locale, plugin)
    return params


def _fields(event: Event, params: dict[str, Any], locale: str | None) -> list[tuple[str, object]]:
    """The event's fields, a roll's ``detail`` and ``args`` pairs spread out; its modifiers spelled out."""
    fields: list[tuple[str, object]] = []
    for key, value in event.params().items():
        if key == "modifiers" and isinstance(value, tuple):
            params["modifiers_text"] = modifiers_text(event, cast(tuple[Any, ...], value), locale)
        if key in ("detail", "args") and isinstance(value, tuple):
            fields.extend((str(k), v) for k, v in cast(tuple[tuple[object, object], ...], value))
        else:
            fields.append((key, cast(object, value)))
    return fields


def _field_params(
    params: dict[str, Any],
    key: str,
    value: object,
    names: Mapping[str, str],
    sides: Mapping[str, str],
    locale: str | None,
    plugin: str = "",
) -> None:
    """One field as shown, and the texts its name's convention adds (``<key>_name``, ``<key>_text``,
    ``<key>_side``)."""
    params[key] = _plain(value, names)
    if key in UNIT_FIELDS and isinstance(value, str):
        params[f"{key}_name"] = names.get(value, value)
    elif key in SIDE_FIELDS and isinstance(value, str):
        params[f"{key}_name"] = sides.get(value, value)
    elif key in UNIT_LIST_FIELDS and isinstance(value, tuple):
        # unit ids are never shown: a list of units reads as their names
        units = cast(tuple[object, ...], value)
        params[key] = ", ".join(names.get(u, u) if isinstance(u, str) else str(u) for u in units)
    elif isinstance(value, tuple) and value and all(isinstance(v, str) for v in value):  # type: ignore[misc]
        # a list of keywords (hit locations) reads in the reader's language
        words = cast(tuple[str, ...], value)
        params[f"{key}_text"] = ", ".join(value_text(key, w, locale, plugin) or w for w in words)
    if key.startswith("facing") and isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 6:
        params[f"{key}_side"] = t(f"hexside.{HexSide(value).name}", locale)


def _kind_params(
    event: Event, params: dict[str, Any], locale: str | None, texts: tuple[EventText, ...] = ()
) -> None:
    """What the event's kind adds: a direction's side (HEX-2), a shot's outcome, a roll's dice and quality, an
    override's stat."""
    direction = params.get("direction")
    if isinstance(direction, str) and has(f"hexside.{direction}", "en"):
        params["direction_side"] = t(f"hexside.{direction}", locale)  # HEX-2: SO, NO in Spanish
    if isinstance(event, ShotResolved):
        params["hit_text"] = t(
            "shot.spent" if event.spent else "shot.hit" if event.hit else "shot.miss", locale
        )
    if isinstance(event, RollMade):
        params["dice_text"] = ", ".join(str(d) for d in event.dice)
        params["total"] = event.get("total", sum(event.dice))
        _roll_params(event, params, locale, texts)
    _quality(event, params, locale)
    if isinstance(event, DirectorOverride) and isinstance(params.get("stat"), str):
        stat = str(params["stat"])
        params["stat_text"] = t(f"stat.{stat}", locale) if has(f"stat.{stat}", "en") else stat
        if "value" in params:
            params["value_text"] = display_value(stat, params["value"], locale)


def _quality(event: Event, params: dict[str, Any], locale: str | None) -> None:
    if isinstance(event, RollMade):
        quality = event.get("quality")
        if quality is not None:
            params["quality_text"] = t(f"quality.{quality}", locale)
    elif isinstance(params.get("quality"), str) and has(f"quality.{params['quality']}", "en"):
        # any event that carries a roll quality shows it in the reader's language
        params["quality_text"] = t(f"quality.{params['quality']}", locale)


def _keyword_texts(params: dict[str, Any], locale: str | None, plugin: str = "") -> None:
    for key, value in list(params.items()):
        # keyword values (a station, a location, a reason) get a translated "<key>_text" when the catalog has one
        if isinstance(value, str):
            params.setdefault(f"{key}_text", value_text(key, value, locale, plugin) or value)
        elif isinstance(value, bool):
            params.setdefault(f"{key}_text", t("value.yes" if value else "value.no", locale))
    for key in [k for k in params if k.endswith("_text")]:
        # an event logged before its "<x>_named" text (names instead of ids) existed reads with "<x>_text"
        params.setdefault(key.removesuffix("_text") + "_named", params[key])


def modifiers_text(event: Event, pairs: tuple[Any, ...], locale: str | None) -> str:
    """A roll's modifiers spelled out (an event field ``modifiers`` of ``(reason, value)`` pairs): the base the
    target number starts from, then each reason in the reader's words (``modifier.<reason>``) and its value, so a
    player can check the sum with a pencil: ``base 15, medium range +3, walked +2``."""
    parts: list[str] = []
    total = 0
    for pair in pairs:
        if not (isinstance(pair, tuple) and len(pair) == 2):  # type: ignore[arg-type]
            continue
        code, value = cast(tuple[object, object], pair)
        if not isinstance(value, int):
            continue
        total += value
        reason = t(f"modifier.{code}", locale) if has(f"modifier.{code}", "en") else str(code)
        parts.append(f"{reason} {value:+d}")
    number = event.params().get("target_number")
    if isinstance(number, int) and not isinstance(number, bool):
        parts.insert(0, f"{t('modifier.base', locale)} {number - total}")
    return ", ".join(parts)


def dice_sum_text(sides: int, dice: tuple[int, ...]) -> str:
    """``3d10 7+1+5 = 13``; one die: ``1d10 7`` (the dice in the order rolled, DICE-1)."""
    faces = "+".join(str(d) for d in dice)
    head = f"{len(dice)}d{sides} {faces}"
    return f"{head} = {sum(dice)}" if len(dice) > 1 else head


def roll_modifiers_text(
    modifiers: Iterable[tuple[str, int]], total: int, locale: str | None, texts: Iterable[EventText] = ()
) -> str:
    """``, +3 (alcance medio) +2 (arma) = 18``: each modifier with its reason, then the total; "" for none.
    A reason ``<key>:<arg>`` reads its argument as ``value`` and as the plug-ins' ``texts`` spell it."""
    hooks = tuple(texts)
    parts: list[str] = []
    for reason, value in modifiers:
        key, _, arg = reason.partition(":")
        params: dict[str, Any] = {"name": arg, "value": arg}
        for text in hooks:
            params.update(text.modifier_params(arg, locale))
        label = t(f"rolls.mod.{key}", locale, **params)
        parts.append(f"{value:+d} ({label})" if label else f"{value:+d}")
    return f", {' '.join(parts)} = {total}" if parts else ""


def _roll_params(
    event: RollMade, params: dict[str, Any], locale: str | None, texts: tuple[EventText, ...]
) -> None:
    """What a structured roll line needs (DICE-1/2): purpose, dice, modifiers with reasons, target, direction."""
    if not event.get("purpose_key"):
        return
    for key, value in event.detail:
        if isinstance(value, str) and has(f"rolls.{key}.{value}", "en"):
            params[f"{key}_text"] = t(f"rolls.{key}.{value}", locale)
    params["dice_text"] = dice_sum_text(event.sides, event.dice)
    dice_key = f"rolls.dice.{event.get('purpose_key')}"
    if has(dice_key, "en"):
        # dice read one by one, not summed (the night layer's coloured and white dice, NGT-5)
        params["dice_text"] = t(
            dice_key, locale, **{**params, "first": event.dice[0], "second": event.dice[-1]}
        )
    raw = cast(tuple[tuple[str, int], ...], event.get("modifiers", ()))
    params["mods_text"] = roll_modifiers_text(raw, int(params["total"]), locale, texts)
    need = event.get("need")
    if need:
        target = event.get("target_number", event.get("skill"))
        # the need may name the other side of an opposed roll (pbw's melee defence): it sees every field
        params["need_text"] = t(f"rolls.need.{need}", locale, **{**params, "target": target})


def unit_name(unit: Unit, locale: str | None, *, markdown: bool = False) -> str:
    """A unit's name for a reader; a kind the catalogs name (``unitname.<kind>``: exo debris) wraps it.
    ``markdown``: for a Discord post, the name escaped (bot/names.py)."""
    name = shown_name(unit.name) if markdown else unit.name
    key = f"unitname.{unit.kind}"
    return t(key, locale, name=name) if has(key, "en") else name


def _names(
    state: EncounterState | None, locale: str | None, markdown: bool
) -> tuple[dict[str, str], dict[str, str]]:
    """The units' and the sides' names by id, as a post (``markdown``) or plain text shows them."""
    if state is None:
        return {}, {}
    names = {u.id: unit_name(u, locale, markdown=markdown) for u in state.units.values()}
    sides = {s.id: shown_name(s.name_in(locale)) if markdown else s.name_in(locale) for s in state.sides}
    return names, sides


def _playing(state: EncounterState | None) -> tuple[str, ...]:
    """The plug-ins playing ``state``: its ruleset, then its layers."""
    return () if state is None else (state.ruleset, *state.layers)


def describe(
    event: Event, state: EncounterState | None = None, locale: str | None = None, *, markdown: bool = True
) -> str:
    """One line of the account. ``markdown`` (the default: every caller but the command line posts it on
    Discord): names people typed, of units, sides and crew, escaped so they never read as markup."""
    names, sides = _names(state, locale, markdown)
    plugins = _playing(state)
    params = template_params(event, names, locale, sides, plugins=plugins)
    if markdown:
        for text in texts_for((*plugins_of(event), *plugins)):
            for key in text.typed_fields:
                if isinstance(params.get(key), str):
                    params[key] = shown_name(params[key])
    key = event_key(event)
    if isinstance(event, RollMade):
        if event.get("purpose_key"):
            params["purpose_text"] = t(f"rolls.purpose.{event.get('purpose_key')}", locale, **params)
            return _tidy(t("rolls.line" if "need_text" in params else "rolls.plain", locale, **params))
        # a roll the engine did not describe for readers: who rolled (and at whom) and the dice, in no language;
        # its English ``purpose`` stays in the JSON log (``sim --json``)
        who = params.get("actor_name") or ""
        target = params.get("target_name") or ""
        params["purpose"] = f"{who} → {target}" if who and target else who or event.rule
        params["dice_text"] = dice_sum_text(event.sides, event.dice)
        key = "event.RollMade.quality" if "quality_text" in params else key
    elif isinstance(event, Note | DirectorOverride):
        specific = f"note.{event.key}" if isinstance(event, Note) else f"override.{event.action}"
        key = specific if has(specific, "en") else key
    if has(key, "en"):
        return _tidy(t(key, locale, **params))
    fields = ", ".join(f"{k}={v}" for k, v in params.items() if k != "rule" and v not in ("", (), None))
    return f"[{event.rule}] {event.type}: {fields}"


_SPACES = re.compile(r"(?<=[^\]\s]) {2,}(?=\S)")


def _tidy(text: str) -> str:
    """An empty optional field leaves no double space, empty brackets or trailing blank (an indent right after
    the rule id, as pbw's segments use, stays)."""
    return _SPACES.sub(" ", text.replace(" ()", "")).replace(" ;", ";").rstrip()


def roll_purpose(event: RollMade, state: EncounterState | None, locale: str | None) -> str:
    """What a roll is for, in the reader's language (the engine's English ``purpose`` for a roll without a
    ``purpose_key``)."""
    key = event.get("purpose_key")
    if not key:
        return event.purpose
    names, sides = _names(state, locale, True)
    params = template_params(event, names, locale, sides, plugins=_playing(state))
    return t(f"rolls.purpose.{key}", locale, **params)


def account(
    events: Iterable[Event], state: EncounterState | None = None, locale: str | None = None
) -> list[str]:
    return [describe(e, state, locale) for e in events]


def event_json(event: Event, **extra: Any) -> str:
    """One JSON line for ``sim --json``: ``{"type": ..., "rule": ..., fields...}``, hexes as labels."""
    out: dict[str, Any] = {"type": event.type, **extra}
    for key, value in event.params().items():
        out[key] = _jsonable(value)
    detail = out.get("detail")
    if isinstance(detail, dict) and cast(dict[str, Any], detail).get("modifiers") == []:
        cast(dict[str, Any], detail)["modifiers"] = {}  # always {reason: value}, even with no modifier
    return json.dumps(out, ensure_ascii=False, sort_keys=False)


def _jsonable(value: Any) -> Any:
    if isinstance(value, Hex):
        return value.label
    if isinstance(value, enum.Enum):
        return value.name.lower()
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in cast(Mapping[object, object], value).items()}
    if isinstance(value, tuple | list):
        items = [_jsonable(v) for v in cast("tuple[object, ...] | list[object]", value)]
        pairs = [cast(list[Any], i) for i in items if isinstance(i, list)]
        if items and len(pairs) == len(items) and all(len(p) == 2 and isinstance(p[0], str) for p in pairs):
            return {str(p[0]): p[1] for p in pairs}
        return items
    return value

"""Scenario files (DESIGN §7, a public contract) → ``EncounterState``.

Every problem is collected, not just the first: a director fixing a file wants the whole list at once, each with
its TOML key path and, where it can be found, its line. Unknown keys are errors so typos never pass silently.
"""

from __future__ import annotations

import copy
import re
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, cast

from rules.errors import GameError, Phrase, Problem, ScenarioError, describe, did_you_mean, shown
from rules.hexgrid import Hex, HexSide, Vertex
from rules.names import clean_name
from rules.registry import compose, layer_ids, plugin, public_ruleset_ids
from rules.ruleset import FacingKind, RoundSpec, Ruleset
from rules.state import Board, EncounterState, Side, Unit

TOP_KEYS = frozenset(
    {
        "ruleset",
        "layers",
        "name",
        "description",
        "seed",
        "dice",
        "board",
        "sides",
        "units",
        "rounds",
        "options",
    }
)
BOARD_KEYS = frozenset({"width", "height", "unbounded", "terrain"})
SIDE_KEYS = frozenset({"id", "name", "color"})
COMMON_UNIT_KEYS = frozenset({"id", "side", "at", "facing", "name", "label", "hidden"})
MAX_BOARD = 99  # CCRR labels have two digits per coordinate (HEX-1)
# names reach Discord titles (256), select labels (100) and embed fields: long ones are refused, not cut later
MAX_NAME = 100
MAX_UNIT_NAME = 64
MAX_LABEL = 8  # a counter's short label, drawn inside its hex
MAX_DESCRIPTION = 1000
SAFE_ID = re.compile(r"^[A-Za-z0-9_\-]{1,32}$")


#: the languages a scenario may give its ``name`` and ``description`` in (``name = { es = "…", en = "…" }``)
TEXT_LANGUAGES = ("en", "es")
#: a text in each language the file gives it in; a plain string is one text for every reader (language "")
Texts = tuple[tuple[str, str], ...]


def text_in(texts: Texts, lang: str | None) -> str:
    """The text for a reader of ``lang``: theirs, else the English one, else the first the file gives (with no
    ``lang``, the first: the file's own order, so a reading that names no reader is stable)."""
    found = dict(texts)
    for wanted in (lang, "", "en") if lang else ():
        if wanted in found:
            return found[wanted]
    return texts[0][1] if texts else ""


@dataclass(frozen=True, slots=True)
class Scenario:
    state: EncounterState
    rounds: tuple[RoundSpec, ...]
    description: str = ""
    names: Texts = ()  # the file's name in each language it gives (the state carries the reader's)
    descriptions: Texts = ()


class _Locator:
    """Finds the line of a key path like ``units[2].facing`` by scanning the TOML text.

    ``tomllib`` gives line numbers only for syntax errors; this scan covers table headers (``[board]``,
    ``[[units]]``) and ``key =`` lines, which is where almost every semantic mistake lives.
    """

    _header = re.compile(r"^\s*(\[\[?)\s*([A-Za-z0-9_.\-\"]+)\s*\]\]?")
    _key = re.compile(r"^\s*([A-Za-z0-9_\-\"]+)\s*=")

    def __init__(self, text: str) -> None:
        # (table path with array indexes, key or None, line)
        self.entries: list[tuple[str, str | None, int]] = []
        counts: dict[str, int] = {}
        table = ""
        for lineno, line in enumerate(text.splitlines(), start=1):
            m = self._header.match(line)
            if m:
                name = m.group(2).replace('"', "")
                if m.group(1) == "[[":
                    idx = counts.get(name, 0)
                    counts[name] = idx + 1
                    table = f"{name}[{idx}]"
                else:
                    table = name
                self.entries.append((table, None, lineno))
                continue
            k = self._key.match(line)
            if k:
                self.entries.append((table, k.group(1).replace('"', ""), lineno))

    def line(self, path: str) -> int:
        for t, k, lineno in self.entries:
            if t == path and k is None:  # the path is a table: its header (``[night]``, ``[[units]]``)
                return lineno
        parts = path.rsplit(".", 1)
        table, key = (parts[0], parts[1]) if len(parts) == 2 else ("", parts[0])
        key = re.sub(r"\[\d+\]$", "", key)
        for t, k, lineno in self.entries:
            if t == table and k == key:
                return lineno
        # fall back to the nearest enclosing table: its header, or the key that holds it inline (``night = {…}``)
        while table:
            for t, k, lineno in self.entries:
                if t == table and k is None:
                    return lineno
            head, _, last = table.rpartition(".")
            for t, k, lineno in self.entries:
                if t == head and k == last:
                    return lineno
            table = head
        for t, k, lineno in self.entries:
            if t == "" and k == path.split(".")[0].split("[")[0]:
                return lineno
        # a key the file's top level lacks (``ruleset``, ``[board]``) belongs where the file starts
        return 1


class ScenarioContext:
    """Collects problems and type-checks values while a scenario is read."""

    def __init__(self, text: str = "") -> None:
        self.problems: list[Problem] = []
        self._locator = _Locator(text)
        self.facing_kind = FacingKind.SIDE
        self.board: Board = Board()

    def error(self, path: str, key: str, /, **params: object) -> None:
        """Report a problem at ``path``: a catalog ``key`` (under ``problem.``) and its params, never words."""
        self.problems.append(Problem(path, key, params, self._locator.line(path)))

    def line(self, path: str) -> int:
        """The line of the file where ``path`` is written, or of the nearest table that holds it."""
        return self._locator.line(path)

    def error_from(self, path: str, error: GameError) -> None:
        """Report an engine refusal (a ``GameError`` from parsing or playing a scripted order) at ``path``."""
        self.problems.append(Problem.of_error(path, error, self._locator.line(path)))

    def check_keys(self, raw: Mapping[str, Any], allowed: frozenset[str], path: str) -> None:
        for key in raw:
            if key not in allowed:
                near = _closest(key, allowed)
                where = f"{path}.{key}" if path else key
                if near:
                    self.error(where, "problem.unknown_key_near", key=key, near=near)
                else:
                    self.error(where, "problem.unknown_key", key=key, allowed=", ".join(sorted(allowed)))

    def take(
        self,
        raw: Mapping[str, Any],
        key: str,
        kind: type | tuple[type, ...],
        path: str,
        *,
        required: bool = False,
        default: Any = None,
    ) -> Any:
        full = f"{path}.{key}" if path else key
        if key not in raw:
            if required:
                self.error(full, "problem.required")
            return default
        value = raw[key]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        # bool is an int in Python but never a valid number in a scenario
        if (isinstance(value, bool) and bool not in kinds) or not isinstance(value, kinds):
            self.error(full, "problem.expected", expected=_type_names(kinds), got=describe(value))
            return default
        return value

    def table_entries(
        self,
        raw: Mapping[str, Any],
        key: str,
        path: str,
        allowed: frozenset[str],
        *,
        required: bool = False,
        not_a_table: str = "",
    ) -> Iterator[tuple[int, str, dict[str, Any]]]:
        """Each entry of the list ``raw[key]`` (``[[key]]`` tables) that is a table, with its index and key path,
        its keys already checked against ``allowed``. Any other entry is reported (``not_a_table``, a catalog key,
        says what one should look like) and skipped."""
        full = f"{path}.{key}" if path else key
        value = self.take(raw, key, list, path, required=required, default=[])
        for i, entry in enumerate(cast(list[Any], value)):
            where = f"{full}[{i}]"
            if not isinstance(entry, dict):
                if not_a_table:
                    self.error(where, not_a_table)
                else:
                    self.error(where, "problem.not_a_table", table=key)
                continue
            table = cast(dict[str, Any], entry)
            self.check_keys(table, allowed, where)
            yield i, where, table

    #: the longest name a ruleset's scenario keys may give a unit or a crew member
    max_name = MAX_UNIT_NAME

    def bounded_text(
        self,
        raw: Mapping[str, Any],
        key: str,
        path: str,
        limit: int,
        *,
        required: bool = False,
        lines: bool = False,
    ) -> str:
        """Text of at most ``limit`` characters ("" when missing or wrong), as :func:`clean_name` keeps it: every
        name a file gives is read here, so no bidi override or zero-width character enters the game (``lines``:
        line breaks kept, for a description)."""
        value = self.take(raw, key, str, path, required=required, default="")
        if not isinstance(value, str):
            return ""
        value = clean_name(value, lines=lines)
        if len(value) > limit:
            self.error(f"{path}.{key}" if path else key, "problem.too_long", length=len(value), limit=limit)
            return value[:limit]
        return value

    def texts(
        self,
        raw: Mapping[str, Any],
        key: str,
        limit: int,
        *,
        required: bool = False,
        lines: bool = False,
        path: str = "",
    ) -> Texts:
        """A text a reader sees in their language: a string (the same for everyone) or a table with one per
        language, ``{ es = "…", en = "…" }``; each read as :meth:`bounded_text` reads a name. ``path``: the
        table ``raw`` is, for problems ("" at the top level)."""
        value = raw.get(key)
        if not isinstance(value, dict):
            text = self.bounded_text(raw, key, path, limit, required=required, lines=lines)
            return (("", text),) if text else ()
        table = cast(dict[str, Any], value)
        known = len(self.problems)
        where = f"{path}.{key}" if path else key
        self.check_keys(table, frozenset(TEXT_LANGUAGES), where)
        out = [(lang, self.bounded_text(table, lang, where, limit, lines=lines)) for lang in table]
        given = tuple((lang, text) for lang, text in out if text and lang in TEXT_LANGUAGES)
        if required and not given and len(self.problems) == known:  # one problem a key: the first says it
            self.error(where, "problem.required")
        return given

    def number(
        self, raw: Mapping[str, Any], key: str, path: str, *, default: int = 0, low: int = 0, high: int = 99
    ) -> int:
        value = self.take(raw, key, int, path, default=default)
        if not isinstance(value, int):
            return default
        if not low <= value <= high:
            self.error(f"{path}.{key}", "problem.out_of_range", low=low, high=high, value=value)
            return default
        return value

    def position(self, value: Any, path: str) -> Hex | None:
        if not isinstance(value, str):
            self.error(path, "problem.hex_expected", got=describe(value))
            return None
        try:
            h = Hex.parse(value)
        except ValueError:
            zero = re.fullmatch(r"\d{4}", value.strip()) and "00" in (value.strip()[:2], value.strip()[2:])
            self.error(path, "problem.hex_zero" if zero else "problem.hex_bad", value=value)
            return None
        if not self.board.contains(h):
            self.error(
                path, "problem.hex_outside", value=value, width=self.board.width, height=self.board.height
            )
            return None
        return h

    def facing(self, value: Any, path: str) -> int:
        try:
            if self.facing_kind is FacingKind.VERTEX:
                return int(Vertex.parse(value))
            return int(HexSide.parse(value))
        except (ValueError, KeyError):
            # HEX-2: the names in the reader's words (Spanish writes SO and NO; both spellings are read)
            names = Phrase.of(
                "problem.vertices" if self.facing_kind is FacingKind.VERTEX else "problem.hexsides"
            )
            self.error(path, "problem.facing_bad", value=shown(value), names=names)
            return 0


def _read_text(path: Path) -> str:
    """A scenario file's text; bytes that are not UTF-8 are a problem line (with where), not a traceback."""
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ScenarioError([Problem("", "problem.not_utf8", {"byte": exc.start + 1}, line)]) from None


#: what ``tomllib`` says (Python 3.11's parser), as catalog words; anything else is shown as tomllib wrote it
_TOML_WORDS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), key)
    for pattern, key in (
        (r"Cannot overwrite a value", "problem.toml.overwrite"),
        (r"Cannot declare (?P<key>.+) twice", "problem.toml.twice"),
        (r"Cannot mutate immutable namespace (?P<key>.+)", "problem.toml.immutable"),
        (r"Cannot redefine namespace (?P<key>.+)", "problem.toml.redefine"),
        (r"Duplicate inline table key (?P<key>.+)", "problem.toml.duplicate_inline"),
        (r"Unclosed array", "problem.toml.unclosed_array"),
        (r"Unclosed inline table", "problem.toml.unclosed_table"),
        (r"Unterminated string", "problem.toml.unterminated"),
        (r"Invalid value", "problem.toml.invalid_value"),
        (r"Invalid statement", "problem.toml.invalid_statement"),
        (r"Invalid initial character for a key part", "problem.toml.key_start"),
        (r"Invalid hex value", "problem.toml.hex_value"),
        (r"Invalid date or datetime", "problem.toml.date"),
        (r"Expected '=' after a key in a key/value pair", "problem.toml.equals"),
        (r"Expected newline or end of document after a statement", "problem.toml.newline"),
        (r"Expected '\]\]' at the end of an array declaration", "problem.toml.array_header"),
        (r"Expected '\]' at the end of a table declaration", "problem.toml.table_header"),
        (r"Unescaped '\\' in a string", "problem.toml.backslash"),
        (r"Escaped character is not a Unicode scalar value", "problem.toml.unicode"),
        (r"Illegal character (?P<char>.+)", "problem.toml.illegal_char"),
        (r"Found invalid character (?P<char>.+)", "problem.toml.invalid_char"),
        (r"Expected (?P<char>.+)", "problem.toml.expected"),
    )
)


def _toml_problem(message: str) -> Problem:
    """A ``TOMLDecodeError`` as a problem: its line, and what tomllib could not read in the catalogs' words."""
    where = re.search(r"\s*\(at line (\d+), column (\d+)\)|\s*\(at end of document\)", message)
    text = message[: where.start()] if where else message
    line = int(where.group(1)) if where and where.group(1) else None
    detail: Phrase | str = text
    for pattern, key in _TOML_WORDS:
        m = pattern.fullmatch(text)
        if m:
            detail = Phrase(key, {name: _toml_key(value) for name, value in m.groupdict().items()})
            break
    if where and not where.group(1):
        return Problem("", "problem.not_toml_end", {"detail": detail})
    column = int(where.group(2)) if where and where.group(2) else 0
    return Problem("", "problem.not_toml", {"detail": detail, "column": column}, line)


def _toml_key(value: str) -> str:
    """tomllib names a key as a tuple (``('board', 'terrain')``): the dotted key the file wrote."""
    import ast

    try:
        parts = ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return value
    if isinstance(parts, tuple) and all(isinstance(p, str) for p in cast(tuple[object, ...], parts)):
        return ".".join(cast(tuple[str, ...], parts))
    return value


#: texts up to this long have their parse kept (the bundled scenarios are a few kilobytes; an uploaded file may be
#: 256 KB, which parses to megabytes of objects: a one-off, not worth keeping)
KEPT_TEXT_CHARS = 32 * 1024


@lru_cache(maxsize=16)
def _parsed(text: str) -> dict[str, Any]:
    """The file's TOML, kept for the short texts read lately: a server opening encounter after encounter of the
    same bundled scenario parsed it twice each time, in pure Python. A text that does not parse is not
    kept. Never changed: :func:`_own_parse` hands out copies."""
    return tomllib.loads(text)


def _shared_parse(text: str) -> dict[str, Any]:
    """The text's TOML, kept when the text is short: to read, never to change."""
    return _parsed(text) if len(text) <= KEPT_TEXT_CHARS else tomllib.loads(text)


def _own_parse(text: str) -> dict[str, Any]:
    """The text's TOML, a dict of the caller's own."""
    parsed = _shared_parse(text)
    return copy.deepcopy(parsed) if len(text) <= KEPT_TEXT_CHARS else parsed


def names_seed(text: str) -> bool:
    """Whether the scenario text sets its own ``seed`` (a text that does not parse sets none)."""
    try:
        return "seed" in _shared_parse(text)
    except (tomllib.TOMLDecodeError, RecursionError):
        return False


def load_scenario(
    source: str | Path,
    *,
    dice: tuple[int, ...] | None = None,
    seed: int | None = None,
    lang: str | None = None,
) -> Scenario:
    """Read a scenario file (or TOML text). Raises ``ScenarioError`` listing every problem. The encounter takes
    its name (and the scenario its description) in ``lang`` when the file gives one in it (:func:`text_in`)."""
    text = _read_text(source) if isinstance(source, Path) else source
    ctx = ScenarioContext(text)
    try:
        raw = _own_parse(text)
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError([_toml_problem(str(exc))]) from None
    except RecursionError:
        raise ScenarioError([Problem("", "problem.too_deep")]) from None
    scenario = _build(raw, ctx, dice=dice, seed=seed, lang=lang)
    if ctx.problems or scenario is None:
        raise ScenarioError(ctx.problems)
    return scenario


def _build(
    raw: dict[str, Any],
    ctx: ScenarioContext,
    *,
    dice: tuple[int, ...] | None,
    seed: int | None,
    lang: str | None = None,
) -> Scenario | None:
    ruleset_id = ctx.take(raw, "ruleset", str, "", required=True)
    if not isinstance(ruleset_id, str) or not _known_ruleset(ruleset_id, ctx):
        return None  # every other key depends on the ruleset: one clear error beats dozens of cascaded ones
    layers = _layers(raw, ctx, ruleset_id)
    ruleset = compose(ruleset_id, layers)
    ctx.check_keys(raw, TOP_KEYS | ruleset.top_keys, "")
    names = ctx.texts(raw, "name", MAX_NAME, required=True)
    descriptions = ctx.texts(raw, "description", MAX_DESCRIPTION, lines=True)
    name = text_in(names, lang) or "?"
    file_seed = ctx.take(raw, "seed", (int, str), "", default=0)
    script = _dice(raw, ctx)
    ctx.facing_kind = ruleset.facing
    board = _board(raw, ctx, ruleset)
    ctx.board = board
    sides = _sides(raw, ctx, lang)
    options = _options(raw, ctx, ruleset)
    units = _units(raw, ctx, ruleset, {s.id for s in sides})
    state = EncounterState(
        ruleset=ruleset_id,
        name=name,
        board=board,
        sides=tuple(sides),
        units={u.id: u for u in units},
        seed=seed if seed is not None else file_seed,
        dice_script=dice if dice is not None else script,
        layers=layers,
        options=options,
    )
    state = ruleset.read_top(raw, state, ctx)
    if not ctx.problems:
        ruleset.check_state(state, ctx)
    if ctx.problems:
        return None
    state = ruleset.setup(state)
    rounds: list[RoundSpec] = []
    for i, path, entry in ctx.table_entries(raw, "rounds", "", ruleset.round_keys):
        spec = RoundSpec(index=i + 1, raw=entry, line=ctx.line(path))
        ruleset.check_round(spec, state, path, ctx)
        rounds.append(spec)
    return Scenario(
        state=state,
        rounds=tuple(rounds),
        description=text_in(descriptions, lang),
        names=names,
        descriptions=descriptions,
    )


def _known_ruleset(ruleset_id: str, ctx: ScenarioContext) -> bool:
    try:
        return plugin(ruleset_id).kind == "ruleset"
    except KeyError:
        known = public_ruleset_ids()
        hint = did_you_mean(ruleset_id, known)
        ctx.error("ruleset", "problem.unknown_ruleset", ruleset=ruleset_id, hint=hint, known=", ".join(known))
        return False


def _layers(raw: Mapping[str, Any], ctx: ScenarioContext, ruleset_id: str) -> tuple[str, ...]:
    value = ctx.take(raw, "layers", list, "", default=[])
    out: list[str] = []
    for i, layer in enumerate(cast(list[Any], value)):
        if layer not in layer_ids():
            available = ", ".join(layer_ids()) or Phrase.of("problem.none")
            ctx.error(f"layers[{i}]", "problem.unknown_layer", layer=shown(layer), available=available)
        elif ruleset_id not in plugin(str(layer)).applies_to:
            applies = ", ".join(plugin(str(layer)).applies_to)
            ctx.error(
                f"layers[{i}]", "problem.layer_applies", layer=layer, applies=applies, ruleset=ruleset_id
            )
        elif layer in out:
            ctx.error(f"layers[{i}]", "problem.layer_twice", layer=layer)
        else:
            out.append(str(layer))
    return tuple(out)


def _dice(raw: Mapping[str, Any], ctx: ScenarioContext) -> tuple[int, ...]:
    value = ctx.take(raw, "dice", list, "", default=[])
    out: list[int] = []
    for i, d in enumerate(cast(list[Any], value)):
        if isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 10:
            ctx.error(f"dice[{i}]", "problem.die", got=describe(d))
        else:
            out.append(d)
    return tuple(out)


def _board(raw: Mapping[str, Any], ctx: ScenarioContext, ruleset: Ruleset) -> Board:
    table = ctx.take(raw, "board", dict, "", default=None)
    default_unbounded = ruleset.unbounded_by_default
    if table is None:
        if not default_unbounded:
            ctx.error("board", "problem.board_required")
        return Board()
    b = cast(dict[str, Any], table)
    ctx.check_keys(b, BOARD_KEYS | ruleset.board_keys, "board")
    unbounded = ctx.take(b, "unbounded", bool, "board", default=default_unbounded and "width" not in b)
    width = height = None
    if not unbounded:
        width = ctx.number(b, "width", "board", default=0, low=1, high=MAX_BOARD) or None
        height = ctx.number(b, "height", "board", default=0, low=1, high=MAX_BOARD) or None
        if width is None or height is None:
            if "width" not in b or "height" not in b:
                ctx.error("board", "problem.board_size")
            width = height = None
    board = Board(width=width, height=height)
    ctx.board = board
    terrain: dict[Hex, str] = {}
    raw_terrain = ctx.take(b, "terrain", dict, "board", default={})
    for label, kind in cast(dict[str, Any], raw_terrain).items():
        path = f"board.terrain.{label}"
        h = ctx.position(label, path)
        if not isinstance(kind, str) or not kind:
            ctx.error(path, "problem.terrain_name", got=describe(kind))
            continue
        if h is not None:
            terrain[h] = kind
    return ruleset.read_board(b, Board(width=width, height=height, terrain=terrain), ctx)


def _sides(raw: Mapping[str, Any], ctx: ScenarioContext, lang: str | None) -> list[Side]:
    """The sides; a name given per language resolves like the scenario's own (:func:`text_in`), and the side
    keeps every language for its readers (:meth:`Side.name_in`)."""
    sides: list[Side] = []
    for _, path, t in ctx.table_entries(raw, "sides", "", SIDE_KEYS, required=True):
        sid = ctx.take(t, "id", str, path, required=True)
        if sid is None:
            continue
        if not SAFE_ID.match(sid):
            ctx.error(f"{path}.id", "problem.bad_id")
        if any(x.id == sid for x in sides):
            ctx.error(f"{path}.id", "problem.duplicate_side", id=sid)
        color = ctx.take(t, "color", str, path, default=None)
        if color is not None and not re.fullmatch(r"#[0-9a-fA-F]{6}", color):
            ctx.error(f"{path}.color", "problem.color", got=color)
            color = None
        names = ctx.texts(t, "name", MAX_UNIT_NAME, path=path)
        per_language = names if isinstance(t.get("name"), dict) else ()
        sides.append(Side(id=sid, name=text_in(names, lang) or sid, color=color, names=per_language))
    if not sides and "sides" in raw:
        ctx.error("sides", "problem.no_sides")
    return sides


def _options(raw: Mapping[str, Any], ctx: ScenarioContext, ruleset: Ruleset) -> dict[str, Any]:
    table = ctx.take(raw, "options", dict, "", default={})
    opts = cast(dict[str, Any], table)
    ctx.check_keys(opts, ruleset.option_keys, "options")
    return dict(opts)


def _units(raw: Mapping[str, Any], ctx: ScenarioContext, ruleset: Ruleset, side_ids: set[str]) -> list[Unit]:
    units: list[Unit] = []
    seen: dict[str, str] = {}
    extra: frozenset[str] = ruleset.unit_keys
    for _, path, t in ctx.table_entries(raw, "units", "", COMMON_UNIT_KEYS | extra):
        uid = ctx.take(t, "id", str, path, required=True)
        side = ctx.take(t, "side", str, path, required=True)
        if uid is not None:
            if not SAFE_ID.match(uid):
                ctx.error(f"{path}.id", "problem.bad_id")
            if uid in seen:
                ctx.error(f"{path}.id", "problem.duplicate_unit", id=uid, other=seen[uid])
            seen[uid] = path
        if side is not None and side_ids and side not in side_ids:
            ctx.error(f"{path}.side", "problem.unknown_side", side=side, sides=", ".join(sorted(side_ids)))
        at = ctx.position(t["at"], f"{path}.at") if "at" in t else None
        if "at" not in t:
            ctx.error(f"{path}.at", "problem.required")
        facing = ctx.facing(t["facing"], f"{path}.facing") if "facing" in t else 0
        name = ctx.bounded_text(t, "name", path, MAX_UNIT_NAME) or uid or "?"
        label = ctx.bounded_text(t, "label", path, MAX_LABEL)
        hidden = ctx.take(t, "hidden", bool, path, default=False)
        if uid is None or side is None:
            continue
        common = Unit(id=uid, side=side, name=name, at=at, facing=facing, label=label[:4], hidden=hidden)
        built = ruleset.build_unit(t, common, path, ctx)
        if built is not None:
            units.append(built)
    return units


def _closest(key: str, allowed: frozenset[str] | tuple[str, ...]) -> str | None:
    import difflib

    match = difflib.get_close_matches(key, sorted(allowed), n=1, cutoff=0.6)
    return match[0] if match else None


def _type_names(kinds: tuple[type, ...]) -> Phrase:
    """What a key takes, in words: one kind, or either of two."""
    names = [Phrase.of(_KIND_NAMES.get(k, "problem.kind.other"), name=k.__name__) for k in kinds]
    if len(names) == 1:
        return names[0]
    return Phrase.of("problem.either", a=names[0], b=names[1])


_KIND_NAMES = {
    int: "problem.kind.int",
    str: "problem.kind.str",
    bool: "problem.kind.bool",
    list: "problem.kind.list",
    dict: "problem.kind.dict",
    float: "problem.kind.float",
}

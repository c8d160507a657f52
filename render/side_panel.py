"""Text around the board: the header (encounter, round, phase, view) and the side panel of units and stat chips.

Discord shows a board about 550 px wide: a 1280 px image is scaled by 0.43. A unit's stats are chips at least
``CHIP_H`` tall (10 px at that scale): the stat's abbreviation and value in white on a bar filled by how good the
value is; a key under the units spells out every abbreviation shown.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image

from data.i18n import has, t
from render.canvas import Canvas, text_width
from render.colours import BAR_BG, HIDDEN_TAG, HIT, RGB, WHITE, Palette, Theme, chip_fill
from render.counters import bar_colour
from render.layout import HEADER_H
from render.stats import DollCell, StatBar
from rules.state import EncounterState, Unit

PREVIEW_WIDTH = 550  # px: how wide Discord shows an attached image on a laptop or a phone
CHIP_H = 24  # a stat chip's height: 10.3 px once a 1280 px board is shown 550 px wide
CHIP_FONT = 15
CHIP_PAD = 5  # px of bar either side of a chip's text
CHIP_GAP = 4  # px between two lines of chips
NAME_H = 24  # the name line of a full row, above its chips
FULL_ROW = NAME_H + CHIP_H + CHIP_GAP + 2  # one line of chips
COMPACT_ROW = 22
SIDE_ROW = 30
PAD = 14
KEY_FONT = 15
KEY_LINE = 21


def header(
    cv: Canvas, state: EncounterState, theme: Theme, *, width: int, title: str, subtitle: str, locale: str
) -> None:
    cv.draw.rectangle((0, 0, width, HEADER_H - 1), fill=cv.ink(theme.panel))
    cv.text((PAD, 8), title, size=26, bold=True, fill=theme.panel_text, bg=theme.panel)
    cv.text((PAD, 40), subtitle, size=17, fill=theme.panel_dim, bg=theme.panel)
    if state.over:
        name = next((s.name_in(locale) for s in state.sides if s.id == state.winner), None)
        text = t("render.winner", locale, side=name) if name else t("render.over", locale)
        cv.text(
            (width - PAD, 22), text, size=20, bold=True, fill=theme.panel_text, anchor="ra", bg=theme.panel
        )


def panel_need(state: EncounterState, shown: Sequence[Unit]) -> int:
    sides = {u.side for u in shown}
    return PAD * 2 + len(sides) * SIDE_ROW + len(shown) * FULL_ROW + 2 * KEY_LINE


def panel(
    cv: Canvas,
    box: tuple[int, int, int, int],
    state: EncounterState,
    theme: Theme,
    shown: Sequence[Unit],
    colours: dict[str, RGB],
    *,
    locale: str,
    first_side: str | None,
    colour_of: Callable[[Unit], RGB],
    bars_of: Callable[[Unit], tuple[StatBar, ...]],
    doll_of: Callable[[Unit], tuple[DollCell, ...]] | None = None,
) -> None:
    """Sides and their units; each row in ``colour_of(unit)`` with the unit's stat chips (``bars_of``), and
    under them the key to the abbreviations the chips use.

    Rows are full (name, then chips wrapped onto as many lines as they need) when they all fit, else full with
    one line of chips each, else compact (one line, no bars)."""
    x0, y0, x1, y1 = box
    cv.draw.rectangle(box, fill=cv.ink(theme.panel))
    sides = sorted(state.sides, key=lambda s: (s.id != first_side, state.sides.index(s)))
    groups = [(s, [u for u in shown if u.side == s.id]) for s in sides]
    groups = [(s, us) for s, us in groups if us]
    rows = [
        (u, RowData.of(u, colour_of(u), bars_of(u), doll_of(u) if doll_of is not None else ()))
        for _, us in groups
        for u in us
    ]
    width = x1 - x0 - 2 * PAD
    total = len(rows)
    key_lines = key_lines_for([s for _, d in rows if not d.destroyed for s in d.stats], width, locale)
    budget = y1 - y0 - 2 * PAD - len(groups) * SIDE_ROW - len(key_lines) * KEY_LINE
    wrapped = {u.id: max(1, len(_chip_lines(d, width, locale))) for u, d in rows}
    if sum(_full_height(n) for n in wrapped.values()) <= budget:
        lines_of, row_full = wrapped, True
    else:
        lines_of, row_full = {u.id: 1 for u, _ in rows}, total * FULL_ROW <= budget
    if not row_full:
        key_lines = []  # compact rows show no chips, so there is nothing to explain
        budget = y1 - y0 - 2 * PAD - len(groups) * SIDE_ROW
    fits = total if row_full else max(0, budget // COMPACT_ROW)
    if total > fits:
        fits = max(0, (budget - COMPACT_ROW) // COMPACT_ROW)  # keep a line for "+N more"
    y = y0 + PAD
    drawn = 0
    for side, units in groups:
        if drawn >= fits:
            break
        colour = colours.get(side.id, theme.panel_dim)
        cv.draw.rectangle((x0 + PAD, y + 6, x0 + PAD + 16, y + 22), fill=cv.ink(colour))
        cv.text(
            (x0 + PAD + 24, y + 3),
            side.name_in(locale),
            size=18,
            bold=True,
            fill=theme.panel_text,
            bg=theme.panel,
        )
        y += SIDE_ROW
        for u in units:
            if drawn >= fits:
                break
            data = next(d for v, d in rows if v.id == u.id)
            lines = lines_of[u.id] if row_full else 0
            _row(cv, (x0 + PAD, y, x1 - PAD), data, theme, locale=locale, lines=lines)
            y += _full_height(lines) if row_full else COMPACT_ROW
            drawn += 1
    if total > drawn:
        cv.text(
            (x0 + PAD, y + 2),
            t("render.more", locale, count=total - drawn),
            size=14,
            fill=theme.panel_dim,
            bg=theme.panel,
        )
        y += COMPACT_ROW
    y += 4
    for line in key_lines:
        cv.text((x0 + PAD, y), line, size=KEY_FONT, fill=theme.panel_dim, bg=theme.panel)
        y += KEY_LINE


def _full_height(lines: int) -> int:
    """A full row's height with ``lines`` lines of chips."""
    return NAME_H + lines * (CHIP_H + CHIP_GAP) + 2


def stat_text(stat: StatBar, locale: str) -> str:
    """A chip's text: ``PV 28/30``."""
    value = f"{stat.value}/{stat.maximum}" if stat.maximum is not None else str(stat.value)
    return f"{t(stat.label, locale)} {value}"


def _chip_width(stat: StatBar, locale: str) -> int:
    return round(text_width(stat_text(stat, locale), CHIP_FONT, True)) + 2 * CHIP_PAD


def _stats_room(data: RowData, width: int) -> int:
    """The width the chips of a full row have: the row less its disc and its doll."""
    room = width - 2 * 10 - 8
    if data.doll and not data.destroyed:
        room -= _doll_width(data.doll, FULL_ROW - 4) + 8
    return room


def _chip_lines(data: RowData, width: int, locale: str) -> list[list[StatBar]]:
    """The unit's chips broken into lines that fit its row (a chip wider than the row gets a line alone)."""
    if data.destroyed:
        return []
    room = _stats_room(data, width) - (
        text_width(t("render.hidden", locale), 12, True) + 10 if data.hidden else 0
    )
    lines: list[list[StatBar]] = []
    x = room
    for stat in data.stats:
        w = _chip_width(stat, locale)
        if not lines or x + w > room:
            lines.append([])
            x = 0
        lines[-1].append(stat)
        x += w + 6
    return lines


def stat_key(label: str) -> str:
    """The catalog key that spells out a stat's abbreviation: ``render.stat.pbw_ra`` → ``render.stat_key.pbw_ra``."""
    return label.replace("render.stat.", "render.stat_key.", 1)


def key_lines_for(stats: Iterable[StatBar], width: int, locale: str) -> list[str]:
    """``PV: puntos de vida · BD: brazo derecho``: each abbreviation these chips show and what it stands for,
    once, broken into lines ``width`` px wide (at the key's font). A label that is a whole word needs no key."""
    entries: list[str] = []
    for stat in stats:
        key = stat_key(stat.label)
        if not has(key, "en"):
            continue
        short, full = t(stat.label, locale), t(key, locale)
        entry = t("render.stat_key_entry", locale, short=short, full=full)
        if full.lower() != short.lower() and entry not in entries:
            entries.append(entry)
    lines: list[str] = []
    for entry in entries:
        joined = f"{lines[-1]} · {entry}" if lines else entry
        if lines and text_width(joined, KEY_FONT) <= width:
            lines[-1] = joined
        else:
            lines.append(entry)
    return lines


@dataclass(frozen=True, slots=True)
class RowData:
    """What one panel row shows of a unit; equal data, equal pixels (the row cache key)."""

    short: str
    name: str
    at: str | None
    destroyed: bool
    hidden: bool
    stats: tuple[StatBar, ...]
    colour: RGB
    doll: tuple[DollCell, ...] = ()

    @classmethod
    def of(
        cls, unit: Unit, colour: RGB, stats: tuple[StatBar, ...], doll: tuple[DollCell, ...] = ()
    ) -> RowData:
        return cls(
            short=unit.short,
            name=unit.name,
            at=unit.at.label if unit.at is not None else None,
            destroyed=unit.destroyed,
            hidden=unit.hidden,
            stats=stats,
            colour=colour,
            doll=doll,
        )


def _row(
    cv: Canvas, span: tuple[int, int, int], data: RowData, theme: Theme, *, locale: str, lines: int
) -> None:
    """One unit row (``lines`` lines of chips; 0: a compact row). On a palette canvas the row is a cached sprite:
    most rows do not change between steps."""
    x0, y, x1 = span
    if cv.palette is None:
        _paint_row(cv, span, data, theme, locale=locale, lines=lines)
        return
    cv.img.paste(_row_sprite(data, x1 - x0, theme, locale, lines, cv.palette), (x0, y))


@lru_cache(maxsize=512)
def _row_sprite(
    data: RowData, width: int, theme: Theme, locale: str, lines: int, palette: Palette
) -> Image.Image:
    img = Image.new("P", (width, _full_height(lines) if lines else COMPACT_ROW), palette.index(theme.panel))
    _paint_row(Canvas(img, palette=palette), (0, 0, width), data, theme, locale=locale, lines=lines)
    return img


def _paint_row(
    cv: Canvas, span: tuple[int, int, int], unit: RowData, theme: Theme, *, locale: str, lines: int
) -> None:
    x0, y, x1 = span
    row_width = x1 - x0
    full = lines > 0
    if full and unit.doll and not unit.destroyed:
        x1 -= _paint_doll(cv, (x1, y + 2, FULL_ROW - 4), unit.doll, theme) + 8
    r = 10 if full else 7
    cx, cy = x0 + r, y + r + 2
    cv.draw.ellipse(
        (cx - r, cy - r, cx + r, cy + r), fill=cv.ink(unit.colour if not unit.destroyed else BAR_BG)
    )
    name_size = 16 if full else 13
    name_colour = theme.panel_dim if unit.destroyed else theme.panel_text
    name = f"{unit.short} · {unit.name}" if unit.short != unit.name else unit.name
    cv.text((x0 + 2 * r + 8, y + 1), name, size=name_size, bold=True, fill=name_colour, bg=theme.panel)
    if unit.at is not None:
        cv.text((x1, y + 2), unit.at, size=name_size - 1, fill=theme.panel_dim, anchor="ra", bg=theme.panel)
    stats_y = y + NAME_H if full else y + 2
    stats_x = x0 + 2 * r + 8 if full else x0 + 2 * r + 8 + text_width(name, 13, True) + 10
    if unit.destroyed:
        cv.text(
            (stats_x, stats_y), t("render.destroyed", locale), size=13, bold=True, fill=HIT, bg=theme.panel
        )
        return
    if unit.hidden:
        tag = t("render.hidden", locale)
        tag_y = stats_y + (CHIP_H - 14) / 2 if full else stats_y
        cv.text((stats_x, tag_y), tag, size=12, bold=True, fill=HIDDEN_TAG, bg=theme.panel)
        stats_x += text_width(tag, 12, True) + 10
    if not full:
        _compact_stats(cv, (stats_x, stats_y, x1 - 60), unit, theme, locale)
        return
    for i, line in enumerate(_chip_lines(unit, row_width, locale)[:lines]):
        x = stats_x
        for stat in line:
            x += _paint_chip(cv, (x, stats_y + i * (CHIP_H + CHIP_GAP)), stat, locale) + 6


def _compact_stats(
    cv: Canvas, span: tuple[float, float, float], unit: RowData, theme: Theme, locale: str
) -> None:
    """A compact row's stats: text only, as many as fit."""
    x, y, limit = span
    for stat in unit.stats:
        text = stat_text(stat, locale)
        w = text_width(text, 12)
        if x + w > limit:
            break
        cv.text((x, y), text, size=12, fill=theme.panel_dim, bg=theme.panel)
        x += w + 12


def _paint_chip(cv: Canvas, at: tuple[float, float], stat: StatBar, locale: str) -> int:
    """One stat chip at ``at`` (left, top); returns its width. The bar's filled part is the stat's colour, a shade
    darker so the white text on it reads."""
    x, y = at
    w = _chip_width(stat, locale)
    cv.draw.rectangle((x, y, x + w - 1, y + CHIP_H - 1), fill=cv.ink(BAR_BG))
    fill = chip_fill(stat.colour or bar_colour(stat.health))
    filled = round(w * stat.health) if stat.maximum else 0  # a count with no maximum: no bar to fill
    if filled > 0:
        cv.draw.rectangle((x, y, x + filled - 1, y + CHIP_H - 1), fill=cv.ink(fill))
    behind = fill if filled * 2 >= w else BAR_BG
    cv.text(
        (x + CHIP_PAD, y + CHIP_H / 2),
        stat_text(stat, locale),
        size=CHIP_FONT,
        bold=True,
        fill=WHITE,
        anchor="lm",
        bg=behind,
    )
    return w


DOLL_GRID_H = 8  # grid units a doll is tall (an overlay lays its cells out on this scale)


def _doll_width(cells: tuple[DollCell, ...], height: int) -> int:
    return round(max(c.x + c.w for c in cells) * height / DOLL_GRID_H)


def _paint_doll(cv: Canvas, anchor: tuple[int, int, int], cells: tuple[DollCell, ...], theme: Theme) -> int:
    """A damage doll right-aligned at ``anchor`` (right x, top y, height); returns the width it took."""
    right, top, height = anchor
    unit = height / DOLL_GRID_H
    width = max(c.x + c.w for c in cells) * unit
    left = right - width
    for c in cells:
        box = (
            left + c.x * unit,
            top + c.y * unit,
            left + (c.x + c.w) * unit - 1,
            top + (c.y + c.h) * unit - 1,
        )
        if c.destroyed:
            cv.draw.rectangle(box, fill=cv.ink(theme.panel), outline=cv.ink(HIT))
            continue
        fill = bar_colour(c.armor) if c.armor > 0 else BAR_BG
        cv.draw.rectangle(box, fill=cv.ink(fill), outline=cv.ink(theme.panel))
        if c.armor <= 0 or c.structure < 1:  # the structure shows once it is hit
            inset = max(1.0, min(box[2] - box[0], box[3] - box[1]) * 0.28)
            inner = (box[0] + inset, box[1] + inset, box[2] - inset, box[3] - inset)
            if inner[2] > inner[0] and inner[3] > inner[1]:
                cv.draw.rectangle(inner, fill=cv.ink(bar_colour(c.structure)))
    return round(width)

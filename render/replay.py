"""The replay (DESIGN §4 ``/encounter replay``, §5): a whole encounter as one animated GIF or WebP.

Every frame is ``render_board`` of one resolved step (the board after the step, with that step's moves, trails and
shots), so fog is the renderer's own (FOG-1, NGT-9): a unit the viewer may not see is in no frame, and it does not
even widen the framing. The viewport is fixed for the whole animation: every frame is framed around the union of
what the viewer sees in all frames, so the board does not jump from step to step. A caption strip under each
frame says the round and phase and how far along the replay is; the last frame stays up longer.

Discord refuses uploads over the server's limit (8 MiB on the smallest tier). A replay over ``max_bytes`` is made
smaller in a fixed order — scale down, then drop frames whose board did not change, then keep every second, third
... changed frame (always the first and the last) — and the result says so. Same input, same bytes.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

from PIL import Image, ImageDraw

from data.i18n import t
from render import colours as C
from render.board import interest_hexes, render_board
from render.colours import RGB
from render.fonts import font
from render.layout import HEADER_H
from render.options import BoardSnapshot, RenderOptions
from render.phase import phase_title
from rules.events import DirectorOverride
from rules.hexgrid import Hex
from rules.seen import is_ruling, seen_events

ReplayFormat = Literal["gif", "webp"]
FORMATS: tuple[ReplayFormat, ...] = ("gif", "webp")
DEFAULT_MAX_BYTES = 8 * 1024 * 1024  # Discord's smallest upload tier
FRAME_MS = 1200  # long enough to read the caption and follow a trail
LAST_FRAME_MS = 5000  # the final board (and the winner in the header) stays up before the loop restarts
CAPTION_H = 34
SCALES = (1.0, 0.75, 0.5)  # tried in order while the file is too big; 0.5 of 1024 px is still legible
MIN_FRAMES = 2  # subsampling stops at the first and last frames


class ReplayTooLargeError(ValueError):
    """Even the smallest, sparsest replay is over ``max_bytes``."""


@dataclass(frozen=True, slots=True)
class Replay:
    data: bytes
    fmt: ReplayFormat
    frames: int  # frames in the file
    steps: int  # steps asked for (frames before any were dropped)
    width: int
    height: int
    scaled: bool  # drawn smaller than ``options.width`` to fit ``max_bytes``
    dropped: int  # steps left out to fit ``max_bytes``

    @property
    def reduced(self) -> bool:
        return self.scaled or self.dropped > 0

    @property
    def filename(self) -> str:
        return f"replay.{self.fmt}"


def render_replay(
    frames: Sequence[BoardSnapshot],
    *,
    viewer: str,
    options: RenderOptions | None = None,
    fmt: ReplayFormat = "gif",
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> Replay:
    """Animate ``frames`` (oldest first) as ``viewer`` (a side id, ``"director"`` or ``"public"``) may see them."""
    if not frames:
        raise ValueError("a replay needs at least one frame")
    if fmt not in FORMATS:
        raise ValueError(f"unknown replay format {fmt!r}: expected one of {FORMATS}")
    opts = options or RenderOptions()
    images = _draw_frames(frames, viewer, opts)
    changed = _changed_frames(images)
    for scale, keep in _attempts(len(images), changed):
        data = _encode([images[i] for i in keep], scale, fmt)
        if len(data) <= max_bytes:
            width, height = _scaled_size(images[0].size, scale)
            return Replay(
                data=data,
                fmt=fmt,
                frames=len(keep),
                steps=len(images),
                width=width,
                height=height,
                scaled=scale < 1.0,
                dropped=len(images) - len(keep),
            )
    raise ReplayTooLargeError(f"the replay does not fit in {max_bytes} bytes even reduced")


# --- frames ------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Packed:
    """A finished frame kept compressed (a long encounter has hundreds: ~1.4 MB each unpacked at 1280 px)."""

    size: tuple[int, int]
    palette: tuple[int, ...]
    pixels: bytes  # zlib of the palette indexes
    board: bytes  # digest of the board area (header and caption aside): equal digests, unchanged board

    @classmethod
    def of(cls, img: Image.Image) -> _Packed:
        board = img.crop((0, HEADER_H, img.width, img.height - CAPTION_H)).tobytes()
        return cls(
            img.size,
            tuple(img.getpalette() or ()),
            zlib.compress(img.tobytes(), 1),
            hashlib.blake2b(board, digest_size=16).digest(),
        )

    def image(self) -> Image.Image:
        img = Image.frombytes("P", self.size, zlib.decompress(self.pixels))
        img.putpalette(self.palette)
        return img


def _draw_frames(frames: Sequence[BoardSnapshot], viewer: str, opts: RenderOptions) -> list[_Packed]:
    """Palette frames of one size: each step's board framed alike, padded to the tallest, with its caption."""
    framing = _framing(frames, viewer)
    opts = dataclasses.replace(
        opts, palette=True
    )  # palette frames: what a GIF holds, and one palette for all
    # each frame names the step it shows (the one resolved since the frame before), as its caption does: one
    # phase number per image
    named = [
        dataclasses.replace(snap, step=(frames[i - 1].state.round, frames[i - 1].state.phase or "-"))
        if i and snap.step is None
        else snap
        for i, snap in enumerate(frames)
    ]
    boards = [render_board(snap, viewer=viewer, options=opts, framing=framing) for snap in named]
    keep = _seen_steps(
        named, boards, viewer, lambda snap: render_board(snap, viewer=viewer, options=opts, framing=framing)
    )
    frames, boards = [frames[i] for i in keep], [boards[i] for i in keep]
    height = max(Image.open(io.BytesIO(png)).height for png in boards)  # reads the PNG header only
    out: list[_Packed] = []
    for i, (snap, png) in enumerate(zip(frames, boards, strict=True)):
        board = Image.open(io.BytesIO(png))
        board.load()
        caption = _caption(frames[i - 1] if i else None, snap, opts.locale)
        out.append(_Packed.of(_with_caption(board, height, caption, i, len(frames), C.theme_for(snap.state))))
    return out


def _seen_steps(
    frames: Sequence[BoardSnapshot],
    boards: Sequence[bytes],
    viewer: str,
    draw: Callable[[BoardSnapshot], bytes],
) -> list[int]:
    """The frames the viewer may know of (FOG-1, NGT-9): a director's ruling that touched only what the viewer
    cannot see (nothing of it they may read, and the board before it drawn the same way looks the same) has no
    frame, as it had no message: a frame of its own would tell them something happened."""
    keep = [0]
    for i in range(1, len(frames)):
        snap, last = frames[i], frames[keep[-1]]
        if (
            is_ruling(snap.events)
            and not seen_events(last.state, snap.state, snap.events, viewer)
            and boards[i] == draw(dataclasses.replace(snap, state=last.state))
        ):
            continue
        keep.append(i)
    return keep


def _framing(frames: Sequence[BoardSnapshot], viewer: str) -> list[Hex]:
    """Everything the viewer sees in any frame (and nothing else, FOG-1): the one viewport of the animation."""
    hexes: set[Hex] = set()
    for snap in frames:
        hexes.update(interest_hexes(snap, viewer=viewer))
    return sorted(hexes, key=lambda h: (h.q, h.r))


def _caption(before: BoardSnapshot | None, snap: BoardSnapshot, locale: str) -> str:
    """What the frame shows: the step resolved since the frame before (the header names the phase to come)."""
    if before is None:
        return t("render.replay.start", locale)
    rnd, phase = before.state.round, before.state.phase or "-"
    when = phase_title(before.state, rnd, phase, locale)
    if any(isinstance(e, DirectorOverride) for e in snap.events):
        return t("render.replay.override", locale, when=when)
    return t("render.replay.caption", locale, when=when)


def _with_caption(
    board: Image.Image, height: int, caption: str, index: int, count: int, theme: C.Theme
) -> Image.Image:
    """The board on a frame of the common height, a caption strip with a progress bar below it."""
    width = board.width
    strip = Image.new("RGB", (width, height - board.height + CAPTION_H), theme.background)
    draw = ImageDraw.Draw(strip)
    top = strip.height - CAPTION_H
    draw.rectangle((0, top, width, strip.height), fill=theme.panel)
    done = round(width * (index + 1) / count)
    draw.rectangle((0, strip.height - 4, done - 1, strip.height), fill=_bar_colour(theme))
    draw.text((12, top + 6), caption, font=font(17, bold=True), fill=theme.panel_text)
    step = f"{index + 1} / {count}"
    draw.text((width - 12, top + 7), step, font=font(15), fill=theme.panel_dim, anchor="ra")
    frame = Image.new("P", (width, height + CAPTION_H))
    frame.putpalette(board.getpalette() or [])
    frame.paste(board, (0, 0))
    # nearest colours of the board's own palette, no dithering: every frame keeps one palette (small GIF deltas)
    frame.paste(strip.quantize(palette=board, dither=Image.Dither.NONE), (0, board.height))
    return frame


def _bar_colour(theme: C.Theme) -> RGB:
    return C.mix(theme.panel, theme.panel_text, 0.55)


def _changed_frames(images: Sequence[_Packed]) -> list[int]:
    """Indexes of frames whose board differs from the frame before (header and caption aside); the first and
    the last always count."""
    keep = [0]
    for i in range(1, len(images)):
        if i == len(images) - 1 or images[i].board != images[i - 1].board:
            keep.append(i)
    return keep


def _attempts(count: int, changed: list[int]) -> Iterator[tuple[float, list[int]]]:
    """Ever smaller versions, in a fixed order: smaller scales, then unchanged steps dropped, then sparser."""
    every = list(range(count))
    for scale in SCALES:
        yield scale, every
    smallest = SCALES[-1]
    if changed != every:
        yield smallest, changed
    tried = changed
    for stride in range(2, len(changed)):
        sparse = changed[::stride]
        if sparse[-1] != changed[-1]:
            sparse.append(changed[-1])
        if len(sparse) < len(tried):  # a longer stride may keep as many frames: nothing new to try
            yield smallest, sparse
            tried = sparse
        if len(tried) <= MIN_FRAMES:
            break


# --- encoding ----------------------------------------------------------------------------------------------


def _scaled_size(size: tuple[int, int], scale: float) -> tuple[int, int]:
    return max(1, round(size[0] * scale)), max(1, round(size[1] * scale))


def _scaled(img: Image.Image, scale: float) -> Image.Image:
    if scale >= 1.0:
        return img
    rgb = img.convert("RGB")
    # Pillow's stub types ``resize``'s size partly unknown, hence the ignore (as ``canvas.apply_lut``)
    small = rgb.resize(_scaled_size(img.size, scale), Image.Resampling.BOX)  # pyright: ignore[reportUnknownMemberType]
    return small.quantize(palette=img, dither=Image.Dither.NONE)


def _encode(images: list[_Packed], scale: float, fmt: ReplayFormat) -> bytes:
    durations = [FRAME_MS] * len(images)
    durations[-1] = LAST_FRAME_MS
    buf = io.BytesIO()
    # frames are unpacked one at a time as the GIF writer asks (Pillow's WebP writer lists them all first)
    first = _scaled(images[0].image(), scale)
    rest = (_scaled(packed.image(), scale) for packed in images[1:])
    if fmt == "gif":
        first.save(buf, "GIF", save_all=True, append_images=rest, duration=durations, loop=0, disposal=1)
    else:
        # lossless: flat colours and small text stay crisp, and palette-like frames compress well
        first.save(
            buf,
            "WEBP",
            save_all=True,
            append_images=rest,
            duration=durations,
            loop=0,
            lossless=True,
            method=1,  # measured: as small as method 4-6 on these frames, and far faster than 6
        )
    return buf.getvalue()

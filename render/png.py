"""A small PNG writer for palette images that compresses two horizontal bands on two cores.

Deflate is most of the per-step cost, and zlib releases the GIL while it works (so does Pillow while copying
pixels), so the bands run in parallel threads. Each band becomes its own raw deflate stream ended with a sync
flush (the last with a final block); the concatenation is one valid zlib stream, since no stream refers back past
its own start. Rows use PNG filter 0 (none): palette indexes do not predict well, and flat areas already compress
to almost nothing. The filter byte in front of each row comes from pasting the band one column to the right on a
zeroed image, so building the scanlines is a C copy, not a Python loop over rows.
"""

from __future__ import annotations

import os
import struct
import zlib
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache

from PIL import Image

SIGNATURE = b"\x89PNG\r\n\x1a\n"
ZLIB_HEADER = b"\x78\x01"
MIN_BAND_PIXELS = 256 * 1024  # smaller images are not worth a thread hop
MAX_BANDS = (
    2  # the bot's machine has 2 cores; fixed, not os.cpu_count(), so every machine writes the same bytes
)
WORKERS = max(1, min(MAX_BANDS - 1, (os.cpu_count() or 1) - 1))  # the caller's thread compresses a band too


@lru_cache(maxsize=1)
def _pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="png")


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(data, zlib.crc32(kind)))


def scanlines(img: Image.Image) -> bytes:
    """The raw PNG scanlines of a mode "P" image: a 0 (no filter) byte, then the row's indexes."""
    width, height = img.size
    rows = Image.new("P", (width + 1, height), 0)
    rows.paste(img, (1, 0))
    return rows.tobytes()


def _band(img: Image.Image, top: int, bottom: int, level: int, last: bool) -> tuple[bytes, int]:
    """(raw deflate of rows top..bottom-1, Adler-32 of their scanlines)."""
    raw = scanlines(img.crop((0, top, img.width, bottom)))
    c = zlib.compressobj(level, zlib.DEFLATED, -15)
    return c.compress(raw) + c.flush(zlib.Z_FINISH if last else zlib.Z_SYNC_FLUSH), zlib.adler32(raw)


def _adler_combine(a: int, b: int, len_b: int) -> int:
    """Adler-32 of x + y from adler(x), adler(y) and len(y) (zlib's adler32_combine)."""
    base = 65521
    rem = len_b % base
    s1 = a & 0xFFFF
    s2 = (rem * s1) % base
    s1 = (s1 + (b & 0xFFFF) + base - 1) % base
    s2 = (s2 + (a >> 16) + (b >> 16) + base - rem) % base
    return (s2 << 16) | s1


def encode_palette_png(img: Image.Image, palette: bytes, *, level: int) -> bytes:
    """PNG bytes of a mode "P" image; ``palette`` is 3 bytes per entry (at most 256 entries)."""
    if img.mode != "P":
        raise ValueError(f"expected a palette image, got mode {img.mode}")
    width, height = img.size
    bands = max(1, min(MAX_BANDS, width * height // MIN_BAND_PIXELS))
    edges = [height * i // bands for i in range(bands + 1)]
    jobs = [(edges[i], edges[i + 1], i == bands - 1) for i in range(bands)]
    # The last band runs on this thread while the pool takes the others.
    futures = [_pool().submit(_band, img, top, bottom, level, last) for top, bottom, last in jobs[:-1]]
    tail = _band(img, *jobs[-1][:2], level, True)
    parts = [f.result() for f in futures] + [tail]
    adler = parts[0][1]
    for (top, bottom, _), (_, part_adler) in zip(jobs[1:], parts[1:], strict=True):
        adler = _adler_combine(adler, part_adler, (bottom - top) * (width + 1))
    idat = b"".join((ZLIB_HEADER, *(body for body, _ in parts), struct.pack(">I", adler)))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)
    return b"".join(
        (
            SIGNATURE,
            _chunk(b"IHDR", ihdr),
            _chunk(b"PLTE", palette),
            _chunk(b"IDAT", idat),
            _chunk(b"IEND", b""),
        )
    )

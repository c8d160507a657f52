"""A small PNG writer for palette images that compresses horizontal bands on several cores.

Deflate is most of the per-step cost. Each band gets its own raw deflate stream ended with a sync flush (the last
with a final block); the concatenation is one valid zlib stream, since no stream refers back past its own start.
zlib releases the GIL while compressing, so the bands run in parallel threads. Rows use PNG filter 0 (none):
palette indices do not predict well, and the flat areas already compress to almost nothing.
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
MIN_BAND_BYTES = 256 * 1024  # smaller images are not worth a thread hop


WORKERS = max(1, min(4, os.cpu_count() or 1))


@lru_cache(maxsize=1)
def _pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="png")


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _deflate(data: memoryview, level: int, last: bool) -> bytes:
    c = zlib.compressobj(level, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush(zlib.Z_FINISH if last else zlib.Z_SYNC_FLUSH)


def encode_palette_png(img: Image.Image, palette: bytes, *, level: int) -> bytes:
    """PNG bytes of a mode "P" image; ``palette`` is 3 bytes per entry (at most 256 entries)."""
    if img.mode != "P":
        raise ValueError(f"expected a palette image, got mode {img.mode}")
    width, height = img.size
    pixels = img.tobytes()
    stride = width + 1
    raw = bytearray(stride * height)  # filter byte 0 at the start of each row
    for y in range(height):
        raw[y * stride + 1 : (y + 1) * stride] = pixels[y * width : (y + 1) * width]
    view = memoryview(raw)
    bands = max(1, min(WORKERS, len(raw) // MIN_BAND_BYTES))
    step = -(-height // bands) * stride
    parts = [view[i : i + step] for i in range(0, len(raw), step)]
    if len(parts) == 1:
        body = _deflate(parts[0], level, True)
    else:
        futures = [_pool().submit(_deflate, p, level, i == len(parts) - 1) for i, p in enumerate(parts)]
        body = b"".join(f.result() for f in futures)
    idat = ZLIB_HEADER + body + struct.pack(">I", zlib.adler32(raw))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)
    return (
        SIGNATURE
        + _chunk(b"IHDR", ihdr)
        + _chunk(b"PLTE", palette)
        + _chunk(b"IDAT", idat)
        + _chunk(b"IEND", b"")
    )

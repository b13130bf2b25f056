# SPDX-License-Identifier: LGPL-2.1-or-later
"""Seeded synthetic traces (mdk/synth.h): the same options, generator
specs and seed give the same trace as ``mdkctl synth``."""
import numpy as np

from ._mdk import ffi, lib
from .error import call, cstr, errbuf, error
from .trace import PAGE_SIZE, WINDOW_US, writer_opts


class Synth:
    """A generator set: iterating yields (window, ids) for windows
    0..@windows-1, ids a sorted numpy uint64 array.  @gens: generator
    specs ("zipf:s=0.8,frac=0.3", "scan:rate=64", ...), none for libmdk's
    default mix; @base: the first page id (0: libmdk's default).  It
    generates its windows once: iterate it or write() it."""

    def __init__(self, pages=65536, windows=240, seed=1, gens=(), base=0):
        if isinstance(gens, str):
            gens = [gens]
        o = ffi.new("struct mdk_synth_opts *", {
            "pages": pages, "windows": windows, "seed": seed, "base": base})
        out = ffi.new("struct mdk_synth **")
        call(lib.mdk_synth_new, o, out)
        self._s = ffi.gc(out[0], lib.mdk_synth_free)
        for g in gens:
            call(lib.mdk_synth_add, self._s, cstr(g))

    def __iter__(self):
        win = ffi.new("uint32_t *")
        ids = ffi.new("const uint64_t **")
        n = ffi.new("size_t *")
        while True:
            err = errbuf()
            ret = lib.mdk_synth_next(self._s, win, ids, n, err, len(err))
            if ret < 0:
                raise error(ret, err)
            if ret == 0:
                return
            a = np.frombuffer(ffi.buffer(ids[0], n[0] * 8), np.uint64) \
                if n[0] else np.zeros(0, np.uint64)
            yield win[0], a.copy()

    def write(self, path, window_seconds=WINDOW_US / 1e6,
              page_size=PAGE_SIZE, desc=None):
        """Generate every window into the trace @path (removed on
        failure)."""
        opts, keep = writer_opts(window_seconds, page_size, desc)
        call(lib.mdk_synth_write, self._s, cstr(path), opts)


def synth(path, pages=65536, windows=240, seed=1, gens=(), base=0,
          window_seconds=WINDOW_US / 1e6, page_size=PAGE_SIZE, desc=None):
    """Write a seeded synthetic trace to @path, as ``mdkctl synth PATH
    --pages --windows --seed --gen ... --window-seconds --desc`` (whose
    desc defaults to its command line; here to none)."""
    Synth(pages, windows, seed, gens, base).write(path, window_seconds,
                                                   page_size, desc)
    return path

# SPDX-License-Identifier: LGPL-2.1-or-later
"""Access-bit traces (.mdkt): read a window at a time as numpy arrays of
page ids, and write them from numpy arrays (mdk/trace.h)."""
import errno

import numpy as np

from ._mdk import ffi, lib
from .error import MdkError, call, cstr, errbuf, error, pystr

WINDOW_US = 30000000
PAGE_SIZE = 4096


def ids_array(ids):
    """@ids as a C-contiguous uint64 numpy array: no copy when it is one
    already."""
    return np.ascontiguousarray(ids, dtype=np.uint64)


def writer_opts(window_seconds, page_size, desc, start_us=0, phys=False):
    """A struct mdk_trace_writer_opts and what it points to (keep both)."""
    keep = ffi.new("char[]", cstr(desc)) if desc is not None else ffi.NULL
    o = ffi.new("struct mdk_trace_writer_opts *", {
        "window_us": int(round(window_seconds * 1e6)),
        "page_size": page_size, "start_us": start_us,
        "flags": lib.MDK_TRACE_F_PHYS if phys else 0, "desc": keep})
    return o, keep


class TraceReader:
    """An open trace.  Iterating yields (window, ids) for every window
    0..W-1 in order, ids a sorted numpy uint64 array (empty for a window
    without pages).  ``info`` is the header and index as a dict."""

    def __init__(self, path, partial=False):
        self.path = path
        out = ffi.new("struct mdk_trace_reader **")
        flags = lib.MDK_TRACE_PARTIAL if partial else 0
        call(lib.mdk_trace_reader_open, cstr(path), flags, out)
        self._r = ffi.gc(out[0], lib.mdk_trace_reader_close)
        self._chunk = ffi.new("struct mdk_trace_chunk *")
        self._pending = None

    def close(self):
        if self._r is not None:
            ffi.release(self._r)
            self._r = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _live(self):
        if self._r is None:
            raise ValueError("the trace reader is closed")
        return self._r

    @property
    def info(self):
        i = lib.mdk_trace_reader_info(self._live())
        return {"version": "%d.%d" % (i.version_major, i.version_minor),
                "window_seconds": i.window_us / 1e6,
                "page_size": i.page_size,
                "phys": bool(i.flags & lib.MDK_TRACE_F_PHYS),
                "start_us": i.start_us, "desc": pystr(i.desc),
                "indexed": bool(i.indexed), "windows": i.windows,
                "records": i.records}

    def seek(self, window):
        """The next window read is @window (needs the index)."""
        call(lib.mdk_trace_reader_seek, self._live(), window)
        self._pending = None

    def _next_chunk(self):
        err = errbuf()
        ret = lib.mdk_trace_reader_next(self._live(), self._chunk, err,
                                        len(err))
        if ret < 0:
            raise error(ret, err)
        if ret == 0:
            return None
        c = self._chunk
        ids = np.frombuffer(ffi.buffer(c.ids, c.n * 8), np.uint64).copy() \
            if c.n else np.zeros(0, np.uint64)
        return c.window, bool(c.window_end), ids

    def read_window(self):
        """The next (window, ids), or None at the end of the trace."""
        parts = []
        while True:
            c = self._next_chunk()
            if c is None:
                if parts:
                    raise MdkError(errno.EBADMSG,
                                   "%s: trace ends inside window %d" %
                                   (self.path, window))
                return None
            window, end, ids = c
            parts.append(ids)
            if end:
                ids = parts[0] if len(parts) == 1 else np.concatenate(parts)
                return window, ids

    def __iter__(self):
        while True:
            w = self.read_window()
            if w is None:
                return
            yield w


def read(path):
    """(window, ids) for every window of the trace @path."""
    with TraceReader(path) as r:
        yield from r


class TraceWriter:
    """A new trace at @path (replaced), written a window at a time with
    put(); close() (or leaving a with block) writes the index.  An
    exception in a with block leaves a partial trace (no index)."""

    def __init__(self, path, window_seconds=WINDOW_US / 1e6,
                 page_size=PAGE_SIZE, desc=None, start_us=0, phys=False):
        self.path = path
        self._w = None
        opts, self._desc = writer_opts(window_seconds, page_size, desc,
                                       start_us, phys)
        out = ffi.new("struct mdk_trace_writer **")
        call(lib.mdk_trace_writer_open, cstr(path), opts, out)
        self._w = out[0]

    def put(self, window, ids, sorted=True):
        """Window @window (after the last one put; skipped windows are
        empty) with page ids @ids (any integer array-like).  sorted=True:
        the ids strictly increase; False: any order, duplicates dropped
        (libmdk sorts a copy)."""
        if self._w is None:
            raise ValueError("the trace writer is closed")
        a = ids_array(ids)
        flags = 0 if sorted else lib.MDK_TRACE_UNSORTED
        call(lib.mdk_trace_writer_put, self._w, window,
             ffi.from_buffer("uint64_t[]", a), len(a), flags)

    def close(self):
        if self._w is not None:
            w, self._w = self._w, None
            call(lib.mdk_trace_writer_close, w)

    def abort(self):
        if self._w is not None:
            w, self._w = self._w, None
            lib.mdk_trace_writer_abort(w)

    def __enter__(self):
        return self

    def __exit__(self, typ, *exc):
        if typ is None:
            self.close()
        else:
            self.abort()

    def __del__(self):
        self.abort()


def write(path, windows, sorted=True, **opts):
    """Write the trace @path from @windows, an iterable of (window, ids)
    or of ids (windows 0, 1, ...); @opts as TraceWriter's."""
    with TraceWriter(path, **opts) as w:
        for i, item in enumerate(windows):
            if isinstance(item, tuple):
                w.put(item[0], item[1], sorted=sorted)
            else:
                w.put(i, item, sorted=sorted)


def import_csv(csv, path, window_seconds=WINDOW_US / 1e6,
               page_size=PAGE_SIZE, desc=None):
    """Convert a CSV of window,page rows into the trace @path."""
    opts, keep = writer_opts(window_seconds, page_size, desc)
    call(lib.mdk_trace_import_csv, cstr(csv), cstr(path), opts)


def import_oracle(oracle, path, window_seconds, page_size=PAGE_SIZE,
                  byte_offsets=False, desc=None):
    """Window libCacheSim's oracleGeneral trace @oracle (plain or
    zstd-compressed) into the trace @path, as ``mdkctl trace import
    --format oracleGeneral``: window = (clock_time - first) //
    @window_seconds; @byte_offsets: obj_id is a byte offset (block
    traces), each request covering its pages of @page_size."""
    opts, keep = writer_opts(window_seconds, page_size, desc)
    flags = lib.MDK_ORACLE_OFFSETS if byte_offsets else 0
    call(lib.mdk_trace_import_oracle, cstr(oracle), cstr(path), opts, flags)
    return path


def export_oracle(trace, path):
    """Write @trace as an oracleGeneral trace (zstd-compressed when @path
    ends in .zst), as ``mdkctl trace export --format oracleGeneral``."""
    call(lib.mdk_trace_export_oracle, cstr(trace), cstr(path))
    return path

# SPDX-License-Identifier: LGPL-2.1-or-later
"""MdkError, and the calls that turn libmdk's err buffers into it."""
import errno as _errno
import os

from ._mdk import ffi, lib

# libmdk's messages fit its callers' 512-byte buffers; room to spare.
ERRLEN = 1024


class MdkError(OSError):
    """A libmdk call failed: ``errno`` is its error code and ``message``
    (also ``strerror`` and ``str()``) the message it left in its err
    buffer, which names the file, offset or line and what was expected."""

    def __init__(self, code, message):
        super().__init__(code, message)
        self.message = message

    def __str__(self):
        return self.message


def error(ret, err, what=None):
    """The MdkError of a negative return @ret with message buffer @err."""
    msg = ffi.string(err).decode(errors="replace") if err else ""
    if not msg:
        msg = what or _errno.errorcode.get(-ret, "error %d" % ret)
    return MdkError(-ret, msg)


def call(fn, *args):
    """fn(*args, err, errlen); raises MdkError when it returns < 0, else
    returns what it returned."""
    err = ffi.new("char[]", ERRLEN)
    ret = fn(*args, err, ERRLEN)
    if ret < 0:
        raise error(ret, err)
    return ret


def errbuf():
    """A fresh err buffer, for calls that do not fit call()."""
    return ffi.new("char[]", ERRLEN)


def cstr(s):
    """@s (str or path-like) as bytes for a const char * argument."""
    s = os.fspath(s)
    return s if isinstance(s, bytes) else s.encode()


def pystr(p):
    """A C string as str ('' for NULL)."""
    return ffi.string(p).decode(errors="replace") if p != ffi.NULL else ""


__all__ = ["MdkError", "call", "cstr", "pystr", "errbuf", "error", "lib"]

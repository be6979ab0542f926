"""Callgrind's client requests from Python (x86-64 Linux, standard library only): :func:`counting`
counts only the code inside it, by the no-op sequence ``valgrind.h`` compiles in, via ctypes."""

from __future__ import annotations

import ctypes
import functools
import mmap
import platform
from collections.abc import Iterator
from contextlib import contextmanager

# uint64 request(uint64 *args /* %rdi */, uint64 default /* %rsi */):
_CODE = bytes.fromhex(
    "4889f2"  # mov %rsi,%rdx        the default answer
    "4889f8"  # mov %rdi,%rax        the request's six words
    "48c1c703"  # rol $3,%rdi        valgrind's special-instruction preamble ...
    "48c1c70d"  # rol $13,%rdi
    "48c1c73d"  # rol $61,%rdi
    "48c1c733"  # rol $51,%rdi       ... (3 + 13 + 61 + 51 = 128: %rdi unchanged)
    "4887db"  # xchg %rbx,%rbx       the client request: %rdx = request(%rax)
    "4889d0"  # mov %rdx,%rax        return the answer
    "c3"  # ret
)

# valgrind.h and callgrind.h (3.x): request codes.
RUNNING_ON_VALGRIND = 0x1001  # its answer: how many valgrinds this process runs under
_CALLGRIND = (ord("C") << 24) | (ord("T") << 16)  # VG_USERREQ_TOOL_BASE('C', 'T')
ZERO_STATS, TOGGLE_COLLECT, DUMP_STATS_AT, START_INSTRUMENTATION, STOP_INSTRUMENTATION = range(
    _CALLGRIND + 1, _CALLGRIND + 6
)

_Request = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.POINTER(ctypes.c_uint64), ctypes.c_uint64)


def supported() -> bool:
    """Whether this machine can issue the requests (the bytes above are amd64 code)."""
    return platform.system() == "Linux" and platform.machine() in ("x86_64", "AMD64")


@functools.cache  # the page is kept alive as long as the process: the code lives there
def _function() -> tuple[_Request, mmap.mmap]:
    if not supported():
        raise OSError(f"callgrind client requests need x86-64 Linux, not {platform.machine()}")
    page = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    page.write(_CODE)
    return _Request(ctypes.addressof(ctypes.c_char.from_buffer(page))), page


def request(code: int, arg1: int = 0) -> int:
    """Issue one client request; valgrind's answer, or 0 on a real CPU."""
    words = (ctypes.c_uint64 * 6)(code, arg1, 0, 0, 0, 0)
    return int(_function()[0](words, 0))


@contextmanager
def counting(label: str) -> Iterator[None]:
    """Count this thread's instructions in the block as the part ``label`` (``[A-Za-z0-9-_.:]``)."""
    if not (label.isascii() and label and all(c.isalnum() or c in "-_.:" for c in label)):
        raise ValueError(f"unusable dump label {label!r}")
    name = ctypes.create_string_buffer(label.encode())
    request(START_INSTRUMENTATION)
    request(ZERO_STATS)
    request(TOGGLE_COLLECT)  # collection was off (--collect-atstart=no): now on
    try:
        yield
    finally:
        request(TOGGLE_COLLECT)
        request(DUMP_STATS_AT, ctypes.addressof(name))
        request(STOP_INSTRUMENTATION)

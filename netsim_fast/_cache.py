"""Numba's on-disk cache, with every kernel source of the package in each entry's stamp.

Numba stamps a cached function with its own file's modification time and size only. A kernel
that inlines stages from other files (every flit kernel does) would then load stale machine
code after one of those files changed: wrong results, or a crash. (2026-11-28: with the booksim
router's FIFOs laid out anew in flit/booksim/router.py, the kernel of flit/booksim/kernel.py
came from the cache and read out of bounds.) So a function of this package is stamped with
its file's stamp and a digest of every module of the package that compiles code (its text
names ``njit`` or ``numba``): after an edit to any of them, every kernel compiles afresh. An
installed package whose files do not change keeps its cache; other packages' functions are
cached as Numba always does. ``_jit`` installs the locators; every module that compiles a
kernel imports it first (a function that calls no other, as workloads/injection.py's, is kept
fresh by Numba's own stamp).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from numba.core import caching

PACKAGE = Path(__file__).resolve().parent
_digest: str | None = None


def sources_digest(root: Path) -> str:
    """A digest of the path, modification time and size of each module under ``root`` that
    compiles code (names ``njit`` or ``numba``)."""
    h = hashlib.sha1()
    for path in sorted(root.rglob("*.py")):
        text = path.read_bytes()
        if b"njit" in text or b"numba" in text:
            st = path.stat()
            h.update(f"{path.relative_to(root)}:{st.st_mtime_ns}:{st.st_size};".encode())
    return h.hexdigest()


def package_digest() -> str:
    """``sources_digest`` of this package, computed once per process."""
    global _digest
    if _digest is None:
        _digest = sources_digest(PACKAGE)
    return _digest


def in_package(py_file: str) -> bool:
    return Path(py_file).resolve().is_relative_to(PACKAGE)


class _PackageStamp:
    """For this package's functions only: the file's own stamp and the package's digest."""

    def get_source_stamp(self):
        return super().get_source_stamp(), package_digest()

    @classmethod
    def from_function(cls, py_func, py_file):
        return super().from_function(py_func, py_file) if in_package(py_file) else None


class PackageCacheDirLocator(_PackageStamp, caching.UserProvidedCacheLocator):
    """In ``NUMBA_CACHE_DIR`` when it is set."""


class PackageInTreeLocator(_PackageStamp, caching.InTreeCacheLocator):
    """Beside the sources (``__pycache__``) when that is writable."""


class PackageUserWideLocator(_PackageStamp, caching.UserWideCacheLocator):
    """In the user's cache folder otherwise."""


LOCATORS = [PackageCacheDirLocator, PackageInTreeLocator, PackageUserWideLocator]


def install() -> None:
    """Put the package's locators first in Numba's list (once): Numba takes the first that
    accepts a function, in the same order as its own three."""
    classes = caching.CacheImpl._locator_classes
    if classes[: len(LOCATORS)] != LOCATORS:
        classes[:0] = LOCATORS

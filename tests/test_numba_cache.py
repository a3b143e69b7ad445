"""Numba's on-disk cache never serves a kernel compiled against an older version of a function it
inlines from another file (netsim_fast/_cache.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

from numba.core import caching

from netsim_fast import _cache, _jit  # _jit installs the locators

CHILD = textwrap.dedent("""
    import sys
    from pathlib import Path
    sys.path.insert(0, sys.argv[1])
    if sys.argv[2] == "package":  # the folder stands for the package: its files are stamped together
        from netsim_fast import _cache
        _cache.PACKAGE = Path(sys.argv[1]).resolve()
        _cache.install()
    from caller import f
    print(f())
""")


def _write(path, text, mtime):
    path.write_text(textwrap.dedent(text))
    os.utime(path, (mtime, mtime))


def _run(folder, mode, cache_dir):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache_dir))
    out = subprocess.run([sys.executable, "-c", CHILD, str(folder), mode], capture_output=True, text=True,
                         env=env, check=True)
    return int(out.stdout.split()[-1])


def test_an_edit_to_a_callee_in_another_file_recompiles_the_caller(tmp_path):
    """The caller ``f`` (caller.py) returns what ``g`` (callee.py) returns. After ``g`` changes,
    Numba alone serves ``f`` from its cache with the old ``g`` inlined; with the package's
    stamp, ``f`` is compiled again."""
    for mode, expected in (("numba", 1), ("package", 2)):
        folder = tmp_path / mode
        folder.mkdir()
        _write(folder / "callee.py", """
            from numba import njit

            @njit(cache=True)
            def g():
                return 1
        """, 1_700_000_000)
        _write(folder / "caller.py", """
            from numba import njit
            from callee import g

            @njit(cache=True)
            def f():
                return g()
        """, 1_700_000_000)
        assert _run(folder, mode, tmp_path / f"cache-{mode}") == 1
        _write(folder / "callee.py", """
            from numba import njit

            @njit(cache=True)
            def g():
                return 2
        """, 1_700_000_100)
        assert _run(folder, mode, tmp_path / f"cache-{mode}") == expected


def test_the_digest_follows_kernel_sources_only(tmp_path):
    kernel, other = tmp_path / "kernel.py", tmp_path / "text.py"
    _write(kernel, "from numba import njit\n", 1_700_000_000)
    _write(other, "HELP = 'no compiled code here'\n", 1_700_000_000)
    first = _cache.sources_digest(tmp_path)
    _write(other, "HELP = 'still none'\n", 1_700_000_100)
    assert _cache.sources_digest(tmp_path) == first
    _write(kernel, "from numba import njit  # edited\n", 1_700_000_100)
    assert _cache.sources_digest(tmp_path) != first


def test_the_package_kernels_carry_the_package_stamp():
    assert _jit.JIT["cache"]
    assert caching.CacheImpl._locator_classes[:3] == _cache.LOCATORS
    from netsim_fast.flit.booksim import kernel

    locator = caching.FunctionCache(kernel.advance.py_func)._impl._locator  # the one Numba chooses
    assert isinstance(locator, tuple(_cache.LOCATORS))
    assert locator.get_source_stamp()[1] == _cache.package_digest()
    assert not _cache.in_package(caching.__file__)  # other packages keep Numba's own stamp

"""bench/_perf.py's map from compiled code to Python source lines (bench/jit_profile.py --lines):
a small kernel compiled with line tables, in a child process (the line tables change how every
later compilation in a process is done), has its instructions tagged with its own lines."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"

CHILD = textwrap.dedent('''
    import json, sys
    from pathlib import Path
    sys.path.insert(0, sys.argv[1])
    from _perf import compile_with_line_tables, line_table, write_objects
    compile_with_line_tables()
    import numpy as np
    from numba import njit

    @njit
    def kernel(a):
        total = 0
        for i in range(a.size):
            total += a[i] * 3
        return total

    kernel(np.arange(5))
    out = Path(sys.argv[2])
    write_objects([kernel], out)
    addresses, places = line_table(next(out.glob("*.o")), out)
    print(json.dumps(dict(first=kernel.__code__.co_firstlineno, file=kernel.__code__.co_filename,
                          places=[[p, line] for p, line in places])))
''')


@pytest.mark.skipif(shutil.which("readelf") is None, reason="needs readelf (binutils)")
def test_line_table_tags_a_kernel_with_its_own_lines(tmp_path):
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    out = subprocess.run([sys.executable, str(script), str(BENCH), str(tmp_path)], capture_output=True, text=True,
                         check=True, env=dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache")))
    got = json.loads(out.stdout.strip().splitlines()[-1])
    lines = {line for path, line in got["places"] if Path(path).name == "child.py"}
    body = set(range(got["first"] + 1, got["first"] + 6))  # def .. return
    assert lines & body, (lines, got["first"])
    assert lines <= body | {0, got["first"]}  # nothing outside the kernel


def test_source_functions_name_the_innermost_function():
    sys.path.insert(0, str(BENCH))
    try:
        from _perf import SourceFunctions
    finally:
        sys.path.remove(str(BENCH))
    source = Path(__file__).resolve().parents[1] / "netsim_fast" / "flit" / "booksim" / "router.py"
    text = source.read_text().splitlines()
    line = next(i for i, s in enumerate(text, 1) if "def _write_outputs" in s) + 5
    names = SourceFunctions()
    assert names.name(str(source), line) == "router._write_outputs"
    assert names.name(str(source), 0) == "(no source line)"
    assert names.name(str(source), 1) == "router.?"  # the module's docstring: no function

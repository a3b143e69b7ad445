"""Profiling Numba-compiled code with ``perf``: what bench/jit_profile.py (the flit kernels) and
bench/packet_profile.py (the packet engine) share.

Numba writes no perf map, so ``perf`` cannot name the code it compiles. The profiled child
process compiles its kernels with a fresh Numba cache (so their code libraries are in memory),
runs, and calls ``write_code_map``: ``/tmp/perf-PID.map`` (each compiled function's address and
size) and, in the parent's folder, an index and a copy of each function's machine code. The
parent then counts the samples per function and instruction (``samples_by_function``) and reads
the copies with ``objdump``. With cpu-clock sampling a sample lands just after the instruction
that waited, hence ``hottest`` shows the instruction before each hot one.
"""

from __future__ import annotations

import collections
import ctypes
import os
import subprocess
from pathlib import Path


def write_code_map(dispatchers, out: Path) -> None:
    """Perf map, index and machine code of every function compiled for ``dispatchers``."""
    symbols = set()
    for dispatcher in dispatchers:
        for compiled in dispatcher.overloads.values():
            library = compiled.library
            for fn in library._final_module.functions:
                if not fn.is_declaration:
                    address = library._codegen._engine._ee.get_function_address(fn.name)
                    if address:
                        symbols.add((address, fn.name))
    symbols = sorted(symbols)
    mapped = []  # the process's mapped regions: a function's size is only known up to the next one
    for line in open("/proc/self/maps"):
        lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
        mapped.append((lo, hi))
    with open(f"/tmp/perf-{os.getpid()}.map", "w") as perf_map, open(out / "index.txt", "w") as index:
        for i, (address, name) in enumerate(symbols):
            size = min((symbols[i + 1][0] - address) if i + 1 < len(symbols) else 1 << 16, 1 << 20)
            size = min([size] + [hi - address for lo, hi in mapped if lo <= address < hi])
            perf_map.write(f"{address:x} {size:x} {name}\n")
            index.write(f"{address:x} {name}\n")
            (out / f"{address:x}.bin").write_bytes(ctypes.string_at(address, size))


def samples_by_function(tmp: str, data: str) -> tuple[dict, dict]:
    """(name -> Counter of sample offsets in the function, name -> its code file) from a
    ``perf record`` file and the child's index."""
    samples = subprocess.run(["perf", "script", "-i", data, "-F", "ip,sym"], capture_output=True, text=True,
                             check=True).stdout
    starts = {}
    for line in open(os.path.join(tmp, "index.txt")):
        address, name = line.split()
        starts[name] = int(address, 16)
    per_function: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for line in samples.splitlines():
        fields = line.split()
        if len(fields) >= 2 and fields[1] in starts:
            per_function[fields[1]][int(fields[0], 16) - starts[fields[1]]] += 1
    return per_function, {name: Path(tmp) / f"{start:x}.bin" for name, start in starts.items()}


def short(name: str) -> str:
    """``_ZN11netsim_fast4flit7booksim6router11router_stepB3v54...`` -> ``router.router_step``."""
    parts, rest = [], name.split("netsim_fast", 1)[-1]
    while rest and rest[0].isdigit():
        digits = ""
        while rest[0].isdigit():
            digits, rest = digits + rest[0], rest[1:]
        parts.append(rest[:int(digits)])
        rest = rest[int(digits):]
    return ".".join(parts[-2:]) if parts else name[:60]


def disassemble(code: Path) -> dict:
    """Offset -> instruction text of a function's machine code (objdump)."""
    listing = subprocess.run(["objdump", "-D", "-b", "binary", "-m", "i386:x86-64", str(code)],
                             capture_output=True, text=True, check=True).stdout
    instruction = {}
    for line in listing.splitlines():
        head, _, rest = line.strip().partition(":")
        fields = rest.split("\t")
        if len(fields) < 3:  # a long instruction's bytes continued on the next line
            continue
        try:
            instruction[int(head, 16)] = fields[-1]
        except ValueError:
            continue
    return instruction


def hottest(code: Path, offsets: collections.Counter, top: int) -> list[str]:
    """The ``top`` instructions with the most samples: share of the function's samples, offset,
    the instruction before it (which a cpu-clock sample follows) and itself."""
    instruction = disassemble(code)
    starts = sorted(instruction)
    before = {b: a for a, b in zip(starts, starts[1:])}
    total = sum(offsets.values())
    return [f"  {100 * n / total:5.1f} % at {o:#x}: after `{instruction.get(before.get(o), '?')}`, "
            f"`{instruction.get(o, '?')}`" for o, n in offsets.most_common(top)]


def compile_with_line_tables() -> None:
    """From now on, Numba compiles with line tables only (LLVM's "directives only" debug info):
    each machine instruction keeps the Python file and line it came from, and nothing else
    changes. Full debug info (``debug=True``) would not do: it stops the inlining of every
    function not marked ``forceinline``, keeps variables alive longer and turns bounds checks on,
    so the code it describes is not the code that runs. With line tables only, bench/
    jit_profile.py's run takes the same time with ``--lines`` as without (it prints the
    simulation's ``sim_seconds`` either way; README, "Where a flit-hop's time goes"). Numba
    offers no option for it, so its target options are wrapped; a profiling child calls this
    before compiling."""
    import warnings

    from numba.core import cpu, errors

    # Numba's own small helpers (lambdas) have no source file to point at; it warns for each
    warnings.filterwarnings("ignore", category=errors.NumbaDebugInfoWarning)
    plain = cpu.CPUTargetOptions.finalize

    def finalize(self, flags, options):
        plain(self, flags, options)
        flags.debuginfo = True
        flags.dbg_directives_only = True
        flags.dbg_extend_lifetimes = False
        flags.boundscheck = False

    cpu.CPUTargetOptions.finalize = finalize


def write_objects(dispatchers, out: Path) -> None:
    """The object file (with its line tables) of each dispatcher's compiled library, as
    ``out/ADDRESS.o``, ADDRESS being its entry function's (as in ``write_code_map``'s index)."""
    for dispatcher in dispatchers:
        for compiled in dispatcher.overloads.values():
            library = compiled.library
            address = library.get_pointer_to_function(compiled.fndesc.llvm_func_name)
            (out / f"{address:x}.o").write_bytes(library._get_compiled_object())


def line_table(obj: Path, home: Path) -> tuple[list[int], list[tuple[str, int]]]:
    """(sorted addresses, (source file, line) from each address on) of an object file's line
    tables (``readelf``). A file named without a folder, or from ``./``, is in ``home`` (the
    folder of the module whose function the object holds); others come with their path."""
    listing = subprocess.run(["readelf", "--debug-dump=decodedline", str(obj)], capture_output=True, text=True,
                             check=True).stdout
    rows, current = [], None
    for text in listing.splitlines():
        text = text.strip()
        if text.startswith("CU: ") or text.endswith((":", ":[++]")):
            name = text.removeprefix("CU: ").removesuffix(":[++]").removesuffix(":")
            current = name if os.path.isabs(name) else os.path.normpath(os.path.join(home, name))
            continue
        fields = text.split()
        if len(fields) >= 3 and fields[0].endswith(".py") and fields[2][:2] in ("0x", "0"):
            path = current if current and os.path.basename(current) == fields[0] else os.path.join(home, fields[0])
            # "-": the end of a sequence; the code after it, up to the next, has no line table
            rows.append((int(fields[2], 16), path, int(fields[1]) if fields[1].isdigit() else 0))
    rows.sort()
    return [r[0] for r in rows], [(r[1], r[2]) for r in rows]


class SourceFunctions:
    """The innermost Python function around a line of a source file (``ast``), cached by file."""

    def __init__(self):
        self._spans: dict[str, list[tuple[int, int, str]]] = {}

    def name(self, path: str, line: int) -> str:
        if line == 0:
            return "(no source line)"
        if path not in self._spans:
            import ast

            spans = []
            try:
                tree = ast.parse(Path(path).read_text())
            except OSError:
                tree = None
            for node in ast.walk(tree) if tree else ():
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    spans.append((node.lineno, node.end_lineno, node.name))
            self._spans[path] = spans
        inside = [s for s in self._spans[path] if s[0] <= line <= s[1]]
        function = min(inside, key=lambda s: s[1] - s[0])[2] if inside else "?"
        return f"{Path(path).stem}.{function}"

"""Kernel functions that other kernels call are compiled to LLVM IR, not to machine code.

Numba turns every jitted function into machine code, even one that only other jitted functions
call: each caller then links its callees' IR into its own module, optimises all of it again and
generates machine code for all of it again. Down the flit kernel's call tree (advance, the
cycle's stages, the router stages, routing...) that repeated the work once per level, and the
intermediate machine code never ran. A function compiled with ``StageCompiler`` (``_jit.
KERNEL_JIT`` and the options derived from it) is, when a kernel calls it, a stage: optimised
function by function, with neither module optimisation nor machine code of its own, nor a place
in the cache; the kernel at the top of the call tree links it in, optimises the whole and
generates the machine code once, and that kernel is cached.

A call from Python to such a function (``advance`` from flit/run.py, helpers from the tests)
goes to a twin dispatcher that compiles it the usual way, with a CPython wrapper, and that holds
the function's on-disk cache. Three methods of Numba's ``Dispatcher`` are wrapped to route
the two kinds of call; they change nothing for a function compiled with another pipeline.
"""

from __future__ import annotations

from numba.core import codegen, compiler, typed_passes, types
from numba.core.compiler_machinery import register_pass
from numba.core.caching import NullCache
from numba.core.dispatcher import Dispatcher


class _NoEnvCodegen:
    """The codegen as a stage's library shows it: no environment pointer to set, since no
    machine code holds one (a caller's copy of the stage's code has its own, as when the caller
    is loaded from the cache)."""

    def __init__(self, real):
        self._real = real

    def set_env(self, env_name, env):
        pass

    def __getattr__(self, name):
        return getattr(self._real, name)


class StageLibrary(codegen.CPUCodeLibrary):
    """A code library that is linked into its callers but never turned into machine code."""

    @property
    def codegen(self):
        return _NoEnvCodegen(self._codegen)

    def get_pointer_to_function(self, name):
        return 0  # nothing to call: the stage runs inside its callers' machine code

    def _optimize_final_module(self):
        pass  # the calling kernel optimises its whole module, this code included

    def _finalize_final_module(self):
        # what CPUCodeLibrary does, less adding the module to the JIT engine and code generation
        self._finalize_dynamic_globals()
        self._verify_declare_only_symbols()
        self._finalized = True


@register_pass(mutates_CFG=True, analysis_only=False)
class StageLowering(typed_passes.NativeLowering):
    """Numba's lowering into a ``StageLibrary``."""

    _name = "netsim_stage_lowering"

    def run_pass(self, state):
        if state.library is None:
            state.library = StageLibrary(state.targetctx.codegen(), state.func_id.func_qualname)
        return super().run_pass(state)


class StageCompiler(compiler.CompilerBase):
    """Numba's nopython pipeline with ``StageLowering`` in place of its lowering pass."""

    def define_pipelines(self):
        pm = compiler.DefaultPassBuilder.define_nopython_pipeline(self.state)
        pm.passes = [(StageLowering, desc) if cls is typed_passes.NativeLowering else (cls, desc)
                     for cls, desc in pm.passes]
        pm.finalize()
        return [pm]


_add_overload = Dispatcher.add_overload
_compile = Dispatcher.compile
_compile_for_args = Dispatcher._compile_for_args


def python_twin(dispatcher):
    """The dispatcher that compiles ``dispatcher``'s function for calls from Python: a twin
    with Numba's own pipeline and a CPython wrapper, which takes over the on-disk cache, for a
    function compiled with ``StageCompiler``; the dispatcher itself otherwise."""
    if dispatcher._compiler.pipeline_class is not StageCompiler:
        return dispatcher
    twin = dispatcher.__dict__.get("_python_twin")
    if twin is None:
        options = dict(dispatcher.targetoptions, no_cpython_wrapper=False)
        twin = type(dispatcher)(dispatcher.py_func, locals=dispatcher.locals, targetoptions=options)
        twin._cache, dispatcher._cache = dispatcher._cache, NullCache()
        dispatcher._python_twin = twin
    return twin


def _stage_add_overload(self, cres):
    """A stage's compile result serves its compiled callers (typing, linking) only: not in the
    table Python calls are looked up in, where it would be a null function pointer."""
    if not isinstance(cres.library, StageLibrary):
        return _add_overload(self, cres)
    self.overloads[tuple(cres.signature.args)] = cres


def _stage_compile(self, sig):
    if python_twin(self) is not self and isinstance(sig, tuple):
        # one stage per argument types, not one per constant a caller passes (0, -1, True...):
        # LLVM propagates the constant once the stage is inlined
        sig = tuple(types.unliteral(a) for a in sig)
    return _compile(self, sig)


def _stage_compile_for_args(self, *args, **kws):
    twin = python_twin(self)
    if twin is self:
        return _compile_for_args(self, *args, **kws)
    entry = _compile_for_args(twin, *args, **kws)
    for sig, cres in twin.overloads.items():  # later Python calls find the twin's code at once
        self._insert([a._code for a in sig], cres.entry_point, cres.objectmode)
    return entry


Dispatcher.add_overload = _stage_add_overload
Dispatcher.compile = _stage_compile
Dispatcher._compile_for_args = _stage_compile_for_args

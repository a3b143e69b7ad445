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

Both pipelines (``StageCompiler``, ``TwinCompiler``) also run ``ConstantMembers`` before Numba's
dead-branch pruning: a branch on a member of an argument that is None (``p.uses_iq``,
flit/features.py) is then dropped before type inference, so a kernel compiles only the parts
of the engine its run uses; a member that is a ``Fixed`` integer (typed ``FixedInt``, its value
in its type) becomes that constant, so a kernel specialised for one configuration
(flit/specialise.py) folds its sizes, delays and codes.

Both also lower array indexing without Python's negative-index wraparound (``UnwrappedLower``):
kernel code indexes with lanes, routers, slots and counters, never counting from the end, and
Numba's ``i < 0 ? i + n : i`` on every access (with ``n`` reloaded from the stack, since a
kernel holds more arrays than registers) was about 12 % of a flit-hop's time (bench/
flit_instructions.py counts instructions; bench/flit_speed.py --against). A negative index is
then out of bounds: under ``NUMBA_BOUNDSCHECK=1`` an IndexError (tests/test_kernel_bounds.py).
A negative constant (``a[-1]``) still counts from the end, and code Numba compiles for itself
while lowering a kernel (its own implementations of numpy functions) keeps the wraparound.
"""

from __future__ import annotations

import threading

from llvmlite import ir as llvm_ir
from numba.core import codegen, compiler, ir, lowering, typed_passes, types, untyped_passes
from numba.core.compiler_machinery import FunctionPass, register_pass
from numba.core.ir_utils import get_definition, guard
from numba.core.caching import NullCache
from numba.core.dispatcher import Dispatcher
from numba.extending import models, register_model, typeof_impl
from numba.np import arrayobj


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


_unwrapped = threading.local()  # .modules: the IR modules of the kernels being lowered, innermost last
_wrapped_index = arrayobj.fix_integer_index


class UnwrappedLower(lowering.Lower):
    """Numba's lowering of one function, whose array indices are taken as they are: while it
    lowers, its IR module is the innermost of ``_unwrapped.modules``."""

    def lower(self):
        modules = _unwrapped.__dict__.setdefault("modules", [])
        modules.append(self.module)
        try:
            super().lower()
        finally:
            modules.pop()


def _fix_integer_index(context, builder, idxty, idx, size):
    """Numba's index fix-up (negative counts from the end), except in a kernel's own code."""
    modules = getattr(_unwrapped, "modules", None)
    if modules and builder.module is modules[-1] and idxty.signed \
            and not (isinstance(idx, llvm_ir.Constant) and isinstance(idx.constant, int) and idx.constant < 0):
        return context.cast(builder, idx, idxty, types.intp)
    return _wrapped_index(context, builder, idxty, idx, size)


arrayobj.fix_integer_index = _fix_integer_index  # module-level: basic indexing looks it up at each use


@register_pass(mutates_CFG=True, analysis_only=False)
class TwinLowering(typed_passes.NativeLowering):
    """Numba's lowering, without index wraparound."""

    _name = "netsim_twin_lowering"

    @property
    def lowering_class(self):
        return UnwrappedLower


@register_pass(mutates_CFG=True, analysis_only=False)
class StageLowering(TwinLowering):
    """Numba's lowering into a ``StageLibrary``, without index wraparound."""

    _name = "netsim_stage_lowering"

    def run_pass(self, state):
        if state.library is None:
            state.library = StageLibrary(state.targetctx.codegen(), state.func_id.func_qualname)
        return super().run_pass(state)


class Fixed:
    """An integer argument member that a kernel compiles as a constant: ``p._replace(n_vcs=Fixed(4))``.

    Not an ``int`` subclass, whose type Numba would take as int64 before asking ``typeof``. A
    kernel called with it is compiled (and cached) for this value.
    """

    __slots__ = ("value",)

    def __init__(self, value: int):
        self.value = int(value)

    def __index__(self) -> int:  # how Numba's unboxing reads it
        return self.value

    __int__ = __index__

    def __repr__(self) -> str:
        return f"Fixed({self.value})"


class FixedInt(types.Integer):
    """The type of a ``Fixed``: an int64 whose value is part of the type. Numba strips literal
    types from named-tuple members, not this one."""

    def __init__(self, value: int):
        super().__init__("int64")
        self.value = value
        self.name = f"fixed_{value}"

    @property
    def key(self):
        return "fixed", self.value


register_model(FixedInt)(models.IntegerModel)


@typeof_impl.register(Fixed)
def _typeof_fixed(val, c):
    return FixedInt(val.value)


@register_pass(mutates_CFG=False, analysis_only=False)
class ConstantMembers(FunctionPass):
    """``arg.a.b`` typed None, or typed ``FixedInt``, becomes a constant, before dead-branch pruning.

    Numba drops a branch on ``x`` or ``x is None`` before type inference when the argument ``x``
    is None, not when a member of an argument is: this pass makes such members constants, so
    ``if p.uses_closed_loop:`` compiles to nothing when the run has no closed loop. A ``Fixed``
    member becomes its value, which LLVM then folds (loop bounds, ring sizes, routing codes). Any
    other member is left alone (read at run time).
    """

    _name = "netsim_constant_members"

    def __init__(self):
        FunctionPass.__init__(self)

    def run_pass(self, state):
        func_ir, changed = state.func_ir, False
        for block in func_ir.blocks.values():
            for stmt in block.body:
                if not (isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Expr) and stmt.value.op == "getattr"):
                    continue
                ty = _member_type(func_ir, state.args, stmt.value)
                if isinstance(ty, (types.NoneType, FixedInt)):
                    const = ir.Const(ty.value if isinstance(ty, FixedInt) else None, stmt.loc)
                    defs = func_ir._definitions[stmt.target.name]
                    defs[defs.index(stmt.value)] = const
                    stmt.value = const
                    changed = True
        return changed


def _member_type(func_ir, arg_types, expr):
    """The type of ``expr``, a chain of attributes of an argument that is a named tuple, or None."""
    base = guard(get_definition, func_ir, expr.value)
    if isinstance(base, ir.Arg):
        ty = arg_types[base.index]
    elif isinstance(base, ir.Expr) and base.op == "getattr":
        ty = _member_type(func_ir, arg_types, base)
    else:
        return None
    if isinstance(ty, types.BaseNamedTuple) and expr.attr in ty.fields:
        return ty.types[ty.fields.index(expr.attr)]
    return None


def _nopython_passes(state, lowering):
    """Numba's nopython pipeline with ``ConstantMembers`` before the first dead-branch pruning and
    ``lowering`` in place of its lowering pass."""
    pm = compiler.DefaultPassBuilder.define_nopython_pipeline(state)
    passes = []
    for cls, desc in pm.passes:
        if cls is untyped_passes.DeadBranchPrune and ConstantMembers not in [c for c, _ in passes]:
            passes.append((ConstantMembers, "members of arguments that are None or Fixed as constants"))
        passes.append((lowering, desc) if cls is typed_passes.NativeLowering else (cls, desc))
    pm.passes = passes
    pm.finalize()
    return [pm]


class StageCompiler(compiler.CompilerBase):
    """Numba's nopython pipeline with ``ConstantMembers`` and ``StageLowering``."""

    def define_pipelines(self):
        return _nopython_passes(self.state, StageLowering)


class TwinCompiler(compiler.CompilerBase):
    """Numba's nopython pipeline with ``ConstantMembers`` and ``TwinLowering``: a stage's twin for
    calls from Python."""

    def define_pipelines(self):
        return _nopython_passes(self.state, TwinLowering)


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
        twin = type(dispatcher)(dispatcher.py_func, locals=dispatcher.locals, targetoptions=options,
                                pipeline_class=TwinCompiler)
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

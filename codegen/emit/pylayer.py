"""Emit the Python layer: hip/<python_module>.pyx.

Per function: its plan (codegen/plan.py) rendered as argument conversions,
the C layer's call without the GIL, and `return (status, outputs...)`.
Enums, handles, struct classes and constants are data handed to the
shared helpers in hip/_enum.py, hip/_pointer.pyx and hip/_struct.pyx.
"""
from __future__ import annotations

import dataclasses
import re

from .. import ir, plan
from ..spec import Spec
from ..types import TypeIndex
from . import cdecl, common, records
from .lazy import LazyClasses


class FunctionEmitter:
    """Renders function plans (codegen/plan.py) as Cython, and the callback trampolines they use."""

    def __init__(self, spec: Spec, types: TypeIndex):
        self.spec, self.types = spec, types
        self.names = common.PyxNames(spec, types)
        self.trampolines: dict[str, str] = {}
        self.style = cdecl.Style()   # how the cimport layer names and spells the functions called

    def trampoline(self, t: ir.CType) -> None:
        """A C function with the callback's signature that calls the Python callable."""
        name = plan.trampoline_name(t)
        if name in self.trampolines:
            return
        types, names = self.types, self.names
        proto = types.resolve(t)
        params = [f"{names.cy(pt, f'a{j}')}" for j, pt in enumerate(proto.params)]
        # The void* user-data argument is the one carrying our context tuple (the last void*).
        ud = max(j for j, pt in enumerate(proto.params) if types.resolve(pt).kind == "pointer")
        conv = []
        for j, pt in enumerate(proto.params):
            if j == ud:
                continue
            rt = types.resolve(pt)
            if types.is_handle(pt):
                conv.append(f"_p.wrap({names.handle_cls(pt)}, <void*>a{j})")
            elif rt.kind == "enum":
                conv.append(f"_enum.member({names.body_cls(rt.name)}, a{j})")
            elif rt.kind == "pointer":
                conv.append(f"_p.wrap(Pointer, <void*>a{j})")
            else:
                conv.append(f"a{j}")
        args = ", ".join(conv + ["_ctx[1]"])
        lines = [f"cdef {names.cy(proto.result)} {name}({', '.join(params)}) noexcept with gil:",
                 f"    _ctx = <tuple>a{ud}",
                 f"    try:",
                 f"        _ctx[0]({args})",
                 f"    except BaseException as e:",
                 f"        _unraisable(e, _ctx[0])",
                 f"    finally:",
                 f"        if _ctx[2]:",
                 f"            Py_DECREF(_ctx)"]
        self.trampolines[name] = "\n".join(lines)

    def cimport_arg(self, fn: ir.Function, p: ir.Param, arg: str) -> str:
        """An argument cast to the cimport layer's spelling of its parameter where that is not
        the header's (cdecl.Style: `const char**` for `const char* const*`)."""
        t = self.style.param_type(fn, p, macros=False)   # a type macro is a typedef of the type: no cast
        return arg if t == p.type else f"<{self.names.cy(t)}>{arg}"

    def local(self, pp: plan.ParamPlan) -> str:
        """Declaration of the typed local `_a<i>` holding a C argument."""
        t = pp.param.type
        if t.kind == "array":
            t = ir.CType("pointer", pointee=t.pointee)
        t = ir.CType(**{**t.__dict__, "const": False})   # a local is assigned once: drop top-level const
        return self.names.cy(t, f"_a{pp.index}")

    def guard(self, fp: plan.FunctionPlan, cargs: list[str]) -> list[str]:
        g = fp.guard
        if g is None:
            return []
        name = fp.fn.name
        return [f"cdef {self.names.cy(g.mode, '_pm')}",
                f"if _cl.{g.query}({cargs[g.handle]}, &_pm) == 0 and _pm == _cl.{g.device}:",
                f"    raise ValueError(\"{name}: the handle is in device pointer mode, where the result is "
                f"written to device memory; the Python binding returns it through host memory, so use host "
                f"pointer mode (or call {self.spec.cimport_module}.{name} with a device pointer)\")"]

    def function(self, fp: plan.FunctionPlan, name: str = "", doc: bool = True) -> str:
        if fp.amd is not None and not name:
            return self.dual(fp)
        fn = fp.fn
        # Every conversion runs with the GIL, into typed C locals; the call itself runs without it.
        pre = [line for pp in fp.params for line in pp.pre]
        cargs = []
        for pp in fp.params:
            if pp.role == "callback":
                self.trampoline(pp.param.type)
            if pp.local:
                if pp.param.type.kind == "funcptr":   # Cython takes no initialiser after `noexcept nogil`
                    pre += [f"cdef {self.local(pp)}", f"_a{pp.index} = {pp.arg}"]
                else:
                    pre.append(f"cdef {self.local(pp)} = {pp.arg}")
                cargs.append(f"_a{pp.index}")
            else:
                cargs.append(pp.arg)
        body = ["_keep = []"] if fp.keep else []
        body += pre
        body += self.guard(fp, cargs)
        call = f"_cl.{self.style.name(fn)}({', '.join(self.cimport_arg(fn, pp.param, a) for pp, a in zip(fp.params, cargs))})"
        void = fp.result.kind == "void"
        if not void:
            body.append(f"cdef {self.names.cy(fn.result, '_r')}")
        invoke = ["with nogil:", f"    {call if void else '_r = ' + call}"]
        if fp.invalid:   # arguments C cannot take (plan.ParamPlan.invalid): their status, no call
            branches = []
            for cond, status in fp.invalid:
                branches += [f"{'elif' if branches else 'if'} {cond}:", f"    _r = _cl.{status}"]
            invoke = branches + ["else:"] + ["    " + l for l in invoke]
        if fp.callback is not None:
            # The C side owns one reference from here on: the trampoline drops it after a one-shot
            # call. If the call fails (an exception, or an error status) it is never called.
            cb = f"_cb{fp.callback.index}"
            body += [f"if {cb} is not None:", f"    Py_INCREF({cb})", "try:"]
            body += ["    " + l for l in invoke]
            body += ["except BaseException:", f"    if {cb} is not None:", f"        Py_DECREF({cb})", "    raise"]
            if fp.result.kind == "status":
                body += [f"if _r != 0 and {cb} is not None:", f"    Py_DECREF({cb})"]
        else:
            body += invoke
        post = fp.post   # what a successful call changes on its arguments (a destroyed handle)
        if post and fp.result.kind == "status":
            body += ["if _r == 0:"] + ["    " + l for l in post]
        else:
            body += post
        if fn.deprecated:
            body.insert(0, f"_deprecated({fn.deprecated!r})")
        # The success member is looked up once per module (enum class attributes are slow before 3.12).
        success = f"{self.spec.error_type}.{self.spec.success}" if self.spec.error_type else None
        outs = [e for e, _ in fp.returned[1:]] if fp.result.kind == "status" else []
        returned = [e for e, _ in fp.returned]
        if outs and self.spec.conventions.outputs_on_error == "none":
            # cuda.bindings' convention: a failed call returns None for every output.
            body += [f"if _r != _cl.{self.spec.success}:",
                     f"    return (_status(_r), {', '.join(['None'] * len(outs))})"]
            returned[0] = "_SUCCESS"   # past the test above the call succeeded
        if returned:   # else nothing to return: None, as AMD's HIP Python (no return statement)
            body.append(f"return ({', '.join('_SUCCESS' if e == success else e for e in returned)},)")
        doc = common.docstring(fn.comment) if doc else ""
        sig = [pp.py for pp in fp.params if pp.py is not None]
        lines = [f"def {name or fn.name}({', '.join(sig)}):"]
        if doc:
            lines.append(f'    """{doc}\n    """')
        lines += ["    " + l for l in body]
        return "\n".join(lines)


    def dual(self, fp: plan.FunctionPlan) -> str:
        """A function taking C's call form and AMD's HIP Python's (fp.amd), told apart by the number of
        arguments (AMD's has fewer: what it returns instead): each a function of its own."""
        fn, amd = fp.fn, fp.amd
        c_name, amd_name = f"_{fn.name}_c", f"_{fn.name}_amd"

        def form(p: plan.FunctionPlan) -> str:
            args = ", ".join(pp.param.name for pp in p.params if pp.py is not None)
            outs = ", ".join(["status"] * (p.result.kind == "status") + [pp.param.name for pp in p.params if pp.out])
            return f"{fn.name}({args}) -> ({outs})"
        n = sum(pp.py is not None for pp in amd.params)
        n_c = sum(pp.py is not None for pp in fp.params)
        one = ", ".join(pp.param.name for pp in amd.params if pp.role == "out_one")
        doc = common.docstring(fn.comment) + "\n\n" + common.docstring(
            f"C's form: {form(fp)}. AMD's HIP Python's form, told apart by its {n} argument{'s' * (n != 1)}: "
            f"{form(amd)}, {one}: one element the binding allocates.")
        return "\n".join([self.function(fp, c_name, False), "", self.function(amd, amd_name, False), "",
                          f"def {fn.name}(*args, **kwargs):", f'    """{doc.strip()}\n    """',
                          "    _n = len(args) + len(kwargs)",
                          f"    if _n == {n_c}:", f"        return {c_name}(*args, **kwargs)",
                          f"    if _n == {n}:", f"        return {amd_name}(*args, **kwargs)",
                          f"    raise TypeError(f\"{fn.name}() takes {n_c} (C's form) or {n} (AMD's HIP Python's) "
                          f"arguments, got {{_n}}\")"])


# A use of the kernel-argument packer (hip/_kernel_args.pxd), cimported only by modules that launch
_USES_PACKER = re.compile(r"(?<![\w.])_ka\.")


# The module's initialisation creates thousands of objects (functions, enum members, struct
# classes), all of which stay alive: the cyclic GC's collections during it (full ones scan every
# object of the process) are pure cost, ~10% of `import cuda.bindings.driver`. Paused in C (no
# module attribute), resumed at the end of the module if it was on (PyGC_* exist from 3.10).
GC_PAUSE = [
    "cdef extern from *:",
    '    """',
    "    #if PY_VERSION_HEX >= 0x030A0000",
    "    #define hip_py_gc_pause() PyGC_Disable()",
    "    #define hip_py_gc_resume(was) ((void)((was) && PyGC_Enable()))",
    "    #else",
    "    #define hip_py_gc_pause() 0",
    "    #define hip_py_gc_resume(was) ((void)(was))",
    "    #endif",
    '    """',
    "    int hip_py_gc_pause()",
    "    void hip_py_gc_resume(int)",
    "cdef int _gc_was_enabled = hip_py_gc_pause()",
]


@dataclasses.dataclass
class ClassDef:
    name: str
    base: str
    doc: str
    body: str = ""          # methods after the docstring (.pyx only)
    pvt_ptr: str = ""       # a C typedef: the class has cuda.bindings' `_pvt_ptr`, a pointer to its handle


@dataclasses.dataclass
class HandleClasses:
    """A module's handle and integer-value classes: `defs` in definition order (bases first),
    `aliases` (other typedef names of a class), and what the rest of the module needs to know."""
    defs: list[ClassDef]
    aliases: list[str]
    handle_names: dict[str, str]       # handle typedef -> its class
    struct_handles: dict[str, str]     # handle typedef pointing at a defined struct -> the struct's class
    tag_class: dict[str, str]          # typedef mode: struct tag -> the first typedef's class
    value_classes: list[str]
    base_module: str | None            # the module `conventions.handle_bases` names (cimported)


BASE_CIMPORT = "_handle_base_c"


def _ctype_body(t: ir.CType, types: TypeIndex) -> str:
    """A handle class's `_ctype_`: the C type its objects stand for (hip/_pointer.pyx ctype_arg
    refuses them where C takes another)."""
    return f"\n    _ctype_ = {common.ctype_key(t, types)!r}"


def handle_and_value_classes(module: ir.Module, spec: Spec, types: TypeIndex,
                             handle_bases: dict[str, str] | None = None) -> HandleClasses:
    """Handles are cdef classes of hip._pointer.Handle (HIP Python's and cuda.bindings' are static
    types too): a handle a call returns is freed without a heap type's generic dealloc."""
    names = common.PyxNames(spec, types)
    out = HandleClasses([], [], {}, {}, {}, [], (spec.conventions.handle_bases or None) if handle_bases else None)
    per_typedef = types.handle_classes == "typedef"
    if per_typedef:
        # cuda.bindings' handles are plain objects: true even when NULL (`if ctx:` tests presence).
        out.defs.append(ClassDef("_TypedefHandle", "Handle", "Base of this module's handle classes (one per "
                                 "typedef): true even when NULL, as cuda.bindings' are.",
                                 "\n    def __bool__(self):\n        return True"))
    for td in module.typedefs:
        if not types.is_handle(ir.CType("typedef", td.name)):
            continue
        if per_typedef:
            r = types.resolve(types.resolve(ir.CType("typedef", td.name)).pointee)
            tag = r.name if r.kind == "record" else ""
            if tag in types.records and types.records[tag].size >= 0:
                out.struct_handles[td.name] = names.cls_of(tag)
                out.handle_names[td.name] = td.name
                continue
            derived = tag in (handle_bases or {}) and td.name not in spec.conventions.own_handles
            base = f"{BASE_CIMPORT}.{handle_bases[tag]}" if derived else "_TypedefHandle"
            body = _ctype_body(ir.CType("typedef", td.name), types)
            pvt = ""
            if not derived:
                # cuda.bindings' `_pvt_ptr` (C++ and Cython code reads the handle through it, as
                # cuda.core's `get_cuda_native_handle` does): a member of the class's own struct,
                # pointing at the handle (`_ptr`); a derived class has its base's, as NVIDIA's
                pvt = td.name
                body += ("\n\n    def __cinit__(self, *args, **kwargs):\n"
                         f"        self._pvt_ptr = <_cl.{td.name}*>&self._ptr")
            if td.name in spec.conventions.stream_classes:
                # the CUDA stream protocol (cuda.bindings 13.3's CUstream: cuda.core and others take it)
                body += ("\n\n    def __cuda_stream__(self):\n        \"\"\"(0, the stream's address): the CUDA "
                         "stream protocol, version 0.\"\"\"\n        return (0, <size_t>self._ptr)")
            out.defs.append(ClassDef(td.name, base, f"Opaque handle `{td.name}`.", body, pvt))
            out.handle_names[td.name] = td.name
            if tag and not tag.startswith("_anon_"):
                out.tag_class.setdefault(tag, td.name)
            continue
        cls = common.handle_class(td.name, types)
        if cls in types.records and types.records[cls].size >= 0:
            # A pointer to a defined struct (hipMipmappedArray_t): the struct's class, as in AMD's
            # HIP Python; assigned after the structs are defined.
            out.struct_handles[td.name] = names.cls_of(cls)
            out.handle_names[td.name] = td.name
            continue
        if cls not in out.handle_names.values() and types.owner.get(cls, spec.library) == spec.library:
            out.defs.append(ClassDef(cls, "Handle", f"Opaque handle `{td.name}`.",
                                     _ctype_body(ir.CType("typedef", td.name), types)))
        out.handle_names[td.name] = cls
        if cls != td.name:   # another library's class by its module (MIOpen's queue is HIP's stream)
            out.aliases.append(f"{td.name} = {names.cls_of(cls)}")
    # Integer typedefs returned as objects (cuda.bindings' CUdeviceptr): int(), getPtr()
    typedef_names = {td.name for td in module.typedefs}
    out.value_classes = [n for n in spec.conventions.value_classes if n in typedef_names]
    for n in out.value_classes:
        # range-checked by C's size, as cuda.bindings' (cuuint32_t(2**32) is an OverflowError);
        # `_ptr`: the value read from that address
        out.defs.append(ClassDef(n, "IntValue", f"`{n}`, an integer (int(x), x.getPtr()).",
                                 "\n\n    def __init__(self, init_value=0, _ptr=None):\n"
                                 f"        _p.int_value_init(self, init_value, sizeof(_cl.{n}), _ptr)"))
    return out


def declarations(module: ir.Module, spec: Spec, types: TypeIndex, handle_bases: dict[str, str] | None = None) -> str:
    """The Python module's .pxd: its handle and value classes, for modules whose classes derive
    from them (runtime's cudaStream_t from driver's CUstream) and for Cython authors."""
    classes = handle_and_value_classes(module, spec, types, handle_bases)
    out = [common.banner(module), "from hip._pointer cimport Handle, IntValue"]
    if any(c.pvt_ptr for c in classes.defs):
        out.append(f"cimport {spec.package}.{spec.cimport_module} as _cl")
    if classes.base_module:
        out.append(f"cimport {spec.package}.{classes.base_module} as {BASE_CIMPORT}")
    out += [f"\ncdef class {c.name}({c.base}):\n    " + (f"cdef _cl.{c.pvt_ptr}* _pvt_ptr" if c.pvt_ptr else "pass")
            for c in classes.defs]
    return "\n".join(out) + "\n"


def emit(module: ir.Module, spec: Spec, types: TypeIndex, all_specs: dict, plans: list[plan.FunctionPlan],
         handle_bases: dict[str, str] | None = None, manual: str = "", cimport_style=None) -> str:
    """`handle_bases`: struct tag -> the class of the module the spec's conventions.handle_bases
    names whose handles of that struct this module's derive from (runtime's cudaStream_t from
    driver's CUstream). `manual`: hand-written code appended to the module (every class it names
    is made at import)."""
    fe = FunctionEmitter(spec, types)
    fe.style = cimport_style or cdecl.Style()
    names = fe.names
    # Which enum classes and typedef subclasses are made at import (spec conventions.lazy_classes)
    lazy = LazyClasses(names.lazy)
    lazy.need_words(manual)
    out = [common.banner(module),
           "# cython: language_level=3, binding=False, embedsignature=True",
           f'"""{spec.doc or spec.library}: Python bindings (HIP Python compatible).',
           "",
           "Every function returns a tuple: the status first, then the outputs.",
           f'`hip.check(result)` returns the outputs or raises hip.HipError."""',
           "from libc.stdint cimport *",
           "from libc.stddef cimport wchar_t",
           "from cpython.ref cimport Py_INCREF, Py_DECREF",
           "from cpython.object cimport PyObject",
           f"cimport {spec.package}.{spec.cimport_module} as _cl"]
    for dep in spec.depends:
        pkg = all_specs[dep].package
        out.append(f"cimport {pkg}.{all_specs[dep].cimport_module} as {common.dep_alias(dep)}")
        out.append(f"from {pkg} import {all_specs[dep].python_module} as _{dep}")
    out += GC_PAUSE
    # `cimport a.b as c`, not `from a cimport b as c`: cythonize tracks only the first form's .pxd
    # as a dependency (a changed hip/_struct.pxd must recompile every module).
    out += ["cimport hip._pointer as _p", "cimport hip._struct as _s"]
    packer_at = len(out)      # `cimport hip._kernel_args as _ka` goes here in modules that launch kernels
    out += ["from hip._pointer cimport Pointer, DevicePointer, Handle, IntValue",
            "from hip import _enum, _struct, _callbacks, errors as _errors",
            "from hip._enum import Enum",
            "from hip._callbacks import callback_context as _callback_context, unraisable as _unraisable",
            "from hip._callbacks import deprecated as _deprecated",
            "", f"__{module.api.lower()}_version__ = {module.version!r}",
            f"from {spec.package}.{spec.cimport_module} import library as _library", "",
            "def has_symbol(name):",
            '    """Whether the library (loaded on first use) exports `name`."""',
            "    return _library.has_symbol(name)", ""]
    # Enums, named by their typedef where the spec's conventions say so (CUresult)
    typedef_names = {}
    if spec.conventions.enum_names == "typedef":
        for td in module.typedefs:
            if td.type.kind == "enum" and td.type.name not in typedef_names:
                typedef_names[td.type.name] = td.name
    out.append("# -- enums " + "-" * 60)
    lazy_block_at = len(out)
    for e in module.enums:
        if e.anonymous:
            for k in e.constants:
                out.append(f"{k.name} = {k.value}")
            continue
        pairs = " ".join(f"{k.name} {k.value}" for k in e.constants)
        doc = common.docstring(e.comment, 600)
        signed = ", signed=True" if any(k.value < 0 for k in e.constants) else ""
        name = typedef_names.get(e.name, e.name)
        style = "cuda" if spec.conventions.enum_style == "cuda" else ""
        # cuda.bindings' members carry their enumerator's comment (cuda.core's error messages read it)
        docs = common.member_docs(e.constants) if style else None
        out.append(lazy.enum(name, pairs, doc, bool(signed), style, docs))
        if name != e.name:
            out.append(lazy.alias(e.name, name))
        out.append(lazy.alias(f"_{e.name}__Base", e.name, "AMD's HIP Python's base class of the enum (isinstance checks)"))
    # Handles and integer values: static cdef classes (no heap type's dealloc: cheap calls return them)
    out.append("\n# -- opaque handles and integer values " + "-" * 32)
    classes = handle_and_value_classes(module, spec, types, handle_bases)
    for c in classes.defs:
        out.append(f"cdef class {c.name}({c.base}):\n    \"\"\"{c.doc}\"\"\"" + c.body)
    out += classes.aliases
    handle_names, struct_handles, tag_class = classes.handle_names, classes.struct_handles, classes.tag_class
    value_classes = classes.value_classes
    if value_classes:   # their C sizes (cuda.bindings' sizeof(); IntValue's storage is 8 bytes for all)
        out.append("_value_sizes = {" + ", ".join(f"{n}: sizeof(_cl.{n})" for n in value_classes) + "}")
    # Structs
    tables = records.layouts(module, types, spec)
    array_typedefs = [td.name for td in module.typedefs
                      if types.resolve(ir.CType("typedef", td.name)).kind == "array"]
    array_sizes = {n: f"hip_py_sizeof_{n}" for n in array_typedefs}
    out.append("\n# -- structs and unions " + "-" * 46)
    if tables or array_typedefs:
        out.append('cdef extern from *:\n    """\n    #include <stddef.h>\n' + "\n".join(
            [f"    static const size_t {lt.array}[] = {{{', '.join(lt.values)}}};" for lt in tables]
            + [f"    static const size_t hip_py_sizeof_{n} = sizeof({n});" for n in array_typedefs]) + '\n    """')
        for lt in tables:
            out.append(f"    const size_t {lt.array}[{max(len(lt.rows) * 2 + 1, 1)}]")
        for n in array_typedefs:
            out.append(f"    const size_t hip_py_sizeof_{n}")
    owned = {r.name for r in module.records}
    # Field tables name their fields' classes at import (as do the typed tables and the status helpers)
    # (an enum field's class by its name where classes are made on first use: found on the field's
    # first read, so that a struct does not make its enums at import; hip/_struct.pyx `_Later`)
    cuda_style = spec.conventions.struct_style == "cuda"
    funcptr_names = {td.name for td in module.typedefs if (r := types.resolve(ir.CType("typedef", td.name))).kind
                     == "funcptr" or (r.kind == "pointer" and types.resolve(r.pointee).kind == "funcptr")}
    base_of = {}   # cuda.bindings' runtime structs hold driver's handle classes (CUgraph, not cudaGraph_t)
    if cuda_style and handle_bases:
        for td in module.typedefs:
            t = ir.CType("typedef", td.name)
            if types.is_handle(t):
                tag = types.resolve(types.resolve(t).pointee).name
                if tag in handle_bases and td.name not in spec.conventions.own_handles:
                    base_of[common.handle_class(td.name, types)] = f"{BASE_CIMPORT}.{handle_bases[tag]}"

    def sub(row):
        if row.kind == "ptr" and row.sub in base_of:
            return base_of[row.sub]
        cls = _sub_class(row.sub, names, types)
        if cuda_style and row.kind == "ptr" and row.sub in funcptr_names:
            return repr(row.sub)   # a function pointer typedef's class, defined further down: found on first read
        return repr(cls) if lazy.enabled and row.kind == "enum" and cls != "None" else cls
    lazy.need(*(c for lt in tables for row in lt.rows if not (c := sub(row)).startswith("'")))
    for lt in tables:
        cols = [f"({row.name!r}, {row.offset}, {row.kind!r}, {row.elsize}, {row.count}, "
                f"{sub(row)}, {row.bitoff}, {row.bitwidth})" for row in lt.rows]
        r = lt.record
        doc = common.docstring(r.comment, 800)
        table = "()" if not cols else "(\n    " + ",\n    ".join(cols) + (",)" if len(cols) == 1 else ")")
        from_int = ", from_int=True" if lt.from_int else ""
        props = f", props={lt.props!r}" if lt.props is not None else ""
        style = f", style={spec.conventions.struct_style!r}" if spec.conventions.struct_style else ""
        out.append(f"{r.name} = _struct.define({r.name!r}, {lt.array}[0], {table}, __name__, \"\"\"{doc}\"\"\", "
                   f"{lt.defaults!r}{from_int}{props}{style})")
    if spec.conventions.struct_lists == "packed":
        # cuda.bindings' `config.attrs = [attr]`: a pointer-to-struct field takes a list of them
        for lt in tables:
            for row in lt.rows:
                if row.elem and row.elem in owned:
                    lazy.need(names.cls_of(row.elem))
                    out.append(f"_struct.point_to({lt.record.name}, {row.name!r}, {names.cls_of(row.elem)})")
                elif row.elem.startswith("handle:") and cuda_style:   # a list of handles (extSemArray)
                    cls = common.handle_class(row.elem[len("handle:"):], types)
                    cls = base_of.get(cls, cls)
                    lazy.need(cls)
                    out.append(f"_struct.point_to({lt.record.name}, {row.name!r}, {cls})")
    for td_name, cls in struct_handles.items():
        out.append(lazy.alias(td_name, cls))
    # AMD's HIP Python names nested records <outer>_<key> (hipResourceDesc_union_0_struct_1): aliases.
    taken = _module_names(module) | set(handle_names)
    for name, alias in records.amd_names(module).items():
        if alias not in taken:
            out.append(lazy.alias(alias, name))
            taken.add(alias)
    # Function pointer, `void*` and array typedefs get a class too (AMD's HIP Python: hipHostFn_t,
    # hipDeviceptr_t, hiprandDirectionVectors32_t): a Pointer to such a value, or memory of its size.
    for td in module.typedefs:
        r = types.resolve(ir.CType("typedef", td.name))
        if td.name in taken:
            continue
        pointee = types.resolve(r.pointee).kind if r.kind == "pointer" else ""
        # `typedef void* X` as written (a typedef of a handle typedef is that handle's, not a class)
        void_ptr = td.type.kind == "pointer" and td.type.pointee.kind == "void"
        if r.kind == "funcptr" or pointee == "funcptr" or void_ptr:
            what = "pointer" if void_ptr else "function pointer"
            out.append(f"class {td.name}(Pointer):\n    \"\"\"C {what} `{td.name}` (an address; "
                       f"`{td.name}(addr)`).\"\"\"\n    __slots__ = ()")
            taken.add(td.name)
        elif r.kind == "array" and td.name in array_sizes:
            doc = common.docstring(td.comment, 400)
            out.append(f"{td.name} = _struct.define({td.name!r}, {array_sizes[td.name]}, (), __name__, \"\"\"{doc}\"\"\")")
            taken.add(td.name)
    # Opaque records without a handle typedef still get a class (used as pointer targets)
    for r in module.records:
        if r.name in tag_class:   # typedef mode: the struct's name for its first typedef's class
            out.append(f"{r.name} = {tag_class[r.name]}")
        elif r.size < 0 and r.name not in handle_names.values() and not r.name.startswith("_anon_"):
            out.append(f"class {r.name}(Handle):\n    __slots__ = ()\n    _ctype_ = {r.name!r}")
    # Plain typedefs of records/enums/handles: aliases
    out.append("\n# -- typedef aliases " + "-" * 49)
    subclassed: set[str] = set()
    for td in module.typedefs:
        r = types.resolve(ir.CType("typedef", td.name))
        if td.name in handle_names:
            continue
        if r.kind in ("record", "enum") and r.name != td.name and r.name in types.owner \
                and (r.kind == "enum" or types.records[r.name].size >= 0 or r.name in owned):
            if r.kind == "record" and spec.conventions.struct_typedefs == "subclass":
                # cuda.bindings' class per typedef, derived from the type it names (CUDA_MEMCPY3D <
                # CUDA_MEMCPY3D_v2 < CUDA_MEMCPY3D_st): its own __name__, isinstance of the struct's
                base = td.type.name if td.type.kind == "typedef" and td.type.name in subclassed else names.cls_of(r.name)
                out.append(lazy.subclass(td.name, base))
                subclassed.add(td.name)
                continue
            out.append(lazy.alias(td.name, names.cls_of(r.name)))
    # Macros
    out.append("\n# -- constants " + "-" * 55)
    for m in module.macros:
        out.append(f"{m.name} = {common.macro_value(m.value)!r}")
    out += typed_tables(module, spec, types, names, lazy)
    # Status helpers
    out.append("\n# -- functions " + "-" * 55)
    # The status enum may be a dependency's (rocSOLVER returns rocBLAS's rocblas_status).
    status_cls = names.cls_of(spec.error_type) if spec.error_type else None
    if spec.error_type:
        if status_cls == spec.error_type:
            lazy.need(spec.error_type)
        out += [f"cdef object _SUCCESS = {status_cls}.{spec.success}",
                f"cdef dict _status_members = {status_cls}._value2member_map_",
                # Every call returns a status: the common ones from a C array of the members
                # (borrowed: the list holds them), an index and an incref, where a list index cost
                # ~50 instructions (callgrind, cuCtxGetCurrent).
                "cdef list _status_list = [_status_members.get(i) for i in range(1024)]",
                "cdef PyObject* _status_arr[1024]",
                "cdef int _fill_status_arr() except -1:",
                "    cdef int i",
                "    for i in range(1024):",
                "        m = _status_list[i]",
                "        _status_arr[i] = <PyObject*>m if m is not None else NULL",
                "    return 0",
                "_fill_status_arr()",
                # The array lookup alone is inline (gcc left the whole function out of line: a
                # call and ~30 instructions a call, callgrind on the H200); the rest is not.
                "cdef object _status_other(int v):",
                "    m = _status_members.get(v)",
                f"    return m if m is not None else _enum.member({status_cls}, v)",
                "cdef inline object _status(int v):",
                "    cdef PyObject* m = _status_arr[v] if <unsigned int>v < 1024 else NULL",
                "    if m != NULL:",
                "        return <object>m",
                "    return _status_other(v)", ""]
    out += ["cdef _device_pointer(void* p, size_t n, bint device=True):",
            "    return _p.device_array(p, n, device)", ""]
    funcs = [fe.function(fp) for fp in plans]
    out += list(fe.trampolines.values())
    # Addresses of the trampolines, by callback type: lets tests drive them as the runtime would.
    out.append("_callback_trampolines = {" + ", ".join(
        f"{n[len('_tramp_'):]!r}: <size_t>{n}" for n in fe.trampolines) + "}")
    out.append("")
    out += [f + "\n" for f in funcs]
    # The spec names the function; the headers decide whether it exists (hipSPARSE < 6 has none).
    if spec.error_string in {f.name for f in common.bound_functions(module)}:
        out += ["def _describe(status):",   # the string is the last item: (hipSuccess, s) or (s,)
                f"    s = {spec.error_string}(status)[-1]",
                "    return s.decode(errors='replace') if s else None",
                f"_errors.register_status({status_cls}, _describe)", ""]
    elif spec.error_type and status_cls == spec.error_type:   # a dependency's: its module registers it
        out += [f"_errors.register_status({status_cls})", ""]
    if common.reexports(spec, types):
        out.append("# -- names of other libraries this one also offers (as AMD's HIP Python does) " + "-" * 6)
        for name, lib in common.reexports(spec, types).items():
            out.append(f"{name} = _{lib}.{name}")
        out.append("")
    out.append("# -- #define aliases (hipGetDeviceProperties -> hipGetDevicePropertiesR0600) " + "-" * 10)
    for a, t in module.aliases.items():
        if t in types.owner:
            target = names.cls_of(t)
        elif t in types.enumerators:   # #define HIPRTC_JIT_X hipJitOptionX: the member (or constant)
            e = types.enumerators[t]
            target = names.py(types.owner[e.name], t if e.anonymous else f"{e.name}.{t}")
            lazy.need(e.name)
        else:
            target = t
        if t in types.records and spec.conventions.struct_typedefs == "subclass":
            # #define cudaStreamAttrValue cudaLaunchAttributeValue: a class of its own, as a typedef's
            out.append(lazy.subclass(a, target))
            continue
        out.append(lazy.alias(a, target) if t in types.owner else f"{a} = {target}")
    if spec.conventions.anonymous_names == "cuda_bindings":
        out.append("# -- cuda.bindings' names of the anonymous nested records " + "-" * 20)
        out += [lazy.alias(a, names.cls_of(r)) for a, r in module.anonymous_names().items()]
    out += ["", "hip_py_gc_resume(_gc_was_enabled)"]
    # Function bodies (and trampolines) name the classes they use through accessors.
    lazy.body_refs.update(fe.names.body_refs, *(fp.class_refs for fp in plans))
    out[lazy_block_at:lazy_block_at] = lazy.block()
    lines = lazy.resolve(out)      # (what it resolves all follows packer_at)
    if any(_USES_PACKER.search(line) for line in lines) or _USES_PACKER.search(manual):
        lines.insert(packer_at, "cimport hip._kernel_args as _ka")
    return "\n".join(lines) + "\n" + manual


def _module_names(module: ir.Module) -> set[str]:
    """Names the module's enums, records, functions, constants and #define aliases take (an alias or a
    typedef's class must not shadow one)."""
    return {x.name for x in (*module.enums, *module.records, *module.functions, *module.macros)} \
        | {k.name for e in module.enums for k in e.constants} | set(module.aliases)


def _sub_class(sub: str, names: common.PyxNames, types: TypeIndex) -> str:
    """The Python class of a layout row's sub-type, as the .pyx refers to it ('None' for none)."""
    if not sub:
        return "None"
    return names.cls_of(sub) if sub in types.owner else sub


# The types a spec's conventions.typed_values may name, by hip/_struct.pyx's typed-value codes;
# a class of the module (a value class, a handle, a struct) is named by itself.
_TYPED_CODES = {"int": "i", "unsigned int": "I", "bool": "?", "long long": "q", "unsigned long long": "Q",
                "size_t": "Q", "pointer": "P", "int[]": "l"}   # and char[N], unsupported (typed_code)


def typed_code(type_name: str, spec: Spec, types: TypeIndex, names: common.PyxNames) -> tuple[str, str]:
    """(code, Python class or 'None') of a typed_values type (hip/_struct.pyx `_typed`)."""
    if type_name in _TYPED_CODES:
        return _TYPED_CODES[type_name], "None"
    m = re.fullmatch(r"char\[(\d+)\]", type_name)
    if m:        # text in a buffer of N bytes (cuCoredumpGetAttribute's CU_COREDUMP_FILE): bytes to its NUL
        return "t", m.group(1)
    if type_name == "unsupported":   # an enumerator the binding refuses (TypeError), as cuda.bindings' helpers do
        return "x", "None"
    if "." in type_name:    # another module's integer typedef class: driver.cuuint64_t (runtime's)
        mod, cls = type_name.split(".", 1)
        return "v", f"_typed_module_{mod}.{cls}"
    if type_name in spec.conventions.value_classes:
        return "v", type_name
    t = ir.CType("typedef", type_name)
    if type_name in types.typedefs and types.is_handle(t):
        return "h", names.handle_cls(t)
    r = types.resolve(t) if type_name in types.typedefs else ir.CType("record", type_name)
    if r.kind == "record" and r.name in types.records and types.records[r.name].size >= 0:
        return "s", names.cls_of(type_name if type_name in types.owner else r.name)
    raise ValueError(f"{spec.library}.yaml: conventions.typed_values: no type {type_name!r} "
                     f"(known: {', '.join(_TYPED_CODES)}, or a value class, handle or struct of the module)")


def typed_tables(module: ir.Module, spec: Spec, types: TypeIndex, names: common.PyxNames,
                 lazy: LazyClasses) -> list[str]:
    """Per enum the spec's conventions.typed_values type: {value: (code, class)}, what a `void*`
    output the enum selects holds (plan.Planner.typed); the classes are needed at import (`lazy`)."""
    import re
    out = []
    tv = spec.conventions.typed_values
    for mod in sorted({ty.split(".")[0] for rules in tv.values() for ty in rules.values() if "." in ty}):
        out.append(f"from {spec.package} import {mod} as _typed_module_{mod}")
    for enum, rules in tv.items():
        e = types.enums.get(enum) or (types.enums.get(types.resolve(ir.CType("typedef", enum)).name)
                                      if enum in types.typedefs else None)
        if e is None or types.owner.get(e.name) != spec.library:
            continue
        items = []
        for k in e.constants:
            rule = next((ty for rx, ty in rules.items() if re.fullmatch(rx, k.name)), None)
            if rule is not None:
                code, cls = typed_code(rule, spec, types, names)
                lazy.need(cls)
                items.append(f"{k.value}: ({code!r}, {cls})")
        out.append(f"{plan.typed_table_name(enum)} = {{{', '.join(items)}}}")
    return out

"""Emit the Python layer: hip/<python_module>.pyx.

Per function: convert arguments (one shared path per kind of parameter),
call the C layer without the GIL, and return `(status, outputs...)`.
Enums, handles, struct classes and constants are data handed to the
shared helpers in hip/_enum.py, hip/_pointer.pyx and hip/_struct.pyx.
"""
from __future__ import annotations

import re

from .. import ir
from ..spec import Spec
from ..types import TypeIndex
from . import common, records

_TYPECODES = {"char": "b", "signed char": "b", "unsigned char": "B", "short": "h", "unsigned short": "H",
              "int": "i", "unsigned int": "I", "long": "l", "unsigned long": "L", "long long": "q",
              "unsigned long long": "Q", "float": "f", "double": "d", "_Bool": "B",
              "size_t": "Q", "int8_t": "b", "uint8_t": "B", "int16_t": "h", "uint16_t": "H", "int32_t": "i",
              "uint32_t": "I", "int64_t": "q", "uint64_t": "Q", "intptr_t": "q", "uintptr_t": "Q"}


class FunctionEmitter:
    def __init__(self, spec: Spec, types: TypeIndex, module: ir.Module, all_specs: dict):
        self.spec, self.types, self.module = spec, types, module
        self.q = common.qualifier(spec)
        self.all_specs = all_specs
        self.trampolines: dict[str, str] = {}
        self.allocs = spec.device_allocations

    def py(self, owner: str, name: str) -> str:
        """Python-level name of a class owned by `owner`."""
        return name if owner == self.spec.library else f"_{owner}.{name}"

    def cls_of(self, tname: str) -> str:
        return self.py(self.types.owner.get(tname, self.spec.library), tname)

    def handle_cls(self, t: ir.CType) -> str:
        return self.py(self.types.owner.get(t.name, self.spec.library), records.handle_class(t.name, self.types))

    def cy(self, t: ir.CType, name: str = "") -> str:
        return self.types.cy(t, name, self.q)

    def int_conv(self, t: ir.CType, expr: str) -> str:
        """Python object -> C integer of type t, through the shared range-checked converters."""
        unsigned = self.types.is_unsigned(t)
        ct = self.cy(ir.CType(**{**t.__dict__, "const": False}))
        return f"<{ct}>_p.as_{'unsigned' if unsigned else 'signed'}({expr}, sizeof({ct}))"

    def typecode(self, t: ir.CType) -> str:
        r = self.types.resolve(t)
        if self.types.is_handle(t) or r.kind in ("pointer", "funcptr"):
            return "P"
        if r.kind == "enum":
            return "i"
        name = t.name if t.kind == "typedef" and t.name in _TYPECODES else r.name
        return _TYPECODES.get(name, "")

    # -- one parameter -> (python parameter, lines before the call, C argument, output expr) -------
    def param(self, fn: ir.Function, p: ir.Param, i: int):
        t, types = p.type, self.types
        r = types.resolve(t)
        v = f"_{i}"
        cb = self.spec.callbacks.get(fn.name, {})
        if p.intent == "out" and p.shape.startswith("array[") and r.kind == "pointer":
            # An array the call fills, its length another argument: returned as a list.
            length = p.shape[len("array["):-1]
            target = r.pointee
            code = self.typecode(target)
            conv = f"_p.wrap({self.handle_cls(target)}, <void*><size_t>x)" if types.is_handle(target) else "x"
            # The length converts (and is range-checked) as its C parameter would before anything
            # is allocated: `[0] * n` with an unchecked n is a MemoryError for 2**40, a TypeError
            # with a confusing message for None. A negative length gives an empty array (C rejects it).
            lp = next((q for q in fn.params if q.name == length), None)
            n = self.int_conv(lp.type, length) if lp is not None and types.is_numeric(lp.type) else length
            return None, [f"_k{i} = _p.seq_arg([0] * max(0, {n}), {code!r})"], \
                f"<{self.cy(t)}>_p.waddr(_k{i})", f"[{conv} for x in _k{i}]"
        if p.intent == "out" and p.shape == "scalar" and r.kind == "pointer":
            target = r.pointee
            rt = types.resolve(target)
            if rt.kind == "record" and rt.name in types.records and types.records[rt.name].size >= 0:
                # A struct the call fills (ncclGetUniqueId): a fresh wrapper owns the memory.
                cls = self.cls_of(rt.name)
                return None, [f"_o{i} = {cls}()"], f"<{self.cy(t)}>(<Pointer>_o{i})._ptr", f"_o{i}"
            if types.is_handle(target):
                return None, [f"cdef {self.cy(target, v)} = NULL"], f"&{v}", \
                    f"_p.wrap({self.handle_cls(target)}, <void*>{v})"
            if rt.kind == "pointer" and types.resolve(rt.pointee).kind == "builtin" and \
                    types.resolve(rt.pointee).name == "char":   # const char** out: a C string
                return None, [f"cdef const char* {v} = NULL"], f"<{self.cy(t)}>&{v}", \
                    f"(None if {v} == NULL else <bytes>{v})"
            if rt.kind == "pointer" or rt.kind == "void":
                if fn.name in self.allocs:
                    return None, [f"cdef void* {v} = NULL"], f"<{self.cy(t)}>&{v}", \
                        f"_device_pointer({v}, {self.allocs[fn.name]})"
                return None, [f"cdef void* {v} = NULL"], f"<{self.cy(t)}>&{v}", f"_p.wrap(Pointer, {v})"
            if rt.kind == "enum":
                return None, [f"cdef {self.cy(target, v)}"], f"&{v}", f"_enum.member({self.cls_of(rt.name)}, {v})"
            if types.is_numeric(target):
                return None, [f"cdef {self.cy(target, v)} = 0"], f"&{v}", v
        if p.intent == "inout" and p.shape == "scalar" and r.kind == "pointer":
            target, rt = r.pointee, types.resolve(r.pointee)
            if rt.kind == "enum":
                return p.name, [f"cdef {self.cy(target, v)} = <{self.cy(target)}>_p.enum_arg({self.cls_of(rt.name)}, {p.name})"], \
                    f"&{v}", f"_enum.member({self.cls_of(rt.name)}, {v})"
            if types.is_numeric(target):
                conv = p.name if types.is_float(target) else self.int_conv(target, p.name)
                return p.name, [f"cdef {self.cy(target, v)} = {conv}"], f"&{v}", v
        if p.intent == "in" and p.shape == "ref" and r.kind == "pointer":
            # The value is the caller's; C takes its address (hiprtcDestroyProgram(&prog)).
            target = r.pointee
            if types.is_handle(target) or types.resolve(target).kind == "pointer":
                return p.name, [f"cdef {self.cy(target, v)} = <{self.cy(target)}>_p.addr({p.name})"], f"&{v}", None
            if types.is_numeric(target):
                return p.name, [f"cdef {self.cy(target, v)} = {self.int_conv(target, p.name)}"], f"&{v}", None
        if p.intent != "in":
            raise ValueError(f"{fn.name}.{p.name}: unsupported intent {p.intent} {p.shape} for {types.tclass(t)}")
        # -- inputs ---------------------------------------------------------------------------------
        if p.name == cb.get("callback"):
            return self.callback_param(fn, p, i, cb)
        if p.name == cb.get("data"):
            return p.name, [], f"_ud{i}", None   # filled by the callback converter
        if p.shape == "number" and r.kind == "pointer":
            return self.number_param(fn, p, i)
        if p.shape == "string":
            return p.name, [f"cdef const char* {v} = _p.cstr({p.name}, _keep)"], f"<{self.cy(t)}>{v}", None
        if p.shape == "string_array":
            return p.name, [f"_k{i} = _p.as_string_array({p.name})"], f"<{self.cy(t)}>_p.addr(_k{i})", None
        if p.shape == "packed":
            return p.name, [], f"<{self.cy(t)}>_p.kernel_extra({p.name}, _keep)", None
        if p.shape == "kernel_params":
            return p.name, [f"_k{i} = _p.kernel_params({p.name})"], f"<{self.cy(t)}>_p.addr(_k{i})", None
        if p.shape.split("[")[0] == "array" and r.kind == "pointer":
            code = self.typecode(r.pointee)
            conv = "_p.addr" if r.pointee.const else "_p.waddr"
            # "in array[n]": C reads n elements; a shorter list or array would be read past its end.
            check = [] if p.shape == "array" else self.length_check(fn, p, p.shape[len("array["):-1])
            if not code:
                return p.name, check, f"<{self.cy(t)}>{conv}({p.name})", None
            return p.name, check + [f"_k{i} = _p.seq_arg({p.name}, {code!r})"], f"<{self.cy(t)}>{conv}(_k{i})", None
        if types.is_handle(t):
            return p.name, [], f"<{self.cy(t)}>_p.addr({p.name})", None
        if r.kind == "enum":
            return p.name, [], f"<{self.cy(t)}>_p.enum_arg({self.cls_of(r.name)}, {p.name})", None
        if types.is_float(t):
            return f"{self.cy(t)} {p.name}", [], p.name, None
        if types.is_numeric(t):   # __index__ semantics: a float is a TypeError, not truncated
            return p.name, [], self.int_conv(t, p.name), None
        if r.kind == "record":
            cls = self.cls_of(r.name)
            return p.name, [f"_k{i} = _s.record_arg({cls}, {p.name})"], \
                f"(<{self.cy(t)}*>(<Pointer>_k{i})._ptr)[0]", None
        if r.kind == "pointer":
            pr = types.resolve(r.pointee)
            if pr.kind == "record" and pr.name in types.records and types.records[pr.name].size >= 0:
                return p.name, [], f"<{self.cy(t)}>_s.record_ptr({self.cls_of(pr.name)}, {p.name})", None
            conv = "_p.addr" if r.pointee.const or p.shape != "buffer" and pr.kind != "void" else "_p.waddr"
            return p.name, [], f"<{self.cy(t)}>{conv}({p.name})", None
        if r.kind == "funcptr":
            return p.name, [], f"<{self.cy(t)}>_p.addr({p.name})", None
        raise ValueError(f"{fn.name}.{p.name}: no conversion for {types.tclass(t)}")

    def pointer_mode_guard(self, fn: ir.Function, cargs: list[str]) -> list[str]:
        """Lines refusing the call when the handle is in device pointer mode and the function
        returns a number through a host local: the GPU would write it there later, after the
        local is gone. The spec names the query, its device mode and the functions."""
        g = self.spec.pointer_mode_guard
        if not g or fn.name == g["query"] or not re.search(g["functions"], fn.name) or not fn.params:
            return []
        query = next((f for f in self.module.functions if f.name == g["query"]), None)
        if query is None or fn.params[0].type.name != query.params[0].type.name:
            return []
        types = self.types

        def local_number(p):
            if p.intent not in ("out", "inout") or p.shape != "scalar":
                return False
            pt = types.resolve(p.type)
            if pt.kind != "pointer":
                return False
            return types.is_numeric(pt.pointee) or types.resolve(pt.pointee).kind == "record"
        if not any(local_number(p) for p in fn.params):
            return []
        mode_t = types.resolve(query.params[1].type).pointee
        return [f"cdef {self.cy(mode_t, '_pm')}",
                f"if _cl.{g['query']}(_a0, &_pm) == 0 and _pm == _cl.{g['device']}:",
                f"    raise ValueError(\"{fn.name}: the handle is in device pointer mode, where the result is "
                f"written to device memory; the Python binding returns it through host memory, so use host "
                f"pointer mode (or call {self.spec.cimport_module}.{fn.name} with a device pointer)\")"]

    def length_check(self, fn, p, length):
        """Lines raising ValueError when a sized argument (list, tuple, NumPy array) has fewer
        elements than the length parameter says; pointers are the caller's word."""
        lp = next((q for q in fn.params if q.name == length), None)
        if lp is None or not self.types.is_numeric(lp.type):
            raise ValueError(f"{fn.name}.{p.name}: array length {length!r} is not a numeric parameter")
        return [f"if {p.name} is not None and hasattr({p.name}, '__len__') and len({p.name}) < {self.int_conv(lp.type, length)}:",
                f"    raise ValueError(f\"{fn.name}: {p.name} has {{len({p.name})}} elements, {length}={{{length}}} needs that many\")"]

    def number_param(self, fn, p, i):
        """`const T* alpha`: a Python number stored in a local T, or any pointer (device pointer mode)."""
        types, t = self.types, p.type
        target = types.resolve(t).pointee
        rt = types.resolve(target)
        local = ir.CType(**{**target.__dict__, "const": False})
        if types.is_float(target):
            kind, size = 2, f"sizeof({self.cy(local)})"
        elif types.is_numeric(target):
            kind, size = (1 if types.is_unsigned(target) else 0), f"sizeof({self.cy(local)})"
        elif rt.kind == "record" and len(types.records[rt.name].fields) == 2 and \
                all(types.is_float(f.type) for f in types.records[rt.name].fields):
            # complex: two floating fields {x, y} / {real, imag}
            kind, size = 3, f"sizeof({self.cy(local)}) // 2"
        else:   # const void* alpha (its type set by another argument): pointers only
            return p.name, [], f"<{self.cy(t)}>_p.addr({p.name})", None
        v = f"_n{i}"
        return p.name, [f"cdef {self.cy(local, v)}"], \
            f"<{self.cy(t)}>_p.number_arg({p.name}, &{v}, {kind}, {size})", None

    def callback_param(self, fn, p, i, cb):
        tname = p.type.name
        tramp = self.trampoline(p.type, cb)
        data = cb["data"]
        lines = [f"cdef void* _ud{i}", f"cdef size_t _f{i}",
                 f"_cb{i} = _callback_context({p.name}, {data}, {bool(cb.get('once'))})",
                 f"if _cb{i} is None:",
                 f"    _f{i} = <size_t>_p.addr({p.name})",
                 f"    _ud{i} = _p.addr({data})",
                 f"else:",
                 f"    _f{i} = <size_t>{tramp}",
                 f"    _ud{i} = <void*>_cb{i}"]
        # the user-data parameter's argument expression refers to _ud{i}
        self._ud_index = i
        return p.name, lines, f"<{self.cy(p.type)}>_f{i}", None

    def trampoline(self, t: ir.CType, cb) -> str:
        """A C function with the callback's signature that calls the Python callable."""
        name = f"_tramp_{t.name}"
        if name in self.trampolines:
            return name
        proto = self.types.resolve(t)
        params = [f"{self.cy(pt, f'a{j}')}" for j, pt in enumerate(proto.params)]
        # The void* user-data argument is the one carrying our context tuple (the last void*).
        ud = max(j for j, pt in enumerate(proto.params) if self.types.resolve(pt).kind == "pointer")
        conv = []
        for j, pt in enumerate(proto.params):
            if j == ud:
                continue
            rt = self.types.resolve(pt)
            if self.types.is_handle(pt):
                conv.append(f"_p.wrap({self.handle_cls(pt)}, <void*>a{j})")
            elif rt.kind == "enum":
                conv.append(f"_enum.member({self.cls_of(rt.name)}, a{j})")
            elif rt.kind == "pointer":
                conv.append(f"_p.wrap(Pointer, <void*>a{j})")
            else:
                conv.append(f"a{j}")
        args = ", ".join(conv + ["_ctx[1]"])
        ret = self.types.resolve(proto.result)
        lines = [f"cdef {self.cy(proto.result)} {name}({', '.join(params)}) noexcept with gil:",
                 f"    _ctx = <tuple>a{ud}",
                 f"    try:",
                 f"        _ctx[0]({args})",
                 f"    except BaseException as e:",
                 f"        _unraisable(e, _ctx[0])",
                 f"    finally:",
                 f"        if _ctx[2]:",
                 f"            Py_DECREF(_ctx)"]
        self.trampolines[name] = "\n".join(lines)
        return name

    def function(self, fn: ir.Function) -> str:
        types = self.types
        self._ud_index = None
        conv = [self.param(fn, p, i) for i, p in enumerate(fn.params)]
        sig = [c[0] for c in conv if c[0] is not None]
        pre = [l for c in conv for l in c[1]]
        cargs = [c[2] for c in conv]
        if self._ud_index is not None:
            cargs = [a if not a.startswith("_ud") else f"_ud{self._ud_index}" for a in cargs]
        outs = [c[3] for c in conv if c[3] is not None]
        # Evaluate every conversion with the GIL, into typed C locals; the call itself runs without it.
        for i, (p, a) in enumerate(zip(fn.params, list(cargs))):
            if a == p.name or a.startswith("&_") or a.startswith("_ud"):
                continue
            t = p.type if p.type.kind != "array" else ir.CType("pointer", pointee=p.type.pointee)
            t = ir.CType(**{**t.__dict__, "const": False})   # a local is assigned once: drop top-level const
            pre.append(f"cdef {self.cy(t, f'_a{i}')} = {a}")
            cargs[i] = f"_a{i}"
        res = types.resolve(fn.result)
        status_enum = self.spec.error_type
        status_resolved = types.resolve(ir.CType("typedef", status_enum)).name if status_enum else ""
        is_status = res.kind == "enum" and res.name in (status_enum, status_resolved)
        body = []
        if any("_keep" in l or "_keep" in a for l in pre for a in cargs) or any("_keep" in a for a in cargs):
            body.append("_keep = []")
        body += pre
        body += self.pointer_mode_guard(fn, cargs)
        call = f"_cl.{fn.name}({', '.join(cargs)})"
        if res.kind != "void":
            body.append(f"cdef {self.cy(fn.result, '_r')}")
        invoke = ["with nogil:", f"    {call if res.kind == 'void' else '_r = ' + call}"]
        cbname = self.spec.callbacks.get(fn.name, {}).get("callback")
        if cbname:
            # The C side owns one reference from here on: the trampoline drops it after a one-shot
            # call. If the call fails (an exception, or an error status) it is never called.
            i = next(i for i, p in enumerate(fn.params) if p.name == cbname)
            body += [f"if _cb{i} is not None:", f"    Py_INCREF(_cb{i})", "try:"]
            body += ["    " + l for l in invoke]
            body += ["except BaseException:", f"    if _cb{i} is not None:", f"        Py_DECREF(_cb{i})", "    raise"]
            if is_status:
                body += [f"if _r != 0 and _cb{i} is not None:", f"    Py_DECREF(_cb{i})"]
        else:
            body += invoke
        if fn.deprecated:
            body.insert(0, f"_deprecated({fn.deprecated!r})")
        success = f"{status_enum}.{self.spec.success}" if status_enum else "None"
        if is_status:
            first = "_status(_r)"
        elif res.kind == "void":
            first = None
        elif res.kind == "pointer" and types.resolve(res.pointee).kind == "builtin" and types.resolve(res.pointee).name == "char":
            first = None
            outs.insert(0, "(None if _r == NULL else <bytes>_r)")
        elif res.kind == "enum":
            first = None
            outs.insert(0, f"_enum.member({self.cls_of(res.name)}, _r)")
        elif res.kind == "record":
            first = None
            outs.insert(0, f"_s.record_copy({self.cls_of(res.name)}, &_r)")
        elif res.kind == "pointer":
            first = None
            outs.insert(0, "_p.wrap(Pointer, <void*>_r)")
        else:
            first = None
            outs.insert(0, "_r")
        items = ([first] if first else [success]) + outs
        body.append(f"return ({', '.join(items)},)")
        doc = common.docstring(fn.comment)
        head = f"def {fn.name}({', '.join(sig)}):"
        lines = [head]
        if doc:
            lines.append(f'    """{doc}\n    """')
        lines += ["    " + l for l in body]
        return "\n".join(lines)


def emit(module: ir.Module, spec: Spec, types: TypeIndex, all_specs: dict) -> str:
    fe = FunctionEmitter(spec, types, module, all_specs)
    out = [common.banner(spec, module),
           "# cython: language_level=3, binding=False, embedsignature=True",
           f'"""{spec.doc or spec.library}: Python bindings (HIP Python compatible).',
           "",
           "Every function returns a tuple: the status first, then the outputs.",
           f'`hip.check(result)` returns the outputs or raises hip.HipError."""',
           "from libc.stdint cimport *",
           "from libc.stddef cimport wchar_t",
           "from cpython.ref cimport Py_INCREF, Py_DECREF",
           f"from hip cimport {spec.cimport_module} as _cl"]
    for dep in spec.depends:
        out.append(f"from hip cimport {all_specs[dep].cimport_module} as {common.dep_alias(dep)}")
        out.append(f"from hip import {all_specs[dep].python_module} as _{dep}")
    out += ["from hip cimport _pointer as _p", "from hip cimport _struct as _s",
            "from hip._pointer cimport Pointer, DevicePointer, Handle",
            "from hip import _enum, _struct, _callbacks, errors as _errors",
            "from hip._enum import Enum",
            "from hip._callbacks import callback_context as _callback_context, unraisable as _unraisable",
            "from hip._callbacks import deprecated as _deprecated",
            "", f"__rocm_version__ = {module.rocm_version!r}",
            f"from hip.{spec.cimport_module} import library as _library", "",
            "def has_symbol(name):",
            '    """Whether the library (loaded on first use) exports `name`."""',
            "    return _library.has_symbol(name)", ""]
    # Enums
    out.append("# -- enums " + "-" * 60)
    for e in module.enums:
        if e.anonymous:
            for k in e.constants:
                out.append(f"{k.name} = {k.value}")
            continue
        pairs = " ".join(f"{k.name} {k.value}" for k in e.constants)
        doc = common.docstring(e.comment, 600)
        out.append(f'{e.name} = _enum.define({e.name!r}, {pairs!r}, __name__, """{doc}""")')
    # Handles
    out.append("\n# -- opaque handles " + "-" * 50)
    handle_names = {}
    for td in module.typedefs:
        if types.is_handle(ir.CType("typedef", td.name)):
            cls = records.handle_class(td.name, types)
            if cls not in handle_names.values() and types.owner.get(cls, spec.library) in (spec.library,) \
                    and not (cls in types.records and types.records[cls].size >= 0):
                out.append(f"class {cls}(Handle):\n    \"\"\"Opaque handle `{td.name}`.\"\"\"\n    __slots__ = ()")
            elif cls in types.records and types.records[cls].size >= 0:
                cls = td.name   # pointer to a defined struct: a plain handle class named after the typedef
                out.append(f"class {cls}(Handle):\n    \"\"\"Handle `{td.name}`.\"\"\"\n    __slots__ = ()")
            handle_names[td.name] = cls
            if cls != td.name:
                out.append(f"{td.name} = {cls}")
    # Structs
    c_layout, recs = records.emit(module, types, spec)
    out.append("\n# -- structs and unions " + "-" * 46)
    if c_layout:
        out.append('cdef extern from *:\n    """\n    #include <stddef.h>\n' + c_layout + '\n    """')
        for r, arr, cols, defaults in recs:
            out.append(f"    const size_t {arr}[{max(len(cols) * 2 + 1, 1)}]")
    owned = {r.name for r in module.records}
    for r, arr, cols, defaults in recs:
        cols = [_qualify_sub(c, fe) for c in cols]
        doc = common.docstring(r.comment, 800)
        table = "()" if not cols else "(\n    " + ",\n    ".join(cols) + (",)" if len(cols) == 1 else ")")
        out.append(f"{r.name} = _struct.define({r.name!r}, {arr}[0], {table}, __name__, \"\"\"{doc}\"\"\", {defaults!r})")
    # Opaque records without a handle typedef still get a class (used as pointer targets)
    for r in module.records:
        if r.size < 0 and r.name not in handle_names.values() and not r.name.startswith("_anon_"):
            out.append(f"class {r.name}(Handle):\n    __slots__ = ()")
    # Plain typedefs of records/enums/handles: aliases
    out.append("\n# -- typedef aliases " + "-" * 49)
    for td in module.typedefs:
        r = types.resolve(ir.CType("typedef", td.name))
        if td.name in handle_names:
            continue
        if r.kind in ("record", "enum") and r.name != td.name and r.name in types.owner \
                and (r.kind == "enum" or types.records[r.name].size >= 0 or r.name in owned):
            out.append(f"{td.name} = {fe.cls_of(r.name)}")
    # Macros
    out.append("\n# -- constants " + "-" * 55)
    for m in module.macros:
        out.append(f"{m.name} = {m.value!r}")
    # Status helpers
    out.append("\n# -- functions " + "-" * 55)
    if spec.error_type:
        out += [f"cdef dict _status_members = {spec.error_type}._value2member_",
                "cdef object _status(int v):",
                "    m = _status_members.get(v)",
                f"    return m if m is not None else _enum.member({spec.error_type}, v)", ""]
    out += ["cdef _device_pointer(void* p, size_t n):",
            "    cdef DevicePointer d = DevicePointer.__new__(DevicePointer)",
            "    d._ptr = p",
            "    d.nbytes = n",
            "    return d", ""]
    funcs = [fe.function(f) for f in common.bound_functions(module)]
    out += list(fe.trampolines.values())
    # Addresses of the trampolines, by callback type: lets tests drive them as the runtime would.
    out.append("_callback_trampolines = {" + ", ".join(
        f"{n[len('_tramp_'):]!r}: <size_t>{n}" for n in fe.trampolines) + "}")
    out.append("")
    out += [f + "\n" for f in funcs]
    # The spec names the function; the headers decide whether it exists (hipSPARSE < 6 has none).
    if spec.error_string in {f.name for f in common.bound_functions(module)}:
        out += ["def _describe(status):",
                f"    s = {spec.error_string}(status)[1]",
                "    return s.decode(errors='replace') if s else None",
                f"_errors.register_describer({spec.error_type}, _describe)", ""]
    out.append("# -- #define aliases (hipGetDeviceProperties -> hipGetDevicePropertiesR0600) " + "-" * 10)
    for a, t in module.aliases.items():
        if t in types.owner:
            target = fe.cls_of(t)
        elif t in types.enumerators:   # #define HIPRTC_JIT_X hipJitOptionX: the member (or constant)
            e = types.enumerators[t]
            target = fe.py(types.owner[e.name], t if e.anonymous else f"{e.name}.{t}")
        else:
            target = t
        out.append(f"{a} = {target}")
    return "\n".join(out) + "\n"


def _qualify_sub(col: str, fe: FunctionEmitter) -> str:
    """Replace the bare sub-type name in a layout row by its Python reference."""
    # col is "(name, off, kind, size, count, SUB, bitoff, bitw)"; SUB is None or a bare name
    parts = col[1:-1].split(", ")
    sub = parts[5]
    if sub != "None":
        parts[5] = fe.cls_of(sub) if sub in fe.types.owner else sub
    return "(" + ", ".join(parts) + ")"

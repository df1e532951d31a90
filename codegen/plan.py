"""Analysis pass: how each bound function crosses between Python and C.

A ParamPlan says what the Python caller passes for one C parameter (if
anything), how that becomes the C argument, and what comes back through it; a
FunctionPlan adds what the call's result becomes. Every decision about a
parameter (its role, its conversion, its Python type) is made here, once:
emit/pylayer.py renders the plans as Cython, emit/stubs.py writes their Python
types. The conversions themselves are calls into the shared runtime
(hip/_pointer.pyx, hip/_struct.pyx), spelled as the .pyx spells them.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from . import ir
from .emit import common
from .spec import Spec
from .types import TypeIndex

# How a parameter crosses (ParamPlan.role):
#   out_array out_text out_typed out_struct out_handle out_string out_pointer out_enum out_number: the call
#     writes it; returned (out_typed: a void* whose type an attribute parameter selects)
#   inout_enum inout_number: the caller's value goes in, the call's comes back
#   ref: the caller's value, passed by address (not returned)
#   callback callback_data: a Python callable and the user data the C side hands back to it
#   number: `const T* alpha`, a Python number in a local or any pointer
#   string string_array packed kernel_params array: per the spec's shape
#   handle enum float int struct struct_pointer pointer funcptr: plain inputs, by C type
# Each role refuses the input C could not survive (docs/spec_format.rst, "Refusing bad input"):
#   handle, ref: a Pointer not destroyed, an int address, ctypes.c_void_p, or None where the spec
#     lists the type under nullable_handles (_p.handle_arg); a destroy call (spec `destroys`) marks
#     the object passed destroyed
#   handle, ref, struct, struct_pointer, and pointers to handles or structs: a struct or handle
#     object of another C type (_p.ctype_arg, its class's `_ctype_`: common.ctype_key)
#   string: never None unless the spec lists the parameter under nullable_args, never a NULL address;
#     only bytes/bytearray where the spec's conventions.strings is 'bytes' (cuda.bindings' `char*`)
#   out_text[n]: n < 1 is not called (C would terminate the empty buffer at [n-1]): the spec's
#     invalid-value status, or ValueError where the function returns none (ParamPlan.invalid)
#   struct_pointer: a Python buffer smaller than the struct (_s.record_ptr)
#   string_array[n], array[n]: the count agrees with the list given; pointer, array: a Python buffer
#     holds what C reads or writes through it (the element's size, times n) (_p.sized)
#   float: NaN and infinities refused where the spec's finite_floats says
# out_one: AMD's call form of a parity deviation (FunctionPlan.amd): one element, in 64 zeroed bytes
#   the binding owns, of an array C reads or fills, returned; its count above 1 is refused
ROLES = ("out_array", "out_text", "out_typed", "out_struct", "out_handle", "out_string", "out_pointer", "out_enum", "out_number",
         "inout_enum", "inout_number", "ref", "callback", "callback_data", "number", "string", "string_array",
         "packed", "kernel_params", "array", "handle", "enum", "float", "int", "struct", "struct_pointer",
         "pointer", "funcptr", "out_one")

_TYPECODES = {"char": "b", "signed char": "b", "unsigned char": "B", "short": "h", "unsigned short": "H",
              "int": "i", "unsigned int": "I", "long": "l", "unsigned long": "L", "long long": "q",
              "unsigned long long": "Q", "float": "f", "double": "d", "_Bool": "B",
              "size_t": "Q", "int8_t": "b", "uint8_t": "B", "int16_t": "h", "uint16_t": "H", "int32_t": "i",
              "uint32_t": "I", "int64_t": "q", "uint64_t": "Q", "intptr_t": "q", "uintptr_t": "Q"}


@dataclass
class ParamPlan:
    param: ir.Param
    index: int
    role: str                            # see ROLES
    arg: str                             # the C argument (a Cython expression)
    py: str | None = None                # the `def` parameter ('x', or 'double x' for a typed one); None: not passed
    pre: list[str] = field(default_factory=list)   # Cython run before the call, with the GIL, in parameter order
    local: bool = True                   # arg is bound to a typed local `_a<index>` before the call
    keep: bool = False                   # the conversion needs `_keep` (objects alive until the call returns)
    out: str | None = None               # the Python value returned through this parameter
    py_type: str = "Any"                 # stub annotation of the Python parameter
    out_type: str | None = None          # stub type of the returned value
    host_result: bool = False            # a result read back from host memory the binding owns
    post: list[str] = field(default_factory=list)  # Cython run after a successful call
    nullable: bool = False               # None (NULL) is a valid argument (handles, strings)
    finite: bool = False                 # a float refused when NaN or infinite
    refused: tuple = ()                  # enum: values refused before the call (spec unsupported_values)
    # (condition, status): conditions (Cython, after every conversion) under which the call is not
    # made and the result is that status (the spec's invalid-value status, invalid_value below)
    invalid: list[tuple[str, str]] = field(default_factory=list)

    def __post_init__(self):
        assert self.role in ROLES, self.role
        self.handle: str | None = None   # handle, ref: the handle type's name


@dataclass
class ResultPlan:
    kind: str                            # 'status' (the spec's error_type), 'void' or 'value'
    out: str | None = None               # 'value': the Python value of `_r`
    out_type: str | None = None          # 'value': its stub type


@dataclass
class Guard:
    """Refuse the call while the handle is in device pointer mode (spec `pointer_mode_guard`):
    the library would write the result to device memory, after the call, where the binding
    gave it a host local."""
    query: str                           # the function asking the handle's mode
    device: str                          # the device mode's enumerator
    mode: ir.CType                       # the mode's C type
    handle: int                          # index of the handle parameter


@dataclass
class FunctionPlan:
    fn: ir.Function
    params: list[ParamPlan]
    result: ResultPlan
    callback: ParamPlan | None = None    # a Python callable the C side holds a reference to
    guard: Guard | None = None
    # What stands first where the C result is no status: the success constant (hip, and void
    # results), or nothing ('value' results of the other libraries return (value, ...), as AMD's do).
    success: str | None = None
    status_type: str = "Any"             # stub type of the status
    # The classes the body names through their C-level accessors (PyxNames.body_cls, emit/lazy.py).
    class_refs: set[str] = field(default_factory=set)
    # AMD's HIP Python's call form too, where the spec's parity_deviations give one (amd_form): the
    # same call with the parameters AMD's form returns as `out_one`s; told apart by its arity.
    amd: "FunctionPlan | None" = None

    @property
    def keep(self) -> bool:
        return any(p.keep for p in self.params)

    @property
    def invalid(self) -> list[tuple[str, str]]:
        return [c for p in self.params for c in p.invalid]

    @property
    def post(self) -> list[str]:
        return [line for p in self.params for line in p.post]

    @property
    def returned(self) -> list[tuple[str, str]]:
        """The returned tuple: (Cython expression, stub type) per item."""
        if self.result.kind == "status":
            first = [("_status(_r)", self.status_type)]
        else:
            first = [] if self.success is None else [(self.success, self.status_type)]
            if self.result.kind == "value":
                first.append((self.result.out, self.result.out_type))
        return first + [(p.out, p.out_type) for p in self.params if p.out is not None]


def build(module: ir.Module, spec: Spec, types: TypeIndex, unsupported: frozenset = frozenset()) -> list[FunctionPlan]:
    """Plans of the bound functions, in header order. `unsupported`: functions that answer the
    not-supported status whatever they are given (the alias's unbridged ones): no argument
    makes them answer another status first."""
    planner = Planner(module, spec, types, unsupported)
    return [planner.function(f) for f in common.bound_functions(module)]


def invalid_value(spec: Spec) -> str:
    """The status of a call refused before C: the spec's invalid_value, for the alias its bridge's
    (bridge.status.invalid); '' where the library names none."""
    return spec.invalid_value or (spec.bridge.status.invalid if spec.bridge else "")


def typed_table_name(enum: str) -> str:
    """The module-level dict of an enum the spec's typed_values type: value -> (code, class)."""
    return f"_typed_{enum}"


def trampoline_name(t: ir.CType) -> str:
    """The C function that calls a Python callable with the signature of callback type t."""
    return f"_tramp_{t.name}"


class Planner:
    """Plans one library's functions from its IR (intent and shape set), spec and TypeIndex."""

    def __init__(self, module: ir.Module, spec: Spec, types: TypeIndex, unsupported: frozenset = frozenset()):
        self.module, self.spec, self.types, self.unsupported = module, spec, types, unsupported
        self.names = common.PyxNames(spec, types)
        self.typedef_names = {td.name for td in module.typedefs}

    # -- spelling helpers --------------------------------------------------------------------
    def cy(self, t: ir.CType, name: str = "") -> str:
        return self.names.cy(t, name)

    @property
    def lenient(self) -> int:
        """1 where integer and enum arguments take what cuda.bindings' do (conventions.integers)."""
        return int(self.spec.conventions.integers == "truncate")

    def address_value(self, x: str) -> str:
        """A handle or `void*` argument as the call takes it: where integers truncate
        (conventions.integers), a bool or float is the int it makes (cuda.bindings takes
        cudaMemcpy(1.5, ...) and CUstream(True) as the addresses 1)."""
        return f"_p.int_if_number({x})" if self.lenient else x

    def int_conv(self, t: ir.CType, expr: str) -> str:
        """Python object -> C integer of type t, through the shared range-checked converters."""
        unsigned = self.types.is_unsigned(t)
        ct = self.cy(ir.CType(**{**t.__dict__, "const": False}))
        return f"<{ct}>_p.as_{'unsigned' if unsigned else 'signed'}({expr}, sizeof({ct}), {self.lenient})"

    def typecode(self, t: ir.CType) -> str:
        """The array module typecode of a C element type ('' when it has none)."""
        r = self.types.resolve(t)
        if self.types.is_handle(t) or r.kind in ("pointer", "funcptr"):
            return "P"
        if r.kind == "enum":
            return "i"
        name = t.name if t.kind == "typedef" and t.name in _TYPECODES else r.name
        return _TYPECODES.get(name, "")

    def stub_type(self, t: ir.CType) -> str:
        """The Python type a value of C type t is given as (unqualified: stubs import every library)."""
        r, types = self.types.resolve(t), self.types
        if types.is_handle(t):
            return common.handle_class(t.name, types)
        if r.kind == "enum":
            return r.name
        if types.is_float(t):
            return "float"
        if types.is_numeric(t):
            return "int"
        if r.kind == "record":
            return r.name
        return "object"

    # -- a function ----------------------------------------------------------------------------
    def function(self, fn: ir.Function) -> FunctionPlan:
        self.names.body_refs = set()
        fp = self.plan_of(fn, [self.param(fn, p, i) for i, p in enumerate(fn.params)])
        amd = next((rx for k, rx in self.spec.amd_forms.items() if re.fullmatch(k, fn.name)), None)
        if amd is not None:
            fp.amd = self.plan_of(fn, [self.amd_output(fn, p, i) if amd.fullmatch(p.name) else self.param(fn, p, i)
                                       for i, p in enumerate(fn.params)])
        return fp

    def plan_of(self, fn: ir.Function, params: list[ParamPlan]) -> FunctionPlan:
        self.destroys(fn, params)
        callback = next((pp for pp in params if pp.role == "callback"), None)
        result = self.result(fn)
        spec = self.spec
        success = f"{spec.error_type}.{spec.success}" if spec.error_type else "None"
        if result.kind == "value" and not spec.value_result_with_success:
            success = None
        if result.kind == "void" and not spec.error_type and all(pp.out is None for pp in params):
            success = None   # nothing to return: None, as AMD's HIP Python returns (roctxMarkA)
        return FunctionPlan(fn, params, result, callback, self.guard(fn, params), success,
                            spec.error_type or "Any", self.names.body_refs)

    def result(self, fn: ir.Function) -> ResultPlan:
        types, t = self.types, fn.result
        res = types.resolve(t)
        if types.is_enum(t, self.spec.error_type):
            return ResultPlan("status")
        if res.kind == "void":
            return ResultPlan("void")
        if res.kind == "pointer" and self.is_char(res.pointee):   # a CStr (AMD's HIP Python), None for NULL
            if self.spec.conventions.string_results == "bytes":
                return ResultPlan("value", "(None if _r == NULL else <bytes>_r)", "bytes | None")
            return ResultPlan("value", "_p.cstr_result(_r)", "CStr | None")
        if res.kind == "enum":
            return ResultPlan("value", f"_enum.member({self.names.body_cls(res.name)}, _r)", res.name)
        if res.kind == "record":
            return ResultPlan("value", f"_s.record_copy({self.struct_cls(t)}, &_r)", res.name)
        if res.kind == "pointer":
            return ResultPlan("value", "_p.wrap(Pointer, <void*>_r)", "Pointer")
        return ResultPlan("value", "_r", self.stub_type(t))

    def guard(self, fn: ir.Function, params: list[ParamPlan]) -> Guard | None:
        """A Guard where the spec's functions take the queried handle first and return a result
        through host memory."""
        g = self.spec.pointer_mode_guard
        if not g or fn.name == g["query"] or not re.search(g["functions"], fn.name) or not fn.params:
            return None
        query = next((f for f in self.module.functions if f.name == g["query"]), None)
        if query is None or fn.params[0].type.name != query.params[0].type.name:
            return None
        if not any(pp.host_result for pp in params):
            return None
        return Guard(g["query"], g["device"], self.types.resolve(query.params[1].type).pointee, 0)

    def destroys(self, fn: ir.Function, params: list[ParamPlan]) -> None:
        """A call the spec says frees a handle: after it succeeded, the object passed refuses further
        use. A rule naming its parameter may name a struct passed by value (comgr's handles are
        structs of one uint64_t)."""
        for rule in self.spec.destroys:
            if not rule.function.fullmatch(fn.name):
                continue
            for pp in params:
                named = rule.param is not None and rule.param.fullmatch(pp.param.name)
                if (pp.role in ("handle", "ref") and pp.handle and (rule.param is None or named)) \
                        or (pp.role == "struct" and named):
                    pp.post.append(f"_p.mark_destroyed({pp.param.name}, {fn.name!r})")
                    return
            return

    def what(self, fn: ir.Function, p: ir.Param) -> str:
        """How an error message names a parameter."""
        return repr(f"{fn.name}: {p.name}")

    def nullable_arg(self, fn: ir.Function, p: ir.Param) -> bool:
        return any(r.fullmatch(f"{fn.name}.{p.name}") for r in self.spec.nullable_args)

    def size_of(self, t: ir.CType) -> str | None:
        """`sizeof(T)` in Cython where T has a size a buffer can be checked against."""
        r = self.types.resolve(t)
        if r.kind in ("void", "funcptr") or r.kind == "record" and not self.defined_record(t):
            return None
        if r.kind == "builtin" and r.name in ("char", "signed char", "unsigned char"):
            return "1"
        return f"sizeof({self.cy(ir.CType(**{**t.__dict__, 'const': False}))})"

    def defined_record(self, t: ir.CType) -> bool:
        """A struct or union with a known layout (a wrapper class exists)."""
        r = self.types.resolve(t)
        return r.kind == "record" and r.name in self.types.records and self.types.records[r.name].size >= 0

    def struct_cls(self, t: ir.CType) -> str:
        """The class a struct of C type t the call fills is returned as: the typedef's where the
        spec gives each struct typedef a class (conventions.struct_typedefs, emit/pylayer.py), as
        cuda.bindings returns a CUDA_MEMCPY3D, else the record's."""
        r, types = self.types.resolve(t), self.types
        if self.spec.conventions.struct_typedefs == "subclass" and t.kind == "typedef" \
                and t.name != r.name and t.name in self.typedef_names and r.name in types.owner \
                and types.owner.get(t.name, self.spec.library) == types.owner[r.name] and not types.is_handle(t):
            return self.names.body_cls(t.name)
        return self.names.body_cls(r.name)

    def is_char(self, t: ir.CType) -> bool:
        r = self.types.resolve(t)
        return r.kind == "builtin" and r.name == "char"

    # -- a parameter ---------------------------------------------------------------------------
    def param(self, fn: ir.Function, p: ir.Param, i: int) -> ParamPlan:
        types, names, t = self.types, self.names, self.cy(p.type)
        r = types.resolve(p.type)
        v = f"_{i}"

        def plan(role, arg, **kw):
            return ParamPlan(p, i, role, arg, **kw)
        if p.intent == "out" and p.shape.startswith("array[") and r.kind == "pointer" \
                and types.resolve(r.pointee).kind == "pointer" and not types.is_handle(r.pointee):
            return self.borrowed_array(fn, p, i, t)
        if p.intent == "out" and p.shape.startswith("array[") and r.kind == "pointer":
            # An array the call fills, its length another argument: returned as a list.
            length = p.shape[len("array["):-1]
            # alternatives (`[numNodes|numRootNodes]`): the first the function has
            length = next((n for n in length.split("|") if any(q.name == n for q in fn.params)), length)
            target = r.pointee
            lp = next((q for q in fn.params if q.name == length), None)
            n = self.int_conv(lp.type, length) if lp is not None and types.is_numeric(lp.type) else length
            if self.defined_record(target):
                # Structs the call fills (cuGraphNodeGetDependencies' edgeData): one zeroed C array,
                # returned as a list of struct copies.
                cls = self.struct_cls(target)
                arg = f"<{t}>_p.waddr(_k{i})"
                if self.spec.conventions.empty_out_arrays == "null":
                    arg = f"(<{t}>NULL if not _k{i} else {arg})"
                return plan("out_array", arg, pre=[f"_k{i} = _s.record_array({cls}, max(0, {n}))"],
                            out=f"_s.record_items({cls}, _k{i})", out_type=f"list[{types.resolve(target).name}]")
            if types.is_handle(target):
                conv, value = f"_p.wrap({names.handle_cls(target)}, <void*><size_t>x)", self.stub_type(target)
            elif target.kind == "typedef" and target.name in self.spec.conventions.value_classes:
                # value objects, as a scalar of the type is returned (cuGLGetDevices' CUdevice list)
                conv, value = f"{names.cls_of(target.name)}(x)", target.name
            else:   # the array's numbers (addresses where the elements are pointers)
                conv = "x"
                value = "float" if types.is_float(target) else "int" if self.typecode(target) else self.stub_type(target)
            # The length converts (and is range-checked) as its C parameter would before anything
            # is allocated: `[0] * n` with an unchecked n is a MemoryError for 2**40, a TypeError
            # with a confusing message for None. A negative length gives an empty array (C rejects it).
            arg = f"<{t}>_p.waddr(_k{i})"
            if self.spec.conventions.empty_out_arrays == "null":   # 0 elements: the query form
                arg = f"(<{t}>NULL if not _k{i} else {arg})"
            return plan("out_array", arg,
                        pre=[f"_k{i} = _p.seq_arg([0] * max(0, {n}), {self.typecode(target)!r})"],
                        out=f"[{conv} for x in _k{i}]", out_type=f"list[{value}]")
        if p.intent == "out" and p.shape.startswith("text[") and r.kind == "pointer" and self.is_char(r.pointee):
            # A char buffer of `len` bytes the call fills with text (hipDeviceGetName): returned as a
            # CStr of the text (AMD's HIP Python).
            length = p.shape[len("text["):-1]
            # alternatives (`[length|len]`): the first the function has; a number: a fixed size
            # where C takes none (cuDeviceGetLuid's 8 bytes)
            length = next((n for n in length.split("|") if any(q.name == n for q in fn.params)), length)
            lp = next((q for q in fn.params if q.name == length), None)
            if not length.isdigit() and (lp is None or not types.is_numeric(lp.type)):
                raise ValueError(f"{fn.name}.{p.name}: text length {length!r} is not a numeric parameter")
            n = length if length.isdigit() else self.int_conv(lp.type, length)
            # _p.text_buffer: zeroed memory that is not touched until C writes it (calloc), so a
            # huge `len` costs address space, not the time to clear it (bytearray(2**31-1) took
            # longer than the fuzz's 20 s).
            if self.spec.conventions.text_results == "spaced":
                out = f"_p.text_spaced(_k{i})"
            elif self.spec.conventions.string_results == "bytes":
                out = f"bytes(_k{i})"
            else:
                out = f"_p.text_result(_k{i})"
            pp = plan("out_text", f"<{t}>_p.waddr(_k{i})", pre=[f"_k{i} = _p.text_buffer(max(0, {n}))"],
                      out=out, out_type="bytes" if self.spec.conventions.text_results != "" or
                      self.spec.conventions.string_results == "bytes" else "CStr")
            if not length.isdigit():   # C writes the NUL at name[len - 1], before an empty buffer
                self.refuse(fn, pp, f"{n} < 1", f"{length} < 1 leaves no room for the text's NUL")
            return pp
        if p.intent == "out" and p.shape.split("[")[0] == "typed" and r.kind == "pointer" \
                and types.resolve(r.pointee).kind in ("void", "pointer"):
            typed = self.typed(fn, p, i, t)
            if typed is not None:
                return typed
            p.shape = "scalar"   # no parameter of an enum the spec types: a plain void* result
        if p.intent == "out" and p.shape == "scalar" and r.kind == "pointer":
            target = r.pointee
            rt = types.resolve(target)
            if rt.kind == "record" and rt.name in types.records and types.records[rt.name].size >= 0:
                # A struct the call fills (ncclGetUniqueId): a fresh wrapper owns the memory.
                return plan("out_struct", f"<{t}>(<Pointer>_o{i})._ptr", pre=[f"_o{i} = {self.struct_cls(target)}()"],
                            out=f"_o{i}", out_type=rt.name, host_result=True)
            if types.is_handle(target):
                return plan("out_handle", f"&{v}", local=False, pre=[f"cdef {self.cy(target, v)} = NULL"],
                            out=f"_p.wrap({names.handle_cls(target)}, <void*>{v})", out_type=self.stub_type(target))
            if rt.kind == "pointer" and self.is_char(rt.pointee):   # const char** out: a C string
                return plan("out_string", f"<{t}>&{v}", pre=[f"cdef const char* {v} = NULL"],
                            out=f"(None if {v} == NULL else <bytes>{v})"
                            if self.spec.conventions.string_results == "bytes" else f"_p.cstr_result({v})",
                            out_type="CStr | None")
            if rt.kind == "pointer" and self.defined_record(rt.pointee):
                # The call points the caller's T* at a struct it owns (hipModuleGetTexRef): a view.
                cls = names.cls_of(types.resolve(rt.pointee).name)
                return plan("out_pointer", f"<{t}>&{v}", pre=[f"cdef void* {v} = NULL"],
                            out=f"(None if {v} == NULL else {cls}.from_ptr(<size_t>{v}))",
                            out_type=f"{types.resolve(rt.pointee).name} | None")
            if rt.kind == "pointer" or rt.kind == "void":
                size = self.spec.device_allocations.get(fn.name)
                if size:
                    host = fn.name in self.spec.host_accessible_allocations
                    out, value = f"_device_pointer({v}, {size}{', False' if host else ''})", "DevicePointer | None"
                elif self.spec.conventions.pointer_results == "int":
                    out, value = f"<size_t>{v}", "int"
                else:
                    out, value = f"_p.wrap(Pointer, {v})", "Pointer"
                return plan("out_pointer", f"<{t}>&{v}", pre=[f"cdef void* {v} = NULL"], out=out, out_type=value)
            if rt.kind == "enum":
                return plan("out_enum", f"&{v}", local=False, pre=[f"cdef {self.cy(target, v)}"],
                            out=f"_enum.member({names.body_cls(rt.name)}, {v})", out_type=rt.name)
            if types.is_numeric(target):
                if target.kind == "typedef" and target.name in self.spec.conventions.value_classes:
                    return plan("out_number", f"&{v}", local=False, pre=[f"cdef {self.cy(target, v)} = 0"],
                                out=f"{names.cls_of(target.name)}({v})", out_type=target.name, host_result=True)
                return plan("out_number", f"&{v}", local=False, pre=[f"cdef {self.cy(target, v)} = 0"], out=v,
                            out_type=self.stub_type(target), host_result=True)
        if p.intent == "in" and p.shape == "typed" and r.kind == "pointer":
            typed = self.typed_input(fn, p, i, t)
            if typed is not None:
                return typed
        if p.intent == "inout" and p.shape == "scalar" and r.kind == "pointer":
            target, rt = r.pointee, types.resolve(r.pointee)
            if rt.kind == "enum":
                cls = names.body_cls(rt.name)
                return plan("inout_enum", f"&{v}", py=p.name, local=False,
                            pre=[f"cdef {self.cy(target, v)} = <{self.cy(target)}>_p.enum_arg({cls}, {p.name}, {self.lenient})"],
                            out=f"_enum.member({cls}, {v})", py_type=rt.name, out_type=rt.name)
            if types.is_numeric(target):
                conv = p.name if types.is_float(target) else self.int_conv(target, p.name)
                default = next((d for rx, d in self.spec.conventions.defaults.items()
                                if re.fullmatch(rx, f"{fn.name}.{p.name}")), None)
                arg, out, out_type = f"&{v}", v, self.stub_type(target)
                pre = [f"cdef {self.cy(target, v)} = {conv}"]
                if target.kind == "typedef" and target.name in self.spec.conventions.value_classes:
                    # cuda.bindings' Optional value object (cuLogsDumpToFile's CUlogIterator): None
                    # is NULL (and comes back), else its value goes in and a new object comes back
                    arg, out, out_type = f"(NULL if {p.name} is None else &{v})", \
                        f"(None if {p.name} is None else {names.cls_of(target.name)}({v}))", f"{target.name} | None"
                    pre = [f"cdef {self.cy(target, v)} = 0 if {p.name} is None else {conv}"]
                return plan("inout_number", arg, py=p.name if default is None else f"{p.name}={default}",
                            local=False, pre=pre, out=out, py_type=self.stub_type(target),
                            out_type=out_type, host_result=True)
        if p.intent == "in" and p.shape == "ref" and r.kind == "pointer":
            # The value is the caller's; C takes its address (hiprtcDestroyProgram(&prog)).
            target = r.pointee
            if types.is_handle(target):
                nullable = target.name in types.nullable
                pp = plan("ref", f"&{v}", py=p.name, local=False, nullable=nullable, pre=[
                    f"cdef {self.cy(target, v)} = <{self.cy(target)}>_p.handle_arg(_p.ref_target({p.name}), "
                    f"{nullable}, {self.what(fn, p)}{self.ctype_arg(target)})"])
                pp.handle = target.name
                return pp
            if types.resolve(target).kind == "void":
                # void* to a value of the caller's (an attribute's): a value object's storage, an
                # int in a local of 8 bytes, or any pointer (cuMemPoolSetAttribute's value).
                return plan("ref", f"_p.value_ref({p.name}, &{v})", py=p.name,
                            pre=[f"cdef unsigned long long {v} = 0"])
            if types.resolve(target).kind == "pointer":
                conv = f"<{self.cy(target)}>_p.addr({p.name})"
            elif types.is_numeric(target):
                conv = self.int_conv(target, p.name)
            else:
                conv = None
            if conv is not None:
                return plan("ref", f"&{v}", py=p.name, local=False, pre=[f"cdef {self.cy(target, v)} = {conv}"])
        if p.intent != "in":
            raise ValueError(f"{fn.name}.{p.name}: unsupported intent {p.intent} {p.shape} for {types.tclass(p.type)}")
        return self.input(fn, p, i)

    def input(self, fn: ir.Function, p: ir.Param, i: int) -> ParamPlan:
        types, names, t, x = self.types, self.names, self.cy(p.type), p.name
        r = types.resolve(p.type)
        cb = self.spec.callbacks.get(fn.name, {})

        def plan(role, arg, **kw):
            return ParamPlan(p, i, role, arg, **{"py": x, **kw})
        if x == cb.get("callback"):
            return plan("callback", f"<{t}>_f{i}", pre=self.callback(p, i, cb))
        if x == cb.get("data"):
            j = next((k for k, q in enumerate(fn.params) if q.name == cb.get("callback")), None)
            if j is None:
                raise ValueError(f"{self.spec.library}.yaml: callbacks: {fn.name} has no parameter {cb['callback']!r}")
            return plan("callback_data", f"_ud{j}", local=False)   # set by the callback's conversion
        if p.shape == "number" and r.kind == "pointer":
            return self.number(p, i)
        what = self.what(fn, p)
        if p.shape == "string":
            if self.spec.conventions.strings == "bytes":   # cuda.bindings' `char*`
                return plan("string", f"<{t}>_{i}", pre=[f"cdef const char* _{i} = _p.cstr_bytes({x}, _keep, {what})"],
                            keep=True)
            if self.nullable_arg(fn, p):
                return plan("string", f"<{t}>_{i}", pre=[f"cdef const char* _{i} = _p.cstr({x}, _keep)"], keep=True,
                            nullable=True)
            return plan("string", f"<{t}>_{i}", pre=[f"cdef const char* _{i} = _p.cstr_arg({x}, _keep, {what})"],
                        keep=True)
        if p.shape == "string_array":
            return plan("string_array", f"<{t}>_p.addr(_k{i})", pre=[f"_k{i} = _p.as_string_array({x})"])
        if p.shape.startswith("string_array["):
            length = self.length_param(fn, p, p.shape[len("string_array["):-1]).name
            return plan("string_array", f"<{t}>_p.addr(_k{i})", pre=[f"_k{i} = _p.string_array_arg({x}, {length}, {what})"])
        if p.shape == "packed":
            return plan("packed", f"<{t}>_ka.kernel_extra({x}, _keep)", keep=True)
        if p.shape == "kernel_params":
            # hip/_kernel_args.pyx, the one packer: how an int without a C type reads is the rule
            rule = "INT_CTYPES" if self.spec.conventions.kernel_params == "cuda" else "INT_ADDRESS"
            return plan("kernel_params", f"<{t}>_p.addr(_k{i})", pre=[f"_k{i} = _ka.kernel_params({x}, _ka.{rule})"])
        if p.shape.startswith("array[") and r.kind == "pointer" and self.defined_record(r.pointee) \
                and self.spec.conventions.struct_lists == "packed":
            # n structs C reads (cuDevResourceGenerateDesc's resources): a list of at least n, packed
            cls = names.cls_of(types.resolve(r.pointee).name)
            length = self.length_param(fn, p, p.shape[len("array["):-1]).name
            return plan("struct_pointer", f"<{t}>_s.record_ptr({cls}, _k{i})",
                        pre=self.length_check(fn, p, length) + [f"_k{i} = _s.record_list({cls}, {x})"])
        if p.shape.split("[")[0] == "array" and r.kind == "pointer":
            code = self.typecode(r.pointee)
            writable = not r.pointee.const
            conv = "_p.addr" if r.pointee.const else "_p.waddr"
            # "in array[n]": C reads n elements; a shorter list or array would be read past its end.
            length = None if p.shape == "array" else self.length_param(fn, p, p.shape[len("array["):-1]).name
            check = [] if length is None else self.length_check(fn, p, length)
            size = self.size_of(r.pointee)
            k = f"_k{i}" if code else x
            if size is not None and length is not None:
                # A buffer (NumPy, bytearray) holds n elements' bytes: its len() counts bytes or
                # elements of another size.
                arg = f"<{t}>_p.sized({k}, {size} * max(0, {length}), {writable}, {what})"
            elif size is not None and writable:   # C writes at least one element
                arg = f"<{t}>_p.sized({k}, {size}, True, {what})"
            else:
                arg = f"<{t}>{conv}({k})"
            nullable = self.nullable_arg(fn, p)
            check += self.ctype_check(fn, p, r.pointee)
            if not code:
                return plan("array", arg, pre=check, nullable=nullable)
            # A list given for memory the call may write gets the values back (C wrote into a
            # packed copy): `hipblasSdot(..., result=[0.0])` is not silently lost.
            post = [] if r.pointee.const else [f"_p.write_back({x}, _k{i})"]
            return plan("array", arg, pre=check + [f"_k{i} = _p.seq_arg({x}, {code!r})"], post=post,
                        nullable=nullable)
        if types.is_handle(p.type):
            # an unsupported function reads no argument: NULL is as good as any handle there
            nullable = p.type.name in types.nullable or fn.name in self.unsupported
            status = self.spec.bridge.status.null_handle if self.spec.bridge else ""
            if p.type.name not in types.nullable and status and self.types.is_enum(fn.result, self.spec.error_type):
                # cuda.bindings hands a NULL handle to C, which answers with an error status
                # (cuFuncGetName(0): CUDA_ERROR_INVALID_VALUE): that status, without calling HIP,
                # which may not check for NULL; an unsupported function checks it first too, as
                # CUDA's check their arguments before anything else (cuKernelGetName(0))
                pp = plan("handle", f"<{t}>_p.handle_arg({self.address_value(x)}, True, {what}{self.ctype_arg(p.type)})",
                          invalid=[(f"_a{i} == NULL", status)])
            else:
                pp = plan("handle", f"<{t}>_p.handle_arg({self.address_value(x)}, {nullable}, {what}{self.ctype_arg(p.type)})",
                          nullable=nullable)
            pp.handle = p.type.name
            return pp
        if r.kind == "enum":
            bad = [k for k in types.enums[r.name].constants if k.name in self.spec.unsupported_values] \
                if r.name in types.enums else []
            pre = []
            for k in bad:   # a value the library declares but fails on (spec unsupported_values)
                pre += [f"if {x} is not None and type({x}) is not bool and {x} == {k.value}:",
                        f"    raise ValueError({what} + {': ' + k.name + ' is not supported: ' + self.spec.unsupported_values[k.name]!r})"]
            return plan("enum", f"<{t}>_p.enum_arg({names.body_cls(r.name)}, {x}, {self.lenient})", py_type=r.name, pre=pre,
                        refused=tuple(k.value for k in bad))
        if types.is_float(p.type):   # a typed `def` parameter: Cython converts
            rule = self.spec.finite_floats
            if rule is not None and rule.fullmatch(f"{fn.name}.{x}"):
                return plan("float", f"_p.finite({x}, {what})", py=f"{t} {x}", py_type="float", finite=True)
            return plan("float", x, py=f"{t} {x}", local=False, py_type="float")
        if types.is_numeric(p.type):   # __index__ semantics: a float is a TypeError, not truncated
            return plan("int", self.int_conv(p.type, x), py_type="int")
        if r.kind == "record":
            return plan("struct", f"(<{t}*>(<Pointer>_k{i})._ptr)[0]",
                        pre=[f"_k{i} = _s.record_arg({names.cls_of(r.name)}, {x})"])
        if r.kind == "funcptr" or r.kind == "pointer" and types.resolve(r.pointee).kind == "funcptr":
            # code, not data: a buffer given here would be jumped into (cuLaunchHostFunc(s, b'x', 0))
            return plan("funcptr", f"<{t}>_p.fn_addr({x}, {what})")
        if r.kind == "pointer":
            pr = types.resolve(r.pointee)
            if pr.kind == "record" and pr.name in types.records and types.records[pr.name].size >= 0:
                cls = names.cls_of(pr.name)
                if self.spec.conventions.struct_lists == "packed":
                    # cuda.bindings' `[desc, ...]` for `const CUmemAccessDesc* desc`: one C array
                    return plan("struct_pointer", f"<{t}>_s.record_ptr({cls}, _k{i})",
                                pre=[f"_k{i} = _s.record_list({cls}, {x})"])
                return plan("struct_pointer", f"<{t}>_s.record_ptr({cls}, {x})")
            if p.shape.startswith("buffer["):
                return self.sized_buffer(fn, p, i, t, what)
            if p.shape == "buffer":
                query = self.size_query(fn, p)
                if query is not None:   # the argument's type is checked before the query is made
                    # read_only_params: programs pass `b" " * size` (cuda.bindings writes into the bytes)
                    w = f"{fn.name}.{x}" not in self.spec.read_only_params
                    return plan("pointer", f"<{t}>_p.sized({x}, _n{i}, {w}, {what})",
                                pre=[f"_p.sized({x}, 0, {w}, {what})"] + query)
            size = self.size_of(r.pointee)
            if size is not None and pr.kind != "void" and not self.is_char(r.pointee):
                # One T the call reads, or writes when T* is not const (hipsparseCreateMatDescr's
                # storage for the descriptor): a smaller buffer would be overrun.
                pp = plan("pointer", f"<{t}>_p.sized({x}, {size}, {not r.pointee.const}, {what})",
                          pre=self.ctype_check(fn, p, r.pointee))
                if types.is_handle(r.pointee) and not r.pointee.const:   # h.createRef(): h holds a new handle
                    pp.post.append(f"_p.mark_created({x})")
                return pp
            # Memory behind a non-const pointer may be written: a read-only buffer (bytes) is refused.
            conv = "_p.addr" if r.pointee.const else "_p.waddr"
            if f"{fn.name}.{x}" in self.spec.read_only_params:   # C only reads it, whatever the header says
                conv = "_p.addr"
            return plan("pointer", f"<{t}>{conv}({self.address_value(x)})", pre=self.ctype_check(fn, p, r.pointee))
        raise ValueError(f"{fn.name}.{x}: no conversion for {types.tclass(p.type)}")

    def typed_table(self, t: ir.CType) -> str | None:
        """The module's table for an enum the spec's conventions.typed_values types (by its typedef
        name, CUpointer_attribute, or its own, CUpointer_attribute_enum), else None."""
        tv = self.spec.conventions.typed_values
        while t.kind == "pointer":
            t = t.pointee
        r = self.types.resolve(t)
        if r.kind != "enum":
            return None
        name = t.name if t.kind == "typedef" and t.name in tv else r.name if r.name in tv else None
        return None if name is None else typed_table_name(name)

    def typed(self, fn: ir.Function, p: ir.Param, i: int, t: str) -> ParamPlan | None:
        """`out typed[size]`: a `void*` the call writes a value into whose type the function's
        attribute parameter selects (cuda.bindings' cuPointerGetAttribute(attribute, ptr) returns a
        CUcontext for CU_POINTER_ATTRIBUTE_CONTEXT, a bool for ..._IS_MANAGED): returned as the
        spec's conventions.typed_values say. `void**` (cuPointerGetAttributes' data): one value per
        attribute of the list, a list returned. The size: the parameter named (the caller's
        dataSize, or list of dataSizes), else 64 bytes, which holds every typed value."""
        sel = next((q for q in fn.params if q is not p and self.typed_table(q.type)), None)
        if sel is None:
            return None
        table = self.typed_table(sel.type)
        size = p.shape[len("typed["):-1] if p.shape.startswith("typed[") else ""
        size = next((n for n in size.split("|") if any(q.name == n for q in fn.params)), size)
        if size and not any(q.name == size for q in fn.params):
            raise ValueError(f"{fn.name}.{p.name}: typed size {size!r} is not a parameter")
        plural = self.types.resolve(self.types.resolve(p.type).pointee).kind == "pointer"
        if plural:
            sr = self.types.resolve(sel.type)
            count = re.fullmatch(r"array\[(.+)\]", sel.shape)
            if sr.kind != "pointer" or not count:
                raise ValueError(f"{fn.name}.{p.name}: a list of typed values needs the attributes as "
                                 f"'in array[count]' ({sel.name} is {sel.intent} {sel.shape})")
            n = self.length_param(fn, sel, count.group(1)).name
            return ParamPlan(p, i, "out_typed", f"<{t}>_p.waddr(_k{i})",
                             pre=[f"_k{i} = _s.typed_buffers({sel.name}, {size or 'None'}, {n})"],
                             out=f"_s.typed_values({table}, {sel.name}, _k{i})", out_type="list[Any]",
                             host_result=True)
        sized = any(q.intent == "in" and q.shape == "typed" and self.types.is_numeric(self.types.resolve(q.type).pointee)
                    for q in fn.params if self.types.resolve(q.type).kind == "pointer")
        buf = f"_s.typed_out_buffer({table}, {sel.name})" if sized else f"_s.typed_buffer({size or 'None'})"
        return ParamPlan(p, i, "out_typed", f"<{t}>_p.waddr(_k{i})",
                         pre=[f"_k{i} = {buf}"],
                         out=f"_s.typed_value({table}, {sel.name}, _k{i})", out_type="Any", host_result=True)

    def typed_input(self, fn: ir.Function, p: ir.Param, i: int, t: str) -> ParamPlan | None:
        """`in typed`: the caller's value in a `void*` typed as the attribute parameter's rule says
        (conventions.typed_values: cuda.bindings' cuCoredumpSetAttribute(attrib, value) takes a flag
        or bytes by attrib), or, on a `size_t*`, that value's size, which the caller does not pass
        (a typed output's: its buffer's). None where no parameter's enum is typed."""
        sel = next((q for q in fn.params if q is not p and self.typed_table(q.type)), None)
        if sel is None:
            return None
        table = self.typed_table(sel.type)
        pointee = self.types.resolve(self.types.resolve(p.type).pointee)
        if pointee.kind == "void":
            return ParamPlan(p, i, "ref", f"<{t}>_p.addr(_k{i})", py=p.name,
                             pre=[f"_k{i} = _s.typed_in_buffer({table}, {sel.name}, {p.name})"])
        j = next((k for k, q in enumerate(fn.params) if q.shape.split("[")[0] == "typed"
                  and self.types.resolve(self.types.resolve(q.type).pointee).kind == "void"), None)
        if j is None or not self.types.is_numeric(self.types.resolve(p.type).pointee):
            raise ValueError(f"{fn.name}.{p.name}: 'in typed' is a typed value or the size of one")
        return ParamPlan(p, i, "ref", f"&_{i}", local=False, pre=[f"cdef size_t _{i} = _s.typed_size(_k{j})"])

    def sized_buffer(self, fn: ir.Function, p: ir.Param, i: int, t: str, what: str) -> ParamPlan:
        """`buffer[n]`: a char buffer C writes up to n bytes into, n a length parameter
        (hipGraphInstantiate's pLogBuffer[bufferSize]) or a number the spec states where C takes
        no size (hipsparseGetGitRevision's rev): a Python buffer holding fewer bytes is refused,
        and None unless the spec's nullable_args allow it (C would write through NULL)."""
        n, x = p.shape[len("buffer["):-1], p.name
        nullable = self.nullable_arg(fn, p)
        # a const buffer (miopenLoadSolution's data), or one the spec's read_only_params name, is
        # only read: bytes are taken
        writable = not self.types.resolve(p.type).pointee.const and f"{fn.name}.{x}" not in self.spec.read_only_params
        if n.isdigit():
            size, pre, null = n, [], f"{x} is None"
        else:
            lp = self.length_param(fn, p, n)
            lt = self.count_type(lp)
            n, size = lp.name, f"_b{i}"
            pre = [f"_b{i} = {self.int_conv(lt, lp.name)}"]
            if not self.types.is_unsigned(lt):
                pre += [f"if _b{i} < 0:", f"    raise ValueError(f\"{fn.name}: {n}={{{n}}} is negative\")"]
            null = f"{x} is None and _b{i} > 0"
        verb = "writes" if writable else "reads"
        if not nullable:
            pre += [f"if {null}:",
                    f"    raise ValueError({f'{fn.name}: {x} is None (NULL), the call {verb} {n} bytes'!r})"]
        return ParamPlan(p, i, "pointer", f"<{t}>_p.sized({x}, {size}, {writable}, {what})", py=x, pre=pre,
                         nullable=nullable)

    def size_query(self, fn: ir.Function, p: ir.Param) -> list[str] | None:
        """A buffer the call fills with as many bytes as another function of the library reports
        (spec buffer_size_queries: hiprtcGetCode's code, hiprtcGetCodeSize(prog)): lines setting
        `_n<i>` to that size (0 when the query fails: the call fails alike)."""
        for pattern, template in self.spec.buffer_size_queries.items():
            if re.fullmatch(pattern, fn.name):
                query = re.sub(pattern, template, fn.name)
                q = next((f for f in self.module.functions if f.name == query), None)
                if q is None:
                    return None
                args = [a.name for a in fn.params if a is not p]
                if [a.name for a in q.params[:len(args)]] != args:
                    raise ValueError(f"{self.spec.library}.yaml: buffer_size_queries: {query} does not take "
                                     f"{fn.name}'s parameters {args} first")
                i = fn.params.index(p)
                return [f"_q{i} = {query}({', '.join(args)})",
                        f"_n{i} = _q{i}[-1] if _q{i}[0] == 0 else 0"]
        return None

    def refuse(self, fn: ir.Function, pp: ParamPlan, cond: str, why: str) -> None:
        """Make no call when `cond` holds: the invalid-value status where the function returns a
        status and the spec names one (as the library would answer), else a ValueError."""
        if invalid_value(self.spec) and self.types.is_enum(fn.result, self.spec.error_type):
            pp.invalid.append((cond, invalid_value(self.spec)))
        else:
            pp.pre += [f"if {cond}:", f"    raise ValueError({f'{fn.name}: {why}'!r})"]

    def borrowed_array(self, fn: ir.Function, p: ir.Param, i: int, t: str) -> ParamPlan:
        """`out array[n]` through a `T**`: the call points the caller's pointer at an array of its
        own (cuStreamGetCaptureInfo's dependencies_out), n elements, n an output count of the same
        call: returned as a list (handles, struct copies), as cuda.bindings does. A pointer left
        NULL (no data, as HIP's capture has no edge data) reads as n zeroed structs, or no handles."""
        types, names = self.types, self.names
        target = types.resolve(types.resolve(p.type).pointee).pointee
        length = p.shape[len("array["):-1]
        j, lp = next(((k, q) for k, q in enumerate(fn.params) if q.name in length.split("|")), (None, None))
        if lp is None or not (types.resolve(lp.type).kind == "pointer" and lp.intent == "out"
                              and types.is_numeric(types.resolve(lp.type).pointee)):
            raise ValueError(f"{fn.name}.{p.name}: length {length!r} is not an output count of the call")
        v, n = f"_{i}", f"_{j}"
        if self.defined_record(target):
            cls = self.struct_cls(target)
            out = (f"([_s.record_copy({cls}, <char*>{v} + <size_t>_x * {self.size_of(target)}) for _x in range({n})] "
                   f"if {v} != NULL else [{cls}() for _x in range({n})])")
            out_type = f"list[{types.resolve(target).name}]"
        elif types.is_handle(target):
            out = f"([_p.wrap({names.handle_cls(target)}, (<void**>{v})[<size_t>_x]) for _x in range({n})] if {v} != NULL else [])"
            out_type = f"list[{self.stub_type(target)}]"
        else:
            raise ValueError(f"{fn.name}.{p.name}: an array CUDA owns of {types.tclass(target)}: handles or structs only")
        return ParamPlan(p, i, "out_array", f"<{t}>&{v}", pre=[f"cdef void* {v} = NULL"], out=out, out_type=out_type)

    def amd_output(self, fn: ir.Function, p: ir.Param, i: int) -> ParamPlan:
        """A parameter AMD's form returns (spec parity_deviations' amd_form): one element of the
        array (or in-out value) C reads or fills, in 64 zeroed bytes the binding owns (a float[4]
        colour fits), returned as its type's outputs are; the array's count above 1 is refused
        (C would read or write past the one element)."""
        types, names = self.types, self.names
        r = types.resolve(p.type)
        if r.kind != "pointer":
            raise ValueError(f"{self.spec.library}.yaml: parity_deviations: amd_form names {fn.name}.{p.name}, "
                             f"which is no pointer")
        target = ir.CType(**{**r.pointee.__dict__, "const": False})
        rt = types.resolve(target)
        elem = f"(<{self.cy(ir.CType('pointer', pointee=target))}>(<Pointer>_k{i})._ptr)[0]"
        if types.is_handle(target):
            out = f"_p.wrap({names.handle_cls(target)}, <void*>{elem})"
        elif rt.kind == "enum":
            out = f"_enum.member({names.body_cls(rt.name)}, {elem})"
        elif types.is_numeric(target):
            out = elem
        elif rt.kind == "pointer":
            out = f"_p.wrap(Pointer, <void*>{elem})"
        else:
            raise ValueError(f"{fn.name}.{p.name}: AMD's form returns no {types.tclass(target)}")
        pre = [f"_k{i} = _s.typed_buffer(None)"]
        count = re.fullmatch(r"array\[(.+)\]", p.shape)
        if count:
            lp = self.length_param(fn, p, count.group(1))
            pre += [f"if {self.int_conv(self.count_type(lp), lp.name)} > 1:",
                    f"    raise ValueError(f\"{fn.name}: AMD's form has one {p.name}, {lp.name}={{{lp.name}}} "
                    f"needs a list (C's form)\")"]
        return ParamPlan(p, i, "out_one", f"<{self.cy(p.type)}>(<Pointer>_k{i})._ptr", pre=pre, out=out,
                         out_type="Pointer" if rt.kind == "pointer" and not types.is_handle(target) else self.stub_type(target))

    def ctype_key(self, t: ir.CType) -> str | None:
        """The C type a struct or handle object passed for `t` must stand for (common.ctype_key),
        None where any is taken: cuda.bindings converts any handle object through its int (its
        driver and runtime handles of one object have other struct tags: CUarray, cudaArray_t)."""
        return None if self.types.handle_classes == "typedef" else common.ctype_key(t, self.types)

    def ctype_arg(self, t: ir.CType) -> str:
        """handle_arg's last argument: the handle's C type, where it is checked."""
        key = self.ctype_key(t)
        return "" if key is None else f", {key!r}"

    def ctype_check(self, fn: ir.Function, p: ir.Param, pointee: ir.CType) -> list[str]:
        """A pointer to handles or structs: a struct or handle object of another C type is refused
        (C would read its memory as theirs); untyped pointers are the caller's word."""
        key = self.ctype_key(pointee)
        return [] if key is None else [f"_p.ctype_arg({p.name}, {key!r}, {self.what(fn, p)})"]

    def length_param(self, fn: ir.Function, p: ir.Param, length: str) -> ir.Param:
        """The numeric parameter a shape's `[n]` names (the first of `[a|b]` the function has): a
        number, or an `inout` one the call takes by pointer (comgr's `size_t* size`, amd-smi's
        `uint32_t* processor_count`: the room the caller gives in, what the call wrote out), which
        counts by the value passed (count_type)."""
        names = {q.name: q for q in fn.params}
        lp = next((names[n] for n in length.split("|") if n in names), None)
        if lp is not None and lp.intent == "inout" and self.types.is_numeric(self.count_type(lp)):
            return lp
        if lp is None or not self.types.is_numeric(lp.type):
            raise ValueError(f"{fn.name}.{p.name}: length {length!r} is not a numeric parameter")
        return lp

    def count_type(self, lp: ir.Param) -> ir.CType:
        """The C type of a length parameter's count: its own, or the pointee of an `inout` one."""
        r = self.types.resolve(lp.type)
        return r.pointee if lp.intent == "inout" and r.kind == "pointer" else lp.type

    def length_check(self, fn: ir.Function, p: ir.Param, length: str) -> list[str]:
        """Lines raising ValueError when a sized argument (list, tuple, NumPy array) has fewer
        elements than the length parameter says; pointers are the caller's word."""
        lp = self.length_param(fn, p, length)
        n, x = self.int_conv(self.count_type(lp), length), p.name
        lines = [f"if {n} < 0:",
                 f"    raise ValueError(f\"{fn.name}: {length}={{{length}}} is negative\")"]
        if not self.nullable_arg(fn, p):   # C reads or writes that many: NULL only where the spec says
            lines += [f"if {x} is None and {n} > 0:",
                      f"    raise ValueError(f\"{fn.name}: {x} is None, {length}={{{length}}} needs that many elements\")"]
        return lines + [
            f"if {x} is not None and hasattr({x}, '__len__') and len({x}) < {n}:",
            f"    raise ValueError(f\"{fn.name}: {x} has {{len({x})}} elements, {length}={{{length}}} needs that many\")"]

    def number(self, p: ir.Param, i: int) -> ParamPlan:
        """`const T* alpha`: a Python number stored in a local T, or any pointer (device pointer mode)."""
        types, t = self.types, self.cy(p.type)
        target = types.resolve(p.type).pointee
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
            return ParamPlan(p, i, "number", f"<{t}>_p.addr({p.name})", py=p.name)
        return ParamPlan(p, i, "number", f"<{t}>_p.number_arg({p.name}, &_n{i}, {kind}, {size})", py=p.name,
                         pre=[f"cdef {self.cy(local, f'_n{i}')}"])

    def callback(self, p: ir.Param, i: int, cb: dict) -> list[str]:
        """A Python callable goes through a trampoline with its context as the user data; anything
        else is taken as a C function pointer, the user data as a pointer."""
        x, data = p.name, cb["data"]
        return [f"cdef void* _ud{i}", f"cdef size_t _f{i}",
                f"_cb{i} = _callback_context({x}, {data}, {bool(cb.get('once'))})",
                f"if _cb{i} is None:",
                f"    _f{i} = <size_t>_p.addr({x})",
                f"    _ud{i} = _p.addr({data})",
                f"else:",
                f"    _f{i} = <size_t>{trampoline_name(p.type)}",
                f"    _ud{i} = <void*>_cb{i}"]

"""The generator's front end on one small synthetic header per C construct (tests/codegen/headers/*.h).

Each header is parsed with codegen.clang_parse.parse and walked with
codegen.ir_builder.Builder; the tests assert the IR. Offsets and sizes are
checked against gcc (a C program printing offsetof/sizeof), not against numbers
written here. Also: ParseError on broken headers, deterministic generation,
the IR's JSON dump, and the intent analysis over the real HIP spec.
"""
from __future__ import annotations

import copy
import dataclasses
import filecmp
import json
import os
import shutil

import pytest

from conftest import HEADERS, compile_and_run
from codegen import clang_parse, generate, intent, ir, spec as specmod
from codegen.ir_builder import Builder
from codegen.types import TypeIndex


def build(header: str) -> ir.Module:
    path = str(HEADERS / header)
    tu = clang_parse.parse(path, [str(HEADERS)], ["__HIP_PLATFORM_AMD__"])
    return Builder("synthetic", str(HEADERS), {header: "synthetic"}).build([tu], [header], "0.0.0", "c")


def by_name(items, name):
    found = [x for x in items if x.name == name]
    assert found, f"{name!r} not in {[x.name for x in items]}"
    assert len(found) == 1, f"{name!r} appears {len(found)} times"
    return found[0]


def c_layout(tmp_path, header: str, c_name: str, members: list[str]) -> tuple[int, dict[str, int]]:
    """(sizeof, {member: offsetof}) of a type declared in a synthetic header, from gcc."""
    lines = [f'printf("size %zu\\n", sizeof({c_name}));']
    lines += [f'printf("%s %zu\\n", "{m}", offsetof({c_name}, {m}));' for m in members]
    src = (f'#include <stdio.h>\n#include <stddef.h>\n#include "{HEADERS / header}"\n'
           "int main(void) {\n    " + "\n    ".join(lines) + "\n    return 0;\n}\n")
    out = dict(line.split() for line in compile_and_run(tmp_path, src).splitlines())
    return int(out.pop("size")), {k: int(v) for k, v in out.items()}


# -- enums --------------------------------------------------------------------------------------
def test_named_enum():
    m = build("named_enum.h")
    color = by_name(m.enums, "color")
    assert not color.anonymous
    assert color.c_name == "enum color"
    assert [(k.name, k.value) for k in color.constants] == [("RED", 0), ("GREEN", 5), ("BLUE", 6)]
    shade = by_name(m.enums, "shade")
    assert [(k.name, k.value) for k in shade.constants] == [("LIGHT", -1), ("DARK", 16)]
    assert shade.underlying == "int"                      # a negative enumerator forces a signed type
    td = by_name(m.typedefs, "shade_t")
    assert (td.type.kind, td.type.name) == ("enum", "shade")


def test_anonymous_enum():
    m = build("anonymous_enum.h")
    assert len(m.enums) == 1
    e = m.enums[0]
    assert e.anonymous is True
    assert e.c_name == ""
    assert {k.name: k.value for k in e.constants} == {"FLAG_A": 1, "FLAG_B": 8, "FLAG_C": 9}


# -- records ------------------------------------------------------------------------------------
def test_struct_with_nested_anonymous_union(tmp_path):
    m = build("nested_union.h")
    outer = by_name(m.records, "outer")
    assert outer.c_name == "struct outer" and not outer.anonymous
    assert [f.name for f in outer.fields] == ["kind", "u", "tail"]
    u_field = by_name(outer.fields, "u")
    assert u_field.type.kind == "record"
    union = by_name(m.records, u_field.type.name)
    assert union.name == "outer_u_union"                  # synthetic: parent, member, kind
    assert union.kind == "union" and union.anonymous and union.c_name == ""
    assert [f.name for f in union.fields] == ["i", "f", "d"]
    assert all(f.offset_bits == 0 for f in union.fields)

    size, offs = c_layout(tmp_path, "nested_union.h", "struct outer", ["kind", "u", "tail", "u.d"])
    assert outer.size == size
    assert {f.name: f.offset_bits // 8 for f in outer.fields} == {k: offs[k] for k in ("kind", "u", "tail")}
    assert union.size == 8


def test_c11_anonymous_member_fields_are_lifted(tmp_path):
    m = build("nested_union.h")
    lifted = by_name(m.records, "lifted")
    assert [f.name for f in lifted.fields] == ["a", "b", "c", "d"]
    size, offs = c_layout(tmp_path, "nested_union.h", "struct lifted", ["a", "b", "c", "d"])
    assert lifted.size == size
    assert {f.name: f.offset_bits // 8 for f in lifted.fields} == offs
    # no stray record for the lifted union
    assert [r.name for r in m.records if r.name.startswith("lifted")] == ["lifted"]


def test_typedef_of_anonymous_struct(tmp_path):
    m = build("typedef_anon_struct.h")
    rec = by_name(m.records, "pair_t")
    assert rec.c_name == "pair_t"                        # C spells it by the typedef name
    assert rec.kind == "struct"
    assert not [t for t in m.typedefs if t.name == "pair_t"]   # the record carries the name
    size, offs = c_layout(tmp_path, "typedef_anon_struct.h", "pair_t", ["first", "second"])
    assert rec.size == size
    assert {f.name: f.offset_bits // 8 for f in rec.fields} == offs


def test_bitfields(tmp_path):
    m = build("bitfields.h")
    rec = by_name(m.records, "flags")
    widths = {f.name: f.bit_width for f in rec.fields}
    assert widths == {"a": 1, "b": 3, "c": 28, "d": 4, "plain": -1}
    bits = {f.name: f.offset_bits for f in rec.fields}
    assert [bits[n] for n in "abc"] == [0, 1, 4]
    assert bits["d"] == 32                                # 1+3+28 fill the first unit
    size, offs = c_layout(tmp_path, "bitfields.h", "struct flags", ["plain"])
    assert rec.size == size and bits["plain"] // 8 == offs["plain"]


def test_fixed_arrays(tmp_path):
    m = build("arrays.h")
    rec = by_name(m.records, "arrays")
    v, name, mat = (by_name(rec.fields, n) for n in ("v", "name", "m"))
    assert (v.type.kind, v.type.count, v.type.pointee.name) == ("array", 4, "int")
    assert (name.type.kind, name.type.count, name.type.pointee.name) == ("array", 16, "char")
    assert (mat.type.kind, mat.type.count) == ("array", 2)
    assert (mat.type.pointee.kind, mat.type.pointee.count, mat.type.pointee.pointee.name) == ("array", 3, "float")
    size, offs = c_layout(tmp_path, "arrays.h", "struct arrays", ["v", "name", "m"])
    assert rec.size == size
    assert {f.name: f.offset_bits // 8 for f in rec.fields} == offs


def test_array_extents_as_spelled_and_cuda_style_fields(tmp_path):
    """An array field keeps its extent as the header spells it; the 'cuda' struct style leaves out
    one sized by an enum (cuda.bindings' CUlaunchAttribute has no `pad`) and gives a struct without
    unions its nested records' struct_defaults (cudaKernelNodeParams' dim3 members)."""
    from codegen.emit import records
    m = build("sized_arrays.h")
    recs = {r.name: r for r in m.records}
    ext = {f.name: f.extent for r in recs.values() for f in r.fields}
    assert ext["pad"] == "8 - sizeof ( attr_id_t )"
    assert ext["reserved"] == "64 - sizeof ( void * ) - sizeof ( unsigned int )"
    assert ext["m"] == "2 ] [ 3" and ext["id"] == "" and ext["count"] == ""
    assert recs["with_union"].lifted_union and not recs["plain"].lifted_union
    shutil.copy(os.path.join(specmod.SPEC_DIR, "defaults.yaml"), tmp_path / "defaults.yaml")
    text = ("library: tiny\npython_module: tiny\ncimport_module: ctiny\nheaders: [sized_arrays.h]\n"
            "owns: [sized_arrays.h]\nstruct_defaults: {dims: {x: 1, y: 1, z: 1}}\n")
    for style, kept, plain in (("", {"id", "pad", "value"}, None),
                               ("conventions: {struct_style: cuda}\n", {"id", "value"}, {"grid": {"x": 1, "y": 1, "z": 1}})):
        (tmp_path / "tiny.yaml").write_text(text + style)
        spec, types = specmod.load("tiny", str(tmp_path)), TypeIndex(m)
        assert {f.name for f in recs["attr"].fields if records.bound(f, spec, types)} == kept
        assert all(records.bound(f, spec, types) for f in recs["args"].fields)     # sizeof of no enum
        assert records.defaults(recs["plain"], types, spec) == plain
        assert records.defaults(recs["with_union"], types, spec) is None
        assert records.defaults(recs["dims"], types, spec) == {"x": 1, "y": 1, "z": 1}


def test_pointer_fields():
    m = build("pointers.h")
    rec = by_name(m.records, "node")
    t = {f.name: f.type for f in rec.fields}
    assert t["data"].kind == "pointer" and t["data"].pointee.kind == "void"
    assert t["label"].kind == "pointer" and t["label"].pointee.name == "char" and t["label"].pointee.const
    assert t["next"].kind == "pointer" and (t["next"].pointee.kind, t["next"].pointee.name) == ("record", "node")
    assert t["pp"].kind == "pointer" and t["pp"].pointee.kind == "pointer" and t["pp"].pointee.pointee.name == "int"
    assert [f.offset_bits for f in rec.fields] == [0, 64, 128, 192]


def test_opaque_handle_typedef():
    m = build("opaque_handle.h")
    foo = by_name(m.records, "foo")
    assert foo.size == -1 and foo.fields == []            # incomplete: opaque
    td = by_name(m.typedefs, "foo_t")
    assert td.type.kind == "pointer" and (td.type.pointee.kind, td.type.pointee.name) == ("record", "foo")
    assert TypeIndex(m).is_handle(ir.CType("typedef", "foo_t"))
    create = by_name(m.functions, "foo_create")
    p = create.params[0].type
    assert p.kind == "pointer" and (p.pointee.kind, p.pointee.name) == ("typedef", "foo_t")


def test_function_pointer_typedef_and_callback_parameter():
    m = build("callbacks.h")
    cb = by_name(m.typedefs, "cb_t").type
    assert cb.kind == "funcptr"
    assert cb.result.kind == "void"
    assert [(p.kind, p.name) for p in cb.params] == [("builtin", "int"), ("pointer", "")]
    reg = by_name(m.functions, "register_cb")
    assert [(p.name, p.type.kind, p.type.name) for p in reg.params] == \
        [("cb", "typedef", "cb_t"), ("user", "pointer", "")]
    raw = by_name(m.functions, "register_raw").params[0].type
    assert raw.kind == "funcptr" and raw.result.name == "int"
    assert [p.kind for p in raw.params] == ["pointer", "builtin"] and raw.params[1].name == "double"


def test_macros():
    m = build("macros.h")
    vals = {x.name: x.value for x in m.macros}
    assert vals["NUM"] == 42 and type(vals["NUM"]) is int
    assert vals["HEX"] == 16
    assert vals["SHIFTED"] == 16
    assert vals["REF"] == 43                               # refers to NUM
    assert vals["NAME"] == "hello"
    assert vals["RATIO"] == 1.5
    assert "TWICE" not in vals                             # function-like: not a constant


def test_deprecated_function():
    m = build("deprecated.h")
    assert by_name(m.functions, "old_fn").deprecated       # non-empty message
    assert by_name(m.functions, "new_fn").deprecated == ""


def test_keyword_named_parameters():
    m = build("keyword_params.h")
    fn = by_name(m.functions, "move_item")
    assert [p.name for p in fn.params] == ["from_", "to", "lambda_", "pass_"]


def test_define_aliases():
    m = build("aliases.h")
    assert m.aliases.get("alias_fn") == "real_fn"
    assert m.aliases.get("alias_t") == "real_t"
    assert "alias_fn" not in {x.name for x in m.macros}


def test_syntax_error_raises_parse_error():
    path = str(HEADERS / "syntax_error.h")
    with pytest.raises(clang_parse.ParseError) as ei:
        clang_parse.parse(path, [str(HEADERS)], [])
    msg = str(ei.value)
    assert "syntax_error.h" in msg                        # names the file
    assert ":2:" in msg or "syntax_error.h:2" in msg       # and the line of the error
    assert "error" in msg


def test_missing_header_raises_parse_error(tmp_path):
    with pytest.raises(clang_parse.ParseError):
        clang_parse.parse(str(tmp_path / "absent.h"), [], [])


# -- whole generator ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def generated_twice(include64, tmp_path_factory):
    a = tmp_path_factory.mktemp("gen_a")
    b = tmp_path_factory.mktemp("gen_b")
    wa = generate.generate_bindings(include64, ["hip", "hiprtc"], str(a), dump_ir=str(a / "ir"))
    wb = generate.generate_bindings(include64, ["hip", "hiprtc"], str(b), dump_ir=str(b / "ir"))
    return a, b, wa, wb


def _files(root):
    return sorted(os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs)


def test_generation_is_deterministic(generated_twice):
    a, b, wa, wb = generated_twice
    fa, fb = _files(a), _files(b)
    assert fa == fb
    assert {"hip.pyx", "chip.pxd", "chip.pyx", "hip.pyi", "hiprtc.pyx", "chiprtc.pxd",
            "_coverage/hip.json", "_coverage/hiprtc.json", "ir/hip.json"} <= set(fa)
    match, mismatch, errors = filecmp.cmpfiles(a, b, fa, shallow=False)
    assert mismatch == [] and errors == []
    assert [os.path.relpath(p, a) for p in wa] == [os.path.relpath(p, b) for p in wb]


def test_ir_json_dump_round_trips(generated_twice, include64):
    a = generated_twice[0]
    with open(a / "ir" / "hip.json") as f:
        dumped = json.load(f)
    all_specs = {n: specmod.load(n) for n in specmod.all_libraries()}
    module = generate.build_ir(all_specs["hip"], include64, all_specs)
    generate.analyse(module, all_specs["hip"], [])
    text = module.to_json()
    assert json.loads(text) == dataclasses.asdict(module)
    assert json.loads(text) == dumped                       # the --dump-ir file is the same IR
    names = {f["name"] for f in dumped["functions"]}
    assert "hipGetDeviceCount" in names and "hipMalloc" in names


# -- intent analysis ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def hip_ir(include64):
    all_specs = {n: specmod.load(n) for n in specmod.all_libraries()}
    spec = all_specs["hip"]
    module = generate.build_ir(spec, include64, all_specs)
    generate.analyse(module, spec, [])
    return module, spec, all_specs


def param(module, fn, name):
    return by_name(by_name(module.functions, fn).params, name)


def test_intent_out_scalars(hip_ir):
    m = hip_ir[0]
    assert (param(m, "hipGetDeviceCount", "count").intent, param(m, "hipGetDeviceCount", "count").shape) == ("out", "scalar")
    assert param(m, "hipMalloc", "ptr").intent == "out"
    assert param(m, "hipStreamCreate", "stream").intent == "out"


def test_intent_inputs(hip_ir):
    m = hip_ir[0]
    assert param(m, "hipMemcpy", "dst").intent == "in"
    assert param(m, "hipMemcpy", "src").intent == "in"
    kp = param(m, "hipModuleLaunchKernel", "kernelParams")
    assert (kp.intent, kp.shape) == ("in", "kernel_params")
    assert param(m, "hipLaunchKernel", "args").shape == "kernel_params"
    assert param(m, "hipModuleLaunchKernel", "extra").shape == "packed"
    assert param(m, "hipModuleLoad", "fname").shape == "string"


def test_intent_of_documented_inputs_and_arrays(hip_ir):
    """Parameters whose type alone misleads the default rules (the header's doc says otherwise).

    hipThreadExchangeStreamCaptureMode(hipStreamCaptureMode* mode): "[in] mode" - the new mode is
    read, the old one written back (an exchange), so the caller must be able to pass it.
    hipTexRefSetBorderColor(texRef, float* pBorderColor): "[in]" RGBA color, 4 floats read.
    hipTexRefGetBorderColor(float* pBorderColor, ...): "[out]" RGBA, 4 floats written: an
    out *scalar* hands C one float of stack for four (memory corruption).
    """
    m = hip_ir[0]
    mode = param(m, "hipThreadExchangeStreamCaptureMode", "mode")
    assert mode.intent == "inout", (mode.intent, mode.shape)
    color = param(m, "hipTexRefSetBorderColor", "pBorderColor")
    assert color.intent == "in", (color.intent, color.shape)
    got = param(m, "hipTexRefGetBorderColor", "pBorderColor")
    assert (got.intent, got.shape) != ("out", "scalar")


def test_intent_hiprtc_lowered_name_is_out(include64):
    all_specs = {n: specmod.load(n) for n in specmod.all_libraries()}
    hip_m = generate.build_ir(all_specs["hip"], include64, all_specs)
    generate.analyse(hip_m, all_specs["hip"], [])
    m = generate.build_ir(all_specs["hiprtc"], include64, all_specs)
    generate.analyse(m, all_specs["hiprtc"], [hip_m])
    assert param(m, "hiprtcCreateProgram", "prog").intent == "out"
    lowered = param(m, "hiprtcGetLoweredName", "lowered_name")   # const char** filled by the call
    assert lowered.intent == "out", (lowered.intent, lowered.shape)
    assert param(m, "hiprtcDestroyProgram", "prog").intent == "in"   # the caller's program


def test_intent_override_of_unknown_function_is_reported(hip_ir, include64):
    # Specs serve several ROCm versions, so an override may name a function these headers
    # lack (5.2 has no hipModuleLaunchCooperativeKernel); it must stay visible, not silent.
    _, spec, all_specs = hip_ir
    module = generate.build_ir(spec, include64, all_specs)
    bad = copy.deepcopy(spec)
    bad.overrides = {**spec.overrides, "hipNoSuchFunction": {"x": ("out", "scalar")}}
    assert intent.apply(module, bad, TypeIndex(module)) == ["hipNoSuchFunction"]
    assert intent.apply(module, spec, TypeIndex(module)) == []


def test_intent_override_of_unknown_parameter_raises(hip_ir, include64):
    _, spec, all_specs = hip_ir
    module = generate.build_ir(spec, include64, all_specs)
    bad = copy.deepcopy(spec)
    bad.overrides = {"hipGetDeviceCount": {"no_such_param": ("out", "scalar")}}
    with pytest.raises(ValueError, match="no_such_param"):
        intent.apply(module, bad, TypeIndex(module))


def test_tiny_spec_from_yaml(tmp_path):
    """A spec written from scratch for a synthetic header: rules decide the intents."""
    shutil.copy(os.path.join(specmod.SPEC_DIR, "defaults.yaml"), tmp_path / "defaults.yaml")
    (tmp_path / "tiny.yaml").write_text(
        "library: tiny\npython_module: tiny\ncimport_module: ctiny\n"
        "headers: [opaque_handle.h]\nowns: [opaque_handle.h]\n"
        "intent_overrides:\n  foo_destroy: {handle: in scalar}\n")
    spec = specmod.load("tiny", str(tmp_path))
    assert spec.library == "tiny" and spec.overrides == {"foo_destroy": {"handle": ("in", "scalar")}}
    m = build("opaque_handle.h")
    intent.apply(m, spec, TypeIndex(m))
    assert param(m, "foo_create", "out").intent == "out"   # ptr(handle) -> out scalar (defaults.yaml)
    assert param(m, "foo_destroy", "handle").intent == "in"
    with pytest.raises(ValueError, match="bad intent"):
        (tmp_path / "tiny.yaml").write_text(
            "library: tiny\npython_module: tiny\ncimport_module: ctiny\nheaders: [x.h]\nowns: [x.h]\n"
            "intent_overrides:\n  foo_destroy: {handle: sideways}\n")
        specmod.load("tiny", str(tmp_path))

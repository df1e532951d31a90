"""The build: find the ROCm headers (or fetch Debian's), generate the Cython sources, compile
them, and build the HIP-on-CUDA layer when CUDA is here. `pip install .`, `python -m build`
and ./build_pkgs.sh all run it.

Settings: environment variables, or `pip install . -C libs=hip,hiprtc` (build_support/backend.py):
  ROCM_PATH          (-C rocm-path=DIR)  ROCm installation whose include/ has the headers
  HIP_PYTHON_INCLUDE (-C include=DIR)    or the include dir itself (default: $ROCM_PATH/include,
                                         /opt/rocm/include, /usr/include, else Debian sid's fetched)
  HIP_PYTHON_LIBS    (-C libs=LIST)      libraries to build, comma list; '^x,y' excludes (default: every
                                         library whose headers are found, and `cuda`, the CUDA alias
                                         (hip_as_cuda/); 'none': only the shared runtime modules)
  HIP_PYTHON_CUDA_INCLUDE                CUDA headers the alias is generated from (default: a CUDA
                                         toolkit, else fetched from NVIDIA's PyPI wheels)
  HIP_PYTHON_JOBS    (-C jobs=N)         parallel jobs (default: the number of cores)
  HIP_PYTHON_NVIDIA  (-C nvidia=no)      'no' skips the HIP-on-CUDA layer even where CUDA is found
  HIP_PYTHON_OPT                         gcc's optimisation of the modules (default -O2; -O0 builds
                                         about twice as fast, for throwaway builds such as the tests')
Installing into an environment that has AMD's HIP Python (also the package `hip`) is refused;
HIP_PYTHON_IGNORE_OTHER_HIP=1 lets `pip wheel` build there anyway.
"""
import os
import sys

from setuptools import Command, Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from codegen import spec as specmod  # noqa: E402

DIST_NAME = "hip-bindings"
ALIAS = "cuda"                       # HIP_PYTHON_LIBS' name for the CUDA alias (hip_as_cuda/)
ALIAS_NEEDS = ("hip", "hiprtc")


def log(msg):
    print(f"hip-bindings build: {msg}", flush=True)


def selected_libraries() -> list[str]:
    """The libraries to build, in dependency order, `cuda` (the alias) last."""
    every = specmod.all_libraries() + [ALIAS]
    text = os.environ.get("HIP_PYTHON_LIBS", "").strip()
    if not text:
        return every
    if text == "none":   # the hand-written runtime modules alone
        return []
    names = [n for n in text.lstrip("^").split(",") if n]
    unknown = sorted(set(names) - set(every))
    if unknown:
        sys.exit(f"hip-bindings build: unknown libraries {unknown} in HIP_PYTHON_LIBS (have: {','.join(every)})")
    chosen = {l for l in every if (l in names) != text.startswith("^")}
    for lib in every[::-1]:   # dependency order: a library's Python module imports its dependencies'
        if lib in chosen:
            chosen.update(ALIAS_NEEDS if lib == ALIAS else specmod.load(lib).depends)
    return [l for l in every if l in chosen]


def jobs() -> int:
    return int(os.environ.get("HIP_PYTHON_JOBS") or 0) or os.cpu_count() or 1


class generate(Command):
    """Find (or fetch) the ROCm headers and write hip/*.pyx, *.pxd, *.pyi from them."""
    description = __doc__
    user_options = []

    def initialize_options(self):
        self.include = None
        self.libraries = None
        self.cuda_include = None

    def finalize_options(self):
        pass

    def run(self):
        from build_support import debian, rocm, target
        others = target.other_hip_packages(DIST_NAME)
        if others and os.environ.get("HIP_PYTHON_IGNORE_OTHER_HIP") != "1":
            sys.exit(f"hip-bindings build: this environment has {', '.join(others)}, which installs the "
                     f"package 'hip' too (AMD's HIP Python): the two would overwrite each other's files. "
                     f"Uninstall it first (pip uninstall {' '.join(others)}) or use another environment.")
        try:
            self.include = rocm.headers(os.environ.get("ROCM_PATH", ""), log=log,
                                        include=os.environ.get("HIP_PYTHON_INCLUDE", ""))
        except debian.FetchError as e:
            sys.exit(f"hip-bindings build: no ROCm headers installed and none could be fetched ({e}); "
                     "set ROCM_PATH to a ROCm installation")
        self.libraries = selected_libraries()
        if not self.libraries:   # 'none': the shared runtime modules alone; what is generated stays
            return
        from codegen.generate import available, generate_alias, generate_bindings, header_version
        have, missing = available(self.include)
        named = os.environ.get("HIP_PYTHON_LIBS", "").strip()
        if named and not named.startswith("^") and set(missing) & set(self.libraries):
            sys.exit(f"hip-bindings build: no headers in {self.include} for "
                     f"{','.join(l for l in missing if l in self.libraries)} (HIP_PYTHON_LIBS)")
        if set(missing) & set(self.libraries):   # every library: those this ROCm has
            log(f"no headers for {','.join(l for l in missing if l in self.libraries)} in {self.include}: left out")
            self.libraries = [l for l in self.libraries if l in have or l == ALIAS]
        log(f"ROCm {header_version(self.include)} headers: {self.include}; libraries: {','.join(self.libraries)}")
        # A library these headers lack must not be installed from an earlier build's leftovers (a
        # library merely not named this time keeps its report: its modules stay built in place).
        for lib in missing:
            p = os.path.join(HERE, "hip", "_coverage", f"{lib}.json")
            if os.path.exists(p):
                os.remove(p)
        written = generate_bindings(self.include, [l for l in self.libraries if l != ALIAS], os.path.join(HERE, "hip"))
        if ALIAS in self.libraries:
            from build_support import cuda
            self.cuda_include = cuda.alias_include(HERE, log) if all(l in self.libraries for l in ALIAS_NEEDS) else None
            alias_reports = os.path.join(HERE, "hip_as_cuda", "cuda", "bindings", "_coverage")
            for f in os.listdir(alias_reports) if os.path.isdir(alias_reports) else ():
                os.remove(os.path.join(alias_reports, f))   # regenerated below, or no alias at all
            if self.cuda_include is None:
                self.libraries.remove(ALIAS)
            else:
                written += generate_alias(self.cuda_include, self.include)
                log(f"the `cuda` alias: from the CUDA headers in {self.cuda_include}")
        log(f"generated {len(written)} files")


class generating_build_py(build_py):
    def run(self):
        self.run_command("generate")
        super().run()


# Cython puts each module's one-time initialisation (constants, enum and struct tables, creating
# hundreds of function objects) into a few huge functions marked CYTHON_SMALL_CODE. Optimising
# them made gcc spend 90% of hip.c's compile time in register allocation (157 s at -O1);
# at -O0 they compile in seconds, and per-call code keeps -O2. -fno-plt: calls into libpython
# (a cheap call makes ~5: the GIL, the result tuple) go through the GOT, not a PLT stub's jump.
OPT = os.environ.get("HIP_PYTHON_OPT", "-O2")
if OPT not in ("-O0", "-O1", "-O2", "-O3", "-Os"):
    sys.exit(f"hip-bindings build: HIP_PYTHON_OPT must be one of -O0 -O1 -O2 -O3 -Os, got {OPT!r}")
CFLAGS = [OPT, "-g0", "-fno-plt", "-Wno-unused-function", "-Wno-deprecated-declarations", "-Wno-unused-variable"]
SMALL_CODE = ("CYTHON_SMALL_CODE", '__attribute__((cold, optimize("O0")))')
# Hand-written modules that need no headers, built with every build (HIP_PYTHON_LIBS=none too):
# the runtime helpers, and hip.tensor's per-op hot path (its HIP functions come through _loader).
RUNTIME_MODULES = ("_loader", "_pointer", "_kernel_args", "_struct", "tensor._core.launch", "tensor._core._memory",
                   "tensor._core._array", "tensor._kernels._elementwise", "tensor._api._elementwise")
# Pointer's tp_new without Cython's vectorcall adapter: every handle a call returns is made through
# tp_new (hip._pointer.wrap), ~30 instructions a call less (callgrind, cuCtxGetCurrent, H200);
# Pointer(...) called from Python takes tp_new + tp_init instead.
RUNTIME_MACROS = {"_pointer": [("CYTHON_VECTORCALL_TPNEW", "0")]}
ALIAS_HAND_WRITTEN = ("cynvvm", "cynvjitlink")


def extensions(include: str | None, libraries: list[str], cuda_include: str | None = None) -> list[Extension]:
    exts = [Extension(f"hip.{m}", [f"hip/{m.replace('.', '/')}.pyx"], extra_compile_args=CFLAGS,
                      define_macros=[SMALL_CODE] + RUNTIME_MACROS.get(m, [])) for m in RUNTIME_MODULES]
    for lib in libraries:
        if lib == ALIAS:
            exts += alias_extensions(cuda_include)
            continue
        s = specmod.load(lib)
        for mod in (s.cimport_module, s.python_module):
            exts.append(Extension(f"hip.{mod}", [f"hip/{mod}.pyx"], include_dirs=([include] if include else []) + s.include_dirs,
                                  define_macros=[(d, None) for d in s.defines] + [SMALL_CODE],
                                  language=s.language,
                                  extra_compile_args=CFLAGS + (["-std=c++17"] if s.language == "c++" else [])))
    return exts


def alias_extensions(cuda_include: str | None) -> list[Extension]:
    """cuda.bindings.{cydriver,driver,...}: compiled from hip_as_cuda/cuda/bindings (the bridges'
    C beside them, CUDA's headers on the include path), installed into hip_as_cuda/cuda/bindings."""
    from codegen.alias.modules import SPEC_DIR
    exts = []
    for name in specmod.all_libraries(SPEC_DIR):
        s = specmod.load(name, SPEC_DIR)
        for mod in (s.cimport_module, s.python_module):
            # The cy module #includes its bridge: a changed bridge recompiles it.
            depends = [f"hip_as_cuda/cuda/bindings/_bridge_{name}.c"] if mod == s.cimport_module else []
            exts.append(Extension(f"cuda.bindings.{mod}", [f"hip_as_cuda/cuda/bindings/{mod}.pyx"],
                                  include_dirs=([cuda_include] if cuda_include else []) + ["hip_as_cuda/cuda/bindings"]
                                  + s.include_dirs,
                                  define_macros=[SMALL_CODE], extra_compile_args=CFLAGS, depends=depends))
    # Hand-written cy modules of libraries HIP has no header for (cuda.bindings' cynvvm, cynvjitlink).
    for mod in ALIAS_HAND_WRITTEN:
        exts.append(Extension(f"cuda.bindings.{mod}", [f"hip_as_cuda/cuda/bindings/{mod}.pyx"],
                              define_macros=[SMALL_CODE], extra_compile_args=CFLAGS))
    return exts


class generating_build_ext(build_ext):
    def get_ext_fullpath(self, ext_name):
        # The alias's modules live in hip_as_cuda/cuda/bindings, whether or not the `cuda`
        # package is installed too (cuda/bindings/__init__.py adds that folder to its path).
        # (setuptools builds an in-place build here too, then copies from build_lib/cuda/bindings.)
        if ext_name.startswith("cuda.") and not getattr(self, "_in_place", False):
            return os.path.join(self.build_lib, "hip_as_cuda", *ext_name.split(".")[:-1],
                                self.get_ext_filename(ext_name.split(".")[-1]))
        return super().get_ext_fullpath(ext_name)

    def finalize_options(self):
        super().finalize_options()
        if not self.parallel:
            self.parallel = jobs()

    def run(self):
        # Generation happens here, not in finalize_options: egg_info and sdist finalize build_ext
        # too (to list sources), and must not need the headers.
        self.run_command("generate")
        gen = self.get_finalized_command("generate")
        from Cython.Build import cythonize
        generated = cythonize(extensions(gen.include, gen.libraries, gen.cuda_include), language_level=3,
                              nthreads=jobs(), quiet=True, include_path=[os.path.join(HERE, "hip_as_cuda")],
                              compiler_directives={"binding": False, "embedsignature": True})
        self._in_place = bool(self.inplace or getattr(self, "editable_mode", False))
        by_name = {e.name: e for e in generated}
        self.extensions = [e for e in self.extensions if e.name in by_name]   # libraries left out
        for ext in self.extensions:   # setuptools keeps per-extension state: update, don't replace
            ext.sources, ext.include_dirs = by_name[ext.name].sources, by_name[ext.name].include_dirs
            ext.depends = by_name[ext.name].depends
        if getattr(self, "editable_mode", False):
            # pip's editable build uses fresh temporary dirs; ours persist so a rebuild compiles
            # only what changed.
            self.build_temp = os.path.join(HERE, "build", "temp")
            self.build_lib = os.path.join(HERE, "build", "lib")
        super().run()
        out = os.path.join(HERE if self.inplace else self.build_lib, "hip", "_nvidia")
        # An earlier build's layer of a library built now may not match it: that library's goes. The
        # layers of libraries not built this time stay with their modules, as those do.
        from codegen.nvidia.layer_names import nvidia_soname
        for lib in gen.libraries:
            p = os.path.join(out, nvidia_soname(lib))
            if os.path.exists(p):
                os.remove(p)
        if os.environ.get("HIP_PYTHON_NVIDIA", "auto").lower() in ("no", "0", "off", "false"):
            return
        from build_support import cuda
        cuda.build_layer(gen.include, gen.libraries, out, os.path.join(self.build_temp, "nvidia"), jobs(), log)


def packages() -> tuple[list[str], dict[str, str], dict[str, list[str]]]:
    """(packages, package_dir, package_data): `cuda` too where the alias is built and no NVIDIA
    cuda-bindings is in the environment being installed into."""
    from setuptools import find_packages
    pkgs = ["hip", "hip._util", "hip_as_cuda", "hip_as_cuda.cuda", "hip_as_cuda.cuda.bindings"]
    pkgs += find_packages(include=["hip.tensor", "hip.tensor.*"])   # its subpackages (nn, ...) as they come
    # The alias's hand-written subpackages (utils, _internal, ...): found through cuda.bindings' path.
    pkgs += [f"hip_as_cuda.cuda.bindings.{p}" for p in find_packages("hip_as_cuda/cuda/bindings")]
    alias_data = ["*.pxd", "*.pyi", "_coverage/*.json"]
    data = {"hip": ["*.pxd", "*.pyi", "py.typed", "_coverage/*.json", "_nvidia/*.so"],
            "hip.tensor._core": ["*.pyi"],      # the Cython modules' stubs
            "hip_as_cuda": ["nvrtc_prelude.h", "_children/sitecustomize.py"], "hip_as_cuda.cuda.bindings": alias_data}
    pkg_dir = {"cuda": "hip_as_cuda/cuda"}   # where in-place (editable) builds put the alias's modules
    if ALIAS in selected_libraries():
        from build_support import target
        others = target.cuda_bindings_packages(DIST_NAME)
        if others:
            log(f"this environment has {', '.join(others)} (NVIDIA's `cuda`): the alias is installed as "
                "hip_as_cuda only; run programs with `python -m hip_as_cuda prog.py`")
        else:
            pkgs += ["cuda", "cuda.bindings"]
            data["cuda.bindings"] = alias_data
    return pkgs, pkg_dir, data


PACKAGES, PACKAGE_DIR, PACKAGE_DATA = packages()

setup(
    name=DIST_NAME,
    packages=PACKAGES,
    package_dir=PACKAGE_DIR,
    package_data=PACKAGE_DATA,
    # The alias's stand-ins for EGL/GL/VDPAU headers serve its generation and compilation only (their
    # folder's name is no Python name, so setuptools does not take EGL/, GL/ for packages either).
    exclude_package_data={"hip_as_cuda": ["interop-stubs/*/*.h"]},
    cmdclass={"generate": generate, "build_py": generating_build_py, "build_ext": generating_build_ext},
    # The library modules' sources are generated by build_ext (from the headers it finds).
    ext_modules=extensions(None, selected_libraries()),
)

"""The build: find the ROCm headers (or fetch Debian's), generate the Cython sources, compile
them, and build the HIP-on-CUDA layer when CUDA is here. `pip install .`, `python -m build`
and ./build_pkgs.sh all run it.

Settings: environment variables, or `pip install . -C libs=hip,hiprtc` (build_support/backend.py):
  ROCM_PATH          (-C rocm-path=DIR)  ROCm installation whose include/ has the headers
  HIP_PYTHON_INCLUDE (-C include=DIR)    or the include dir itself (default: $ROCM_PATH/include,
                                         /opt/rocm/include, /usr/include, else Debian sid's fetched)
  HIP_PYTHON_LIBS    (-C libs=LIST)      libraries to build, comma list; '^x,y' excludes (default: every
                                         library whose headers are found; 'none': only the shared
                                         runtime modules)
  HIP_PYTHON_JOBS    (-C jobs=N)         parallel jobs (default: the number of cores)
  HIP_PYTHON_NVIDIA  (-C nvidia=no)      'no' skips the HIP-on-CUDA layer even where CUDA is found
Installing into an environment that has AMD's HIP Python (also the package `hip`) is refused;
HIP_PYTHON_IGNORE_OTHER_HIP=1 lets `pip wheel` build there anyway.
"""
import os
import shutil
import sys

from setuptools import Command, Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from codegen import spec as specmod  # noqa: E402

DIST_NAME = "hip-bindings"


def log(msg):
    print(f"hip-bindings build: {msg}", flush=True)


def selected_libraries() -> list[str]:
    every = specmod.all_libraries()
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
            chosen.update(specmod.load(lib).depends)
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
        from codegen.generate import available, generate_all, header_version
        have, missing = available(self.include)
        named = os.environ.get("HIP_PYTHON_LIBS", "").strip()
        if named and not named.startswith("^") and set(missing) & set(self.libraries):
            sys.exit(f"hip-bindings build: no headers in {self.include} for "
                     f"{','.join(l for l in missing if l in self.libraries)} (HIP_PYTHON_LIBS)")
        if set(missing) & set(self.libraries):   # every library: those this ROCm has
            log(f"no headers for {','.join(l for l in missing if l in self.libraries)} in {self.include}: left out")
            self.libraries = [l for l in self.libraries if l in have]
        log(f"ROCm {header_version(self.include)} headers: {self.include}; libraries: {','.join(self.libraries)}")
        # A library left out this time must not be installed from an earlier build's leftovers.
        coverage = os.path.join(HERE, "hip", "_coverage")
        for f in os.listdir(coverage) if os.path.isdir(coverage) else ():
            os.remove(os.path.join(coverage, f))
        written = generate_all(self.include, self.libraries, os.path.join(HERE, "hip"))
        log(f"generated {len(written)} files")


class generating_build_py(build_py):
    def run(self):
        self.run_command("generate")
        super().run()


# Cython puts each module's one-time initialisation (constants, enum and struct tables, creating
# hundreds of function objects) into a few huge functions marked CYTHON_SMALL_CODE. Optimising
# them made gcc spend 90% of hip.c's compile time in register allocation (157 s at -O1);
# at -O0 they compile in seconds, and per-call code keeps -O2.
CFLAGS = ["-O2", "-g0", "-Wno-unused-function", "-Wno-deprecated-declarations", "-Wno-unused-variable"]
SMALL_CODE = ("CYTHON_SMALL_CODE", '__attribute__((cold, optimize("O0")))')
RUNTIME_MODULES = ("_loader", "_pointer", "_struct")


def extensions(include: str | None, libraries: list[str]) -> list[Extension]:
    exts = [Extension(f"hip.{m}", [f"hip/{m}.pyx"], extra_compile_args=CFLAGS, define_macros=[SMALL_CODE])
            for m in RUNTIME_MODULES]
    for lib in libraries:
        s = specmod.load(lib)
        for mod in (s.cimport_module, s.python_module):
            exts.append(Extension(f"hip.{mod}", [f"hip/{mod}.pyx"], include_dirs=[include] if include else [],
                                  define_macros=[(d, None) for d in s.defines] + [SMALL_CODE],
                                  language=s.language,
                                  extra_compile_args=CFLAGS + (["-std=c++17"] if s.language == "c++" else [])))
    return exts


class generating_build_ext(build_ext):
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
        generated = cythonize(extensions(gen.include, gen.libraries), language_level=3, nthreads=jobs(),
                              quiet=True, compiler_directives={"binding": False, "embedsignature": True})
        by_name = {e.name: e for e in generated}
        self.extensions = [e for e in self.extensions if e.name in by_name]   # libraries left out
        for ext in self.extensions:   # setuptools keeps per-extension state: update, don't replace
            ext.sources, ext.include_dirs = by_name[ext.name].sources, by_name[ext.name].include_dirs
        if getattr(self, "editable_mode", False):
            # pip's editable build uses fresh temporary dirs; ours persist so a rebuild compiles
            # only what changed.
            self.build_temp = os.path.join(HERE, "build", "temp")
            self.build_lib = os.path.join(HERE, "build", "lib")
        super().run()
        out = os.path.join(HERE if self.inplace else self.build_lib, "hip", "_nvidia")
        shutil.rmtree(out, ignore_errors=True)   # an earlier build's layer may not match this one
        if os.environ.get("HIP_PYTHON_NVIDIA", "auto").lower() in ("no", "0", "off", "false"):
            return
        from build_support import cuda
        cuda.build_layer(gen.include, gen.libraries, out, os.path.join(self.build_temp, "nvidia"), jobs(), log)


setup(
    name=DIST_NAME,
    cmdclass={"generate": generate, "build_py": generating_build_py, "build_ext": generating_build_ext},
    # The library modules' sources are generated by build_ext (from the headers it finds).
    ext_modules=extensions(None, selected_libraries()),
)

"""Compile the generated C into the layer's shared libraries (plain gcc: one file each)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

from ..bridge import spec as nvspec


def command(lib: str, src_dir: str, out_dir: str, includes: list[str], lib_dirs: list[str]) -> list[str]:
    ns = nvspec.load(lib)
    cc = os.environ.get("CC") or shutil.which("gcc") or "cc"
    # -fno-plt: calls into libcuda/cudart go through the GOT directly, not a PLT stub's extra jump
    # (every bridged call makes one).
    cmd = [cc, "-shared", "-fPIC", "-O2", "-g0", "-fno-plt", "-std=gnu11", "-fvisibility=hidden", "-Wall",
           "-Wno-unused-function", "-fno-strict-aliasing",
           "-Wno-deprecated-declarations",   # deprecated HIP functions bridge to deprecated CUDA ones
           "-Werror=implicit-function-declaration", "-Werror=incompatible-pointer-types",
           "-Werror=int-conversion",
           *[f"-I{d}" for d in includes], os.path.join(src_dir, f"hipnv_{lib}.c"),
           "-o", os.path.join(out_dir, ns.soname)]
    # Without library dirs (CI: headers only, from PyPI) the layer still compiles and links: the
    # CUDA symbols stay undefined and bind when the library is loaded on a machine that has them.
    if lib_dirs:
        stubs = [os.path.join(d, "stubs") for d in lib_dirs if os.path.isdir(os.path.join(d, "stubs"))]
        cmd += [f"-L{d}" for d in lib_dirs + stubs] + [f"-Wl,-rpath,{d}" for d in lib_dirs]
        # --no-as-needed: the CUDA functions are referenced weakly, and with --as-needed (Ubuntu's
        # default) weak references alone would drop libcublas & co. from the layer's dependencies.
        cmd += ["-Wl,--no-as-needed"]
        for name in ns.link:
            archive = static_archive(name, lib_dirs) if name in ns.link_static else None
            if archive:
                # --whole-archive: the layer's references are weak, and weak references alone pull
                # no member out of an archive; --exclude-libs keeps the archive's symbols hidden;
                # -lrt -lpthread -ldl: what NVIDIA's static link line for cudart adds (part of
                # libc on glibc >= 2.34).
                cmd += ["-Wl,--whole-archive", archive, "-Wl,--no-whole-archive",
                        f"-Wl,--exclude-libs,{os.path.basename(archive)}", "-lrt", "-lpthread", "-ldl"]
            elif (arg := link_arg(name, lib_dirs + stubs)):
                cmd.append(arg)
    return cmd


def static_archive(name: str, dirs: list[str]) -> str | None:
    """lib<name>_static.a in `dirs` (the CUDA toolkit and NVIDIA's runtime wheel ship cudart's)."""
    for d in dirs:
        path = os.path.join(d, f"lib{name}_static.a")
        if os.path.isfile(path):
            return path
    return None


def link_arg(name: str, dirs: list[str]) -> str | None:
    """-lNAME when libNAME.so is in `dirs`; -l:libNAME.so.N when only a versioned file is (NVIDIA's
    pip wheels ship no unversioned names); else the file the dynamic linker knows (libcuda.so.1
    comes with the driver, not the toolkit); else None (the symbols bind at load time)."""
    if any(os.path.exists(os.path.join(d, f"lib{name}.so")) for d in dirs):
        return f"-l{name}"
    for d in dirs:
        versioned = sorted((f for f in os.listdir(d) if f.startswith(f"lib{name}.so.")) if os.path.isdir(d) else [],
                           key=lambda f: (f.count("."), f))
        if versioned:
            return f"-l:{versioned[0]}"
    try:
        out = subprocess.run(["/sbin/ldconfig", "-p"], capture_output=True, text=True).stdout
    except OSError:
        return None
    for line in out.splitlines():
        parts = line.strip().split(" => ")
        if len(parts) == 2 and parts[0].startswith(f"lib{name}.so") and "x86-64" in parts[0]:
            return parts[1].strip()
    return None


def build(libs: list[str], src_dir: str, out_dir: str, includes: list[str], lib_dirs: list[str], jobs: int) -> int:
    os.makedirs(out_dir, exist_ok=True)

    def one(lib):
        cmd = command(lib, src_dir, out_dir, includes, lib_dirs)
        return lib, subprocess.run(cmd, capture_output=True, text=True), cmd
    rc = 0
    with ThreadPoolExecutor(max(1, jobs)) as ex:
        for lib, r, cmd in ex.map(one, libs):
            if r.returncode:
                rc = 1
                print(f"codegen: {lib}: compile failed:\n{' '.join(cmd)}\n{r.stderr[-6000:]}", file=sys.stderr)
            else:
                warn = r.stderr.count("warning:")
                print(f"codegen: built {os.path.join(out_dir, nvspec.load(lib).soname)}"
                      + (f" ({warn} warnings)" if warn else ""))
    return rc

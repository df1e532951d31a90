# cython: language_level=3
"""The one shared-library loader: lazy, thread-safe, with clear errors.

Each generated C layer owns one `Library`. Its first `symbol()` call dlopens
the library (once, under a lock); each symbol is then resolved once by the
caller, which caches the function pointer.

Search order: the library's environment variable (a file path), then for each
candidate name (versioned names first): $ROCM_PATH/lib, /opt/rocm/lib, and
finally the dynamic linker's own search (LD_LIBRARY_PATH, ld.so.cache).
"""
import os
from _thread import allocate_lock   # `import threading` alone cost ~6 ms of import time

from hip._layer_names import NVIDIA_DIRNAME, nvidia_soname
from hip.errors import LibraryNotFoundError, SymbolNotFoundError

cdef extern from "<dlfcn.h>" nogil:
    void* dlopen(const char* filename, int flag)
    void* dlsym(void* handle, const char* symbol)
    char* dlerror()
    int RTLD_NOW
    int RTLD_LOCAL


NVIDIA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), NVIDIA_DIRNAME)


def platform() -> str:
    """HIP_PLATFORM: 'amd' (ROCm), 'nvidia' (our HIP-on-CUDA layer), or '' (automatic: ROCm when
    found, else the NVIDIA layer when it is built)."""
    p = os.environ.get("HIP_PLATFORM", "").strip().lower()
    if p not in ("", "amd", "nvidia"):
        raise ValueError(f"HIP_PLATFORM={p!r}: expected 'amd' or 'nvidia'")
    return p


def nvidia_layer(str name) -> str:
    """Where the HIP-on-CUDA layer for library `name` is built (codegen.nvidia)."""
    return os.path.join(NVIDIA_DIR, nvidia_soname(name))


def search_dirs():
    """Directories searched (in order) before the dynamic linker."""
    dirs = []
    rocm = os.environ.get("ROCM_PATH")
    if rocm:
        dirs.append(os.path.join(rocm, "lib"))
    dirs.append("/opt/rocm/lib")
    return dirs


cdef class Library:
    """A lazily loaded shared library."""

    def __init__(self, str name, str env, tuple candidates):
        self.name, self.env, self.candidates = name, env, candidates
        self.path = None
        self.handle = NULL
        self.lock = allocate_lock()
        self.failure = None

    cdef int _open(self) except -1:
        # A library that could not be found is not searched again on every call (each search
        # costs ~0.1 ms of stat and dlopen calls) unless what decides the search changed.
        key = (os.environ.get(self.env), os.environ.get("HIP_PLATFORM"), os.environ.get("ROCM_PATH"),
               os.environ.get("LD_LIBRARY_PATH"))
        if self.failure is not None and self.failure[0] == key:
            raise LibraryNotFoundError(self.name, self.env, self.failure[1])
        try:
            return self._search()
        except LibraryNotFoundError as e:
            self.failure = (key, e.tried)
            raise

    cdef int _search(self) except -1:
        tried = []
        cdef void* h
        cdef const char* cpath
        attempts = []
        override = os.environ.get(self.env)
        plat = platform()
        layer = nvidia_layer(self.name)
        if override:
            attempts.append(override)
        elif plat == "nvidia":
            attempts.append(layer)
        else:
            for n in self.candidates:
                for d in search_dirs():
                    p = os.path.join(d, n)
                    if os.path.exists(p):
                        attempts.append(p)
            attempts.extend(self.candidates)   # the dynamic linker's search
            if plat == "" and os.path.exists(layer):
                attempts.append(layer)             # no ROCm: HIP on CUDA
        for p in attempts:
            b = os.fsencode(p)
            cpath = b
            with nogil:
                h = dlopen(cpath, RTLD_NOW | RTLD_LOCAL)
            if h != NULL:
                self.path = p if os.sep in p else _resolved_path(h, p)
                self.handle = h
                return 0
            err = dlerror()
            why = err.decode(errors="replace") if err != NULL else "not found"
            if p == layer and not _driver_loadable():
                # Toolkit without driver: dlopen names the first CUDA symbol it could not bind.
                why = "the NVIDIA driver is not installed (libcuda.so.1 not found); the HIP-on-CUDA layer needs it"
            tried.append((p, why))
        if plat == "nvidia" and not override:
            tried.append((layer, "HIP_PLATFORM=nvidia: build the layer with ./build_pkgs.sh (needs CUDA)"))
        elif not override:
            tried.append((", ".join(search_dirs()), "searched; no candidate file there"))
        raise LibraryNotFoundError(self.name, self.env, tried)

    cdef void* symbol(self, const char* name) except NULL:
        cdef void* p
        with self.lock:
            if self.handle == NULL:
                self._open()
        p = dlsym(self.handle, name)
        if p == NULL:
            raise SymbolNotFoundError(name.decode(), self.path)
        return p

    def load(self):
        """Load now (normally the first call does); return the file's path."""
        with self.lock:
            if self.handle == NULL:
                self._open()
        return self.path

    def has_symbol(self, name) -> bool:
        """Whether the library (loaded on demand) exports `name`."""
        self.load()
        cdef bytes b = name.encode() if isinstance(name, str) else bytes(name)
        return dlsym(self.handle, b) != NULL

    @property
    def loaded(self) -> bool:
        return self.handle != NULL

    def __repr__(self):
        state = self.path if self.handle != NULL else "not loaded"
        return f"<hip Library {self.name}: {state}>"


cdef bint _driver_loadable():
    cdef void* h
    with nogil:
        h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)
    return h != NULL


cdef extern from *:
    """
    #include <link.h>
    static const char* hip_python_dl_path(void* h) {
        struct link_map* m = 0;
        if (dlinfo(h, RTLD_DI_LINKMAP, &m) == 0 && m && m->l_name) return m->l_name;
        return 0;
    }
    """
    const char* hip_python_dl_path(void* h)


cdef str _resolved_path(void* h, str fallback):
    cdef const char* p = hip_python_dl_path(h)
    return p.decode() if p != NULL and p[0] != 0 else fallback

#!/usr/bin/env bash
# Fetch the CUDA headers the HIP-on-CUDA layer is built against, from NVIDIA's PyPI wheels
# (downloaded, never installed), into one merged include dir.
# usage: tools/fetch_cuda_headers.sh DEST        (e.g. build/cuda-pypi/include)
#
# DEST gets the include/ trees of: nvidia-cuda-runtime (cuda_runtime_api.h, cuda.h),
# nvidia-cuda-crt (crt/host_defines.h, which cuda_runtime_api.h includes), nvidia-cuda-cccl
# (nv/target, which cuda_fp16.h includes even from C: cublas_api.h, cusparse.h), nvidia-cuda-nvrtc,
# nvidia-cuda-profiler-api (cudaProfiler.h, cuda_profiler_api.h: the `cuda` alias parses them),
# nvidia-cublas, nvidia-curand, nvidia-cusparse, nvidia-cufft, nvidia-cusolver and
# nvidia-nccl-cu13. Their versions are the ones the `cuda-toolkit` meta-package of the
# release CUDA_RELEASE pins (default 13.0: the newest cuda-toolkit 13.0.x), so the headers
# belong to one CUDA release; NCCL is NCCL_SPEC (default: the newest nvidia-nccl-cu13).
# CUDA_HEADER_SET=alias fetches only what the `cuda` alias is generated from (cuda.h,
# cuda_runtime_api.h and their graphics-interop headers, nvrtc.h, cudaProfiler.h and
# cuda_profiler_api.h: nvidia-cuda-runtime, -crt, -nvrtc and -profiler-api, about 50 MiB).
# Wheels are cached in CUDA_PYPI_CACHE (default build/cuda-pypi/wheels). Does nothing when
# DEST already has every header (remove DEST to fetch again). Prints the CUDA version found
# in cuda.h, then DEST.
set -euo pipefail
dest=${1:?usage: tools/fetch_cuda_headers.sh DEST}
root=$(cd "$(dirname "$0")/.." && pwd)
release=${CUDA_RELEASE:-13.0}
nccl=${NCCL_SPEC:-nvidia-nccl-cu13}
cache=${CUDA_PYPI_CACHE:-$root/build/cuda-pypi/wheels}
py=${PYTHON:-python3}
want=(cuda_runtime_api.h cuda.h nvrtc.h cudaProfiler.h cuda_profiler_api.h cublas_v2.h curand.h cusparse.h cufft.h
      cusolverDn.h nccl.h)
components="nvidia-cuda-runtime nvidia-cuda-crt nvidia-cuda-cccl nvidia-cuda-nvrtc nvidia-cuda-profiler-api nvidia-cublas
            nvidia-curand nvidia-cusparse nvidia-cufft nvidia-cusolver"
if [ "${CUDA_HEADER_SET:-all}" = alias ]; then
  want=(cuda_runtime_api.h cuda.h nvrtc.h cudaProfiler.h cuda_profiler_api.h)
  components="nvidia-cuda-runtime nvidia-cuda-crt nvidia-cuda-nvrtc nvidia-cuda-profiler-api"
  nccl=""
fi

have_all() { for h in "${want[@]}"; do [ -f "$dest/$h" ] || return 1; done; }
report() {
  local v; v=$(sed -n 's/^#define[[:space:]]*CUDA_VERSION[[:space:]]*\([0-9][0-9]*\).*/\1/p' "$dest/cuda.h" | head -1)
  echo "CUDA $((v / 1000)).$((v % 1000 / 10)) (cuda.h: CUDA_VERSION $v)"
  echo "$dest"
}

if have_all; then
  echo "fetch_cuda_headers: $dest already has every header; nothing fetched" >&2
  report
  exit 0
fi

mkdir -p "$cache" "$dest"
# pip prints "Saved PATH" for a fresh download and "File was already downloaded PATH" for a cached one.
download() {   # spec... -> the wheel paths, one a line
  "$py" -m pip download --no-deps --only-binary=:all: --disable-pip-version-check -d "$cache" "$@" \
    | tee /dev/stderr | sed -n -e 's/^[[:space:]]*Saved //p' -e 's/^[[:space:]]*File was already downloaded //p'
}

meta=$(download "cuda-toolkit==$release.*" | tail -n 1)
[ -n "$meta" ] || { echo "fetch_cuda_headers: no cuda-toolkit==$release.* wheel" >&2; exit 1; }
# The component pins of that release, from the meta-package's Requires-Dist lines.
mapfile -t specs < <("$py" - "$meta" $components <<'EOF'
import re, sys, zipfile
wanted = sys.argv[2:]
z = zipfile.ZipFile(sys.argv[1])
meta = z.read(next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))).decode()
pins = {}
for line in meta.splitlines():
    m = re.match(r"Requires-Dist:\s*([A-Za-z0-9_.-]+)\s*([^;]*)", line)
    if m and m.group(1) in wanted:
        pins.setdefault(m.group(1), m.group(1) + m.group(2).strip())
missing = [w for w in wanted if w not in pins]
if missing:
    sys.exit(f"cuda-toolkit pins none of {missing}")
print("\n".join(pins[w] for w in wanted))
EOF
)
[ -z "$nccl" ] || specs+=("$nccl")
echo "fetch_cuda_headers: ${specs[*]}" >&2
mapfile -t wheels < <(download "${specs[@]}")
[ "${#wheels[@]}" -eq "${#specs[@]}" ] || {
  echo "fetch_cuda_headers: expected ${#specs[@]} wheels, pip named ${#wheels[@]}: ${wheels[*]}" >&2; exit 1; }

# Merge every wheel's .../include/ tree into DEST (nvidia/cu13/include/x.h, nvidia/nccl/include/nccl.h -> DEST/x.h).
"$py" - "$dest" "${wheels[@]}" <<'EOF'
import os, sys, zipfile
dest, wheels = sys.argv[1], sys.argv[2:]
owner = {}
for w in wheels:
    with zipfile.ZipFile(w) as z:
        for info in z.infolist():
            name = info.filename
            if info.is_dir() or "/include/" not in name or not name.startswith("nvidia/"):
                continue
            rel = name.split("/include/", 1)[1]
            data = z.read(info)
            out = os.path.join(dest, rel)
            if rel in owner:
                with open(out, "rb") as f:
                    if f.read() != data:
                        print(f"fetch_cuda_headers: {rel} differs between {owner[rel]} and "
                              f"{os.path.basename(w)}; keeping the first", file=sys.stderr)
                continue
            owner[rel] = os.path.basename(w)
            os.makedirs(os.path.dirname(out), exist_ok=True)
            with open(out, "wb") as f:
                f.write(data)
print(f"fetch_cuda_headers: {len(owner)} headers into {dest}", file=sys.stderr)
EOF

for w in "${wheels[@]}"; do basename "$w"; done > "$dest/PACKAGES"
total=$(du -cb "${wheels[@]}" | tail -1 | cut -f1)
echo "fetch_cuda_headers: $(basename "$meta") pins; ${#wheels[@]} wheels, $((total / 1048576)) MiB in $cache:" >&2
for w in "${wheels[@]}"; do printf '  %6d MiB  %s\n' $(( $(stat -c %s "$w") / 1048576 )) "$(basename "$w")" >&2; done
if ! have_all; then
  for h in "${want[@]}"; do [ -f "$dest/$h" ] || echo "fetch_cuda_headers: missing $h" >&2; done
  exit 1
fi
report

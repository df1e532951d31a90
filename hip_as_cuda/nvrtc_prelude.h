// hip_as_cuda NVRTC prelude: prepended by hip_as_cuda.nvrtc_options.translate_source to CUDA
// device code that NVRTC programs compile through hiprtc on AMD GPUs. It adds what CUDA device
// code expects and hiprtc's pre-included HIP headers lack, where HIP has the machinery for it.
//
// What hiprtc already gives (ROCm 5.2 measured, nothing to add): threadIdx/blockIdx/..., dim3,
// vector types, __syncthreads*, __threadfence*, atomics (and their _system forms), math,
// intrinsics (__popc, __clz, __byte_perm, __ldg, ...), clock64, printf, malloc, __half/__half2.
//
// Rules of this file:
// * Every function is defined under a reserved name (__hip_as_cuda_X) and the CUDA name is a
//   macro for it (#define X __hip_as_cuda_X). Newer HIP releases define some of these names
//   themselves (ROCm 5.7's __hmax; ROCm 6.4's __shfl_down_sync, which wants a 64-bit mask): the
//   macro, defined after hiprtc's pre-included HIP header, renames only the user's uses, so the
//   two never collide.
// * A CUDA warp is 32 lanes; AMD's CDNA wavefront is 64. CUDA device code assumes 32 (masks are
//   32-bit, `lane = threadIdx.x & 31`), so warp operations work on the 32-lane half of the
//   wavefront the calling lane is in (a "warp" here): masks are 32-bit and relative to that half,
//   shuffles stay inside it, and `warpSize` is 32 in user code. On RDNA (wave32) this is the
//   wavefront itself. The halves of a wave64 run in lockstep: more than CUDA's warp-synchronous
//   code relies on.
// * Sections whose macros could collide with user identifiers (INT_MAX, FLT_MAX, INFINITY,
//   int8_t...) are compiled only when the source includes the standard header that defines
//   them: translate_source defines HIP_AS_CUDA_NEED_<SECTION> for those (see HEADER_MAP).
#ifndef HIP_AS_CUDA_NVRTC_PRELUDE_H
#define HIP_AS_CUDA_NVRTC_PRELUDE_H
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Weverything"

// -- The macros NVRTC predefines --------------------------------------------------------------
#ifndef __CUDACC__
#define __CUDACC__ 1          // "compiled by a CUDA compiler": headers key __host__ __device__ on it
#endif
#ifndef __CUDACC_RTC__
#define __CUDACC_RTC__ 1      // runtime compilation: sources skip host-only includes on it
#endif
// Device code is being compiled. The value is 1, as hipify's __HIP_DEVICE_COMPILE__: version
// tests (`__CUDA_ARCH__ >= 700`) pick the oldest, portable path rather than inline PTX.
// `-D__CUDA_ARCH__=800` in the options overrides it.
#ifndef __CUDA_ARCH__
#define __CUDA_ARCH__ 1
#endif

// -- Types with a HIP counterpart ---------------------------------------------------------------
typedef hipTextureObject_t cudaTextureObject_t;
typedef hipSurfaceObject_t cudaSurfaceObject_t;
#if defined(_HIP_INCLUDE_HIP_AMD_DETAIL_HIP_BF16_H_)    // HIP's bf16 (ROCm 6), where hiprtc has it
typedef __hip_bfloat16 __nv_bfloat16;
typedef __hip_bfloat162 __nv_bfloat162;
#endif

// -- Warps: 32-lane masks on the lane's half of the wavefront ------------------------------------
#define warpSize 32

__device__ inline int __hip_as_cuda_warp_lane() { return __lane_id() & 31; }
__device__ inline int __hip_as_cuda_warp_base() { return __lane_id() & ~31; }

// The 32 bits of a wavefront-wide ballot that belong to the caller's warp.
__device__ inline unsigned __hip_as_cuda_warp_bits(unsigned long long wave_bits) {
  return (unsigned)(wave_bits >> __hip_as_cuda_warp_base());
}

// Any trivially copyable value (int, float, double, __half, __half2, float4...) moved from
// wavefront lane src_lane, 32 bits at a time.
template <class T>
__device__ inline T __hip_as_cuda_shfl_from(T var, int src_lane) {
  constexpr int n = (sizeof(T) + 3) / 4;
  int words[n] = {};
  __builtin_memcpy(words, &var, sizeof(T));
  for (int i = 0; i < n; ++i) words[i] = __builtin_amdgcn_ds_bpermute(src_lane << 2, words[i]);
  T out;
  __builtin_memcpy(&out, words, sizeof(T));
  return out;
}

// CUDA's shuffle semantics within the 32-lane warp (width: a power of 2 up to 32, larger ones
// read as 32; a lane whose source lies outside its width-segment, later segments for xor, keeps
// its own value). Kind: 0 from lane `arg` of the segment, 1 up by `arg`, 2 down by `arg`, 3 xor `arg`.
template <int Kind, class T>
__device__ inline T __hip_as_cuda_shfl(T var, int arg, int width) {
  width = width > 32 ? 32 : width;
  int lane = __hip_as_cuda_warp_lane(), low = lane & (width - 1), src;
  if (Kind == 0) {
    src = lane - low + (arg & (width - 1));
  } else if (Kind == 1) {
    src = low < arg ? lane : lane - arg;
  } else if (Kind == 2) {
    src = low + arg >= width ? lane : lane + arg;
  } else {
    src = lane ^ arg;
    if (src >= ((lane + width) & ~(width - 1)) || src > 31) src = lane;
  }
  return __hip_as_cuda_shfl_from(var, __hip_as_cuda_warp_base() + src);
}
template <class T>
__device__ inline T __hip_as_cuda_shfl_sync(unsigned, T var, int src_lane, int width = 32) {
  return __hip_as_cuda_shfl<0>(var, src_lane, width);
}
template <class T>
__device__ inline T __hip_as_cuda_shfl_up_sync(unsigned, T var, unsigned delta, int width = 32) {
  return __hip_as_cuda_shfl<1>(var, (int)delta, width);
}
template <class T>
__device__ inline T __hip_as_cuda_shfl_down_sync(unsigned, T var, unsigned delta, int width = 32) {
  return __hip_as_cuda_shfl<2>(var, (int)delta, width);
}
template <class T>
__device__ inline T __hip_as_cuda_shfl_xor_sync(unsigned, T var, int lane_mask, int width = 32) {
  return __hip_as_cuda_shfl<3>(var, lane_mask, width);
}
#define __shfl_sync __hip_as_cuda_shfl_sync
#define __shfl_up_sync __hip_as_cuda_shfl_up_sync
#define __shfl_down_sync __hip_as_cuda_shfl_down_sync
#define __shfl_xor_sync __hip_as_cuda_shfl_xor_sync

__device__ inline unsigned __hip_as_cuda_activemask() {
  return __hip_as_cuda_warp_bits(__ballot(1));
}
__device__ inline unsigned __hip_as_cuda_ballot_sync(unsigned mask, int predicate) {
  return __hip_as_cuda_warp_bits(__ballot(predicate)) & mask;
}
__device__ inline int __hip_as_cuda_any_sync(unsigned mask, int predicate) {
  return __hip_as_cuda_ballot_sync(mask, predicate) != 0;
}
__device__ inline int __hip_as_cuda_all_sync(unsigned mask, int predicate) {
  return __hip_as_cuda_ballot_sync(mask, predicate) == (mask & __hip_as_cuda_activemask());
}
__device__ inline int __hip_as_cuda_uni_sync(unsigned mask, int predicate) {
  unsigned set = __hip_as_cuda_ballot_sync(mask, predicate);
  return set == 0 || set == (mask & __hip_as_cuda_activemask());
}
// The lanes of a wavefront execute together; the fences order their shared-memory accesses.
__device__ inline void __hip_as_cuda_syncwarp(unsigned mask = 0xffffffffu) {
  (void)mask;
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
}
#define __activemask __hip_as_cuda_activemask
#define __ballot_sync __hip_as_cuda_ballot_sync
#define __any_sync __hip_as_cuda_any_sync
#define __all_sync __hip_as_cuda_all_sync
#define __uni_sync __hip_as_cuda_uni_sync
#define __syncwarp __hip_as_cuda_syncwarp

// __match_*_sync (sm_70): which lanes of mask hold the same bits as the caller.
template <class T>
__device__ inline bool __hip_as_cuda_same_bits(const T& a, const T& b) {
  constexpr int n = (sizeof(T) + 3) / 4;
  int wa[n] = {}, wb[n] = {};
  __builtin_memcpy(wa, &a, sizeof(T));
  __builtin_memcpy(wb, &b, sizeof(T));
  bool same = true;
  for (int i = 0; i < n; ++i) same = same && wa[i] == wb[i];
  return same;
}
template <class T>
__device__ inline unsigned __hip_as_cuda_match_any_sync(unsigned mask, T value) {
  unsigned same = 0;
  for (int i = 0; i < 32; ++i) {
    T other = __hip_as_cuda_shfl_from(value, __hip_as_cuda_warp_base() + i);
    if (((mask >> i) & 1u) && __hip_as_cuda_same_bits(other, value)) same |= 1u << i;
  }
  return same;
}
template <class T>
__device__ inline unsigned __hip_as_cuda_match_all_sync(unsigned mask, T value, int* pred) {
  bool all = __hip_as_cuda_match_any_sync(mask, value) == mask;
  *pred = all;
  return all ? mask : 0u;
}
#define __match_any_sync __hip_as_cuda_match_any_sync
#define __match_all_sync __hip_as_cuda_match_all_sync

// __reduce_*_sync (sm_80) over the lanes of mask.
template <class T, class Op>
__device__ inline T __hip_as_cuda_reduce_sync(unsigned mask, T value, Op op) {
  if (mask == 0xffffffffu) {
    for (int offset = 16; offset > 0; offset >>= 1)
      value = op(value, __hip_as_cuda_shfl_xor_sync(mask, value, offset));
    return value;
  }
  bool first = true;
  T acc = value;
  for (int i = 0; i < 32; ++i) {
    T other = __hip_as_cuda_shfl_from(value, __hip_as_cuda_warp_base() + i);
    if ((mask >> i) & 1u) { acc = first ? other : op(acc, other); first = false; }
  }
  return acc;
}
struct __hip_as_cuda_op_add { template <class T> __device__ T operator()(T a, T b) const { return a + b; } };
struct __hip_as_cuda_op_min { template <class T> __device__ T operator()(T a, T b) const { return b < a ? b : a; } };
struct __hip_as_cuda_op_max { template <class T> __device__ T operator()(T a, T b) const { return a < b ? b : a; } };
struct __hip_as_cuda_op_and { template <class T> __device__ T operator()(T a, T b) const { return a & b; } };
struct __hip_as_cuda_op_or  { template <class T> __device__ T operator()(T a, T b) const { return a | b; } };
struct __hip_as_cuda_op_xor { template <class T> __device__ T operator()(T a, T b) const { return a ^ b; } };
__device__ inline unsigned __hip_as_cuda_reduce_add_sync(unsigned m, unsigned v) { return __hip_as_cuda_reduce_sync(m, v, __hip_as_cuda_op_add()); }
__device__ inline int __hip_as_cuda_reduce_add_sync(unsigned m, int v) { return __hip_as_cuda_reduce_sync(m, v, __hip_as_cuda_op_add()); }
__device__ inline unsigned __hip_as_cuda_reduce_min_sync(unsigned m, unsigned v) { return __hip_as_cuda_reduce_sync(m, v, __hip_as_cuda_op_min()); }
__device__ inline int __hip_as_cuda_reduce_min_sync(unsigned m, int v) { return __hip_as_cuda_reduce_sync(m, v, __hip_as_cuda_op_min()); }
__device__ inline unsigned __hip_as_cuda_reduce_max_sync(unsigned m, unsigned v) { return __hip_as_cuda_reduce_sync(m, v, __hip_as_cuda_op_max()); }
__device__ inline int __hip_as_cuda_reduce_max_sync(unsigned m, int v) { return __hip_as_cuda_reduce_sync(m, v, __hip_as_cuda_op_max()); }
__device__ inline unsigned __hip_as_cuda_reduce_and_sync(unsigned m, unsigned v) { return __hip_as_cuda_reduce_sync(m, v, __hip_as_cuda_op_and()); }
__device__ inline unsigned __hip_as_cuda_reduce_or_sync(unsigned m, unsigned v) { return __hip_as_cuda_reduce_sync(m, v, __hip_as_cuda_op_or()); }
__device__ inline unsigned __hip_as_cuda_reduce_xor_sync(unsigned m, unsigned v) { return __hip_as_cuda_reduce_sync(m, v, __hip_as_cuda_op_xor()); }
#define __reduce_add_sync __hip_as_cuda_reduce_add_sync
#define __reduce_min_sync __hip_as_cuda_reduce_min_sync
#define __reduce_max_sync __hip_as_cuda_reduce_max_sync
#define __reduce_and_sync __hip_as_cuda_reduce_and_sync
#define __reduce_or_sync __hip_as_cuda_reduce_or_sync
#define __reduce_xor_sync __hip_as_cuda_reduce_xor_sync

// -- Atomics ---------------------------------------------------------------------------------------
// atomicAdd: HIP's overloads, plus __half2 and __half (sm_60/sm_70) by compare-and-swap on the
// 32-bit word that holds them. The forwarding template also lets a source define its own
// atomicAdd(double*, double), as pre-sm_60 code does under `__CUDA_ARCH__ < 600`: the user's
// definition overloads ours instead of redefining HIP's.
template <class T, class V>
__device__ inline auto __hip_as_cuda_atomicAdd(T* address, V val) -> decltype(::atomicAdd(address, val)) {
  return ::atomicAdd(address, val);
}
__device__ inline __half2 __hip_as_cuda_atomicAdd(__half2* address, __half2 val) {
  unsigned* word = reinterpret_cast<unsigned*>(address);
  unsigned old = *word, assumed;
  do {
    assumed = old;
    __half2 sum = __hadd2(*reinterpret_cast<__half2*>(&assumed), val);
    old = atomicCAS(word, assumed, *reinterpret_cast<unsigned*>(&sum));
  } while (old != assumed);
  return *reinterpret_cast<__half2*>(&old);
}
__device__ inline __half __hip_as_cuda_atomicAdd(__half* address, __half val) {
  unsigned long long addr = reinterpret_cast<unsigned long long>(address);
  unsigned* word = reinterpret_cast<unsigned*>(addr & ~3ull);
  unsigned shift = (addr & 2ull) ? 16u : 0u;
  unsigned old = *word, assumed;
  do {
    assumed = old;
    unsigned short bits = (unsigned short)(assumed >> shift);
    __half sum = __hadd(__ushort_as_half(bits), val);
    unsigned updated = (assumed & ~(0xffffu << shift)) | ((unsigned)__half_as_ushort(sum) << shift);
    old = atomicCAS(word, assumed, updated);
  } while (old != assumed);
  return __ushort_as_half((unsigned short)(old >> shift));
}
#define atomicAdd __hip_as_cuda_atomicAdd
// Block-scope atomics (sm_60): the device-scope ones are at least as strong.
#define atomicAdd_block atomicAdd
#define atomicSub_block atomicSub
#define atomicExch_block atomicExch
#define atomicMin_block atomicMin
#define atomicMax_block atomicMax
#define atomicInc_block atomicInc
#define atomicDec_block atomicDec
#define atomicCAS_block atomicCAS
#define atomicAnd_block atomicAnd
#define atomicOr_block atomicOr
#define atomicXor_block atomicXor

// -- __half functions HIP 5.2 lacks -----------------------------------------------------------------
__device__ inline __half __hip_as_cuda_hmax(__half a, __half b) { return __hgt(a, b) || __hisnan(b) ? a : b; }
__device__ inline __half __hip_as_cuda_hmin(__half a, __half b) { return __hlt(a, b) || __hisnan(b) ? a : b; }
__device__ inline __half __hip_as_cuda_hmax_nan(__half a, __half b) { return __hisnan(a) ? a : __hisnan(b) ? b : __hip_as_cuda_hmax(a, b); }
__device__ inline __half __hip_as_cuda_hmin_nan(__half a, __half b) { return __hisnan(a) ? a : __hisnan(b) ? b : __hip_as_cuda_hmin(a, b); }
__device__ inline __half2 __hip_as_cuda_hmax2(__half2 a, __half2 b) {
  return __halves2half2(__hip_as_cuda_hmax(__low2half(a), __low2half(b)), __hip_as_cuda_hmax(__high2half(a), __high2half(b)));
}
__device__ inline __half2 __hip_as_cuda_hmin2(__half2 a, __half2 b) {
  return __halves2half2(__hip_as_cuda_hmin(__low2half(a), __low2half(b)), __hip_as_cuda_hmin(__high2half(a), __high2half(b)));
}
__device__ inline __half __hip_as_cuda_hfma_relu(__half a, __half b, __half c) {
  __half r = __hfma(a, b, c);
  return __hisnan(r) ? r : __hip_as_cuda_hmax(r, __float2half(0.0f));
}
__device__ inline __half __hip_as_cuda_double2half(double x) { return __float2half((float)x); }
#define __hmax __hip_as_cuda_hmax
#define __hmin __hip_as_cuda_hmin
#define __hmax_nan __hip_as_cuda_hmax_nan
#define __hmin_nan __hip_as_cuda_hmin_nan
#define __hmax2 __hip_as_cuda_hmax2
#define __hmin2 __hip_as_cuda_hmin2
#define __hfma_relu __hip_as_cuda_hfma_relu
#define __double2half __hip_as_cuda_double2half

// -- Other intrinsics ---------------------------------------------------------------------------
// Cache-hinted loads and stores: plain ones (the hints are PTX cache operators).
template <class T> __device__ inline T __hip_as_cuda_ld(const T* p) { return *p; }
template <class T> __device__ inline void __hip_as_cuda_st(T* p, T v) { *p = v; }
#define __ldca __hip_as_cuda_ld
#define __ldcg __hip_as_cuda_ld
#define __ldcs __hip_as_cuda_ld
#define __ldlu __hip_as_cuda_ld
#define __ldcv __hip_as_cuda_ld
#define __stcg __hip_as_cuda_st
#define __stcs __hip_as_cuda_st
#define __stwb __hip_as_cuda_st
#define __stwt __hip_as_cuda_st
// About ns nanoseconds: s_sleep 1 waits 64 clocks, about 40 ns at the clocks of CDNA parts.
__device__ inline void __hip_as_cuda_nanosleep(unsigned ns) {
  for (unsigned i = 0; i < (ns + 39u) / 40u; ++i) __builtin_amdgcn_s_sleep(1);
}
#define __nanosleep __hip_as_cuda_nanosleep
__device__ inline void __hip_as_cuda_trap() { __builtin_trap(); }
#define __trap __hip_as_cuda_trap
// 4-way byte dot products with 32-bit accumulate.
__device__ inline int __hip_as_cuda_dp4a(int a, int b, int c) {
  for (int i = 0; i < 32; i += 8) c += (int)(signed char)(a >> i) * (int)(signed char)(b >> i);
  return c;
}
__device__ inline unsigned __hip_as_cuda_dp4a(unsigned a, unsigned b, unsigned c) {
  for (int i = 0; i < 32; i += 8) c += ((a >> i) & 0xffu) * ((b >> i) & 0xffu);
  return c;
}
#define __dp4a __hip_as_cuda_dp4a
__device__ inline bool __hip_as_cuda_isShared(const void* p) { return __builtin_amdgcn_is_shared(p); }
__device__ inline bool __hip_as_cuda_isLocal(const void* p) { return __builtin_amdgcn_is_private(p); }
__device__ inline bool __hip_as_cuda_isGlobal(const void* p) {
  return !__builtin_amdgcn_is_shared(p) && !__builtin_amdgcn_is_private(p);
}
#define __isShared __hip_as_cuda_isShared
#define __isLocal __hip_as_cuda_isLocal
#define __isGlobal __hip_as_cuda_isGlobal
// CUDA's integer min/max helpers (HIP has min/max overloads but not these names).
__device__ inline unsigned __hip_as_cuda_umin(unsigned a, unsigned b) { return a < b ? a : b; }
__device__ inline unsigned __hip_as_cuda_umax(unsigned a, unsigned b) { return a < b ? b : a; }
__device__ inline long long __hip_as_cuda_llmin(long long a, long long b) { return a < b ? a : b; }
__device__ inline long long __hip_as_cuda_llmax(long long a, long long b) { return a < b ? b : a; }
__device__ inline unsigned long long __hip_as_cuda_ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
__device__ inline unsigned long long __hip_as_cuda_ullmax(unsigned long long a, unsigned long long b) { return a < b ? b : a; }
#define umin __hip_as_cuda_umin
#define umax __hip_as_cuda_umax
#define llmin __hip_as_cuda_llmin
#define llmax __hip_as_cuda_llmax
#define ullmin __hip_as_cuda_ullmin
#define ullmax __hip_as_cuda_ullmax

// assert: HIP's device __assert_fail is there, the macro is not.
#ifndef assert
#ifdef NDEBUG
#define assert(e) ((void)0)
#else
#define assert(e) ((e) ? (void)0 : __assert_fail(#e, __FILE__, __LINE__, __func__))
#endif
#endif

// -- Cooperative groups (<cooperative_groups.h>) ----------------------------------------------------
// HIP's own where hiprtc's pre-included header has them; else this subset (hiprtc 5.2 has none):
// this_thread_block, this_grid (grid sync needs a cooperative launch), tiled_partition<N> with
// N a power of 2 up to 32, coalesced_threads, sync(), and reduce/inclusive_scan/exclusive_scan
// over tiles.
#if !defined(HIP_INCLUDE_HIP_AMD_DETAIL_HIP_COOPERATIVE_GROUPS_H)
namespace cooperative_groups {

class thread_block {
 public:
  __device__ static void sync() { __syncthreads(); }
  __device__ static unsigned thread_rank() {
    return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  }
  __device__ static unsigned num_threads() { return blockDim.x * blockDim.y * blockDim.z; }
  __device__ static unsigned size() { return num_threads(); }
  __device__ static dim3 group_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  __device__ static dim3 thread_index() { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  __device__ static dim3 dim_threads() { return dim3(blockDim.x, blockDim.y, blockDim.z); }
  __device__ static dim3 group_dim() { return dim_threads(); }
  __device__ static bool is_valid() { return true; }
};
__device__ inline thread_block this_thread_block() { return thread_block(); }

class grid_group {
 public:
  __device__ static void sync() { __ockl_grid_sync(); }
  __device__ static bool is_valid() { return __ockl_grid_is_valid() != 0; }
  __device__ static unsigned long long num_blocks() {
    return (unsigned long long)gridDim.x * gridDim.y * gridDim.z;
  }
  __device__ static unsigned long long block_rank() {
    return ((unsigned long long)blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  }
  __device__ static unsigned long long num_threads() { return num_blocks() * thread_block::num_threads(); }
  __device__ static unsigned long long size() { return num_threads(); }
  __device__ static unsigned long long thread_rank() {
    return block_rank() * thread_block::num_threads() + thread_block::thread_rank();
  }
  __device__ static dim3 dim_blocks() { return dim3(gridDim.x, gridDim.y, gridDim.z); }
  __device__ static dim3 group_dim() { return dim_blocks(); }
  __device__ static dim3 block_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  __device__ static dim3 dim_threads() { return dim3(blockDim.x, blockDim.y, blockDim.z); }
};
__device__ inline grid_group this_grid() { return grid_group(); }

template <unsigned N>
class thread_block_tile {
  static_assert(N >= 1 && N <= 32 && (N & (N - 1)) == 0, "tile sizes are powers of 2 up to 32");
  __device__ static unsigned tile_bits() {
    unsigned all = N == 32 ? 0xffffffffu : ((1u << N) - 1u);
    return all << (__hip_as_cuda_warp_lane() & ~(int)(N - 1));
  }
 public:
  static constexpr unsigned num_threads() { return N; }
  static constexpr unsigned size() { return N; }
  __device__ static unsigned thread_rank() { return thread_block::thread_rank() & (N - 1); }
  __device__ static unsigned meta_group_rank() { return thread_block::thread_rank() / N; }
  __device__ static unsigned meta_group_size() { return (thread_block::num_threads() + N - 1) / N; }
  __device__ static void sync() { __hip_as_cuda_syncwarp(); }
  template <class T> __device__ T shfl(T v, int src) const { return __hip_as_cuda_shfl_sync(0xffffffffu, v, src, N); }
  template <class T> __device__ T shfl_up(T v, unsigned d) const { return __hip_as_cuda_shfl_up_sync(0xffffffffu, v, d, N); }
  template <class T> __device__ T shfl_down(T v, unsigned d) const { return __hip_as_cuda_shfl_down_sync(0xffffffffu, v, d, N); }
  template <class T> __device__ T shfl_xor(T v, unsigned m) const { return __hip_as_cuda_shfl_xor_sync(0xffffffffu, v, (int)m, N); }
  __device__ unsigned ballot(int p) const {
    return (__hip_as_cuda_ballot_sync(0xffffffffu, p) & tile_bits()) >> (__hip_as_cuda_warp_lane() & ~(int)(N - 1));
  }
  __device__ int any(int p) const { return ballot(p) != 0; }
  __device__ int all(int p) const {
    unsigned active = (__hip_as_cuda_activemask() & tile_bits()) >> (__hip_as_cuda_warp_lane() & ~(int)(N - 1));
    return ballot(p) == active;
  }
  template <class T> __device__ unsigned match_any(T v) const {
    return (__hip_as_cuda_match_any_sync(tile_bits(), v)) >> (__hip_as_cuda_warp_lane() & ~(int)(N - 1));
  }
};
template <unsigned N>
__device__ inline thread_block_tile<N> tiled_partition(const thread_block&) { return thread_block_tile<N>(); }
template <unsigned N, unsigned M>
__device__ inline thread_block_tile<N> tiled_partition(const thread_block_tile<M>&) {
  static_assert(N <= M, "a tile partitions into smaller tiles");
  return thread_block_tile<N>();
}

// The lanes of the caller's warp that are active here.
class coalesced_group {
  unsigned mask_;
  __device__ unsigned lane_of_rank(unsigned rank) const {
    unsigned m = mask_;
    for (unsigned i = 0; i < rank; ++i) m &= m - 1;
    return __ffs(m) - 1;
  }
 public:
  __device__ explicit coalesced_group(unsigned mask) : mask_(mask) {}
  __device__ unsigned num_threads() const { return __popc(mask_); }
  __device__ unsigned size() const { return num_threads(); }
  __device__ unsigned thread_rank() const {
    return __popc(mask_ & ((1u << __hip_as_cuda_warp_lane()) - 1u));
  }
  __device__ void sync() const { __hip_as_cuda_syncwarp(mask_); }
  template <class T> __device__ T shfl(T v, unsigned rank) const {
    return __hip_as_cuda_shfl_sync(mask_, v, (int)lane_of_rank(rank));
  }
  __device__ unsigned ballot(int p) const {
    unsigned set = __hip_as_cuda_ballot_sync(mask_, p), out = 0, m = mask_;
    for (unsigned r = 0; m; ++r, m &= m - 1)
      if (set & (m & (0u - m))) out |= 1u << r;
    return out;
  }
  __device__ int any(int p) const { return __hip_as_cuda_ballot_sync(mask_, p) != 0; }
  __device__ int all(int p) const { return __hip_as_cuda_ballot_sync(mask_, p) == mask_; }
};
__device__ inline coalesced_group coalesced_threads() { return coalesced_group(__hip_as_cuda_activemask()); }

template <class G> __device__ inline void sync(G& g) { g.sync(); }
template <class G> __device__ inline unsigned long long thread_rank(const G& g) { return g.thread_rank(); }
template <class G> __device__ inline unsigned long long group_size(const G& g) { return g.num_threads(); }

// <cooperative_groups/reduce.h> and <cooperative_groups/scan.h>
template <class T> struct plus { __device__ T operator()(const T& a, const T& b) const { return a + b; } };
template <class T> struct less { __device__ T operator()(const T& a, const T& b) const { return b < a ? b : a; } };
template <class T> struct greater { __device__ T operator()(const T& a, const T& b) const { return a < b ? b : a; } };
template <class T> struct bit_and { __device__ T operator()(const T& a, const T& b) const { return a & b; } };
template <class T> struct bit_or { __device__ T operator()(const T& a, const T& b) const { return a | b; } };
template <class T> struct bit_xor { __device__ T operator()(const T& a, const T& b) const { return a ^ b; } };

template <unsigned N, class T, class Op>
__device__ inline T reduce(const thread_block_tile<N>& g, T value, Op op) {
  for (unsigned offset = N / 2; offset > 0; offset /= 2) value = op(value, g.shfl_xor(value, offset));
  return value;
}
template <unsigned N, class T, class Op>
__device__ inline T inclusive_scan(const thread_block_tile<N>& g, T value, Op op) {
  for (unsigned offset = 1; offset < N; offset *= 2) {
    T other = g.shfl_up(value, offset);
    if (g.thread_rank() >= offset) value = op(value, other);
  }
  return value;
}
template <unsigned N, class T>
__device__ inline T inclusive_scan(const thread_block_tile<N>& g, T value) { return inclusive_scan(g, value, plus<T>()); }
template <unsigned N, class T, class Op>
__device__ inline T exclusive_scan(const thread_block_tile<N>& g, T value, Op op) {
  T inclusive = inclusive_scan(g, value, op);
  T previous = g.shfl_up(inclusive, 1);
  return g.thread_rank() == 0 ? T() : previous;
}
template <unsigned N, class T>
__device__ inline T exclusive_scan(const thread_block_tile<N>& g, T value) { return exclusive_scan(g, value, plus<T>()); }

}  // namespace cooperative_groups
#endif

// -- Sections for standard headers (translate_source turns them on: see HEADER_MAP) ----------
#if defined(HIP_AS_CUDA_NEED_STDINT)    // <cstdint>, <stdint.h>: HIP declares the 32/64-bit ones
typedef __INT8_TYPE__ int8_t;
typedef __UINT8_TYPE__ uint8_t;
typedef __INT16_TYPE__ int16_t;
typedef __UINT16_TYPE__ uint16_t;
typedef __INTPTR_TYPE__ intptr_t;
typedef __UINTPTR_TYPE__ uintptr_t;
typedef __PTRDIFF_TYPE__ ptrdiff_t;
namespace std {
using ::int8_t; using ::uint8_t; using ::int16_t; using ::uint16_t;
using ::intptr_t; using ::uintptr_t; using ::ptrdiff_t;
}
#endif

#if defined(HIP_AS_CUDA_NEED_LIMITS)    // <climits>, <limits.h>
#ifndef CHAR_BIT
#define CHAR_BIT __CHAR_BIT__
#define SCHAR_MIN (-__SCHAR_MAX__ - 1)
#define SCHAR_MAX __SCHAR_MAX__
#define UCHAR_MAX (__SCHAR_MAX__ * 2 + 1)
#define CHAR_MIN SCHAR_MIN
#define CHAR_MAX SCHAR_MAX
#define SHRT_MIN (-__SHRT_MAX__ - 1)
#define SHRT_MAX __SHRT_MAX__
#define USHRT_MAX (__SHRT_MAX__ * 2 + 1)
#define INT_MIN (-__INT_MAX__ - 1)
#define INT_MAX __INT_MAX__
#define UINT_MAX (__INT_MAX__ * 2U + 1U)
#define LONG_MIN (-__LONG_MAX__ - 1L)
#define LONG_MAX __LONG_MAX__
#define ULONG_MAX (__LONG_MAX__ * 2UL + 1UL)
#define LLONG_MIN (-__LONG_LONG_MAX__ - 1LL)
#define LLONG_MAX __LONG_LONG_MAX__
#define ULLONG_MAX (__LONG_LONG_MAX__ * 2ULL + 1ULL)
#endif
#endif

#if defined(HIP_AS_CUDA_NEED_FLOAT)     // <cfloat>, <float.h>
#ifndef FLT_MAX
#define FLT_MAX __FLT_MAX__
#define FLT_MIN __FLT_MIN__
#define FLT_EPSILON __FLT_EPSILON__
#define FLT_DIG __FLT_DIG__
#define FLT_MANT_DIG __FLT_MANT_DIG__
#define FLT_TRUE_MIN __FLT_DENORM_MIN__
#define DBL_MAX __DBL_MAX__
#define DBL_MIN __DBL_MIN__
#define DBL_EPSILON __DBL_EPSILON__
#define DBL_DIG __DBL_DIG__
#define DBL_MANT_DIG __DBL_MANT_DIG__
#define DBL_TRUE_MIN __DBL_DENORM_MIN__
#endif
#endif

#if defined(HIP_AS_CUDA_NEED_MATH)      // <cmath>, <math.h>: the functions are HIP's already
#ifndef INFINITY
#define INFINITY __builtin_inff()
#endif
#ifndef NAN
#define NAN __builtin_nanf("")
#endif
#ifndef HUGE_VALF
#define HUGE_VALF __builtin_huge_valf()
#define HUGE_VAL __builtin_huge_val()
#endif
#ifndef M_PI
#define M_E 2.7182818284590452354
#define M_LOG2E 1.4426950408889634074
#define M_LOG10E 0.43429448190325182765
#define M_LN2 0.69314718055994530942
#define M_LN10 2.30258509299404568402
#define M_PI 3.14159265358979323846
#define M_PI_2 1.57079632679489661923
#define M_PI_4 0.78539816339744830962
#define M_1_PI 0.31830988618379067154
#define M_2_PI 0.63661977236758134308
#define M_2_SQRTPI 1.12837916709551257390
#define M_SQRT2 1.41421356237309504880
#define M_SQRT1_2 0.70710678118654752440
#endif
#endif

#if defined(HIP_AS_CUDA_NEED_MATH_CONSTANTS)   // <math_constants.h>: HIP calls them HIPRT_*
#ifndef CUDART_INF_F
#define CUDART_INF_F __builtin_inff()
#define CUDART_NAN_F __builtin_nanf("")
#define CUDART_MIN_DENORM_F __FLT_DENORM_MIN__
#define CUDART_MAX_NORMAL_F __FLT_MAX__
#define CUDART_NEG_ZERO_F (-0.0f)
#define CUDART_ZERO_F 0.0f
#define CUDART_ONE_F 1.0f
#define CUDART_SQRT_HALF_F 0.707106781f
#define CUDART_SQRT_TWO_F 1.414213562f
#define CUDART_PI_F 3.141592654f
#define CUDART_PIO2_F 1.570796327f
#define CUDART_2_OVER_PI_F 0.636619772f
#define CUDART_L2E_F 1.442695041f
#define CUDART_LN2_F 0.693147181f
#define CUDART_INF __builtin_inf()
#define CUDART_NAN __builtin_nan("")
#define CUDART_NEG_ZERO (-0.0)
#define CUDART_ZERO 0.0
#define CUDART_ONE 1.0
#define CUDART_PI 3.1415926535897931e+0
#define CUDART_PIO2 1.5707963267948966e+0
#define CUDART_SQRT_2 1.4142135623730951e+0
#define CUDART_L2E 1.4426950408889634e+0
#define CUDART_LN2 6.9314718055994529e-1
#endif
#endif

// -default-device (NVRTC): functions without an execution space are device functions. clang's
// pragma makes them __host__ __device__, which device code may call as well.
#if defined(HIP_AS_CUDA_DEFAULT_DEVICE)
#pragma clang force_cuda_host_device begin
#endif

#pragma clang diagnostic pop
#endif  // HIP_AS_CUDA_NVRTC_PRELUDE_H

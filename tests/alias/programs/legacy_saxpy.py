"""SAXPY in the cuda-python 12.x style: `from cuda import cuda, nvrtc` (the modules 12.x shipped).

Written against the 12.x names: the legacy modules cuda.cuda / cuda.cudart / cuda.nvrtc, which
cuda-bindings 13 no longer ships (the test runs NVIDIA's side with stand-ins that re-export
cuda.bindings.*, exactly what 12.9's deprecated modules were), and only calls whose signature is the
same in 12.x and 13.x (no cuCtxCreate, whose 13.x form takes a params argument first). The flow is the
one of cuda-python's overview: NVRTC to PTX, cuModuleLoadData from a NumPy char array, arguments as
an array of addresses of NumPy scalars, cuLaunchKernel, events for timing.
"""
import numpy as np

from cuda import cuda, nvrtc


def _cudaGetErrorEnum(error):
    if isinstance(error, cuda.CUresult):
        err, name = cuda.cuGetErrorName(error)
        return name if err == cuda.CUresult.CUDA_SUCCESS else "<unknown>"
    elif isinstance(error, nvrtc.nvrtcResult):
        return nvrtc.nvrtcGetErrorString(error)[1]
    else:
        raise RuntimeError("Unknown error type: {}".format(error))


def checkCudaErrors(result):
    if result[0].value:
        raise RuntimeError("CUDA error code={}({})".format(result[0].value, _cudaGetErrorEnum(result[0])))
    if len(result) == 1:
        return None
    elif len(result) == 2:
        return result[1]
    else:
        return result[1:]


saxpy = """\
extern "C" __global__
void saxpy(float a, float *x, float *y, float *out, size_t n)
{
    size_t tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < n) {
        out[tid] = a * x[tid] + y[tid];
    }
}
"""

checkCudaErrors(cuda.cuInit(0))
cuDevice = checkCudaErrors(cuda.cuDeviceGet(0))
major = checkCudaErrors(cuda.cuDeviceGetAttribute(
    cuda.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, cuDevice))
minor = checkCudaErrors(cuda.cuDeviceGetAttribute(
    cuda.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, cuDevice))
arch_arg = bytes(f"--gpu-architecture=compute_{major}{minor}", "ascii")

prog = checkCudaErrors(nvrtc.nvrtcCreateProgram(str.encode(saxpy), b"saxpy.cu", 0, [], []))
opts = [b"--fmad=false", arch_arg]
checkCudaErrors(nvrtc.nvrtcCompileProgram(prog, 2, opts))
ptxSize = checkCudaErrors(nvrtc.nvrtcGetPTXSize(prog))
ptx = b" " * ptxSize
checkCudaErrors(nvrtc.nvrtcGetPTX(prog, ptx))

context = checkCudaErrors(cuda.cuDevicePrimaryCtxRetain(cuDevice))
checkCudaErrors(cuda.cuCtxSetCurrent(context))
ptx = np.char.array(ptx)
err, module = cuda.cuModuleLoadData(ptx.ctypes.data)
if err == cuda.CUresult.CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
    # NVRTC newer than the driver: fall back to a CUBIN (not part of what is compared)
    prog = checkCudaErrors(nvrtc.nvrtcCreateProgram(str.encode(saxpy), b"saxpy.cu", 0, [], []))
    opts = [b"--fmad=false", bytes(f"--gpu-architecture=sm_{major}{minor}", "ascii")]
    checkCudaErrors(nvrtc.nvrtcCompileProgram(prog, 2, opts))
    cubin = b" " * checkCudaErrors(nvrtc.nvrtcGetCUBINSize(prog))
    checkCudaErrors(nvrtc.nvrtcGetCUBIN(prog, cubin))
    module = checkCudaErrors(cuda.cuModuleLoadData(cubin))
else:
    checkCudaErrors((err,))
kernel = checkCudaErrors(cuda.cuModuleGetFunction(module, b"saxpy"))

NUM_THREADS = 512  # threads per block
NUM_BLOCKS = 32768  # blocks per grid

a = np.array([2.0], dtype=np.float32)
n = np.array(NUM_THREADS * NUM_BLOCKS, dtype=np.uint64)  # the kernel takes a size_t
bufferSize = n * a.itemsize

rng = np.random.default_rng(1234)
hX = rng.random(n).astype(dtype=np.float32)
hY = rng.random(n).astype(dtype=np.float32)
hOut = np.zeros(n).astype(dtype=np.float32)

dXclass = checkCudaErrors(cuda.cuMemAlloc(bufferSize))
dYclass = checkCudaErrors(cuda.cuMemAlloc(bufferSize))
dOutclass = checkCudaErrors(cuda.cuMemAlloc(bufferSize))

stream = checkCudaErrors(cuda.cuStreamCreate(0))
start = checkCudaErrors(cuda.cuEventCreate(0))
stop = checkCudaErrors(cuda.cuEventCreate(0))

checkCudaErrors(cuda.cuMemcpyHtoDAsync(dXclass, hX.ctypes.data, bufferSize, stream))
checkCudaErrors(cuda.cuMemcpyHtoDAsync(dYclass, hY.ctypes.data, bufferSize, stream))

# The following code example is not intuitive
# Subject to change in a future release
dX = np.array([int(dXclass)], dtype=np.uint64)
dY = np.array([int(dYclass)], dtype=np.uint64)
dOut = np.array([int(dOutclass)], dtype=np.uint64)

args = [a, dX, dY, dOut, n]
args = np.array([arg.ctypes.data for arg in args], dtype=np.uint64)

checkCudaErrors(cuda.cuEventRecord(start, stream))
checkCudaErrors(cuda.cuLaunchKernel(
    kernel,
    NUM_BLOCKS, 1, 1,   # grid dim
    NUM_THREADS, 1, 1,  # block dim
    0, stream,          # shared mem and stream
    args.ctypes.data, 0,  # kernel arguments
))
checkCudaErrors(cuda.cuEventRecord(stop, stream))
checkCudaErrors(cuda.cuMemcpyDtoHAsync(hOut.ctypes.data, dOutclass, bufferSize, stream))
checkCudaErrors(cuda.cuStreamSynchronize(stream))
ms = checkCudaErrors(cuda.cuEventElapsedTime(start, stop))
print("kernel time is a positive number:", ms > 0)

# Assert values are same after running kernel
hZ = a * hX + hY
if not np.allclose(hOut, hZ):
    raise ValueError("Error outside tolerance for host-device vectors")
print("SAXPY of", int(n), "elements matches NumPy exactly:", np.array_equal(hOut, hZ))

checkCudaErrors(cuda.cuEventDestroy(start))
checkCudaErrors(cuda.cuEventDestroy(stop))
checkCudaErrors(cuda.cuStreamDestroy(stream))
checkCudaErrors(cuda.cuMemFree(dXclass))
checkCudaErrors(cuda.cuMemFree(dYclass))
checkCudaErrors(cuda.cuMemFree(dOutclass))
checkCudaErrors(cuda.cuModuleUnload(module))
checkCudaErrors(nvrtc.nvrtcDestroyProgram(prog))
checkCudaErrors(cuda.cuDevicePrimaryCtxRelease(cuDevice))
print("done")

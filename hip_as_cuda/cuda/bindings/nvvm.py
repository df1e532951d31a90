"""cuda.bindings.nvvm on HIP: libNVVM's Python API (cuda-bindings 13.x) with no NVVM IR compiler
behind it. HIP has none, so every function raises FunctionNotFoundError, as NVIDIA's does on a
machine without libNVVM; `_internal.nvvm._inspect_function_pointer` answers 0 for each, the check
NVIDIA's own code (cuda.core's Program) makes before it uses NVVM.
"""
from hip import _enum

from ._internal.utils import FunctionNotFoundError as _FunctionNotFoundError, result_error as _result_error

Result = _enum.define("Result", (
    ("SUCCESS", 0), ("ERROR_OUT_OF_MEMORY", 1), ("ERROR_PROGRAM_CREATION_FAILURE", 2),
    ("ERROR_IR_VERSION_MISMATCH", 3), ("ERROR_INVALID_INPUT", 4), ("ERROR_INVALID_PROGRAM", 5),
    ("ERROR_INVALID_IR", 6), ("ERROR_INVALID_OPTION", 7), ("ERROR_NO_MODULE_IN_PROGRAM", 8),
    ("ERROR_COMPILATION", 9), ("ERROR_CANCELLED", 10),
), __name__, "libNVVM's result codes (nvvmResult): what a failed call's nvvmError carries.", style="cuda")


nvvmError = _result_error("nvvmError", Result, __name__,
                         "A call failed: `status` is its Result; the message is 'NAME (value)', as NVIDIA's.")


def _missing(c_name: str):
    raise _FunctionNotFoundError(f"function {c_name} is not found: HIP has no libNVVM (NVVM IR compiler)")


def version():
    """version() -> tuple: libNVVM's version (nvvmVersion). HIP has no libNVVM: raises."""
    _missing("nvvmVersion")


def ir_version():
    """ir_version() -> tuple: the NVVM IR versions (nvvmIRVersion). HIP has no libNVVM: raises."""
    _missing("nvvmIRVersion")


def create_program():
    """create_program() -> intptr_t (nvvmCreateProgram). HIP has no libNVVM: raises."""
    _missing("nvvmCreateProgram")


def destroy_program(prog):
    """destroy_program(intptr_t prog) (nvvmDestroyProgram). HIP has no libNVVM: raises."""
    _missing("nvvmDestroyProgram")


def add_module_to_program(prog, buffer, size, name):
    """add_module_to_program(intptr_t prog, buffer, size_t size, name) (nvvmAddModuleToProgram):
    raises, as every function here."""
    _missing("nvvmAddModuleToProgram")


def lazy_add_module_to_program(prog, buffer, size, name):
    """lazy_add_module_to_program(intptr_t prog, buffer, size_t size, name)
    (nvvmLazyAddModuleToProgram): raises, as every function here."""
    _missing("nvvmLazyAddModuleToProgram")


def compile_program(prog, num_options, options):
    """compile_program(intptr_t prog, int num_options, options) (nvvmCompileProgram): raises."""
    _missing("nvvmCompileProgram")


def verify_program(prog, num_options, options):
    """verify_program(intptr_t prog, int num_options, options) (nvvmVerifyProgram): raises."""
    _missing("nvvmVerifyProgram")


def get_compiled_result_size(prog):
    """get_compiled_result_size(intptr_t prog) -> size_t (nvvmGetCompiledResultSize): raises."""
    _missing("nvvmGetCompiledResultSize")


def get_compiled_result(prog, buffer):
    """get_compiled_result(intptr_t prog, buffer) (nvvmGetCompiledResult): raises."""
    _missing("nvvmGetCompiledResult")


def get_program_log_size(prog):
    """get_program_log_size(intptr_t prog) -> size_t (nvvmGetProgramLogSize): raises."""
    _missing("nvvmGetProgramLogSize")


def get_program_log(prog, buffer):
    """get_program_log(intptr_t prog, buffer) (nvvmGetProgramLog): raises."""
    _missing("nvvmGetProgramLog")


def get_error_string(result):
    """get_error_string(int result) -> str (nvvmGetErrorString): raises."""
    _missing("nvvmGetErrorString")


def llvm_version(arch):
    """llvm_version(arch) -> int: the LLVM version libNVVM uses for `arch` (nvvmLLVMVersion): raises."""
    _missing("nvvmLLVMVersion")

# What the hand-written functions of the driver (driver.pyx) and the runtime (runtime.pyx) share;
# both include it.
ctypedef int (*_exec_update_t)(void*, void*, void**, int*) noexcept nogil
ctypedef int (*_status_t)(int, int*) noexcept nogil
cdef void* _graph_exec_update = NULL    # hipGraphExecUpdate


cdef inline void* _hip_function(void** slot, const char* name) noexcept nogil:
    """HIP's function `name`, resolved once into `slot` (as the generated bridges resolve theirs);
    NULL, the resolver having set the Python error, where HIP lacks it."""
    if slot[0] == NULL:
        slot[0] = hipcuda_resolve(name)
    return slot[0]


cdef inline bint _zero_bytes(const void* p, size_t n) noexcept nogil:
    """No byte of the n at p is set (graph edge data HIP's edges can carry: none)."""
    cdef const unsigned char* b = <const unsigned char*>p
    cdef size_t i
    for i in range(n):
        if b[i]:
            return False
    return True


cdef int _exec_update(void* exec_, void* graph, int* result, void** error_node, void** error_from_node,
                      _status_t status, int missing, int unknown) noexcept nogil:
    """cu/cudaGraphExecUpdate: CUDA fills one result record where HIP gives the result and the
    failing node through two pointers; HIP names no errorFromNode (NULL, as CUDA leaves it where no
    node is to blame). `status` converts HIP's status to the API's; `missing` is the API's answer
    where HIP lacks the function (its except? value: the resolver has set the Python error),
    `unknown` where a status has no counterpart."""
    cdef void* f = _hip_function(&_graph_exec_update, "hipGraphExecUpdate")
    cdef void* node = NULL
    cdef int r, res = 0, ok = 1
    if f == NULL:
        return missing
    r = (<_exec_update_t>f)(exec_, graph, &node, &res)
    result[0], error_node[0], error_from_node[0] = res, node, NULL
    r = status(r, &ok)
    return r if ok else unknown

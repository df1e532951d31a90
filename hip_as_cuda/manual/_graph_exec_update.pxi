# Included by the hand-written cuGraphExecUpdate (driver.pyx) and cudaGraphExecUpdate (runtime.pyx):
# the two APIs' record, filled from hipGraphExecUpdate, the status converted by each API's bridge.
ctypedef int (*_exec_update_t)(void*, void*, void**, int*) noexcept nogil
ctypedef int (*_status_t)(int, int*) noexcept nogil
cdef void* _graph_exec_update = NULL    # hipGraphExecUpdate, resolved once


cdef int _exec_update(void* exec_, void* graph, int* result, void** error_node, void** error_from_node,
                      _status_t status, int missing, int unknown) noexcept nogil:
    """CUDA fills one result record where HIP gives the result and the failing node through two
    pointers; HIP names no errorFromNode (NULL, as CUDA leaves it where no node is to blame).
    `status` converts HIP's status to the API's; `missing` is the API's answer where HIP lacks the
    function (its except? value: the resolver has set the Python error), `unknown` where a status
    has no counterpart."""
    global _graph_exec_update
    cdef void* f = _graph_exec_update
    cdef void* node = NULL
    cdef int r, res = 0, ok = 1
    if f == NULL:
        f = hipcuda_resolve("hipGraphExecUpdate")
        if f == NULL:
            return missing
        _graph_exec_update = f
    r = (<_exec_update_t>f)(exec_, graph, &node, &res)
    result[0], error_node[0], error_from_node[0] = res, node, NULL
    r = status(r, &ok)
    return r if ok else unknown

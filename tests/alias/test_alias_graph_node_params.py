"""cuGraphAddNode, cuGraphNodeSetParams, cuGraphExecNodeSetParams and cuGraphNodeGetParams with
CUDA 12.2's polymorphic CUgraphNodeParams (hip_as_cuda/manual/driver.pyx): the union member of
`type` goes to the typed call the alias bridges, so each kind answers what its typed call answers
for the same arguments (here, without a device, HIP's status for that; on a GPU the node:
tests/alias/programs/graph_node_params.py). A kind HIP lacks answers CUDA_ERROR_NOT_SUPPORTED, a
type no kind has CUDA_ERROR_INVALID_VALUE, edge data HIP cannot carry CUDA_ERROR_NOT_SUPPORTED.
"""
from __future__ import annotations

import pytest

driver = pytest.importorskip("cuda.bindings.driver", reason="the cuda alias is not built")

if "hip_as_cuda" not in (getattr(driver, "__file__", "") or ""):
    pytest.skip("cuda.bindings here is not the alias (NVIDIA's cuda-bindings is installed)", allow_module_level=True)

T = driver.CUgraphNodeType
R = driver.CUresult
GRAPH, NODE, EXEC = driver.CUgraph(8), driver.CUgraphNode(8), driver.CUgraphExec(8)


def params(kind) -> driver.CUgraphNodeParams:
    p = driver.CUgraphNodeParams()
    p.type = kind
    return p


# kind -> the typed call the polymorphic one is (HIP 6.4 has each of these in ROCm 5.2 too)
TYPED = {
    T.CU_GRAPH_NODE_TYPE_KERNEL: lambda p: driver.cuGraphAddKernelNode(GRAPH, None, 0, driver.CUDA_KERNEL_NODE_PARAMS()),
    T.CU_GRAPH_NODE_TYPE_EMPTY: lambda p: driver.cuGraphAddEmptyNode(GRAPH, None, 0),
    T.CU_GRAPH_NODE_TYPE_WAIT_EVENT: lambda p: driver.cuGraphAddEventWaitNode(GRAPH, None, 0, None),
    T.CU_GRAPH_NODE_TYPE_EVENT_RECORD: lambda p: driver.cuGraphAddEventRecordNode(GRAPH, None, 0, None),
}


@pytest.mark.parametrize("kind", list(TYPED), ids=lambda k: k.name)
def test_a_kind_is_its_typed_call(kind):
    typed = TYPED[kind](None)[0]
    assert typed != R.CUDA_ERROR_NOT_SUPPORTED
    assert driver.cuGraphAddNode(GRAPH, None, None, 0, params(kind)) == (typed, None)


def test_kinds_hip_lacks_and_values_no_kind_has():
    for call in (lambda p: driver.cuGraphAddNode(GRAPH, None, None, 0, p)[0],
                 lambda p: driver.cuGraphExecNodeSetParams(EXEC, NODE, p)[0]):
        assert call(params(T.CU_GRAPH_NODE_TYPE_CONDITIONAL)) == R.CUDA_ERROR_NOT_SUPPORTED
        assert call(params(99)) == R.CUDA_ERROR_INVALID_VALUE
    host = params(T.CU_GRAPH_NODE_TYPE_HOST)
    host.host.syncMode = 1         # HIP's host nodes have no synchronization mode
    assert driver.cuGraphAddNode(GRAPH, None, None, 0, host)[0] == R.CUDA_ERROR_NOT_SUPPORTED
    child = params(T.CU_GRAPH_NODE_TYPE_GRAPH)
    child.graph.ownership = driver.CUgraphChildGraphNodeOwnership.CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE
    assert driver.cuGraphAddNode(GRAPH, None, None, 0, child)[0] == R.CUDA_ERROR_NOT_SUPPORTED


def test_edge_data_as_the_typed_calls_take_it():
    empty = params(T.CU_GRAPH_NODE_TYPE_EMPTY)
    typed = driver.cuGraphAddEmptyNode(GRAPH, [NODE], 1)[0]
    assert driver.cuGraphAddNode(GRAPH, [NODE], [driver.CUgraphEdgeData()], 1, empty)[0] == typed
    edge = driver.CUgraphEdgeData()
    edge.type = 1                  # programmatic: HIP's edges carry no data
    assert driver.cuGraphAddNode(GRAPH, [NODE], [edge], 1, empty)[0] == R.CUDA_ERROR_NOT_SUPPORTED


def test_the_polymorphic_calls_are_bridged():
    import hip_as_cuda
    cov = hip_as_cuda.coverage()["driver"]["functions"]
    for name in ("cuGraphAddNode_v2", "cuGraphNodeSetParams", "cuGraphExecNodeSetParams", "cuGraphNodeGetParams"):
        assert cov[name]["status"] == "bridged" and cov[name]["manual"], name

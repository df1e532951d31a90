"""hip.tensor's array API floor: the standard's sections, above `_libs`.

elementwise, manipulation, creation, statistical, indexing, sorting, searching, sets, linalg,
einsum, info, and decompositions (the linalg extension's factorizations).
"""

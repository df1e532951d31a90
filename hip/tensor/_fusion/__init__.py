"""hip.tensor's kernel fusion (`fuse`), above `_api`: trace (the traced values), names (what a
traced function's globals resolve to), fuse (the decorator and the kernels it generates)."""

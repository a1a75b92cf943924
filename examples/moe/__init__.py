"""The fused MoE path (issue 25): ``reference`` (data format and NumPy reference of the whole
path), the kernels of each step, and the composed operation."""

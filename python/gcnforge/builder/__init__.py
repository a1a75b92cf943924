"""The Python authoring API for ``amdgcn`` kernels (see ``gcnforge.builder.kernel``)."""

from gcnforge.builder.emit import user_location
from gcnforge.builder.kernel import Builder, FuncBuilder, KernelBuilder, Module, kernel, reg_type
from gcnforge.builder.values import Arg, Reg, Token, Value

__all__ = ["Module", "kernel", "Arg", "Reg", "Token", "Value", "Builder", "KernelBuilder", "FuncBuilder", "user_location",
           "reg_type"]

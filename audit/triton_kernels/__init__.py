"""Triton code compared kernel by kernel.

:mod:`.extract` finds the kernels of a file (parsed, never run; :mod:`.fallback` for files that do not parse,
:mod:`.names` for the names a file binds to triton), :mod:`.ast_form` writes a kernel's normalised AST and reads
its compute ops, :mod:`.matching` scores benchmark kernels against training kernels, :mod:`.ops` compares two
kernels' computations and :mod:`.rule` decides which matches flag.
"""
from kvdata.audit.triton_kernels.extract import TritonKernel, extract_kernels
from kvdata.audit.triton_kernels.matching import KernelMatch, KernelMatching, kernel_matches, match_kernels
from kvdata.audit.triton_kernels.rule import KernelFlagRule

__all__ = ["TritonKernel", "extract_kernels", "KernelMatch", "KernelMatching", "kernel_matches", "match_kernels",
           "KernelFlagRule"]

"""Fuzzing harnesses (see README.md): mutated corpus inputs through every entry point, and
the assembler against llvm-mc."""

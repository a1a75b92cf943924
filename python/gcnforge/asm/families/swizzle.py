"""ds_swizzle_b32 offset syntax: ``offset:swizzle(MODE,...)`` (LLVM 22 AMDGPUInstPrinter
printSwizzle / AMDGPUAsmParser parseSwizzle; pattern encodings from AMD Instinct MI300
ISA Reference Guide, DS_SWIZZLE_B32: bit 15 selects QDMode (quad permute, offset[7:0]) or
bit-masks and/or/xor (offset[4:0], [9:5], [14:10]); gfx9+ rotate (0xC000) and FFT (0xE000)."""

from __future__ import annotations

from gcnforge.asm.operands import parse_int

QUAD_PERM_ENC, QUAD_PERM_MASK = 0x8000, 0xFF00
ROTATE_LO, FFT_LO = 0xC000, 0xE000
BITMASK_MAX = 0x1F


def _is_pow2(x: int) -> bool:
    return x > 0 and x & (x - 1) == 0


def swizzle_text(imm: int) -> str:
    if imm >= ROTATE_LO:
        if imm >= FFT_LO:
            return f"swizzle(FFT,{imm & 0x1F})"
        return f"swizzle(ROTATE,{(imm >> 10) & 1},{(imm >> 5) & 0x1F})"
    if imm & QUAD_PERM_MASK == QUAD_PERM_ENC:
        return "swizzle(QUAD_PERM," + ",".join(str((imm >> (2 * i)) & 3) for i in range(4)) + ")"
    if imm & 0x8000 == 0:
        and_m, or_m, xor_m = imm & 0x1F, (imm >> 5) & 0x1F, (imm >> 10) & 0x1F
        if and_m == BITMASK_MAX and or_m == 0 and bin(xor_m).count("1") == 1:
            return f"swizzle(SWAP,{xor_m})"
        if and_m == BITMASK_MAX and or_m == 0 and xor_m > 0 and _is_pow2(xor_m + 1):
            return f"swizzle(REVERSE,{xor_m + 1})"
        group = BITMASK_MAX - and_m + 1
        if group > 1 and _is_pow2(group) and or_m < group and xor_m == 0:
            return f"swizzle(BROADCAST,{group},{or_m})"
        p0 = (0 & and_m | or_m) ^ xor_m
        p1 = (BITMASK_MAX & and_m | or_m) ^ xor_m
        s = ""
        for bit in (16, 8, 4, 2, 1):
            a, b = p0 & bit, p1 & bit
            s += ("1" if a else "0") if a == b else ("p" if not a else "i")
        return f'swizzle(BITMASK_PERM,"{s}")'
    return str(imm)


def swizzle_parse(text: str) -> int | None:
    """Value of ``swizzle(...)``; None if malformed."""
    t = text.strip()
    if not (t.lower().startswith("swizzle(") and t.endswith(")")):
        return None
    args = [a.strip() for a in t[8:-1].split(",")]
    mode = args[0].upper()
    nums = [parse_int(a) for a in args[1:]]
    if mode == "BITMASK_PERM" and len(args) == 2:
        pat = args[1].strip('"')
        if len(pat) != 5 or any(c not in "01pi" for c in pat):
            return None
        and_m = or_m = xor_m = 0
        for i, c in enumerate(pat):
            bit = 1 << (4 - i)
            if c == "1":
                or_m |= bit
            elif c == "p":
                and_m |= bit
            elif c == "i":
                and_m |= bit
                xor_m |= bit
        return and_m | or_m << 5 | xor_m << 10
    if any(n is None for n in nums):
        return None
    if mode == "QUAD_PERM" and len(nums) == 4 and all(0 <= n <= 3 for n in nums):
        return QUAD_PERM_ENC | sum(n << (2 * i) for i, n in enumerate(nums))
    if mode == "SWAP" and len(nums) == 1 and 1 <= nums[0] <= 16 and _is_pow2(nums[0]):
        return BITMASK_MAX | nums[0] << 10
    if mode == "REVERSE" and len(nums) == 1 and 2 <= nums[0] <= 32 and _is_pow2(nums[0]):
        return BITMASK_MAX | (nums[0] - 1) << 10
    if mode == "BROADCAST" and len(nums) == 2 and _is_pow2(nums[0]) and 2 <= nums[0] <= 32 and 0 <= nums[1] < nums[0]:
        return (BITMASK_MAX - nums[0] + 1) | nums[1] << 5
    if mode == "FFT" and len(nums) == 1 and 0 <= nums[0] <= 31:
        return FFT_LO | nums[0]
    if mode == "ROTATE" and len(nums) == 2 and nums[0] in (0, 1) and 0 <= nums[1] <= 31:
        return ROTATE_LO | nums[0] << 10 | nums[1] << 5
    return None

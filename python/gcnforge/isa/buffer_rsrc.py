"""The buffer resource descriptor (V#, four dwords) that MUBUF/MTBUF instructions address
through: which bits hold what (AMD Instinct MI300 / CDNA3 ISA guide, "Buffer Resource",
Table 48; LLVM SIDefines ``RSRC_*``). The emulator's buffer addressing and
``gcnforge.lib.buffer`` (which builds V#s in kernels) read these positions here.

word 0: base[31:0]; word 1: base[47:32] in bits 15:0, stride in 29:16, swizzle enable in 31;
word 2: num_records (bytes for a raw access, records for a structured one); word 3: dst_sel
X..W in 11:0, num format 14:12, data format 18:15, element size 20:19, index stride 22:21,
add_tid_enable 23.
"""

from __future__ import annotations

STRIDE_SHIFT = 16  # word 1 bits 29:16
STRIDE_MAX = (1 << 14) - 1
SWIZZLE_EN = 31  # word 1 bit 31 (bit 63 of the V#)
NUM_FORMAT = 12  # word 3 bits 14:12
DATA_FORMAT = 15  # word 3 bits 18:15; stride[17:14] for non-format MUBUF with ADD_TID_EN
ELEMENT_SIZE = 19  # word 3 bits 20:19: 2, 4, 8, 16 bytes (LLVM SIDefines RSRC_ELEMENT_SIZE_SHIFT)
INDEX_STRIDE = 21  # word 3 bits 22:21: 8, 16, 32, 64 indices (bits 118:117 of the V#)
ADD_TID = 23  # word 3 bit 23 (bit 119 of the V#)

# Data format 4 (BUF_DATA_FORMAT_32): a zero DATA_FORMAT marks the resource invalid on gfx9, so
# untyped buffers still name one; AMD's Composable Kernel uses exactly this word 3 for gfx90a /
# gfx94x ("CK_BUFFER_RESOURCE_3RD_DWORD" = 0x00020000).
DFMT_32 = 4
RAW_WORD3 = DFMT_32 << DATA_FORMAT


def word1_hi(stride: int) -> int:
    """The bits word 1 adds above base[47:32] for a (non-swizzled) ``stride`` in bytes."""
    if not 0 <= stride <= STRIDE_MAX:
        raise ValueError(f"buffer stride {stride} is outside 0..{STRIDE_MAX}")
    return stride << STRIDE_SHIFT

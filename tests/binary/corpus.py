"""Hand-written .s corpus covering every .amdhsa_kernel directive gfx942 accepts.

Each case is (name, directive lines); ``kernel_file`` wraps cases into one .s file with one
kernel per case, so one llvm-mc + ld.lld run checks them all.
"""

from __future__ import annotations

BASE = {"next_free_vgpr": 1, "next_free_sgpr": 1, "accum_offset": 4}

# name -> {directive suffix: value}; BASE fills in the three required directives.
CASES: dict[str, dict[str, object]] = {
    "defaults": {},
    "sizes": {"group_segment_fixed_size": 65536, "private_segment_fixed_size": 4096, "kernarg_size": 280},
    "sizes_max": {"group_segment_fixed_size": 0xFFFFFFFF, "kernarg_size": 0xFFFFFFFF},
    "user_sgprs_all": {"user_sgpr_dispatch_ptr": 1, "user_sgpr_queue_ptr": 1, "user_sgpr_kernarg_segment_ptr": 1,
                       "user_sgpr_dispatch_id": 1, "user_sgpr_private_segment_size": 1},
    "user_sgpr_count_explicit": {"user_sgpr_count": 16, "user_sgpr_kernarg_segment_ptr": 1},
    "kernarg_preload": {"kernarg_size": 64, "user_sgpr_kernarg_segment_ptr": 1,
                        "user_sgpr_kernarg_preload_length": 4, "user_sgpr_kernarg_preload_offset": 2},
    "kernarg_preload_max": {"kernarg_size": 0, "user_sgpr_kernarg_segment_ptr": 1,
                            "user_sgpr_kernarg_preload_length": 14, "user_sgpr_count": 16},
    "wg_ids": {"system_sgpr_workgroup_id_x": 0, "system_sgpr_workgroup_id_y": 1, "system_sgpr_workgroup_id_z": 1,
               "system_sgpr_workgroup_info": 1},
    "workitem_id_1": {"system_vgpr_workitem_id": 1},
    "workitem_id_2": {"system_vgpr_workitem_id": 2},
    "workitem_id_3": {"system_vgpr_workitem_id": 3},
    "private_segment": {"enable_private_segment": 1, "private_segment_fixed_size": 16, "uses_dynamic_stack": 1},
    "float_modes": {"float_round_mode_32": 1, "float_round_mode_16_64": 2, "float_denorm_mode_32": 3,
                    "float_denorm_mode_16_64": 0},
    "float_modes2": {"float_round_mode_32": 3, "float_round_mode_16_64": 3, "float_denorm_mode_32": 1,
                     "float_denorm_mode_16_64": 2},
    "clamp_ieee_off": {"dx10_clamp": 0, "ieee_mode": 0, "fp16_overflow": 1},
    "tg_split": {"tg_split": 1},
    "exceptions": {"exception_fp_ieee_invalid_op": 1, "exception_fp_denorm_src": 1, "exception_fp_ieee_div_zero": 1,
                   "exception_fp_ieee_overflow": 1, "exception_fp_ieee_underflow": 1, "exception_fp_ieee_inexact": 1,
                   "exception_int_div_zero": 1},
    "vgpr_8": {"next_free_vgpr": 8, "accum_offset": 8},
    "vgpr_9": {"next_free_vgpr": 9, "accum_offset": 12},
    "vgpr_256": {"next_free_vgpr": 256, "accum_offset": 256},
    "vgpr_agpr_512": {"next_free_vgpr": 512, "accum_offset": 256},
    "vgpr_agpr_300": {"next_free_vgpr": 300, "accum_offset": 128},
    "sgpr_0": {"next_free_sgpr": 0},
    "sgpr_10": {"next_free_sgpr": 10},
    "sgpr_11": {"next_free_sgpr": 11},
    "sgpr_102": {"next_free_sgpr": 102},
    "sgpr_no_vcc": {"next_free_sgpr": 17, "reserve_vcc": 0},
    "sgpr_vcc": {"next_free_sgpr": 17, "reserve_vcc": 1},
    "xnack_mask": {"next_free_sgpr": 40, "reserve_xnack_mask": 1},
    "expressions": {"next_free_vgpr": "max(totalnumvgprs(k.num_agpr, k.num_vgpr), 1, 0)",
                    "next_free_sgpr": "max(k.numbered_sgpr+extrasgprs(1, 0, 1), 1, 0)-6",
                    "accum_offset": "(((((alignto(max(1, k.num_vgpr), 4)/4)-1)&~65536)&63)+1)*4",
                    "kernarg_size": "16*4+(1<<3)", "group_segment_fixed_size": "or(256, 1024)"},
    "expressions_agpr": {"next_free_vgpr": "totalnumvgprs(k.num_agpr2, k.num_vgpr)",
                         "accum_offset": "alignto(k.num_vgpr, 4)"},
}

SETS = """\t.set k.num_vgpr, 42
\t.set k.num_agpr, 0
\t.set k.num_agpr2, 17
\t.set k.numbered_sgpr, 20
"""


def directives(case: dict[str, object]) -> list[str]:
    d = dict(BASE)
    d.update(case)
    return [f"\t\t.amdhsa_{k} {v}" for k, v in d.items()]


def kernel_source(name: str, lines: list[str], body: str = "\ts_endpgm\n") -> str:
    return (
        f"\t.text\n\t.globl\t{name}\n\t.p2align\t8\n\t.type\t{name},@function\n{name}:\n{body}"
        f".Lfunc_end_{name}:\n\t.size\t{name}, .Lfunc_end_{name}-{name}\n"
        f"\t.section\t.rodata,\"a\",@progbits\n\t.p2align\t6, 0x0\n\t.amdhsa_kernel {name}\n"
        + "\n".join(lines) + "\n\t.end_amdhsa_kernel\n"
    )


def kernel_file(cases: dict[str, dict[str, object]], header: str = '\t.amdgcn_target "amdgcn-amd-amdhsa--gfx942"\n'
                "\t.amdhsa_code_object_version 5\n") -> str:
    parts = [header, SETS]
    for name, case in cases.items():
        parts.append(kernel_source(name, directives(case)))
    return "".join(parts)

// OpenCL built-ins from AMDGPU builtins: the anchors compile with -nogpulib (no OpenCL library),
// as the emulator's clang suite does.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#define get_local_id(d) __builtin_amdgcn_workitem_id_x()
#define get_group_id(d) ((d) == 0 ? __builtin_amdgcn_workgroup_id_x() : __builtin_amdgcn_workgroup_id_y())
#define get_global_id(d) (get_group_id(d) * ((__constant unsigned short*)__builtin_amdgcn_dispatch_ptr())[2] + get_local_id(d))
#define barrier(f) do { __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup"); __builtin_amdgcn_s_barrier(); \
                        __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup"); } while (0)
#define exp(x) __builtin_amdgcn_exp2f((x) * 1.4426950408889634f)
#define rsqrt(x) __builtin_amdgcn_rsqf(x)
#define fmax(a, b) __builtin_fmaxf((a), (b))

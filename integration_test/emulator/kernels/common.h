// Work-item helpers from AMDGPU builtins (no OpenCL library is linked: -nogpulib).
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define LID(d) ((int)__builtin_amdgcn_workitem_id_##d())
#define WGID(d) ((int)__builtin_amdgcn_workgroup_id_##d())
// workgroup_size_x/y at byte offsets 4/6 of the HSA dispatch packet
#define LSIZE_X ((int)((__constant unsigned short*)__builtin_amdgcn_dispatch_ptr())[2])
#define LSIZE_Y ((int)((__constant unsigned short*)__builtin_amdgcn_dispatch_ptr())[3])
#define GID_X (WGID(x) * LSIZE_X + LID(x))
#define GID_Y (WGID(y) * LSIZE_Y + LID(y))
#define BARRIER() do { __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup"); __builtin_amdgcn_s_barrier(); \
                       __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup"); } while (0)
// Library-free replacements for OpenCL built-in functions.
static inline int imin(int a, int b) { return a < b ? a : b; }
static inline int imax(int a, int b) { return a > b ? a : b; }
#define ATOMIC_ADD(p, v) __atomic_fetch_add((p), (v), __ATOMIC_RELAXED)

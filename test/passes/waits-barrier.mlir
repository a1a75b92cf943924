// RUN: gcnforge-opt %s -p amdgcn-insert-waits | filecheck %s
// RUN: gcnforge-opt %s -p 'amdgcn-insert-waits{mode=tokens}' | filecheck %s
// RUN: gcnforge-opt %s -p 'amdgcn-insert-waits{barrier=none}' | filecheck %s --check-prefix=NONE
// RUN: gcnforge-opt %s -p 'amdgcn-insert-waits{barrier=global}' | filecheck %s --check-prefix=GLOBAL
// RUN: not gcnforge-opt %s -p 'amdgcn-insert-waits{mode=verify}' 2>&1 | filecheck %s --check-prefix=VERIFY

// A barrier releases the work-group's LDS: a ds_write before s_barrier is waited for with
// s_waitcnt lgkmcnt(0), as clang 22 -mcpu=gfx942 emits for
// fence(release, "workgroup") + s_barrier after a ds_write_b32 (isa.counters.BARRIER_RELEASE;
// tests/passes/test_waits_barrier.py compares with clang live). A global store needs nothing
// for a work-group release (clang emits nothing) unless the barrier asks for global
// visibility: release = "global" -> vmcnt(0) (with an LDS write still pending, vmcnt(0)
// lgkmcnt(0)). release = "none" (or the pass's barrier=none) opts out.
// CHECK-LABEL: amdgcn.kernel @bar
// CHECK: amdgcn.ds ds_write_b32
// CHECK-NEXT: amdgcn.sopp s_waitcnt lgkmcnt(0)
// CHECK-NEXT: amdgcn.sopp s_barrier
// CHECK: amdgcn.global global_store_dword
// CHECK-NEXT: amdgcn.sopp s_barrier
// CHECK: amdgcn.global global_store_dword
// CHECK-NEXT: amdgcn.sopp s_waitcnt vmcnt(0)
// CHECK-NEXT: amdgcn.sopp s_barrier {release = "global"}
// CHECK-NEXT: amdgcn.ds ds_write_b32
// CHECK-NEXT: amdgcn.sopp s_barrier {release = "none"}

// NONE: amdgcn.ds ds_write_b32
// NONE-NEXT: amdgcn.sopp s_barrier
// NONE: amdgcn.global global_store_dword
// NONE-NEXT: amdgcn.sopp s_barrier
// NONE: amdgcn.global global_store_dword
// NONE-NEXT: amdgcn.sopp s_waitcnt vmcnt(0) lgkmcnt(0)
// NONE-NEXT: amdgcn.sopp s_barrier {release = "global"}

// GLOBAL: amdgcn.ds ds_write_b32
// GLOBAL-NEXT: amdgcn.sopp s_waitcnt lgkmcnt(0)
// GLOBAL-NEXT: amdgcn.sopp s_barrier
// GLOBAL: amdgcn.global global_store_dword
// GLOBAL-NEXT: amdgcn.sopp s_waitcnt vmcnt(0)
// GLOBAL-NEXT: amdgcn.sopp s_barrier

// VERIFY: waits-barrier.mlir:55:7: error: @bar: 2 s_barrier(s) before the memory operations they release complete
// VERIFY: waits-barrier.mlir:55:7: 's_barrier' while lds memory operations may be in flight (needs lgkmcnt(0))
// VERIFY: waits-barrier.mlir:59:7: 's_barrier' while global memory operations may be in flight (needs vmcnt(0))
builtin.module {
  amdgcn.module @m #amdgcn.target<gfx942> {
    amdgcn.kernel @bar {
      %c0 = arith.constant 0 : i32
      %sp = amdgcn.alloca : !amdgcn.sgpr<[0 : 2]>
      %v0 = amdgcn.alloca : !amdgcn.vgpr<0>
      %v1 = amdgcn.alloca : !amdgcn.vgpr<1>
      %s = amdgcn.global global_store_dword %v1, %v0, %sp : !amdgcn.vgpr<1>, !amdgcn.vgpr<0>, !amdgcn.sgpr<[0 : 2]>
      %w1 = amdgcn.global global_store_dword %v1, %v0, %sp : !amdgcn.vgpr<1>, !amdgcn.vgpr<0>, !amdgcn.sgpr<[0 : 2]>
      amdgcn.sopp s_waitcnt vmcnt(0)
      %w = amdgcn.ds ds_write_b32 %v1, %v0 : !amdgcn.vgpr<1>, !amdgcn.vgpr<0>
      amdgcn.sopp s_barrier
      %w2 = amdgcn.global global_store_dword %v1, %v0, %sp : !amdgcn.vgpr<1>, !amdgcn.vgpr<0>, !amdgcn.sgpr<[0 : 2]>
      amdgcn.sopp s_barrier
      %w3 = amdgcn.global global_store_dword %v1, %v0, %sp : !amdgcn.vgpr<1>, !amdgcn.vgpr<0>, !amdgcn.sgpr<[0 : 2]>
      amdgcn.sopp s_barrier {release = "global"}
      %w4 = amdgcn.ds ds_write_b32 %v1, %v0 : !amdgcn.vgpr<1>, !amdgcn.vgpr<0>
      amdgcn.sopp s_barrier {release = "none"}
      amdgcn.end
    }
  }
}

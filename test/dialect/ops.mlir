// RUN: gcnforge-opt %s | filecheck %s
// RUN: gcnforge-opt %s | gcnforge-opt | filecheck %s
// RUN: gcnforge-opt %s --print-op-generic | gcnforge-opt | filecheck %s

// One op of every instruction family and every structure op, in custom syntax.
// CHECK-LABEL: amdgcn.module @ops #amdgcn.target<gfx942>
amdgcn.module @ops #amdgcn.target<gfx942> {
  // CHECK: amdgcn.kernel @k attributes {args = [#amdgcn.arg<name = "p", kind = global_buffer, size = 8, align = 8, space = global, access = read_only, type = f32>, #amdgcn.arg<name = "n", type = u32>], user_sgprs = ["kernarg_segment_ptr"], lds_size = 1024 : i32, workgroup_size = array<i32: 256, 1, 1>, float_mode = #amdgcn.float_mode<denorm32 = 0>}
  amdgcn.kernel @k attributes {args = [#amdgcn.arg<name = "p", kind = global_buffer, size = 8, align = 8, space = global, access = read_only, type = f32>, #amdgcn.arg<name = "n", type = u32>], user_sgprs = ["kernarg_segment_ptr"], lds_size = 1024 : i32, workgroup_size = array<i32: 256, 1, 1>, float_mode = #amdgcn.float_mode<denorm32 = 0>} {
    %c2 = arith.constant 2 : i32
    %c1000 = arith.constant 1000 : i32
    %f1 = arith.constant 1.0 : f32
    // CHECK: amdgcn.load_arg 0 : !amdgcn.sgpr<[? + 2]>
    %p = amdgcn.load_arg 0 : !amdgcn.sgpr<[? + 2]>
    // CHECK: amdgcn.load_arg 1 : !amdgcn.sgpr
    %n = amdgcn.load_arg 1 : !amdgcn.sgpr
    // CHECK: amdgcn.thread_id x : !amdgcn.vgpr
    %tid = amdgcn.thread_id x : !amdgcn.vgpr
    // CHECK: amdgcn.block_id y : !amdgcn.sgpr
    %bid = amdgcn.block_id y : !amdgcn.sgpr
    // CHECK: amdgcn.lds_alloc 512 align 16 : i32
    %lds = amdgcn.lds_alloc 512 align 16 : i32
    // CHECK: amdgcn.lds_alloc 64 align 4 offset 512 : i32
    %lds2 = amdgcn.lds_alloc 64 align 4 offset 512 : i32
    %v = amdgcn.alloca : !amdgcn.vgpr
    %s = amdgcn.alloca : !amdgcn.sgpr
    %v11 = amdgcn.alloca : !amdgcn.vgpr<11>
    // CHECK: amdgcn.vop1 v_mov_b32_e32 %{{.*}}, %{{.*}} : !amdgcn.vgpr<11>, f32
    %a = amdgcn.vop1 v_mov_b32_e32 %v11, %f1 : !amdgcn.vgpr<11>, f32
    // CHECK: amdgcn.vop2 v_add_f32_e32 %{{.*}}, %{{.*}}, %{{.*}} : !amdgcn.vgpr, i32, !amdgcn.vgpr<11>
    %b = amdgcn.vop2 v_add_f32_e32 %v, %c1000, %a : !amdgcn.vgpr, i32, !amdgcn.vgpr<11>
    // CHECK: amdgcn.vop2 v_fmaak_f32 %{{.*}}, %{{.*}}, %{{.*}}, 1065353216
    %fk = amdgcn.vop2 v_fmaak_f32 %v, %b, %b, 1065353216 : !amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.vgpr
    // CHECK: amdgcn.vop3 v_add_f32_e64 %{{.*}}, %{{.*}}, %{{.*}} neg0 clamp omod = 1 :
    %c = amdgcn.vop3 v_add_f32_e64 %v, %b, %s neg0 clamp omod = 1 : !amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.sgpr
    %vcc = amdgcn.alloca : !amdgcn.special<vcc>
    // CHECK: amdgcn.vop3 v_add_co_u32_e64 %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : !amdgcn.vgpr, !amdgcn.special<vcc>, !amdgcn.vgpr, i32
    %d, %carry = amdgcn.vop3 v_add_co_u32_e64 %v, %vcc, %c, %c2 : !amdgcn.vgpr, !amdgcn.special<vcc>, !amdgcn.vgpr, i32
    // CHECK: amdgcn.vop3p v_pk_add_f16 %{{.*}}, %{{.*}}, %{{.*}} op_sel = [1, 0] :
    %e = amdgcn.vop3p v_pk_add_f16 %v, %d, %d op_sel = [1, 0] : !amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.vgpr
    // CHECK: amdgcn.vopc v_cmp_eq_u32_e32 %{{.*}}, %{{.*}} : i32, !amdgcn.vgpr
    amdgcn.vopc v_cmp_eq_u32_e32 %c2, %e : i32, !amdgcn.vgpr
    // CHECK: amdgcn.vop2 v_add_f32_dpp %{{.*}}, %{{.*}}, %{{.*}} dpp_ctrl = 273 row_mask = 15 bank_mask = 15 :
    %g = amdgcn.vop2 v_add_f32_dpp %v, %e, %e dpp_ctrl = 273 row_mask = 15 bank_mask = 15 : !amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.vgpr
    %acc = amdgcn.alloca : !amdgcn.agpr<[? + 16]>
    %ab = amdgcn.alloca : !amdgcn.vgpr<[? + 2]>
    // CHECK: amdgcn.mfma v_mfma_f32_32x32x8_f16 %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} cbsz = 1 abid = 0 blgp = 2 : !amdgcn.agpr<[? + 16]>, !amdgcn.vgpr<[? + 2]>, !amdgcn.vgpr<[? + 2]>, !amdgcn.agpr<[? + 16]>
    %mf = amdgcn.mfma v_mfma_f32_32x32x8_f16 %acc, %ab, %ab, %acc cbsz = 1 abid = 0 blgp = 2 : !amdgcn.agpr<[? + 16]>, !amdgcn.vgpr<[? + 2]>, !amdgcn.vgpr<[? + 2]>, !amdgcn.agpr<[? + 16]>
    // CHECK: amdgcn.sop1 s_mov_b32 %{{.*}}, %{{.*}} : !amdgcn.sgpr, i32
    %h = amdgcn.sop1 s_mov_b32 %s, %c1000 : !amdgcn.sgpr, i32
    // CHECK: amdgcn.sop2 s_add_u32 %{{.*}}, %{{.*}}, %{{.*}} : !amdgcn.sgpr, !amdgcn.sgpr, !amdgcn.sgpr
    %i = amdgcn.sop2 s_add_u32 %s, %h, %n : !amdgcn.sgpr, !amdgcn.sgpr, !amdgcn.sgpr
    // CHECK: amdgcn.sopk s_movk_i32 %{{.*}}, 4660 : !amdgcn.sgpr
    %j = amdgcn.sopk s_movk_i32 %s, 4660 : !amdgcn.sgpr
    // CHECK: amdgcn.sopc s_cmp_eq_u32 %{{.*}}, %{{.*}} : !amdgcn.sgpr, i32
    amdgcn.sopc s_cmp_eq_u32 %j, %c2 : !amdgcn.sgpr, i32
    // CHECK: amdgcn.sopp s_nop 3
    amdgcn.sopp s_nop 3
    // CHECK: amdgcn.smem s_load_dwordx2 %{{.*}}, %{{.*}}, %{{.*}} glc : !amdgcn.sgpr<[? + 2]>, !amdgcn.sgpr<[? + 2]>, i32
    %sd = amdgcn.alloca : !amdgcn.sgpr<[? + 2]>
    %k2, %tk = amdgcn.smem s_load_dwordx2 %sd, %p, %c2 glc : !amdgcn.sgpr<[? + 2]>, !amdgcn.sgpr<[? + 2]>, i32
    // CHECK: amdgcn.wait %{{.*}} : !amdgcn.read_token
    amdgcn.wait %tk : !amdgcn.read_token
    // CHECK: amdgcn.ds ds_read_b32 %{{.*}}, %{{.*}} offset = 16 : !amdgcn.vgpr, !amdgcn.vgpr
    %l, %tl = amdgcn.ds ds_read_b32 %v, %tid offset = 16 : !amdgcn.vgpr, !amdgcn.vgpr
    // CHECK: amdgcn.global global_load_dword %{{.*}}, %{{.*}}, %{{.*}} offset = 16 sc0 : !amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.sgpr<[? + 2]>
    %m, %tm = amdgcn.global global_load_dword %v, %tid, %p offset = 16 sc0 : !amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.sgpr<[? + 2]>
    // CHECK: amdgcn.global global_store_dword %{{.*}}, %{{.*}}, off : !amdgcn.vgpr<[? + 2]>, !amdgcn.vgpr
    %tw = amdgcn.global global_store_dword %ab, %m, off : !amdgcn.vgpr<[? + 2]>, !amdgcn.vgpr
    // CHECK: amdgcn.flat flat_load_dword %{{.*}}, %{{.*}} : !amdgcn.vgpr, !amdgcn.vgpr<[? + 2]>
    %fl, %tf = amdgcn.flat flat_load_dword %v, %ab : !amdgcn.vgpr, !amdgcn.vgpr<[? + 2]>
    // CHECK: amdgcn.scratch scratch_load_dword %{{.*}}, off, %{{.*}} : !amdgcn.vgpr, !amdgcn.sgpr
    %sl, %ts = amdgcn.scratch scratch_load_dword %v, off, %s : !amdgcn.vgpr, !amdgcn.sgpr
    %rsrc = amdgcn.alloca : !amdgcn.sgpr<[? + 4]>
    // CHECK: amdgcn.mubuf buffer_load_dword %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} offen offset = 4 : !amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.sgpr<[? + 4]>, i32
    %bl, %tb = amdgcn.mubuf buffer_load_dword %v, %tid, %rsrc, %c2 offen offset = 4 : !amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.sgpr<[? + 4]>, i32
    // CHECK: amdgcn.mtbuf tbuffer_load_format_x %{{.*}}, off, %{{.*}}, %{{.*}} format = 74 offset = 8 : !amdgcn.vgpr, !amdgcn.sgpr<[? + 4]>, i32
    %tb0, %tbt = amdgcn.mtbuf tbuffer_load_format_x %v, off, %rsrc, %c2 format = 74 offset = 8 : !amdgcn.vgpr, !amdgcn.sgpr<[? + 4]>, i32
    // CHECK: amdgcn.wait %{{.*}}, %{{.*}} : !amdgcn.write_token, !amdgcn.read_token
    amdgcn.wait %tw, %tb : !amdgcn.write_token, !amdgcn.read_token
    // CHECK: amdgcn.make_range %{{.*}}, %{{.*}} : !amdgcn.vgpr, !amdgcn.vgpr -> !amdgcn.vgpr<[? + 2]>
    %r = amdgcn.make_range %l, %m : !amdgcn.vgpr, !amdgcn.vgpr -> !amdgcn.vgpr<[? + 2]>
    // CHECK: amdgcn.split_range %{{.*}} : !amdgcn.vgpr<[? + 2]> -> !amdgcn.vgpr, !amdgcn.vgpr
    %r0, %r1 = amdgcn.split_range %r : !amdgcn.vgpr<[? + 2]> -> !amdgcn.vgpr, !amdgcn.vgpr
    %q = amdgcn.alloca : !amdgcn.vgpr<[8 : 12]>
    // CHECK: amdgcn.split_range %{{.*}} : !amdgcn.vgpr<[8 : 12]> -> !amdgcn.vgpr<[8 : 10]>, !amdgcn.vgpr<10>, !amdgcn.vgpr<11>
    %q0, %q1, %q2 = amdgcn.split_range %q : !amdgcn.vgpr<[8 : 12]> -> !amdgcn.vgpr<[8 : 10]>, !amdgcn.vgpr<10>, !amdgcn.vgpr<11>
    // CHECK: amdgcn.call @f(%{{.*}}) : (!amdgcn.vgpr) -> !amdgcn.vgpr
    %cr = amdgcn.call @f(%r0) : (!amdgcn.vgpr) -> !amdgcn.vgpr
    // CHECK: amdgcn.branch s_cbranch_scc1 ^bb1, ^bb2
    amdgcn.branch s_cbranch_scc1 ^bb1, ^bb2
  ^bb1:
    // CHECK: amdgcn.branch s_branch ^bb2
    amdgcn.branch s_branch ^bb2
  ^bb2:
    // CHECK: amdgcn.end
    amdgcn.end
  }
  // CHECK: amdgcn.func @f(%{{.*}}: !amdgcn.vgpr) -> !amdgcn.vgpr {
  amdgcn.func @f(%x: !amdgcn.vgpr) -> !amdgcn.vgpr {
    // CHECK: amdgcn.return %{{.*}} : !amdgcn.vgpr
    amdgcn.return %x : !amdgcn.vgpr
  }
}

// -----
// s_waitcnt parses and prints LLVM's counter spelling (ISA guide S_WAITCNT packing); an
// integer immediate prints as llvm-mc 22 prints it (112 -> vmcnt(0) lgkmcnt(0), 52863 ->
// lgkmcnt(14)); one with unused bits set (16240) has no such spelling and stays an integer.
// RUN: gcnforge-opt %s --split-input-file | filecheck %s --check-prefix=WAIT
// WAIT: amdgcn.sopp s_waitcnt vmcnt(0) lgkmcnt(0)
// WAIT: amdgcn.sopp s_waitcnt vmcnt(0)
// WAIT: amdgcn.sopp s_waitcnt lgkmcnt(0)
// WAIT: amdgcn.sopp s_waitcnt vmcnt(0) lgkmcnt(0)
// WAIT: amdgcn.sopp s_waitcnt lgkmcnt(14)
// WAIT: amdgcn.sopp s_waitcnt 16240
amdgcn.module @w #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    amdgcn.sopp s_waitcnt vmcnt(0) lgkmcnt(0)
    amdgcn.sopp s_waitcnt vmcnt(0)
    amdgcn.sopp s_waitcnt lgkmcnt(0)
    amdgcn.sopp s_waitcnt 112
    amdgcn.sopp s_waitcnt 52863
    amdgcn.sopp s_waitcnt 16240
    amdgcn.end
  }
}

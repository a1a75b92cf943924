// RUN: gcnforge-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s
// One case per verifier rule of the instruction ops and structure ops.

amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %v = amdgcn.alloca : !amdgcn.vgpr
    // CHECK: unknown instruction 'v_bogus_f32' (not in the gfx942 ISA table)
    %r = "amdgcn.vop2"(%v, %v, %v) {inst = #amdgcn.inst<v_bogus_f32>} : (!amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.vgpr) -> !amdgcn.vgpr
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %v = amdgcn.alloca : !amdgcn.vgpr
    // CHECK: 'v_add_f32_e64' is a vop3 instruction; use amdgcn.vop3, not amdgcn.vop2
    %r = "amdgcn.vop2"(%v, %v, %v) {inst = #amdgcn.inst<v_add_f32_e64>} : (!amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.vgpr) -> !amdgcn.vgpr
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %v = amdgcn.alloca : !amdgcn.vgpr
    // CHECK: v_add_f32_e32 expects 3 register/constant operand(s) (vdst, src0, vsrc1), got 2
    %r = "amdgcn.vop2"(%v, %v) {inst = #amdgcn.inst<v_add_f32_e32>} : (!amdgcn.vgpr, !amdgcn.vgpr) -> !amdgcn.vgpr
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %v = amdgcn.alloca : !amdgcn.vgpr
    %s = amdgcn.alloca : !amdgcn.sgpr
    // CHECK: v_add_f32_e32: operand vsrc1 must be a VGPR (1 dword), got !amdgcn.sgpr
    %r = amdgcn.vop2 v_add_f32_e32 %v, %v, %s : !amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.sgpr
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %v = amdgcn.alloca : !amdgcn.vgpr
    %w = amdgcn.alloca : !amdgcn.vgpr<[? + 2]>
    // CHECK: v_add_f32_e32: operand src0 must be 1 dword(s) wide, got 2 (!amdgcn.vgpr<[? + 2]>)
    %r = amdgcn.vop2 v_add_f32_e32 %v, %w, %v : !amdgcn.vgpr, !amdgcn.vgpr<[? + 2]>, !amdgcn.vgpr
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %v = amdgcn.alloca : !amdgcn.vgpr
    %c = arith.constant 1000 : i32
    // CHECK: v_add_f32_e64: operand src0: 1000 is not an inline constant and this operand takes no literal
    %r = amdgcn.vop3 v_add_f32_e64 %v, %c, %v : !amdgcn.vgpr, i32, !amdgcn.vgpr
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %s = amdgcn.alloca : !amdgcn.sgpr
    %c = arith.constant 1000 : i32
    %d = arith.constant 2000 : i32
    // CHECK: s_add_u32: at most one 32-bit literal per instruction, got 2
    %r = amdgcn.sop2 s_add_u32 %s, %c, %d : !amdgcn.sgpr, i32, i32
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %s = amdgcn.alloca : !amdgcn.sgpr
    %c = arith.constant 1000 : i32
    // inline constants do not count as literals, and the same literal twice is one literal
    // CHECK: %r = amdgcn.sop2 s_add_u32 %s, %c, %c : !amdgcn.sgpr, i32, i32
    %r = amdgcn.sop2 s_add_u32 %s, %c, %c : !amdgcn.sgpr, i32, i32
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %s = amdgcn.alloca : !amdgcn.sgpr
    %c = arith.constant 8589934592 : i64
    // CHECK: s_mov_b32: operand ssrc0: constant 8589934592 is neither an inline constant nor a 32-bit literal
    %r = amdgcn.sop1 s_mov_b32 %s, %c : !amdgcn.sgpr, i64
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %v = amdgcn.alloca : !amdgcn.vgpr
    %c = arith.constant 1 : i32
    // CHECK: v_add_f32_e32: operand vdst is a destination; a constant cannot be written
    %r = "amdgcn.vop2"(%c, %v, %v) {inst = #amdgcn.inst<v_add_f32_e32>} : (i32, !amdgcn.vgpr, !amdgcn.vgpr) -> i32
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %v = amdgcn.alloca : !amdgcn.vgpr
    // CHECK: v_add_f32_e32: modifier 'clamp' is not accepted by VOP2 (allowed: none)
    %r = "amdgcn.vop2"(%v, %v, %v) {inst = #amdgcn.inst<v_add_f32_e32>, mods = {clamp}} : (!amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.vgpr) -> !amdgcn.vgpr
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %v = amdgcn.alloca : !amdgcn.vgpr
    // CHECK: v_add_f32_e32: results must be the destination operands' types plus the memory token: expected (!amdgcn.vgpr), got (!amdgcn.sgpr)
    %r = "amdgcn.vop2"(%v, %v, %v) {inst = #amdgcn.inst<v_add_f32_e32>} : (!amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.vgpr) -> !amdgcn.sgpr
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %v = amdgcn.alloca : !amdgcn.vgpr<4>
    // CHECK: v_add_f32_e32: results must be the destination operands' types plus the memory token: expected (!amdgcn.vgpr<4>), got (!amdgcn.vgpr<5>)
    %r = "amdgcn.vop2"(%v, %v, %v) {inst = #amdgcn.inst<v_add_f32_e32>} : (!amdgcn.vgpr<4>, !amdgcn.vgpr<4>, !amdgcn.vgpr<4>) -> !amdgcn.vgpr<5>
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %v = amdgcn.alloca : !amdgcn.vgpr
    %p = amdgcn.alloca : !amdgcn.vgpr<[? + 2]>
    // CHECK: global_load_dword: results must be the destination operands' types plus the memory token: expected (!amdgcn.vgpr, !amdgcn.read_token), got (!amdgcn.vgpr)
    %r = "amdgcn.global"(%v, %p) {inst = #amdgcn.inst<global_load_dword>, off = array<i64: 2>} : (!amdgcn.vgpr, !amdgcn.vgpr<[? + 2]>) -> !amdgcn.vgpr
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %v = amdgcn.alloca : !amdgcn.vgpr
    // CHECK: v_add_f32_e32: operand #0 cannot be 'off'
    "amdgcn.vop2"(%v, %v) {inst = #amdgcn.inst<v_add_f32_e32>, off = array<i64: 0>} : (!amdgcn.vgpr, !amdgcn.vgpr) -> ()
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    // CHECK: s_nop expects 1 immediate(s) (simm16), got 0
    "amdgcn.sopp"() {inst = #amdgcn.inst<s_nop>} : () -> ()
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %s = amdgcn.alloca : !amdgcn.sgpr
    // CHECK: s_movk_i32: simm16 = 70000 does not fit in 16 bits
    %r = amdgcn.sopk s_movk_i32 %s, 70000 : !amdgcn.sgpr
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %v = amdgcn.alloca : !amdgcn.vgpr
    %p = amdgcn.alloca : !amdgcn.sgpr<[? + 2]>
    // with an SGPR saddr, vaddr is a 32-bit offset
    // CHECK: global_load_dword: operand vaddr must be 1 dword(s) wide, got 2 (!amdgcn.vgpr<[? + 2]>)
    %a = amdgcn.alloca : !amdgcn.vgpr<[? + 2]>
    %r, %t = amdgcn.global global_load_dword %v, %a, %p : !amdgcn.vgpr, !amdgcn.vgpr<[? + 2]>, !amdgcn.sgpr<[? + 2]>
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %v = amdgcn.alloca : !amdgcn.vgpr
    %vcc = amdgcn.alloca : !amdgcn.special<vcc_lo>
    // CHECK: v_add_co_u32_e64: operand sdst must be 2 dword(s) wide, got vcc_lo
    %r, %c = amdgcn.vop3 v_add_co_u32_e64 %v, %vcc, %v, %v : !amdgcn.vgpr, !amdgcn.special<vcc_lo>, !amdgcn.vgpr, !amdgcn.vgpr
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %v = amdgcn.alloca : !amdgcn.vgpr
    %vcc = amdgcn.alloca : !amdgcn.special<vcc>
    // CHECK: ds_read_b32: operand addr must be a VGPR (1 dword), got !amdgcn.special<vcc>
    %r, %t = amdgcn.ds ds_read_b32 %v, %vcc : !amdgcn.vgpr, !amdgcn.special<vcc>
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %v = amdgcn.alloca : !amdgcn.vgpr
    // CHECK: unknown instruction 'v_nonsense' (not in the gfx942 ISA table)
    %r = amdgcn.vop2 v_nonsense %v, %v, %v : !amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.vgpr
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %v = amdgcn.alloca : !amdgcn.vgpr
    // CHECK: Expected ',' (v_add_f32_e32 takes 3 operands)
    %r = amdgcn.vop2 v_add_f32_e32 %v, %v : !amdgcn.vgpr, !amdgcn.vgpr
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    // CHECK: 's_nop' is not a branch (it is a sopp instruction)
    "amdgcn.branch"() [^bb1] {inst = #amdgcn.inst<s_nop>} : () -> ()
  ^bb1:
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    // CHECK: s_cbranch_scc1 takes a target and a fall-through block, got 1 successor(s)
    amdgcn.branch s_cbranch_scc1 ^bb1
  ^bb1:
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %v = amdgcn.alloca : !amdgcn.vgpr
    // CHECK: every block of a kernel must end with a terminator (amdgcn.end, amdgcn.branch)
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k attributes {args = [#amdgcn.arg<name = "p", kind = global_buffer, size = 8, align = 8, space = global>]} {
    // CHECK: argument 0 is 8 bytes: load it into 2 SGPR(s), not 1
    %p = amdgcn.load_arg 0 : !amdgcn.sgpr
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    // CHECK: kernel @k has 0 argument(s); no argument 3
    %p = amdgcn.load_arg 3 : !amdgcn.sgpr
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  // CHECK: unknown preloaded register "dispatch_pointer"
  amdgcn.kernel @k attributes {user_sgprs = ["dispatch_pointer"]} {
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  // CHECK: preloaded register "dispatch_ptr" is listed twice
  amdgcn.kernel @k attributes {user_sgprs = ["dispatch_ptr", "kernarg_segment_ptr", "dispatch_ptr"]} {
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  // CHECK: lds_size 70000 exceeds the 65536 bytes of LDS
  amdgcn.kernel @k attributes {lds_size = 70000 : i32} {
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  // CHECK: workgroup_size must be 3 positive sizes with at most 1024 work-items, got [64, 64, 1]
  amdgcn.kernel @k attributes {workgroup_size = array<i32: 64, 64, 1>} {
    amdgcn.end
  }
}

// -----
// CHECK: #amdgcn.arg: a global_buffer argument is an 8-byte pointer
"test.op"() {a = #amdgcn.arg<kind = global_buffer, size = 4, space = global>} : () -> ()

// -----
// CHECK: invalid access 'rw' (expected one of none, read_only, write_only, read_write)
"test.op"() {a = #amdgcn.arg<access = rw>} : () -> ()

// -----
// CHECK: unknown field 'sz' in #amdgcn.arg (expected name, kind, size, align, space, access, type)
"test.op"() {a = #amdgcn.arg<sz = 4>} : () -> ()

// -----
// CHECK: invalid type 'float' (expected one of none, i8, u8, i16, u16, f16, bf16, i32, u32, f32, i64, u64, f64)
"test.op"() {a = #amdgcn.arg<type = float>} : () -> ()

// -----
// CHECK: #amdgcn.arg: a f64 value is 8 bytes, not size = 4
"test.op"() {a = #amdgcn.arg<type = f64>} : () -> ()

// -----
// CHECK: #amdgcn.arg: a dynamic_shared_pointer argument takes no type (got f32)
"test.op"() {a = #amdgcn.arg<kind = dynamic_shared_pointer, type = f32>} : () -> ()

// -----
// CHECK: #amdgcn.float_mode: denorm32 must be in [0, 3], got 5
"test.op"() {a = #amdgcn.float_mode<denorm32 = 5>} : () -> ()

// -----
// CHECK: unsupported target 'gfx90a' (supported: gfx942, gfx950)
amdgcn.module @m #amdgcn.target<gfx90a> {
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %a = amdgcn.alloca : !amdgcn.vgpr<4>
    %b = amdgcn.alloca : !amdgcn.vgpr<6>
    // CHECK: amdgcn.make_range: allocated parts must be consecutive registers of the range (expected v5, got !amdgcn.vgpr<6>)
    %r = amdgcn.make_range %a, %b : !amdgcn.vgpr<4>, !amdgcn.vgpr<6> -> !amdgcn.vgpr<[4 : 6]>
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %a = amdgcn.alloca : !amdgcn.vgpr
    %b = amdgcn.alloca : !amdgcn.sgpr
    // CHECK: amdgcn.make_range: parts and range must be of one register file
    %r = amdgcn.make_range %a, %b : !amdgcn.vgpr, !amdgcn.sgpr -> !amdgcn.vgpr<[? + 2]>
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %a = amdgcn.alloca : !amdgcn.vgpr<[? + 4]>
    // CHECK: amdgcn.split_range: parts hold 3 dwords but the range holds 4
    %x, %y = amdgcn.split_range %a : !amdgcn.vgpr<[? + 4]> -> !amdgcn.vgpr<[? + 2]>, !amdgcn.vgpr
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    // CHECK: amdgcn.lds_alloc: size 0 must be in (0, 65536]
    %l = amdgcn.lds_alloc 0 align 4 : i32
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    // CHECK: amdgcn.lds_alloc: offset 6 is misaligned or out of LDS
    %l = amdgcn.lds_alloc 16 align 4 offset 6 : i32
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    // CHECK: expected dimension x, y or z
    %t = amdgcn.thread_id w : !amdgcn.vgpr
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %v = amdgcn.alloca : !amdgcn.vgpr
    // CHECK: Unexpected attribute !amdgcn.vgpr
    amdgcn.wait %v : !amdgcn.vgpr
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %v = amdgcn.alloca : !amdgcn.vgpr
    // CHECK: 'g' is not an amdgcn.func in this module
    %r = amdgcn.call @g(%v) : (!amdgcn.vgpr) -> !amdgcn.vgpr
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %v = amdgcn.alloca : !amdgcn.sgpr
    // CHECK: call to 'f' does not match its type (!amdgcn.vgpr) -> !amdgcn.vgpr
    %r = amdgcn.call @f(%v) : (!amdgcn.sgpr) -> !amdgcn.vgpr
    amdgcn.end
  }
  amdgcn.func @f(%x: !amdgcn.vgpr) -> !amdgcn.vgpr {
    amdgcn.return %x : !amdgcn.vgpr
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.func @f(%x: !amdgcn.vgpr) -> !amdgcn.vgpr {
    %s = amdgcn.alloca : !amdgcn.sgpr
    // CHECK: amdgcn.return types (!amdgcn.sgpr) do not match the function's results (!amdgcn.vgpr)
    amdgcn.return %s : !amdgcn.sgpr
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    // CHECK: vmcnt must be in 0..63
    amdgcn.sopp s_waitcnt vmcnt(64)
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %v = amdgcn.alloca : !amdgcn.vgpr
    %lds = amdgcn.lds_alloc 64 align 4 : i32
    // CHECK: v_add_f32_e64: operand src0: a non-constant value is not an inline constant and this operand takes no literal
    %r = amdgcn.vop3 v_add_f32_e64 %v, %lds, %v : !amdgcn.vgpr, i32, !amdgcn.vgpr
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    // CHECK: amdgcn.thread_id yields one register
    %t = amdgcn.thread_id x : !amdgcn.vgpr<[? + 2]>
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  // CHECK: amdgcn.func entry block arguments must match the function type
  "amdgcn.func"() ({
  ^bb0(%x: !amdgcn.sgpr):
    "amdgcn.return"() : () -> ()
  }) {sym_name = "f", function_type = (!amdgcn.vgpr) -> ()} : () -> ()
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  // CHECK: a kernel's entry block takes no arguments (use amdgcn.load_arg)
  "amdgcn.kernel"() ({
  ^bb0(%x: !amdgcn.sgpr):
    amdgcn.end
  }) {sym_name = "k"} : () -> ()
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %v = amdgcn.alloca : !amdgcn.vgpr
    // CHECK: v_fmaak_f32: imm = 8589934592 does not fit in 32 bits
    %r = amdgcn.vop2 v_fmaak_f32 %v, %v, %v, 8589934592 : !amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.vgpr
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    // CHECK: s_waitcnt: simm16 = -1 does not fit in 16 bits
    amdgcn.sopp s_waitcnt -1
    amdgcn.end
  }
}

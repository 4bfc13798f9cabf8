//! Loads and stores of shared memory that share their address register, checked once (issue
//! 17). Compiled GEMM loops read a tile as runs of `ld.shared [%r9+64k]`: the same register at
//! many constant offsets, the register unchanged between them. Each access's own first loop
//! (`shared.rs`: every lane's address aligned and inside) cost about as much as moving the
//! values. Here the accesses of a whole warp that read one register between two writes of it are
//! a *group*: the first member a call runs checks the group's *window* (the bytes from its
//! lowest offset to the end of its highest access, aligned to its largest access) for every
//! lane once, out of line, and keeps each lane's address in memory in a stash; each member then
//! moves its lanes from the stash plus its distance from the window's start, with no check of
//! its own. A window that is not inside for every lane ends the call before the member that
//! asked, and the interpreter takes it, as it takes an access compiled code declines: every
//! member then runs as the interpreter runs it (a window is inside exactly when every member's
//! access is, so this happens only when some member is declined, or a member before the entry
//! point would have been).
//!
//! Why one check suffices: with `m` the window's start offset and `a` a lane's address at `m`
//! (`(base + m) mod 2^32`), a member at `m + d` has address `(a + d) mod 2^32`, which is `a + d`
//! because the window check puts `a + d + size` within shared memory (far below 2^32), so it is
//! inside; and it is aligned, because `a` is aligned to the largest size and each `d` (a
//! multiple of its own access's size, or the access is not grouped) is too.

use super::super::fast::Fast;
use super::lower::{sources, MemAccess};
use super::shared::{self, Lanes, Region, Window};
use super::Rows;
use cranelift_codegen::ir::types::{I32, I8};
use cranelift_codegen::ir::{
    Block, InstBuilder, JumpTableData, StackSlot, StackSlotData, StackSlotKind,
};
use cranelift_frontend::{FunctionBuilder, Variable};

/// The farthest a member may lie from its window's start (a window larger than shared memory
/// can hold would never pass its check anyway).
const MAX_DELTA: u32 = 1 << 16;
/// Groups per stretch (each keeps a stash of 256 bytes on the stack).
const MAX_GROUPS: usize = 16;

/// A group: its window, and its code's state.
pub(super) struct Group {
    window: Window,
    state: Option<State>,
}

/// A group's code: whether this call has checked its window (then every lane's is inside: a
/// window that is not ends the call), the stash of the lanes' addresses, and the check, out of
/// line, with the member that jumped to it and each member's way back.
struct State {
    checked: Variable,
    stash: StackSlot,
    caller: Variable,
    check: Block,
    callers: Vec<Block>,
}

/// An access of a group: which, and how far past the window's start its bytes begin.
#[derive(Clone, Copy)]
pub(super) struct Member {
    pub group: usize,
    delta: i32,
}

/// The groups of `forms` (a stretch) and, for each instruction, its membership: accesses of
/// shared memory through one register (or none) with no write of it between them; a group of
/// one, or one whose offsets are too far apart or not multiples of their sizes, is none.
pub(super) fn plan(forms: &[Fast]) -> (Vec<Group>, Vec<Option<Member>>) {
    // Accesses by base register, the groups still open (their register not written since).
    let mut open: Vec<(Option<u32>, Vec<usize>)> = Vec::new();
    let mut done = Vec::new();
    for (i, &f) in forms.iter().enumerate() {
        if let Some(m) = MemAccess::of(f).filter(|m| !m.global) {
            match open.iter_mut().find(|g| g.0 == m.base) {
                Some(g) => g.1.push(i),
                None => open.push((m.base, vec![i])),
            }
        }
        for w in written(f) {
            if let Some(k) = open.iter().position(|g| g.0 == Some(w)) {
                done.push(open.remove(k));
            }
        }
    }
    done.extend(open);
    done.sort_by_key(|g| g.1[0]);
    let mut groups = Vec::new();
    let mut members = vec![None; forms.len()];
    for (base, at) in done {
        if groups.len() == MAX_GROUPS {
            break;
        }
        let Some((window, deltas)) = window(base, &at, forms) else {
            continue;
        };
        for (&i, delta) in at.iter().zip(deltas) {
            members[i] = Some(Member {
                group: groups.len(),
                delta,
            });
        }
        groups.push(Group {
            window,
            state: None,
        });
    }
    (groups, members)
}

/// The window of the accesses `at` of `forms` through `base`, and each one's distance from its
/// start; `None` for fewer than two, or offsets the window cannot cover (see the module's
/// note).
fn window(base: Option<u32>, at: &[usize], forms: &[Fast]) -> Option<(Window, Vec<i32>)> {
    if at.len() < 2 {
        return None;
    }
    let accesses: Vec<MemAccess> = at.iter().filter_map(|&i| MemAccess::of(forms[i])).collect();
    // Only the low 32 bits of an address matter: offsets modulo 2^32.
    let low = |a: &MemAccess| a.off as u32;
    let start = accesses.iter().map(low).min()?;
    let mut deltas = Vec::new();
    let (mut align, mut extent) = (1, 0);
    for a in &accesses {
        let d = low(a) - start;
        if d > MAX_DELTA || i64::from(d) % a.bytes != 0 {
            return None;
        }
        deltas.push(d as i32);
        align = align.max(a.bytes);
        extent = extent.max(i64::from(d) + a.bytes);
    }
    let window = Window {
        base,
        off: u64::from(start),
        align,
        extent,
    };
    Some((window, deltas))
}

/// The registers `f` writes.
fn written(f: Fast) -> Vec<u32> {
    match f {
        Fast::Ld { d, n, .. } => d[..usize::from(n)].to_vec(),
        _ => sources(f).1.into_iter().collect(),
    }
}

/// Declares each group's state (not yet checked) and stash at the function's entry.
pub(super) fn declare(b: &mut FunctionBuilder<'_>, groups: &mut [Group]) {
    for g in groups {
        let checked = b.declare_var(I8);
        let zero = b.ins().iconst(I8, 0);
        b.def_var(checked, zero);
        let stash = b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            super::lower::ROW as u32,
            4,
        ));
        g.state = Some(State {
            checked,
            stash,
            caller: b.declare_var(I32),
            check: b.create_block(),
            callers: Vec::new(),
        });
    }
}

/// Emits access `ld`, a member of `g`, at the builder's position, leaving the builder after it:
/// the move from the stash, once the group's check (out of line, [`finish`]) has been made in
/// this call.
pub(super) fn emit(
    b: &mut FunctionBuilder<'_>,
    rows: Rows,
    (ld, m): (MemAccess, Member),
    g: &mut Group,
    sh: Region,
) {
    let Some(st) = g.state.as_mut() else {
        return shared::emit(b, rows, ld, sh);
    };
    let (moving, calling) = (b.create_block(), b.create_block());
    let checked = b.use_var(st.checked);
    b.ins().brif(checked, moving, &[], calling, &[]);
    b.switch_to_block(calling);
    let me = b.ins().iconst(I32, st.callers.len() as i64);
    b.def_var(st.caller, me);
    b.ins().jump(st.check, &[]);
    st.callers.push(moving);
    b.switch_to_block(moving);
    let from = Lanes::Stashed {
        slot: st.stash,
        delta: m.delta,
    };
    shared::move_lanes(b, rows, ld, sh, from);
}

/// Emits each group's check: every lane's window aligned and inside (then back to the member
/// that asked, to move), else out through `sh.bail` before that member, for the interpreter to
/// take it (it declines it, or a later member).
pub(super) fn finish(b: &mut FunctionBuilder<'_>, rows: Rows, groups: &[Group], sh: Region) {
    for g in groups {
        let Some(st) = &g.state else { continue };
        b.switch_to_block(st.check);
        let bad = shared::check(b, rows, g.window, sh, Some(st.stash));
        let fine = b.create_block();
        b.ins().brif(bad, sh.bail, &[], fine, &[]);
        b.switch_to_block(fine);
        let one = b.ins().iconst(I8, 1);
        b.def_var(st.checked, one);
        let back: Vec<_> = st
            .callers
            .iter()
            .map(|&c| b.func.dfg.block_call(c, &[]))
            .collect();
        let default = b.func.dfg.block_call(sh.bail, &[]);
        let jt = b.create_jump_table(JumpTableData::new(default, &back));
        let caller = b.use_var(st.caller);
        b.ins().br_table(caller, jt);
    }
}

/// The membership of instruction `i`, if grouped.
pub(super) fn member(members: &[Option<Member>], i: usize) -> Option<Member> {
    *members.get(i)?
}

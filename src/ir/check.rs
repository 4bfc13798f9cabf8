//! The static checks ptxas makes that users hit (PTX ISA 9.0 section 5.2.4 "Operand type
//! information", 6.4 "Operand Type Compatibility", and each instruction's operand list in chapter
//! 9): operand counts, operand kinds (an address where an address belongs, a register where a
//! result goes), register types against instruction types, and instruction-specific rules such
//! as `cp.async.cg` copying exactly 16 bytes and every `mbarrier` object being `.b64`.
//! Deliberately conservative: a false error on valid nvcc output is worse than a missed check.

use super::mods::{Flags, SubOp};
use super::opcode::Op;
use super::types::Type;
use super::{Instr, Operand, RegInfo};
use crate::diag::Diag;
use crate::parse::ast;

/// One instruction under check: its lowered and parsed forms and the function's registers, for
/// the rule functions below and the messages they build.
struct Site<'a, 's> {
    ins: &'a Instr,
    ops: &'a [Operand],
    ast_ops: &'a [ast::Operand<'s>],
    src: &'a ast::Instr<'s>,
    regs: &'a [RegInfo],
    pool: &'a [Operand],
    reg_names: &'a [String],
}

impl Site<'_, '_> {
    /// The source span of operand `k` (the whole instruction where it has none).
    fn at(&self, k: usize) -> crate::lex::Span {
        self.ast_ops
            .get(k)
            .map_or(self.src.span.clone(), |o| o.span())
    }

    fn kind_error(&self, k: usize, what: &str) -> Diag {
        Diag::error(
            "ir::operand-kind",
            format!(
                "operand {} of `{}` must be {what}",
                k + 1,
                self.ins.op.spec().name
            ),
        )
        .label(self.at(k), format!("expected {what}"))
    }

    fn reg_ty(&self, o: &Operand) -> Option<Type> {
        match o {
            Operand::Reg(r) => self.regs.get(r.0 as usize).map(|i| i.ty),
            _ => None,
        }
    }

    fn name_of(&self, o: &Operand) -> String {
        match o {
            Operand::Reg(r) => self
                .reg_names
                .get(r.0 as usize)
                .cloned()
                .unwrap_or_default(),
            _ => String::new(),
        }
    }
}

pub fn check_instr(
    ins: &Instr,
    ops: &[Operand],
    ast_ops: &[ast::Operand<'_>],
    src: &ast::Instr<'_>,
    regs: &[RegInfo],
    pool: &[Operand],
    reg_names: &[String],
) -> Result<(), Diag> {
    let spec = ins.op.spec();
    if ins.is_b128() {
        check_b128(ins, src)?;
    }
    if ins.op == Op::Createpolicy {
        return check_createpolicy(ops.len(), src);
    }
    if spec.opaque {
        return Ok(());
    }
    check_operand_count(ins, ops.len(), src)?;
    let s = Site {
        ins,
        ops,
        ast_ops,
        src,
        regs,
        pool,
        reg_names,
    };
    check_video(ins, ops, src, regs, &|k| s.at(k))?;
    check_operand_kinds(&s)?;
    check_register_types(&s)?;
    check_mbarrier(&s)?;
    check_cp_async(&s)?;
    check_forms(&s)?;
    check_async_and_counts(&s)
}

/// The operand count against the opcode table's range.
fn check_operand_count(ins: &Instr, n: usize, src: &ast::Instr<'_>) -> Result<(), Diag> {
    let spec = ins.op.spec();
    let (lo, hi) = spec.operands;
    if n < usize::from(lo) || n > usize::from(hi) {
        let want = if lo == hi {
            format!("{lo}")
        } else {
            format!("{lo} to {hi}")
        };
        let plural = if hi == 1 { "" } else { "s" };
        return Err(Diag::error(
            "ir::operand-count",
            format!("`{}` takes {want} operand{plural}, found {n}", spec.name),
        )
        .label(
            src.span.clone(),
            format!("{n} operand{}", if n == 1 { "" } else { "s" }),
        ));
    }
    Ok(())
}

/// Addresses where addresses belong, a register where the result goes, a label for `bra`.
fn check_operand_kinds(s: &Site<'_, '_>) -> Result<(), Diag> {
    let (ins, ops, n) = (s.ins, s.ops, s.ops.len());
    let is_addr = |o: &Operand| matches!(o, Operand::Addr(..) | Operand::AddrList(_));
    let is_dest = |o: &Operand| {
        matches!(
            o,
            Operand::Reg(_)
                | Operand::Vector(_)
                | Operand::Pair(..)
                | Operand::Sink
                | Operand::VReg(..)
        )
    };
    // Where addresses must stand, per instruction.
    let addr_positions: &[usize] = match ins.op {
        Op::Ld
        | Op::Ldu
        | Op::Ldmatrix
        | Op::WmmaLoad
        | Op::Atom
        | Op::MbarrierTestWait
        | Op::MbarrierTryWait
        | Op::MbarrierArrive
        | Op::MbarrierArriveDrop => &[1],
        Op::St
        | Op::StBulk
        | Op::Stmatrix
        | Op::WmmaStore
        | Op::Red
        | Op::MbarrierInit
        | Op::MbarrierInval
        | Op::MbarrierExpectTx
        | Op::MbarrierCompleteTx
        | Op::TensormapReplace => &[0],
        Op::CpAsyncMbarrierArrive | Op::Prefetch | Op::Prefetchu => &[0],
        Op::CpAsync | Op::CpAsyncBulk | Op::CpReduceAsyncBulk | Op::TensormapCpFenceproxy => {
            &[0, 1]
        }
        Op::StAsync | Op::RedAsync => &[0, 2],
        _ => &[],
    };
    for &k in addr_positions {
        if let Some(o) = ops.get(k) {
            if !is_addr(o) {
                return Err(s.kind_error(k, "an address in brackets, e.g. `[%rd1]`"));
            }
        }
    }
    // Instructions whose first operand is a result.
    let writes_first = !matches!(
        ins.op,
        Op::St
            | Op::StBulk
            | Op::Stmatrix
            | Op::WmmaStore
            | Op::Red
            | Op::StAsync
            | Op::RedAsync
            | Op::Bra
            | Op::BrxIdx
            | Op::Call
            | Op::Bar
            | Op::Barrier
            | Op::BarWarpSync
            | Op::Prefetch
            | Op::Prefetchu
            | Op::Nanosleep
            | Op::Pmevent
            | Op::Stackrestore
            | Op::Setmaxnreg
            | Op::Discard
            | Op::Applypriority
            | Op::FenceProxyTensormap
            | Op::TensormapReplace
            | Op::TensormapCpFenceproxy
            | Op::WgmmaWaitGroup
            | Op::Sust
            | Op::Sured
    ) && !ins.op.name().starts_with("cp.")
        && !ins.op.name().starts_with("mbarrier.")
        && !ins.op.name().starts_with("fence");
    if writes_first && n > 0 && !is_dest(&ops[0]) {
        return Err(s.kind_error(0, "a register to write the result to"));
    }
    if matches!(ins.op, Op::Bra) && !matches!(ops[0], Operand::Label(_)) {
        return Err(s.kind_error(0, "a label"));
    }
    Ok(())
}

/// Register types against the instruction type, and the predicates of `setp` and `selp`.
fn check_register_types(s: &Site<'_, '_>) -> Result<(), Diag> {
    let (ins, ops, regs, spec) = (s.ins, s.ops, s.regs, s.ins.op.spec());
    let ty = ins.mods.ty();
    let same_size_ops: &[usize] = match ins.op {
        Op::Add
        | Op::Sub
        | Op::Min
        | Op::Max
        | Op::And
        | Op::Or
        | Op::Xor
        | Op::Div
        | Op::Rem
        | Op::Copysign => &[0, 1, 2],
        Op::Mul if ins.mods.sub != Some(SubOp::Wide) => &[0, 1, 2],
        Op::Mad | Op::Fma if ins.mods.sub != Some(SubOp::Wide) => &[0, 1, 2, 3],
        Op::Abs
        | Op::Neg
        | Op::Not
        | Op::Cnot
        | Op::Rcp
        | Op::Sqrt
        | Op::Rsqrt
        | Op::Sin
        | Op::Cos
        | Op::Lg2
        | Op::Ex2
        | Op::Tanh => &[0, 1],
        Op::Selp => &[0, 1, 2],
        Op::Setp => &[1, 2],
        _ => &[],
    };
    if let Some(t) = ty {
        for &k in same_size_ops {
            let Some(o) = ops.get(k) else { continue };
            let Some(rt) = s.reg_ty(o) else { continue };
            let pred_mismatch = (rt == Type::Pred) != (t == Type::Pred);
            let kind_mismatch = !rt.is_bits() && !t.is_bits() && rt.is_float() != t.is_float();
            if pred_mismatch || rt.size() != t.size() || kind_mismatch {
                return Err(Diag::error(
                    "ir::operand-type",
                    format!(
                        "`{}` is a {} register, but `{}` operates on {t}",
                        s.name_of(o),
                        rt,
                        spec.name
                    ),
                )
                .label(s.at(k), format!("declared {rt}"))
                .help(format!(
                    "use a register declared with a type of the same size as {t}"
                )));
            }
        }
    }
    if matches!(ins.op, Op::Setp) {
        let ok = match &ops[0] {
            Operand::Reg(r) => regs.get(r.0 as usize).is_some_and(|i| i.ty == Type::Pred),
            Operand::Pair(a, b) => [*a, *b]
                .into_iter()
                .flatten()
                .all(|r| regs.get(r.0 as usize).is_some_and(|i| i.ty == Type::Pred)),
            _ => true,
        };
        if !ok {
            return Err(s.kind_error(0, "a `.pred` register"));
        }
    }
    if matches!(ins.op, Op::Selp) && s.reg_ty(&ops[3]).is_some_and(|t| t != Type::Pred) {
        return Err(s.kind_error(3, "a `.pred` register"));
    }
    Ok(())
}

/// Every `mbarrier` object is `.b64`, and so is the state an arrive returns.
fn check_mbarrier(s: &Site<'_, '_>) -> Result<(), Diag> {
    let (ins, ops, src, spec) = (s.ins, s.ops, s.src, s.ins.op.spec());
    let ty = ins.mods.ty();
    let mbarrier = ins.op.name().starts_with("mbarrier.") || ins.op == Op::CpAsyncMbarrierArrive;
    if mbarrier {
        if let Some(t) = ty.filter(|t| *t != Type::B64) {
            return Err(Diag::error(
                "ir::mbarrier-type",
                format!(
                    "`{}` operates on a 64-bit mbarrier object, not {t}",
                    spec.name
                ),
            )
            .label(src.opcode.span.clone(), "use `.b64`"));
        }
        if matches!(ins.op, Op::MbarrierArrive | Op::MbarrierArriveDrop) {
            if let Some(rt) = s.reg_ty(&ops[0]).filter(|t| t.size() != 8) {
                return Err(Diag::error(
                    "ir::operand-type",
                    format!("the state of `{}` is 64 bits, not {rt}", spec.name),
                )
                .label(s.at(0), "use a `.b64` register or `_`"));
            }
        }
    }
    Ok(())
}

/// `cp.async` copies 4, 8 or 16 bytes (`.cg` 16 only), and src-size fits the copy.
fn check_cp_async(s: &Site<'_, '_>) -> Result<(), Diag> {
    let (ins, ops, src) = (s.ins, s.ops, s.src);
    if ins.op == Op::CpAsync {
        use super::mods::CacheOp;
        let allowed: &[i64] = if ins.mods.cache == Some(CacheOp::Cg) {
            &[16]
        } else {
            &[4, 8, 16]
        };
        match ops.get(2) {
            Some(Operand::Imm(sz)) if allowed.contains(sz) => {}
            Some(Operand::Imm(sz)) => {
                let which = if allowed.len() == 1 {
                    "16 bytes only"
                } else {
                    "4, 8 or 16 bytes"
                };
                return Err(Diag::error(
                    "ir::cp-async-size",
                    format!("`{}` copies {which}, not {sz}", src.opcode.text),
                )
                .label(s.at(2), "copy size")
                .help(if allowed.len() == 1 {
                    "use `cp.async.ca` for 4- and 8-byte copies"
                } else {
                    "copy 4, 8 or 16 bytes"
                }));
            }
            _ => return Err(s.kind_error(2, "an immediate copy size (4, 8 or 16)")),
        }
        if let (Some(Operand::Imm(cp)), Some(Operand::Imm(srcsz))) = (ops.get(2), ops.get(3)) {
            if srcsz > cp || *srcsz < 0 {
                return Err(Diag::error(
                    "ir::cp-async-size",
                    format!("src-size {srcsz} exceeds the copy size {cp}"),
                )
                .label(s.at(3), "src-size"));
            }
        }
    }
    Ok(())
}

/// The forms of `cvt`, the matrix instructions and `tensormap.replace`.
fn check_forms(s: &Site<'_, '_>) -> Result<(), Diag> {
    let (ins, ops, src, n) = (s.ins, s.ops, s.src, s.ops.len());
    let at = |k: usize| s.at(k);
    if ins.op == Op::Cvt {
        if let Err(super::cvt::CvtError::Illegal(why)) = super::cvt::form(&ins.mods, n) {
            return Err(Diag::error(
                "ir::cvt-form",
                format!("`{}` is not a form of cvt: {why}", src.opcode.text),
            )
            .label(src.opcode.span.clone(), why)
            .help("PTX ISA 9.0 section 9.7.9.21 lists the forms of cvt"));
        }
    }
    if ins.op == Op::Mma {
        check_mma(ins, ops, src, &at)?;
    }
    if matches!(ins.op, Op::MmaSp | Op::MmaSpOrdered) {
        check_mma_sp(ins, ops, src, &at)?;
    }
    if matches!(ins.op, Op::WmmaLoad | Op::WmmaStore | Op::WmmaMma) {
        check_wmma(ins, ops, src, &at)?;
    }
    if let Some((k, what)) = super::atomform::data_width(ins, ops, |r| r.len as usize) {
        return Err(s.kind_error(k, &what));
    }
    if matches!(ins.op, Op::Atom | Op::Red) {
        if let Some(why) = super::atomform::atomic_form(ins) {
            return Err(Diag::error(
                "ir::atom-form",
                format!("`{}` is not a form of {}: {why}", src.opcode.text, ins.op.name()),
            )
            .label(src.opcode.span.clone(), why)
            .help("PTX ISA 9.0 sections 9.7.13.5-6: .min/.max of integers and 16-bit floats; vectors: atom/red{.sem}{.scope}{.global}.add.v2/.v4.f32, and .add/.min/.max.noftz of .v2/.v4/.v8 .f16/.bf16 or .v2/.v4 .f16x2/.bf16x2"));
        }
    }
    if ins.op == Op::TensormapReplace {
        if let Some(why) = tensormap_replace_form(ins, ops) {
            return Err(Diag::error(
                "ir::tensormap-replace-form",
                format!("`{}` is not a form of tensormap.replace: {why}", src.opcode.text),
            )
            .label(src.opcode.span.clone(), why)
            .help("PTX ISA 9.0 section 9.7.9.27: tensormap.replace.tile.FIELD{.global, .shared::cta}.b1024{.b32, .b64} [addr], {ord,} new_val"));
        }
    }
    Ok(())
}

/// `st.bulk`, the tensor copies, `setmaxnreg`, `wgmma` and the wait-group counts.
fn check_async_and_counts(s: &Site<'_, '_>) -> Result<(), Diag> {
    let (ins, ops, src, regs, pool, spec) = (s.ins, s.ops, s.src, s.regs, s.pool, s.ins.op.spec());
    let at = |k: usize| s.at(k);
    if ins.op == Op::StBulk {
        check_st_bulk(ins, ops, src, regs, &at)?;
    }
    if matches!(
        ins.op,
        Op::CpAsyncBulkTensor | Op::CpReduceAsyncBulkTensor | Op::CpAsyncBulkPrefetchTensor
    ) {
        if let Some(why) = super::tensorcopy::form(ins.op, &ins.mods, ops, regs, pool) {
            return Err(Diag::error(
                "ir::tensor-copy-form",
                format!(
                    "`{}` is not a form of {}: {why}",
                    src.opcode.text, spec.name
                ),
            )
            .label(src.span.clone(), why)
            .help("PTX ISA 9.0 section 9.7.9.25.5 lists the forms of the tensor copies"));
        }
    }
    if ins.op == Op::Setmaxnreg
        && !matches!(ops[0], Operand::Imm(n) if (24..=256).contains(&n) && n % 8 == 0)
    {
        return Err(s.kind_error(0, "a register count: a multiple of 8 from 24 to 256"));
    }
    if matches!(ins.op, Op::WgmmaMmaAsync | Op::WgmmaMmaAsyncSp) {
        check_wgmma(ins, ops, src, &at)?;
        let sparse = ins.op == Op::WgmmaMmaAsyncSp;
        check_wgmma_registers(ops, sparse, (regs, pool), &at)?;
    }
    if matches!(
        ins.op,
        Op::CpAsyncWaitGroup | Op::CpAsyncBulkWaitGroup | Op::WgmmaWaitGroup
    ) && !matches!(ops[0], Operand::Imm(0..))
    {
        return Err(s.kind_error(0, "a non-negative integer constant"));
    }
    Ok(())
}

/// `st.bulk{.weak}{.shared::cta} [a], size, initval` (PTX ISA 9.0 section 9.7.9.13), as ptxas
/// 13.0 takes it: no memory order but `.weak`, no state space but `.shared::cta` (plain `.shared`
/// too is rejected), `initval` the constant 0, `size` a constant multiple of 8 up to 2^24 or a
/// 64-bit register. ptxas 13.0 also fails on a 32-bit size register (which PTX ISA 9.0 allows)
/// and on an address that is a bare variable (`[buf]`), so these are errors here too.
fn check_st_bulk(
    ins: &Instr,
    ops: &[Operand],
    src: &ast::Instr<'_>,
    regs: &[RegInfo],
    at: &dyn Fn(usize) -> crate::lex::Span,
) -> Result<(), Diag> {
    use super::mods::Sem;
    use super::AddrBase;
    let err = |span: crate::lex::Span, why: &str| {
        Diag::error(
            "ir::st-bulk-form",
            format!("`{}` is not a form of st.bulk: {why}", src.opcode.text),
        )
        .label(span, why.to_string())
        .help("PTX ISA 9.0 section 9.7.9.13: st.bulk{.weak}{.shared::cta} [a], size, 0; size a multiple of 8 (at most 16777216), a constant or a 64-bit register")
    };
    let opcode = src.opcode.span.clone();
    if ins.mods.sem.is_some_and(|s| s != Sem::Weak) {
        return Err(err(opcode, "the only memory order it takes is `.weak`"));
    }
    let words: Vec<&str> = src.opcode.text.split('.').collect();
    if ins.mods.space.is_some() && !words.contains(&"shared::cta") {
        return Err(err(
            opcode,
            "the only state space it takes is `.shared::cta`",
        ));
    }
    if matches!(ops[0], Operand::Addr(AddrBase::Sym(_), _)) {
        return Err(err(
            at(0),
            "ptxas 13.0 takes the address in a register only",
        ));
    }
    match ops[1] {
        Operand::Imm(n) if (0..=1 << 24).contains(&n) && n % 8 == 0 => {}
        Operand::Imm(_) => {
            return Err(err(
                at(1),
                "a constant size is a multiple of 8 from 0 to 16777216",
            ))
        }
        Operand::Reg(r) if regs.get(r.0 as usize).is_some_and(|i| i.ty.size() == 8) => {}
        Operand::Reg(_) => return Err(err(at(1), "ptxas 13.0 takes a 64-bit size register only")),
        _ => return Err(err(at(1), "the size is a constant or a 64-bit register")),
    }
    if ops[2] != Operand::Imm(0) {
        return Err(err(at(2), "initval must be the constant 0"));
    }
    Ok(())
}

/// `.b128` (PTX ISA 8.3 and later, "Fundamental Types"): only `ld`, `ldu`, `st` and `mov`
/// take it, and `atom` with `.exch` or `.cas`, never as a vector (a vector holds at most 128
/// bits). ptxas 13.0 rejects every other instruction (`mul.wide.b128`, `cvt.b128.bf16`,
/// `and.b128`, `shfl.sync.b128`, `red`, `st.async`, `multimem`, ...), as this does.
fn check_b128(ins: &Instr, src: &ast::Instr<'_>) -> Result<(), Diag> {
    let allowed = match ins.op {
        Op::Ld | Op::Ldu | Op::St | Op::Mov => true,
        Op::Atom => matches!(ins.mods.sub, Some(SubOp::Exch | SubOp::Cas)),
        _ => false,
    };
    let why = if !allowed {
        "`.b128` is allowed only in ld, ldu, st, mov, atom.exch and atom.cas"
    } else if ins.mods.vec > 1 {
        "a vector of `.b128` exceeds the 128-bit limit of a vector"
    } else {
        return Ok(());
    };
    Err(Diag::error(
        "ir::b128-type",
        format!("`{}` does not take `.b128`: {why}", src.opcode.text),
    )
    .label(src.opcode.span.clone(), "`.b128` not allowed here")
    .help(
        "PTX ISA 9.0 lists `.b128` among the types of ld, ldu, st, mov and atom (.exch, .cas) only",
    ))
}

/// `mma`: a form PTX has (section 9.7.14.5.14), with as many registers in each brace list as
/// the fragment of that form holds per lane.
fn check_mma(
    ins: &Instr,
    ops: &[Operand],
    src: &ast::Instr<'_>,
    at: &dyn Fn(usize) -> crate::lex::Span,
) -> Result<(), Diag> {
    let f = match super::mma::form(&ins.mods) {
        Ok(f) => f,
        Err(super::mma::MmaError::Illegal(why)) => {
            return Err(form_error(src, why, "mma", "9.7.14.5.14"));
        }
        // Decodes; executing it is the error.
        Err(super::mma::MmaError::NotExecutable(_)) => return Ok(()),
    };
    let [d, a, b, c] = f.regs();
    check_fragments(
        ops,
        src,
        at,
        &[(0, d, "D"), (1, a, "A"), (2, b, "B"), (3, c, "C")],
    )
}

/// `mma.sp`: a form PTX has (section 9.7.14.6), six operands `d, a, b, c, e, f` with the
/// fragments' register counts, the metadata `e` one register and the sparsity selector `f` an
/// immediate in the form's range (ptxas: "Argument 6 of instruction 'Sparse mma': value out of
/// range").
fn check_mma_sp(
    ins: &Instr,
    ops: &[Operand],
    src: &ast::Instr<'_>,
    at: &dyn Fn(usize) -> crate::lex::Span,
) -> Result<(), Diag> {
    let f = match super::mma_sp::form(&ins.mods, ins.op == Op::MmaSpOrdered) {
        Ok(f) => f,
        Err(super::mma::MmaError::Illegal(why)) => {
            return Err(form_error(src, why, "mma.sp", "9.7.14.6"));
        }
        Err(super::mma::MmaError::NotExecutable(_)) => return Ok(()),
    };
    let operands_error = |k: usize, what: String, label: String| {
        Diag::error("ir::mma-operands", format!("`{}` {what}", src.opcode.text)).label(at(k), label)
    };
    if ops.len() != 6 {
        return Err(operands_error(
            ops.len().saturating_sub(1),
            format!(
                "takes 6 operands (d, a, b, c, metadata, sparsity selector), found {}",
                ops.len()
            ),
            "6 operands expected".into(),
        ));
    }
    let [d, a, b, c] = f.regs();
    check_fragments(
        ops,
        src,
        at,
        &[
            (0, d, "D"),
            (1, a, "A"),
            (2, b, "B"),
            (3, c, "C"),
            (4, 1, "the metadata"),
        ],
    )?;
    let sels = f.ptxas_selectors();
    if !matches!(ops[5], Operand::Imm(v) if (0..i64::from(sels)).contains(&v)) {
        return Err(operands_error(
            5,
            format!(
                "takes a sparsity selector from 0 to {} (an immediate)",
                sels - 1
            ),
            format!("0 to {} expected", sels - 1),
        ));
    }
    Ok(())
}

/// `ir::mma-form`: the instruction is no form of the matrix instruction `family`.
fn form_error(src: &ast::Instr<'_>, why: &'static str, family: &str, section: &str) -> Diag {
    Diag::error(
        "ir::mma-form",
        format!("`{}` is not a form of {family}: {why}", src.opcode.text),
    )
    .label(src.opcode.span.clone(), why)
    .help(format!(
        "PTX ISA 9.0 section {section} lists the forms of {family}"
    ))
}

/// Each `(operand, registers, name)`: the operand's brace list holds that many registers.
fn check_fragments(
    ops: &[Operand],
    src: &ast::Instr<'_>,
    at: &dyn Fn(usize) -> crate::lex::Span,
    want: &[(usize, usize, &str)],
) -> Result<(), Diag> {
    for &(k, n, name) in want {
        let got = match &ops[k] {
            Operand::Vector(v) => usize::from(v.len),
            Operand::Reg(_) => 1,
            _ => 0,
        };
        if got != n {
            return Err(Diag::error(
                "ir::mma-operands",
                format!(
                    "`{}` takes {n} register{} for {name}, found {got}",
                    src.opcode.text,
                    if n == 1 { "" } else { "s" }
                ),
            )
            .label(at(k), format!("{n} expected")));
        }
    }
    Ok(())
}

/// `wgmma.mma_async`: a form PTX has (section 9.7.15.5.2), D's brace list as long as the form's
/// accumulator fragment, A a brace list (registers) or a 64-bit descriptor, and the immediates
/// the form takes with values PTX allows.
fn check_wgmma(
    ins: &Instr,
    ops: &[Operand],
    src: &ast::Instr<'_>,
    at: &dyn Fn(usize) -> crate::lex::Span,
) -> Result<(), Diag> {
    let sparse = ins.op == Op::WgmmaMmaAsyncSp;
    let f = match super::wgmma::form(&ins.mods, sparse) {
        Ok(f) => f,
        Err(super::mma::MmaError::Illegal(why)) => {
            return Err(form_error(src, why, "wgmma.mma_async", "9.7.15.5.2"));
        }
        Err(super::mma::MmaError::NotExecutable(_)) => return Ok(()),
    };
    let a_in_regs = matches!(ops.get(1), Some(Operand::Vector(_)));
    let want = f.operands(a_in_regs);
    if ops.len() != want {
        return Err(Diag::error(
            "ir::mma-operands",
            format!(
                "`{}` takes {want} operands (d, {}, b-desc, {}scale-d{}), found {}",
                src.opcode.text,
                if a_in_regs { "a" } else { "a-desc" },
                if sparse { "sp-meta, sp-sel, " } else { "" },
                match (f.scalable(), f.transposable(), a_in_regs) {
                    (false, _, _) => "",
                    (true, false, _) => ", imm-scale-a, imm-scale-b",
                    (true, true, true) => ", imm-scale-a, imm-scale-b, imm-trans-b",
                    (true, true, false) => ", imm-scale-a, imm-scale-b, imm-trans-a, imm-trans-b",
                },
                ops.len()
            ),
        )
        .label(src.opcode.span.clone(), format!("{want} operands expected")));
    }
    let mut frags = vec![(0, f.d_regs(), "D"), (2, 1, "the B descriptor")];
    frags.push((1, if a_in_regs { f.a_regs() } else { 1 }, "A"));
    check_fragments(ops, src, at, &frags)?;
    let scale_d = f.scale_d_operand();
    // After scale-d come the immediates; the sparse forms' selector (operand 4) is 0 or 1, only
    // 0 for the 8-bit types (ptxas).
    let imms = ops.iter().enumerate().skip(scale_d + 1);
    let selector = sparse.then(|| (4, &ops[4]));
    for (k, o) in selector.into_iter().chain(imms) {
        let scale = f.scalable() && k > scale_d && k < scale_d + 3;
        let top = if sparse && k == 4 {
            f.max_selector()
        } else {
            1
        };
        let ok = match o {
            Operand::Imm(v) if scale => *v == 1 || *v == -1,
            Operand::Imm(v) => (0..=top).contains(v),
            _ => false,
        };
        if !ok {
            let what = match (scale, top) {
                (true, _) => "1 or -1",
                (false, 0) => "0",
                _ => "0 or 1",
            };
            return Err(Diag::error(
                "ir::mma-operands",
                format!("`{}` takes the constant {what} here", src.opcode.text),
            )
            .label(at(k), format!("{what} expected")));
        }
    }
    Ok(())
}

/// `wgmma.mma_async`'s registers have the widths the ISA gives them: D, A and the metadata are
/// 32-bit registers, the descriptors 64-bit ones, `scale-d` a predicate or 0/1 (ptxas refuses
/// others; executing them would silently drop bits).
fn check_wgmma_registers(
    ops: &[Operand],
    sparse: bool,
    (regs, pool): (&[RegInfo], &[Operand]),
    at: &dyn Fn(usize) -> crate::lex::Span,
) -> Result<(), Diag> {
    let width = |o: &Operand| match o {
        Operand::Reg(r) => {
            regs.get(r.0 as usize)
                .map(|i| if i.ty == Type::Pred { 0 } else { i.ty.size() })
        }
        _ => None,
    };
    let elems = |o: &Operand| -> Vec<Operand> {
        match o {
            Operand::Vector(v) => pool
                .get(v.start as usize..v.start as usize + usize::from(v.len))
                .map(<[Operand]>::to_vec)
                .unwrap_or_default(),
            o => vec![*o],
        }
    };
    let bad = |k: usize, what: &str| {
        Diag::error(
            "ir::operand-kind",
            format!("operand {} of `wgmma.mma_async` must be {what}", k + 1),
        )
        .label(at(k), format!("expected {what}"))
    };
    let a_in_regs = matches!(ops.get(1), Some(Operand::Vector(_)));

    for (k, o) in ops.iter().enumerate().take(3) {
        let (want, what) = match k {
            1 if !a_in_regs => (8, "a 64-bit register (the A descriptor)"),
            2 => (8, "a 64-bit register (the B descriptor)"),
            _ => (4, "32-bit registers"),
        };
        if elems(o).iter().any(|e| width(e) != Some(want)) {
            return Err(bad(k, what));
        }
    }
    if sparse && !matches!(ops[3], Operand::Imm(_)) && width(&ops[3]) != Some(4) {
        return Err(bad(3, "a 32-bit register (the sparsity metadata)"));
    }
    let sd = if sparse { 5 } else { 3 };
    let scale_ok = match &ops[sd] {
        Operand::Reg(_) => width(&ops[sd]) == Some(0),
        Operand::NotPred(_) | Operand::Imm(0 | 1) => true,
        _ => false,
    };
    if !scale_ok {
        return Err(bad(sd, "a predicate or the constant 0 or 1 (scale-d)"));
    }
    Ok(())
}

/// `wmma.load`/`store`/`mma`: a form PTX has (section 9.7.14.4), with as many registers in
/// each brace list as its fragments hold per lane.
fn check_wmma(
    ins: &Instr,
    ops: &[Operand],
    src: &ast::Instr<'_>,
    at: &dyn Fn(usize) -> crate::lex::Span,
) -> Result<(), Diag> {
    use super::mma::{wmma_mma, wmma_mma_regs, wmma_move, MmaError};
    let illegal = |why| form_error(src, why, "wmma", "9.7.14.4");
    let want: Vec<(usize, usize, &str)> = match ins.op {
        Op::WmmaMma => match wmma_mma(&ins.mods) {
            Ok(f) => {
                let [d, a, b, c] = wmma_mma_regs(&f);
                vec![(0, d, "D"), (1, a, "A"), (2, b, "B"), (3, c, "C")]
            }
            Err(MmaError::Illegal(why)) => return Err(illegal(why)),
            Err(MmaError::NotExecutable(_)) => return Ok(()),
        },
        op => match wmma_move(&ins.mods, op == Op::WmmaStore) {
            Ok(mv) => vec![(usize::from(op == Op::WmmaStore), mv.regs(), "the fragment")],
            Err(MmaError::Illegal(why)) => return Err(illegal(why)),
            Err(MmaError::NotExecutable(_)) => return Ok(()),
        },
    };
    check_fragments(ops, src, at, &want)
}

/// What is wrong with a `tensormap.replace` (its field, operand count, type, `.tile.b1024`),
/// as ptxas says it.
fn tensormap_replace_form(ins: &Instr, ops: &[Operand]) -> Option<&'static str> {
    use SubOp as F;
    let field = ins.mods.sub?;
    let with_ord = matches!(
        field,
        F::BoxDim | F::GlobalDim | F::GlobalStride | F::ElementStride
    );
    let wide = matches!(field, F::GlobalAddress | F::GlobalStride);
    let enumerated = matches!(
        field,
        F::Elemtype | F::InterleaveLayout | F::SwizzleMode | F::SwizzleAtomicity | F::FillMode
    );
    if !ins.mods.has(Flags::TILE) || !ins.mods.has(Flags::B1024) {
        return Some("it needs .tile and .b1024");
    }
    if ops.len() != if with_ord { 3 } else { 2 } {
        return Some("box_dim, global_dim, global_stride and element_stride take [addr], ord, new_val; the other fields [addr], new_val");
    }
    if ins.mods.ty() != Some(if wide { Type::B64 } else { Type::B32 }) {
        return Some("global_address and global_stride are .b64, the other fields .b32");
    }
    if with_ord && !matches!(ops[1], Operand::Imm(0..=4)) {
        return Some("ord is a constant from 0 to 4");
    }
    if enumerated && !matches!(ops[ops.len() - 1], Operand::Imm(_)) {
        return Some("this field's new value is a constant");
    }
    None
}

/// `createpolicy` is opaque to the opcode table; its words are decoded by `policy::form`, and
/// its operand count depends on the form.
fn check_createpolicy(n: usize, src: &ast::Instr<'_>) -> Result<(), Diag> {
    let mut text = src.opcode.text.to_string();
    for m in &src.mods {
        text.push_str(m.text);
    }
    let help =
        "PTX ISA 9.0, createpolicy: createpolicy.fractional.L2::primary{.L2::secondary}.b64 \
                d{, fraction}; createpolicy.range{.global}.L2::primary{.L2::secondary}.b64 d, [a], \
                primary-size, total-size; createpolicy.cvt.L2.b64 d, access-property";
    let form = super::policy::form(&text).map_err(|why| {
        Diag::error(
            "ir::createpolicy-form",
            format!("`{text}` is not a form of createpolicy: {why}"),
        )
        .label(src.opcode.span.clone(), why)
        .help(help)
    })?;
    let (lo, hi) = super::policy::operand_count(form);
    if (lo..=hi).contains(&n) {
        return Ok(());
    }
    let want = if lo == hi {
        format!("{lo}")
    } else {
        format!("{lo} to {hi}")
    };
    Err(Diag::error(
        "ir::operand-count",
        format!("`{text}` takes {want} operands, found {n}"),
    )
    .label(src.span.clone(), "here")
    .help(help))
}

/// Video instructions (section 9.7.16): the form `video::form` reads, or its reason; and a
/// selector (`%r2.b1`) anywhere else, which no other instruction takes.
fn check_video(
    ins: &Instr,
    ops: &[Operand],
    src: &ast::Instr<'_>,
    regs: &[RegInfo],
    at: &dyn Fn(usize) -> crate::lex::Span,
) -> Result<(), Diag> {
    if super::video::is_video(ins.op) {
        // ptxas takes `.b32`, `.u32` and `.s32` registers only.
        for (k, o) in ops.iter().enumerate() {
            let (Operand::Reg(r) | Operand::VReg(r, _) | Operand::NegReg(r)) = o else {
                continue;
            };
            let ty = regs.get(r.0 as usize).map(|i| i.ty);
            if !matches!(ty, Some(Type::B32 | Type::U32 | Type::S32)) {
                return Err(Diag::error(
                    "ir::operand-type",
                    format!(
                        "the operands of `{}` are 32-bit integer registers",
                        ins.op.name()
                    ),
                )
                .label(at(k), "not a .b32, .u32 or .s32 register"));
            }
        }
        return super::video::form(ins.op, &ins.mods, ops)
            .map(|_| ())
            .map_err(|why| {
                Diag::error(
                    "ir::video-form",
                    format!(
                        "`{}` is not a form of {}: {why}",
                        src.opcode.text,
                        ins.op.name()
                    ),
                )
                .label(src.span.clone(), why)
                .help("PTX ISA 9.0 section 9.7.16 lists the forms of the video instructions")
            });
    }
    match ops.iter().position(|o| matches!(o, Operand::VReg(..))) {
        Some(k) => Err(Diag::error(
            "ir::video-selector",
            format!("`{}` takes no byte or half selector", ins.op.name()),
        )
        .label(
            at(k),
            "a selector such as `.b1` belongs to video instructions",
        )),
        None => Ok(()),
    }
}

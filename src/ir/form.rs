//! The decoded form of each instruction, computed once when its function is lowered and kept in
//! [`Function::forms`](super::Function), parallel to the code: the conversion a `cvt` makes
//! (`cvt.rs`, PTX ISA 9.0 section 9.7.9.21), the shape and types of a matrix instruction
//! (`mma.rs`, `mma_sp.rs`, `wgmma.rs`: sections 9.7.14 and 9.7.15), a video instruction's
//! operation and selectors (`video.rs`, 9.7.16), whether a texture or surface form is modelled
//! (`texture.rs`, 9.7.10), a `createpolicy`'s policy (`policy.rs`), which operands of a `call`
//! are its returns, target and arguments (9.7.12.7) and which of a `bar` are its barrier and
//! thread count (9.7.13.1). Handlers read the stored value instead of decoding modifiers and
//! operands at every execution. A form ptxrun does not execute is kept with its reason, so
//! reaching it stops the run as `unsupported` naming the form, as before; whether an instruction
//! executes at all ([`Form::is_executable`]) is read from the same value.

use super::cvt::{self, CvtError, CvtForm};
use super::mma::{self, MmaError, MmaForm, WmmaMove};
use super::mma_sp::{self, SpForm};
use super::mods::SubOp;
use super::policy::{self, Policy};
use super::video::{self, VForm};
use super::wgmma::{self, WgmmaForm};
use super::{texture, Function, Instr, Op, OpRange, Operand};

/// One instruction's decoded form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Form {
    /// Nothing to decode beyond the opcode, modifiers and operands (most instructions).
    Plain,
    Cvt(Result<CvtForm, CvtError>),
    Mma(Result<MmaForm, MmaError>),
    /// `mma.sp` and `mma.sp::ordered_metadata`.
    MmaSp(Result<SpForm, MmaError>),
    /// `wmma.load` and `wmma.store`.
    WmmaMove(Result<WmmaMove, MmaError>),
    WmmaMma(Result<MmaForm, MmaError>),
    /// `wgmma.mma_async` and `wgmma.mma_async.sp`.
    Wgmma(Result<WgmmaForm, MmaError>),
    Video(Result<VForm, String>),
    /// The texture and surface instructions: modelled (with the query of `txq`/`suq`), or why
    /// not.
    Tex(Result<Option<SubOp>, String>),
    /// `createpolicy`, decoded from its opaque words.
    Policy(Result<Policy, &'static str>),
    Call(CallForm),
    Bar(BarForm),
}

/// A `call`'s operands `(rets), target, (args) [, prototype]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallForm {
    /// The return list's operands (`None`: the call returns nothing).
    pub rets: Option<OpRange>,
    /// The argument list's operands (`None`: no argument list).
    pub args: Option<OpRange>,
    /// The operand index of the target: a function symbol or a register.
    pub target: u8,
}

/// The operands of a barrier: `bar.red.op.type d, a{, b}, {!}c`, `bar.sync a{, b}`,
/// `bar.arrive a, b` (and `barrier.*` alike).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BarForm {
    /// `.red`: a reduction whose predicate is the last operand.
    pub red: bool,
    /// The operand index of the barrier number `a`.
    pub id: u8,
    /// The operand index of the thread count `b`, if the form has one.
    pub count: Option<u8>,
}

/// The text of a form missing from the table: [`Function::forms`](super::Function) is built
/// with the code, so this would be a defect of ptxrun, reported rather than run.
const MISSING: &str = "its decoded form is missing (a defect of ptxrun)";

/// The accessors of the matrix instructions' forms, which all fail with an [`MmaError`]: the
/// stored form, or `NotExecutable` naming the defect if the table holds another kind.
macro_rules! matrix_forms {
    ($($(#[$doc:meta])* $name:ident: $variant:ident -> $form:ty;)*) => {$(
        $(#[$doc])*
        pub fn $name(&self) -> Result<$form, MmaError> {
            match self {
                Form::$variant(f) => f.clone(),
                _ => Err(MmaError::NotExecutable(MISSING)),
            }
        }
    )*};
}

impl Form {
    /// Decodes instruction `ins` with operands `ops` (`raw`: the words of an opaque one).
    pub fn of(ins: &Instr, ops: &[Operand], raw: Option<&str>) -> Form {
        let m = &ins.mods;
        match ins.op {
            Op::Cvt => Form::Cvt(cvt::form(m, ops.len())),
            Op::Mma => Form::Mma(mma::form(m)),
            Op::MmaSp | Op::MmaSpOrdered => {
                Form::MmaSp(mma_sp::form(m, ins.op == Op::MmaSpOrdered))
            }
            Op::WmmaLoad | Op::WmmaStore => {
                Form::WmmaMove(mma::wmma_move(m, ins.op == Op::WmmaStore))
            }
            Op::WmmaMma => Form::WmmaMma(mma::wmma_mma(m)),
            Op::WgmmaMmaAsync | Op::WgmmaMmaAsyncSp => {
                Form::Wgmma(wgmma::form(m, ins.op == Op::WgmmaMmaAsyncSp))
            }
            Op::Tex | Op::Tld4 | Op::Txq | Op::Suld | Op::Sust | Op::Sured | Op::Suq => {
                Form::Tex(texture::form(ins.op, m, ops.len()))
            }
            Op::Createpolicy => Form::Policy(
                raw.ok_or("createpolicy without its words")
                    .and_then(policy::form),
            ),
            Op::Call => Form::Call(call_form(ops)),
            Op::Bar | Op::Barrier => Form::Bar(bar_form(ins, ops)),
            op if video::is_video(op) => Form::Video(video::form(op, m, ops)),
            _ => Form::Plain,
        }
    }

    /// Whether ptxrun executes instruction `ins` of this form: opaque instructions and forms
    /// that decode but are not implemented (see `cvt.rs`) are not.
    pub fn is_executable(&self, ins: &Instr) -> bool {
        if ins.is_b128() {
            return false;
        }
        match self {
            Form::Cvt(f) => f.is_ok(),
            Form::Mma(f) | Form::WmmaMma(f) => f.is_ok(),
            Form::MmaSp(f) => f.is_ok(),
            Form::WmmaMove(f) => f.is_ok(),
            Form::Wgmma(f) => f.is_ok(),
            Form::Tex(f) => f.is_ok(),
            Form::Policy(f) => f.is_ok_and(|p| p != Policy::Range),
            Form::Video(_) | Form::Call(_) | Form::Bar(_) => true,
            Form::Plain => match ins.op {
                Op::Ldmatrix | Op::Stmatrix | Op::Movmatrix => ins.is_m8n8_b16_matrix(),
                op => !op.is_opaque(),
            },
        }
    }

    /// A `cvt`'s conversion, or why it does not run.
    pub fn cvt(&self) -> Result<CvtForm, CvtError> {
        match self {
            Form::Cvt(f) => f.clone(),
            _ => Err(CvtError::NotExecutable(MISSING)),
        }
    }

    matrix_forms! {
        /// An `mma`'s form, or why it does not run.
        mma: Mma -> MmaForm;
        /// An `mma.sp`'s form, or why it does not run.
        mma_sp: MmaSp -> SpForm;
        /// A `wmma.load`/`wmma.store`'s form, or why it does not run.
        wmma_move: WmmaMove -> WmmaMove;
        /// A `wmma.mma`'s form, or why it does not run.
        wmma_mma: WmmaMma -> MmaForm;
        /// A `wgmma.mma_async`'s form, or why it does not run.
        wgmma: Wgmma -> WgmmaForm;
    }

    /// A video instruction's form, or why it is none.
    pub fn video(&self) -> Result<&VForm, &str> {
        match self {
            Form::Video(f) => f.as_ref().map_err(String::as_str),
            _ => Err(MISSING),
        }
    }

    /// Whether a texture or surface form is modelled (with the query of `txq`/`suq`), or why
    /// not.
    pub fn tex(&self) -> Result<Option<SubOp>, &str> {
        match self {
            Form::Tex(f) => f.as_ref().copied().map_err(String::as_str),
            _ => Err(MISSING),
        }
    }

    /// A `createpolicy`'s policy, or why it is none.
    pub fn policy(&self) -> Result<Policy, &'static str> {
        match self {
            Form::Policy(f) => *f,
            _ => Err(MISSING),
        }
    }

    /// A `call`'s operand lists, or why they are missing.
    pub fn call(&self) -> Result<CallForm, &'static str> {
        match self {
            Form::Call(f) => Ok(*f),
            _ => Err(MISSING),
        }
    }

    /// A barrier's operand indices, or why they are missing.
    pub fn bar(&self) -> Result<BarForm, &'static str> {
        match self {
            Form::Bar(f) => Ok(*f),
            _ => Err(MISSING),
        }
    }
}

/// The forms of every instruction of `f`, parallel to its code.
pub fn decode_all(f: &Function) -> Vec<Form> {
    f.code
        .iter()
        .zip(&f.srcs)
        .map(|(ins, src)| Form::of(ins, f.ops(ins), src.raw.as_deref()))
        .collect()
}

/// Which operands of a call are its return list, argument list and target: the first list is
/// the returns only if there are two, or if it comes first.
fn call_form(ops: &[Operand]) -> CallForm {
    let list = |k: usize| match ops.get(k) {
        Some(Operand::List(r)) => Some(*r),
        _ => None,
    };
    let mut lists = (0..ops.len()).filter(|&k| list(k).is_some());
    let (rets, args, target) = match (lists.next(), lists.next()) {
        (Some(r), Some(a)) => (Some(r), Some(a), r + 1),
        (Some(l), None) if l == 0 => (Some(l), None, l + 1),
        (Some(l), None) => (None, Some(l), 0),
        (None, _) => (None, None, 0),
    };
    CallForm {
        rets: rets.and_then(list),
        args: args.and_then(list),
        // At most 255 operands (lowering refuses more), so the index fits.
        target: u8::try_from(target).unwrap_or(u8::MAX),
    }
}

/// The operand indices of a barrier's number and thread count.
fn bar_form(ins: &Instr, ops: &[Operand]) -> BarForm {
    let red = ins.mods.sub == Some(SubOp::Red);
    let (id, count) = if red {
        (1, (ops.len() == 4).then_some(2))
    } else {
        (0, Some(1))
    };
    BarForm { red, id, count }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(start: u32) -> Operand {
        Operand::List(OpRange { start, len: 1 })
    }

    /// One form per instruction: keep the table within 32 bytes an instruction (the code itself
    /// is 48).
    #[test]
    fn form_size_is_bounded() {
        assert!(std::mem::size_of::<Form>() <= 32);
    }

    /// `bar.red` with and without a thread count, and the other barriers.
    #[test]
    fn barrier_operands_are_found() {
        use crate::ir::opcode::decode;
        let r = Operand::Reg(crate::ir::RegId(0));
        let of = |text: &str, ops: &[Operand]| {
            let d = decode(text, 0).unwrap();
            let ins = Instr {
                op: d.op,
                guard: None,
                ops: OpRange { start: 0, len: 0 },
                mods: d.mods,
            };
            Form::of(&ins, ops, None).bar().unwrap()
        };
        let red = of("bar.red.popc.u32", &[r, r, r, r]);
        assert_eq!((red.red, red.id, red.count), (true, 1, Some(2)));
        let red = of("bar.red.popc.u32", &[r, r, r]);
        assert_eq!((red.red, red.id, red.count), (true, 1, None));
        let sync = of("bar.sync", &[r]);
        assert_eq!((sync.red, sync.id, sync.count), (false, 0, Some(1)));
    }

    /// The call forms PTX has: returns and arguments, arguments only, returns only, neither.
    #[test]
    fn call_lists_are_told_apart() {
        let f = Operand::Imm(0);
        let both = call_form(&[list(7), f, list(9)]);
        assert_eq!(
            (both.rets.map(|r| r.start), both.args.map(|r| r.start)),
            (Some(7), Some(9))
        );
        assert_eq!(both.target, 1);
        let args = call_form(&[f, list(9)]);
        assert_eq!(
            (args.rets, args.args.map(|r| r.start), args.target),
            (None, Some(9), 0)
        );
        let rets = call_form(&[list(7), f]);
        assert_eq!(
            (rets.rets.map(|r| r.start), rets.args, rets.target),
            (Some(7), None, 1)
        );
        let none = call_form(&[f]);
        assert_eq!((none.rets, none.args, none.target), (None, None, 0));
    }
}

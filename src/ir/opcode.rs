//! The opcode table: every PTX instruction name (PTX ISA 9.0 chapter 9), the modifier classes,
//! sub-operations and flags it accepts, how many types it takes and how many operands.
//! [`decode`] splits an opcode token at its dots, finds the longest instruction name that
//! prefixes it (`cp.async.bulk.tensor` before `cp.async.bulk` before `cp.async`), and reads the
//! remaining words through `mods::vocabulary`, in any order PTX allows.
//!
//! Instructions marked `opaque` (tcgen05, multimem, ...) are recognised and
//! kept with their words unchecked; they lower to a node that is an error only when executed.

use super::mods::{vocabulary, Classes, Flags, Mod, Mods, SubOp};
use crate::diag::Diag;
use crate::lex::Span;
use std::collections::HashMap;
use std::sync::OnceLock;

const T: Classes = Classes::TYPE;
const SP: Classes = Classes::SPACE;
/// Two state spaces (destination, source) for copies.
const SP2: Classes = Classes(1 << 11);
const RND: Classes = Classes::RND;
const CMP: Classes = Classes::CMP;
const BOOL: Classes = Classes::BOOL;
const SEM: Classes = Classes::SEM;
const SCOPE: Classes = Classes::SCOPE;
const VEC: Classes = Classes::VEC;
const CACHE: Classes = Classes::CACHE;
const HINT: Classes = Classes::HINT;
const DIM: Classes = Classes::DIM;
const SHAPE: Classes = Classes::SHAPE;
const OOB: Classes = Classes::OOB;
const NO: Classes = Classes::NONE;

/// One row of the table.
#[derive(Debug)]
pub struct Spec {
    pub op: Op,
    pub name: &'static str,
    pub classes: Classes,
    pub subs: &'static [SubOp],
    pub flags: Flags,
    pub types: (u8, u8),
    pub operands: (u8, u8),
    /// Recognised, not decoded: modifiers unchecked, not executable.
    pub opaque: bool,
}

macro_rules! table {
    ($($op:ident $name:literal, $cls:expr, [$($sub:ident),*], [$($flag:ident),*], $tmin:literal..$tmax:literal, $omin:literal..$omax:literal;)*
     ;opaque: $($oop:ident $oname:literal;)*) => {
        /// Every instruction ptxrun knows, decoded or opaque.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[repr(u16)]
        pub enum Op { $($op,)* $($oop,)* }

        pub static SPECS: &[Spec] = &[
            $(Spec { op: Op::$op, name: $name, classes: $cls, subs: &[$(SubOp::$sub),*],
                     flags: Flags(0 $(| Flags::$flag.0)*), types: ($tmin, $tmax), operands: ($omin, $omax), opaque: false },)*
            $(Spec { op: Op::$oop, name: $oname, classes: NO, subs: &[], flags: Flags(0),
                     types: (0, 0), operands: (0, 255), opaque: true },)*
        ];
    };
}

table! {
    // ---- integer and floating-point arithmetic (9.7.1 - 9.7.4) ----
    Add "add", T.or(RND), [], [FTZ, SAT, CC, RELU], 1..1, 3..3;
    Sub "sub", T.or(RND), [], [FTZ, SAT, CC, RELU], 1..1, 3..3;
    Addc "addc", T, [], [CC], 1..1, 3..3;
    Subc "subc", T, [], [CC], 1..1, 3..3;
    Mul "mul", T.or(RND), [Lo, Hi, Wide], [FTZ, SAT, RELU], 1..1, 3..3;
    Mad "mad", T.or(RND), [Lo, Hi, Wide], [FTZ, SAT, CC], 1..1, 4..4;
    Madc "madc", T, [Lo, Hi], [CC], 1..1, 4..4;
    Mul24 "mul24", T, [Lo, Hi], [], 1..1, 3..3;
    Mad24 "mad24", T, [Lo, Hi], [SAT], 1..1, 4..4;
    Sad "sad", T, [], [], 1..1, 4..4;
    Div "div", T.or(RND), [], [APPROX, FULL, FTZ], 1..1, 3..3;
    Rem "rem", T, [], [], 1..1, 3..3;
    Abs "abs", T, [], [FTZ, RELU], 1..1, 2..2;
    Neg "neg", T, [], [FTZ, RELU], 1..1, 2..2;
    Min "min", T, [], [FTZ, NAN, XORSIGN, ABS, RELU], 1..1, 3..4;
    Max "max", T, [], [FTZ, NAN, XORSIGN, ABS, RELU], 1..1, 3..4;
    Popc "popc", T, [], [], 1..1, 2..2;
    Clz "clz", T, [], [], 1..1, 2..2;
    Bfind "bfind", T, [], [SHIFTAMT], 1..1, 2..2;
    Fns "fns", T, [], [], 1..1, 4..4;
    Brev "brev", T, [], [], 1..1, 2..2;
    Bfe "bfe", T, [], [], 1..1, 4..4;
    Bfi "bfi", T, [], [], 1..1, 5..5;
    Szext "szext", T, [Clamp, Wrap], [], 1..1, 3..3;
    Bmsk "bmsk", T, [Clamp, Wrap], [], 1..1, 3..3;
    Dp4a "dp4a", T, [], [], 2..2, 4..4;
    Dp2a "dp2a", T, [Lo, Hi], [], 2..2, 4..4;
    Copysign "copysign", T, [], [], 1..1, 3..3;
    Testp "testp", T, [Finite, Infinite, Number, NotANumber, Normal, Subnormal], [], 1..1, 2..2;
    Fma "fma", T.or(RND), [], [FTZ, SAT, RELU, OOB], 1..1, 4..4;
    Rcp "rcp", T.or(RND), [], [APPROX, FTZ], 1..1, 2..2;
    Sqrt "sqrt", T.or(RND), [], [APPROX, FTZ], 1..1, 2..2;
    Rsqrt "rsqrt", T, [], [APPROX, FTZ], 1..1, 2..2;
    Sin "sin", T, [], [APPROX, FTZ], 1..1, 2..2;
    Cos "cos", T, [], [APPROX, FTZ], 1..1, 2..2;
    Lg2 "lg2", T, [], [APPROX, FTZ], 1..1, 2..2;
    Ex2 "ex2", T, [], [APPROX, FTZ], 1..1, 2..2;
    Tanh "tanh", T, [], [APPROX], 1..1, 2..2;
    // ---- comparison and selection (9.7.7) ----
    Set "set", T.or(CMP).or(BOOL), [], [FTZ], 2..2, 3..4;
    Setp "setp", T.or(CMP).or(BOOL), [], [FTZ], 1..1, 3..4;
    Selp "selp", T, [], [], 1..1, 4..4;
    Slct "slct", T, [], [FTZ], 2..2, 4..4;
    // ---- logic and shift (9.7.8) ----
    And "and", T, [], [], 1..1, 3..3;
    Or "or", T, [], [], 1..1, 3..3;
    Xor "xor", T, [], [], 1..1, 3..3;
    Not "not", T, [], [], 1..1, 2..2;
    Cnot "cnot", T, [], [], 1..1, 2..2;
    Lop3 "lop3", T.or(BOOL), [], [], 1..1, 5..6;
    Shf "shf", T, [L, R, Clamp, Wrap], [], 1..1, 4..4;
    Shl "shl", T, [], [], 1..1, 3..3;
    Shr "shr", T, [], [], 1..1, 3..3;
    // ---- data movement and conversion (9.7.9) ----
    Mov "mov", T, [], [], 1..1, 2..2;
    Prmt "prmt", T, [F4e, B4e, Rc8, Ecl, Ecr, Rc16], [], 1..1, 4..4;
    Shfl "shfl", T, [Up, Down, Bfly, Idx], [SYNC], 1..1, 4..5;
    // Warp-wide matrix loads and stores (9.7.14.5.15-16); only .m8n8 .b16 executes.
    Movmatrix "movmatrix", T, [], [SYNC, ALIGNED, M8N8, TRANS], 1..1, 2..2;
    Ldmatrix "ldmatrix", T.or(SP), [], [SYNC, ALIGNED, M8N8, M16N16, M8N16, X1, X2, X4, TRANS, B8X16, B6X16_P32, B4X16_P64], 0..1, 2..2;
    Stmatrix "stmatrix", T.or(SP), [], [SYNC, ALIGNED, M8N8, M16N8, X1, X2, X4, TRANS, B8X16, B6X16_P32, B4X16_P64], 0..1, 2..2;
    Ld "ld", T.or(SP).or(SEM).or(SCOPE).or(VEC).or(CACHE).or(HINT), [], [NC, CACHE_HINT, UNIFIED], 1..1, 2..3;
    Ldu "ldu", T.or(SP).or(VEC), [], [], 1..1, 2..2;
    St "st", T.or(SP).or(SEM).or(SCOPE).or(VEC).or(CACHE).or(HINT), [], [CACHE_HINT], 1..1, 2..3;
    // Zeroes a range of the CTA's shared memory (9.7.9.13, sm_100; rules in check.rs).
    StBulk "st.bulk", SP.or(SEM), [], [], 0..0, 3..3;
    StAsync "st.async", T.or(SP).or(SEM).or(SCOPE).or(VEC), [], [COMPLETE_TX], 1..1, 3..3;
    RedAsync "red.async", T.or(SP).or(SEM).or(SCOPE).or(VEC), [Add, Min, Max, Inc, Dec, And, Or, Xor], [COMPLETE_TX], 1..1, 3..3;
    Prefetch "prefetch", SP.or(HINT), [], [], 0..0, 1..1;
    Prefetchu "prefetchu", HINT, [], [], 0..0, 1..1;
    Isspacep "isspacep", SP, [], [], 0..0, 2..2;
    Cvta "cvta", T.or(SP), [], [TO], 1..1, 2..2;
    Cvt "cvt", T.or(RND), [], [FTZ, SAT, RELU, SATFINITE], 2..2, 2..4;
    CvtPack "cvt.pack", T, [], [SAT], 3..3, 3..4;
    Mapa "mapa", T.or(SP), [], [], 1..1, 3..3;
    Getctarank "getctarank", T.or(SP), [], [], 1..1, 2..2;
    // ---- asynchronous copies (9.7.9.25) ----
    CpAsync "cp.async", SP.or(SP2).or(CACHE).or(HINT), [], [CACHE_HINT], 0..0, 3..5;
    CpAsyncCommitGroup "cp.async.commit_group", NO, [], [], 0..0, 0..0;
    CpAsyncWaitGroup "cp.async.wait_group", NO, [], [], 0..0, 1..1;
    CpAsyncWaitAll "cp.async.wait_all", NO, [], [], 0..0, 0..0;
    CpAsyncMbarrierArrive "cp.async.mbarrier.arrive", T.or(SP), [], [NOINC], 0..1, 1..1;
    CpAsyncBulk "cp.async.bulk", SP.or(SP2).or(HINT), [], [COMPLETE_TX, BULK_GROUP, MULTICAST, CACHE_HINT, CP_MASK], 0..0, 3..6;
    CpReduceAsyncBulk "cp.reduce.async.bulk", T.or(SP).or(SP2).or(HINT), [Add, Min, Max, Inc, Dec, And, Or, Xor], [COMPLETE_TX, BULK_GROUP, CACHE_HINT, NOFTZ], 1..1, 3..5;
    CpAsyncBulkPrefetch "cp.async.bulk.prefetch", SP.or(HINT), [], [CACHE_HINT], 0..0, 2..3;
    CpAsyncBulkTensor "cp.async.bulk.tensor", DIM.or(SP).or(SP2).or(HINT), [], [COMPLETE_TX, BULK_GROUP, MULTICAST, CACHE_HINT, TILE, IM2COL, IM2COL_NO_OFFS, TILE_GATHER4, TILE_SCATTER4, CTA_GROUP_1, CTA_GROUP_2], 0..0, 2..7;
    CpReduceAsyncBulkTensor "cp.reduce.async.bulk.tensor", DIM.or(SP).or(SP2).or(HINT), [Add, Min, Max, Inc, Dec, And, Or, Xor], [BULK_GROUP, CACHE_HINT, TILE, IM2COL_NO_OFFS], 0..0, 2..3;
    CpAsyncBulkPrefetchTensor "cp.async.bulk.prefetch.tensor", DIM.or(SP).or(HINT), [], [CACHE_HINT, TILE, IM2COL], 0..0, 1..3;
    CpAsyncBulkCommitGroup "cp.async.bulk.commit_group", NO, [], [], 0..0, 0..0;
    CpAsyncBulkWaitGroup "cp.async.bulk.wait_group", NO, [], [READ], 0..0, 1..1;
    // ---- mbarrier (9.7.13.15) ----
    MbarrierInit "mbarrier.init", T.or(SP), [], [], 1..1, 2..2;
    MbarrierInval "mbarrier.inval", T.or(SP), [], [], 1..1, 1..1;
    MbarrierExpectTx "mbarrier.expect_tx", T.or(SP).or(SEM).or(SCOPE), [], [], 1..1, 2..2;
    MbarrierCompleteTx "mbarrier.complete_tx", T.or(SP).or(SEM).or(SCOPE), [], [], 1..1, 2..2;
    MbarrierArrive "mbarrier.arrive", T.or(SP).or(SEM).or(SCOPE), [], [EXPECT_TX, NO_COMPLETE], 1..1, 2..3;
    MbarrierArriveDrop "mbarrier.arrive_drop", T.or(SP).or(SEM).or(SCOPE), [], [EXPECT_TX, NO_COMPLETE], 1..1, 2..3;
    MbarrierTestWait "mbarrier.test_wait", T.or(SP).or(SEM).or(SCOPE), [], [PARITY], 1..1, 3..3;
    MbarrierTryWait "mbarrier.try_wait", T.or(SP).or(SEM).or(SCOPE), [], [PARITY], 1..1, 3..4;
    MbarrierPendingCount "mbarrier.pending_count", T, [], [], 1..1, 2..2;
    // ---- synchronisation and communication (9.7.13) ----
    Bar "bar", T.or(SCOPE).or(BOOL), [Sync, Arrive, Red, Popc, And, Or], [ALIGNED], 0..1, 1..4;
    Barrier "barrier", T.or(SCOPE).or(BOOL), [Sync, Arrive, Red, Popc, And, Or], [ALIGNED], 0..1, 1..4;
    BarWarpSync "bar.warp.sync", NO, [], [], 0..0, 1..1;
    BarrierCluster "barrier.cluster", SEM, [Arrive, Wait], [ALIGNED], 0..0, 0..0;
    Membar "membar", SCOPE, [], [], 0..0, 0..0;
    Fence "fence", SEM.or(SCOPE), [], [SYNC_RESTRICT_CTA, SYNC_RESTRICT_CLUSTER, OP_RESTRICT], 0..0, 0..0;
    FenceProxyAsync "fence.proxy.async", SP, [], [], 0..0, 0..0;
    FenceProxyAlias "fence.proxy.alias", NO, [], [], 0..0, 0..0;
    FenceProxyAsyncGeneric "fence.proxy.async::generic", SEM.or(SCOPE), [], [SYNC_RESTRICT_CTA, SYNC_RESTRICT_CLUSTER], 0..0, 0..0;
    FenceProxyTensormap "fence.proxy.tensormap::generic", SEM.or(SCOPE), [], [], 0..0, 0..2;
    FenceMbarrierInit "fence.mbarrier_init", SEM.or(SCOPE), [], [], 0..0, 0..0;
    // ---- tensor maps edited on the device (9.7.9.27-28) ----
    TensormapReplace "tensormap.replace", T.or(SP), [GlobalAddress, Rank, BoxDim, GlobalDim, GlobalStride, ElementStride, Elemtype, InterleaveLayout, SwizzleMode, SwizzleAtomicity, FillMode], [TILE, B1024], 1..1, 2..3;
    TensormapCpFenceproxy "tensormap.cp_fenceproxy", SP.or(SP2).or(SEM).or(SCOPE), [], [TENSORMAP_GENERIC, SYNC, ALIGNED], 0..0, 3..3;
    Atom "atom", T.or(SP).or(SEM).or(SCOPE).or(VEC), [Add, Min, Max, Inc, Dec, And, Or, Xor, Exch, Cas], [NOFTZ, CACHE_HINT], 1..1, 3..5;
    Red "red", T.or(SP).or(SEM).or(SCOPE).or(VEC), [Add, Min, Max, Inc, Dec, And, Or, Xor], [NOFTZ, CACHE_HINT], 1..1, 2..3;
    Vote "vote", T, [All, Any, Uni, Ballot], [SYNC], 1..1, 2..3;
    Match "match", T, [Any, All], [SYNC], 1..1, 3..4;
    Activemask "activemask", T, [], [], 1..1, 1..1;
    Redux "redux", T, [Add, Min, Max, And, Or, Xor], [SYNC, ABS, NAN], 1..1, 3..3;
    Elect "elect", NO, [], [SYNC], 0..0, 2..2;
    Nanosleep "nanosleep", T, [], [], 1..1, 1..1;
    Griddepcontrol "griddepcontrol", NO, [LaunchDependents, Wait], [], 0..0, 0..0;
    Setmaxnreg "setmaxnreg", T, [Inc, Dec], [SYNC, ALIGNED], 1..1, 1..1;
    // ---- texture and surface instructions (9.7.10); forms in ir/texture.rs ----
    Tex "tex", DIM.or(VEC).or(T), [Base, Level, Grad], [], 2..2, 2..5;
    Tld4 "tld4", DIM.or(VEC).or(T), [R, G, FragB, FragA], [], 2..2, 2..4;
    Txq "txq", T, [Level, Width, Height, Depth, ChannelDataType, ChannelOrder, NormalizedCoords, ArraySize, NumMipmapLevels, NumSamples, FilterMode, AddrMode0, AddrMode1, AddrMode2, ForceUnnormalizedCoords], [], 1..1, 2..3;
    Suld "suld", DIM.or(VEC).or(T).or(CACHE).or(OOB), [FragB], [], 1..1, 2..2;
    Sust "sust", DIM.or(VEC).or(T).or(CACHE).or(OOB), [FragB, P], [], 1..1, 2..2;
    Sured "sured", DIM.or(T).or(OOB), [FragB, P, Add, Min, Max, And, Or], [], 1..1, 2..2;
    Suq "suq", T, [Width, Height, Depth, ChannelDataType, ChannelOrder, ArraySize, MemoryLayout], [], 1..1, 2..2;
    // ---- warp-level matrix multiply-accumulate (9.7.14.5.14); forms in ir/mma.rs ----
    Mma "mma", T.or(SHAPE).or(RND).or(BOOL), [Popc], [SYNC, ALIGNED, SATFINITE], 1..4, 4..4;
    // ---- sparse warp-level matrix multiply-accumulate (9.7.14.6); forms in ir/mma_sp.rs ----
    MmaSp "mma.sp", T.or(SHAPE), [], [SYNC, ALIGNED, SATFINITE], 1..4, 4..8;
    MmaSpOrdered "mma.sp::ordered_metadata", T.or(SHAPE), [], [SYNC, ALIGNED, SATFINITE], 1..4, 4..8;
    // ---- warp-level matrix load, store and multiply-accumulate (9.7.14.4); forms in ir/mma.rs ----
    WmmaLoad "wmma.load", T.or(SP).or(SHAPE), [FragA, FragB, FragC], [SYNC, ALIGNED], 1..1, 2..3;
    WmmaStore "wmma.store", T.or(SP).or(SHAPE), [FragD], [SYNC, ALIGNED], 1..1, 2..3;
    WmmaMma "wmma.mma", T.or(SHAPE).or(RND).or(BOOL), [Popc], [SYNC, ALIGNED, SATFINITE], 1..4, 4..4;
    // ---- warpgroup-level asynchronous matrix multiply-accumulate (9.7.15); forms in ir/wgmma.rs ----
    WgmmaMmaAsync "wgmma.mma_async", T.or(SHAPE).or(BOOL), [Popc], [SYNC, ALIGNED, SATFINITE], 3..3, 4..8;
    WgmmaMmaAsyncSp "wgmma.mma_async.sp", T.or(SHAPE), [], [SYNC, ALIGNED, SATFINITE], 3..3, 6..10;
    WgmmaFence "wgmma.fence", NO, [], [SYNC, ALIGNED], 0..0, 0..0;
    WgmmaCommitGroup "wgmma.commit_group", NO, [], [SYNC, ALIGNED], 0..0, 0..0;
    WgmmaWaitGroup "wgmma.wait_group", NO, [], [SYNC, ALIGNED], 0..0, 1..1;
    // ---- control flow (9.7.12) ----
    Bra "bra", NO, [], [UNI], 0..0, 1..1;
    BrxIdx "brx.idx", NO, [], [UNI], 0..0, 2..2;
    Call "call", NO, [], [UNI], 0..0, 1..4;
    Ret "ret", NO, [], [UNI], 0..0, 0..0;
    Exit "exit", NO, [], [], 0..0, 0..0;
    Trap "trap", NO, [], [], 0..0, 0..0;
    Brkpt "brkpt", NO, [], [], 0..0, 0..0;
    Pmevent "pmevent", NO, [], [MASK], 0..0, 1..1;
    Stacksave "stacksave", T, [], [], 1..1, 1..1;
    Stackrestore "stackrestore", T, [], [], 1..1, 1..1;
    Alloca "alloca", T, [], [ALIGNED], 1..1, 2..3;
    Discard "discard", SP.or(HINT), [], [], 0..0, 2..2;
    Applypriority "applypriority", SP.or(HINT), [], [], 0..0, 2..2;
    // ---- video instructions (9.7.16); forms in ir/video.rs ----
    Vadd "vadd", T, [Add, Min, Max], [SAT], 3..3, 3..4;
    Vsub "vsub", T, [Add, Min, Max], [SAT], 3..3, 3..4;
    Vabsdiff "vabsdiff", T, [Add, Min, Max], [SAT], 3..3, 3..4;
    Vmin "vmin", T, [Add, Min, Max], [SAT], 3..3, 3..4;
    Vmax "vmax", T, [Add, Min, Max], [SAT], 3..3, 3..4;
    Vshl "vshl", T, [Add, Min, Max, Clamp, Wrap], [SAT], 3..3, 3..4;
    Vshr "vshr", T, [Add, Min, Max, Clamp, Wrap], [SAT], 3..3, 3..4;
    Vmad "vmad", T, [Po, Shr7, Shr15], [SAT], 3..3, 4..4;
    Vset "vset", T.or(CMP), [Add, Min, Max], [], 2..2, 3..4;
    Vadd2 "vadd2", T, [Add], [SAT], 3..3, 4..4;
    Vsub2 "vsub2", T, [Add], [SAT], 3..3, 4..4;
    Vavrg2 "vavrg2", T, [Add], [SAT], 3..3, 4..4;
    Vabsdiff2 "vabsdiff2", T, [Add], [SAT], 3..3, 4..4;
    Vmin2 "vmin2", T, [Add], [SAT], 3..3, 4..4;
    Vmax2 "vmax2", T, [Add], [SAT], 3..3, 4..4;
    Vset2 "vset2", T.or(CMP), [Add], [], 2..2, 4..4;
    Vadd4 "vadd4", T, [Add], [SAT], 3..3, 4..4;
    Vsub4 "vsub4", T, [Add], [SAT], 3..3, 4..4;
    Vavrg4 "vavrg4", T, [Add], [SAT], 3..3, 4..4;
    Vabsdiff4 "vabsdiff4", T, [Add], [SAT], 3..3, 4..4;
    Vmin4 "vmin4", T, [Add], [SAT], 3..3, 4..4;
    Vmax4 "vmax4", T, [Add], [SAT], 3..3, 4..4;
    Vset4 "vset4", T.or(CMP), [Add], [], 2..2, 4..4;
  ;opaque:
    Createpolicy "createpolicy";
    Tcgen05 "tcgen05";
    Istypep "istypep";
    Multimem "multimem";
    Clusterlaunchcontrol "clusterlaunchcontrol";
}

impl Op {
    pub fn spec(self) -> &'static Spec {
        &SPECS[self as usize]
    }

    pub fn name(self) -> &'static str {
        self.spec().name
    }

    pub fn is_opaque(self) -> bool {
        self.spec().opaque
    }
}

/// A decoded opcode token.
#[derive(Debug, Clone)]
pub struct Decoded {
    pub op: Op,
    pub mods: Mods,
    /// For opaque instructions, the words after the name, as written.
    pub raw: Vec<String>,
}

/// Instruction name -> index into [`SPECS`], built once.
fn by_name() -> &'static HashMap<&'static str, usize> {
    static MAP: OnceLock<HashMap<&'static str, usize>> = OnceLock::new();
    MAP.get_or_init(|| SPECS.iter().enumerate().map(|(i, s)| (s.name, i)).collect())
}

/// One dotted word of an opcode token with its span.
fn words(text: &str, start: usize) -> Vec<(&str, Span)> {
    let mut out = Vec::new();
    let mut pos = 0;
    for w in text.split('.') {
        out.push((w, start + pos..start + pos + w.len()));
        pos += w.len() + 1;
    }
    out
}

/// The words of an opcode token with their spans.
pub fn opcode_words<'s>(w: &crate::parse::ast::Word<'s>) -> Vec<(&'s str, Span)> {
    words(w.text, w.span.start)
}

/// Decodes an opcode given as its words with their spans. ptxas allows whitespace before a
/// modifier's dot (`lop3 .b32`), so the words need not be contiguous in the source.
pub fn decode_words(ws: &[(&str, Span)]) -> Result<Decoded, Diag> {
    if ws.is_empty() {
        return Err(Diag::error("ir::unknown-instruction", "empty instruction"));
    }
    // Longest instruction name that is a prefix of the words (names have at most 5 words).
    let by_name = by_name();
    let mut best: Option<(&Spec, usize)> = None;
    let mut name = String::new();
    for n in (1..=ws.len().min(5)).rev() {
        name.clear();
        for (i, (w, _)) in ws[..n].iter().enumerate() {
            if i > 0 {
                name.push('.');
            }
            name.push_str(w);
        }
        if let Some(&i) = by_name.get(name.as_str()) {
            best = Some((&SPECS[i], n));
            break;
        }
    }
    let Some((spec, n)) = best else {
        let first = &ws[0];
        return Err(Diag::error(
            "ir::unknown-instruction",
            format!("unknown instruction `{}`", first.0),
        )
        .label(first.1.clone(), "no PTX instruction has this name")
        .help(suggest(first.0).map_or_else(
            || "see the PTX ISA's instruction list".to_string(),
            |s| format!("did you mean `{s}`?"),
        )));
    };
    let mut mods = Mods {
        vec: 1,
        ..Mods::default()
    };
    let rest = &ws[n..];
    if spec.opaque {
        return Ok(Decoded {
            op: spec.op,
            mods,
            raw: rest.iter().map(|(w, _)| w.to_string()).collect(),
        });
    }
    for (w, span) in rest {
        apply(spec, &mut mods, w, span.clone())?;
    }
    let count = mods.type_count() as u8;
    if count < spec.types.0 {
        let at = ws.last().map_or(0..0, |w| w.1.clone());
        let start = ws[0].1.start;
        let what = if spec.types.0 == 1 {
            "a type".to_string()
        } else {
            format!("{} types", spec.types.0)
        };
        return Err(
            Diag::error("ir::missing-type", format!("`{}` needs {what}", spec.name))
                .label(start..at.end, format!("add {what}, e.g. `.u32`")),
        );
    }
    Ok(Decoded {
        op: spec.op,
        mods,
        raw: Vec::new(),
    })
}

fn apply(spec: &Spec, m: &mut Mods, w: &str, span: Span) -> Result<(), Diag> {
    let readings = vocabulary(w);
    if readings.is_empty() {
        return Err(Diag::error(
            "ir::unknown-modifier",
            format!("unknown modifier `.{w}` on `{}`", spec.name),
        )
        .label(span, "not a PTX modifier"));
    }
    let allowed = |r: &Mod| match r {
        Mod::Sub(s) => spec.subs.contains(s),
        Mod::Flag(f) => spec.flags.contains(*f),
        other => other.class().is_some_and(|c| spec.classes.has(c)),
    };
    let Some(reading) = readings.iter().copied().find(allowed) else {
        return Err(Diag::error(
            "ir::invalid-modifier",
            format!("`.{w}` is not a modifier of `{}`", spec.name),
        )
        .label(span, format!("`{}` does not take this", spec.name)));
    };
    let conflict = |old: &dyn std::fmt::Display| {
        Diag::error(
            "ir::conflicting-modifiers",
            format!(
                "conflicting modifiers on `{}`: `{old}` and `.{w}`",
                spec.name
            ),
        )
        .label(span.clone(), "a second modifier of the same kind")
    };
    match set(spec, m, reading) {
        Ok(()) => Ok(()),
        Err(Clash::With(old)) => Err(conflict(&old)),
        Err(Clash::Repeated) => Err(Diag::error(
            "ir::duplicate-modifier",
            format!("`.{w}` written twice on `{}`", spec.name),
        )
        .label(span, "repeated here")),
    }
}

/// Why a modifier cannot join those before it.
enum Clash {
    /// It is a second one of a kind that takes one: the first, as written.
    With(String),
    /// The same flag twice.
    Repeated,
}

impl Clash {
    fn with(old: &dyn std::fmt::Display) -> Clash {
        Clash::With(old.to_string())
    }
}

/// Stores modifier `reading`, one `spec` allows, in `m`.
fn set(spec: &Spec, m: &mut Mods, reading: Mod) -> Result<(), Clash> {
    macro_rules! once {
        ($field:expr, $v:expr) => {
            match $field {
                Some(old) => return Err(Clash::with(&old)),
                None => $field = Some($v),
            }
        };
    }
    match reading {
        Mod::Type(t) => {
            let n = m.type_count();
            if n >= spec.types.1 as usize {
                return Err(Clash::with(
                    &m.types[n - 1].map_or(String::new(), |t| t.to_string()),
                ));
            }
            m.types[n] = Some(t);
        }
        Mod::Space(s) => {
            if m.space.is_none() {
                m.space = Some(s);
            } else if spec.classes.has(SP2) {
                match m.space2() {
                    Some(old) => return Err(Clash::with(&old)),
                    None => m.set_space2(s),
                }
            } else {
                return Err(Clash::with(
                    &m.space.map_or(String::new(), |s| s.to_string()),
                ));
            }
        }
        Mod::Rnd(r) => once!(m.rnd, r),
        Mod::Cmp(c) => once!(m.cmp, c),
        Mod::Bool(b) => once!(m.bool_op, b),
        Mod::Sem(s) => once!(m.sem, s),
        Mod::Scope(s) => once!(m.scope, s),
        Mod::Cache(c) => once!(m.cache, c),
        Mod::Sub(s) => {
            if m.sub.is_none() {
                m.sub = Some(s);
            } else if matches!(spec.op, Op::Bar | Op::Barrier | Op::Txq | Op::Sured)
                || (matches!(spec.op, Op::Shf | Op::Vshl | Op::Vshr | Op::Vmad) && m.sub2.is_none())
            {
                once!(m.sub2, s)
            } else {
                return Err(Clash::with(&m.sub.map_or(String::new(), |s| s.to_string())));
            }
        }
        Mod::Vec(v) => {
            if m.vec != 1 {
                return Err(Clash::with(&format!(".v{}", m.vec)));
            }
            m.vec = v;
        }
        Mod::Shape(i) => {
            if let Some(old) = m.shape() {
                return Err(Clash::with(&old));
            }
            m.set_shape(i);
        }
        Mod::Layout(col) => {
            let flag = layout_flag(m, col).ok_or_else(|| Clash::with(&".row/.col twice"))?;
            m.flags = m.flags | flag;
        }
        Mod::Oob(o) => match m.oob() {
            Some(old) => return Err(Clash::with(&old)),
            None => m.set_oob(o),
        },
        Mod::Dim(d) => {
            if m.dim != 0 {
                return Err(Clash::with(&format!(".{}d", m.dim)));
            }
            m.dim = d;
        }
        Mod::Flag(f) => {
            if m.flags.contains(f) {
                return Err(Clash::Repeated);
            }
            m.flags = m.flags | f;
        }
        Mod::Hint => m.flags = m.flags | Flags::HINTED,
    }
    Ok(())
}

/// The layout flag a `.row` (`col` false) or `.col` adds: A's first, then B's; `None` past both.
fn layout_flag(m: &Mods, col: bool) -> Option<Flags> {
    let [a, b] = m.layouts();
    match (a, b, col) {
        (None, _, false) => Some(Flags::ROW_A),
        (None, _, true) => Some(Flags::COL_A),
        (Some(_), None, false) => Some(Flags::ROW_B),
        (Some(_), None, true) => Some(Flags::COL_B),
        (Some(_), Some(_), _) => None,
    }
}

/// The instruction name closest to a misspelt one (edit distance at most 2).
fn suggest(word: &str) -> Option<&'static str> {
    SPECS
        .iter()
        .map(|s| s.name.split('.').next().unwrap_or(s.name))
        .map(|n| (edit_distance(word, n), n))
        .filter(|(d, _)| *d <= 2)
        .min()
        .map(|(_, n)| n)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// Decodes `text` (an opcode token starting at byte `start`) into an instruction and its
/// modifiers. Every error carries the span of the word at fault. Tests only: the lowering
/// decodes the words of a token (`opcode_words`, `decode_words`).
#[cfg(test)]
pub fn decode(text: &str, start: usize) -> Result<Decoded, Diag> {
    decode_words(&words(text, start))
}

#[cfg(test)]
mod tests {
    use super::super::mods::{CacheOp, Cmp, Rounding, Sem};
    use super::super::types::{Space, Type};
    use super::*;

    fn d(s: &str) -> Decoded {
        decode(s, 0).unwrap_or_else(|e| panic!("{s}: {}", e.message))
    }

    #[test]
    fn table_is_indexed_by_op() {
        for (i, s) in SPECS.iter().enumerate() {
            assert_eq!(s.op as usize, i, "{}", s.name);
        }
    }

    #[test]
    fn longest_name_wins() {
        assert_eq!(
            d("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes")
                .op,
            Op::CpAsyncBulkTensor
        );
        assert_eq!(
            d("cp.async.bulk.wait_group.read").op,
            Op::CpAsyncBulkWaitGroup
        );
        assert_eq!(d("cp.async.cg.shared.global").op, Op::CpAsync);
        assert_eq!(d("bar.warp.sync").op, Op::BarWarpSync);
        assert_eq!(d("bar.sync").op, Op::Bar);
    }

    #[test]
    fn copy_spaces_in_order() {
        let x = d(
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster",
        );
        assert_eq!(
            (x.mods.space, x.mods.space2()),
            (Some(Space::SharedCluster), Some(Space::Global))
        );
        assert!(x.mods.has(Flags::COMPLETE_TX) && x.mods.has(Flags::MULTICAST));
    }

    #[test]
    fn ambiguous_words_follow_the_opcode() {
        assert_eq!(d("setp.lo.u32").mods.cmp, Some(Cmp::Lo));
        assert_eq!(d("mul.lo.s32").mods.sub, Some(SubOp::Lo));
        assert_eq!(d("atom.global.and.b32").mods.sub, Some(SubOp::And));
        assert!(d("setp.eq.and.s32").mods.bool_op.is_some());
        let b = d("bar.red.popc.u32");
        assert_eq!(
            (b.mods.sub, b.mods.sub2),
            (Some(SubOp::Red), Some(SubOp::Popc))
        );
    }

    #[test]
    fn modifiers_in_any_order() {
        let a = d("ld.global.nc.L1::no_allocate.v4.u32");
        let b = d("ld.v4.global.L1::no_allocate.nc.u32");
        assert_eq!(a.mods, b.mods);
        assert_eq!(a.mods.vec, 4);
        let c = d("ld.acquire.gpu.global.u32");
        assert_eq!(c.mods.sem, Some(Sem::Acquire));
        assert_eq!(
            d("cp.async.cg.shared.global.L2::128B").mods.cache,
            Some(CacheOp::Cg)
        );
        assert_eq!(
            d("cvt.rn.f16.f32").mods.types,
            [Some(Type::F16), Some(Type::F32), None, None]
        );
        assert_eq!(d("cvt.rni.s32.f32").mods.rnd, Some(Rounding::Rni));
    }

    #[test]
    fn errors_point_at_the_word() {
        let e = decode("add.foo.u32", 10).unwrap_err();
        assert_eq!((e.code, e.span()), ("ir::unknown-modifier", Some(14..17)));
        let e = decode("add.rn.rz.f32", 0).unwrap_err();
        assert_eq!(
            (e.code, e.span()),
            ("ir::conflicting-modifiers", Some(7..9))
        );
        let e = decode("and.rn.b32", 0).unwrap_err();
        assert_eq!(e.code, "ir::invalid-modifier");
        let e = decode("ad.u32", 0).unwrap_err();
        assert_eq!(e.code, "ir::unknown-instruction");
        assert_eq!(e.help.as_deref(), Some("did you mean `add`?"));
        assert_eq!(decode("add", 0).unwrap_err().code, "ir::missing-type");
        assert_eq!(decode("cvt.f32", 0).unwrap_err().code, "ir::missing-type");
    }

    #[test]
    fn opaque_instructions_keep_their_words() {
        let w = d("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32");
        assert_eq!(w.op, Op::Tcgen05);
        assert!(w.op.is_opaque());
        assert_eq!(w.raw[0], "alloc");
    }

    #[test]
    fn video_instructions_decode() {
        let w = d("vadd.s32.u32.s32.sat.add");
        assert_eq!((w.op, w.mods.sub), (Op::Vadd, Some(SubOp::Add)));
        assert!(w.mods.has(Flags::SAT) && !w.op.is_opaque());
        let m = d("vmad.s32.s32.s32.po.sat.shr15");
        assert_eq!(
            (m.mods.sub, m.mods.sub2),
            (Some(SubOp::Po), Some(SubOp::Shr15))
        );
        assert_eq!(d("vshr.u32.u32.u32.wrap.max").mods.sub2, Some(SubOp::Max));
        assert_eq!(d("vset4.s32.u32.ge.add").mods.cmp, Some(Cmp::Ge));
    }

    #[test]
    fn texture_instructions_decode_their_words() {
        let w = d("tex.a2d.v4.f32.f32");
        assert_eq!((w.op, w.mods.vec), (Op::Tex, 4));
        assert_eq!(w.mods.types[..2], [Some(Type::F32), Some(Type::F32)]);
        let s = d("suld.b.2d.v2.b32.clamp");
        assert_eq!(
            (s.op, s.mods.oob()),
            (Op::Suld, Some(super::super::mods::Oob::Clamp))
        );
        let r = d("sured.b.add.2d.u32.zero");
        assert_eq!(
            (r.mods.sub, r.mods.sub2),
            (Some(SubOp::FragB), Some(SubOp::Add))
        );
        assert_eq!(d("txq.level.width.b32").mods.sub2, Some(SubOp::Width));
        assert_eq!(d("tld4.r.2d.v4.f32.f32").mods.sub, Some(SubOp::R));
    }
}

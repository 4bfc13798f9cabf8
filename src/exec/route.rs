//! The one table from opcode to the code that executes it (PTX ISA 9.0 chapter 9, by
//! instruction family). The scheduler (`step.rs`) matches on the [`Route`] an opcode takes, the
//! per-lane dispatcher on its [`Family`]; `route` is an exhaustive `match` on every [`Op`], so a
//! new opcode does not compile until it is given a place here (or named unsupported), and no
//! other file keeps a list of which opcodes run where.

use crate::ir::Op;

/// Who executes an instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Route {
    /// A warp-synchronous collective: the lanes of the member mask meet first
    /// (`collective.rs`).
    Collective,
    /// `shfl`, `vote`, `match`, `redux`: a collective with `.sync`, else per lane.
    CollectiveIfSync,
    /// Branches, calls, returns, exits, traps and CTA barriers (`control.rs`).
    Control,
    /// Asynchronous copies, their groups and the mbarrier operations: they may park the group
    /// (`step::async_instr`).
    Async,
    /// `wgmma.fence`/`commit_group`/`wait_group`: the whole warp, then as [`Route::Async`].
    WgmmaSync,
    /// `barrier.cluster` (`mbarops.rs`).
    ClusterBarrier,
    /// `setmaxnreg`: a warpgroup-aligned hint.
    Setmaxnreg,
    /// Per-lane execution by a family.
    Family(Family),
}

/// The per-lane instruction families.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    /// `memops.rs`: loads, stores, atomics, address conversions.
    Memory,
    /// `warpops.rs`: lane exchanges without `.sync`, `activemask`.
    Warp,
    /// `tmapedit.rs`: `tensormap.replace`, `tensormap.cp_fenceproxy`.
    TensormapEdit,
    /// `stbulk.rs`.
    StBulk,
    /// `texops.rs`: textures and surfaces.
    Texture,
    /// `cvt.rs`.
    Convert,
    /// `wmma.rs`: `wmma.load`/`wmma.store`.
    WmmaMove,
    /// `policy.rs`: `createpolicy`.
    Policy,
    /// `fence.rs`: fences and hints with no effect on values.
    Fence,
    /// `fp.rs`, `alu.rs`, `video.rs`: arithmetic by opcode and type.
    Arithmetic,
    /// Recognised, not run: an error when a lane executes it.
    Unsupported,
}

/// Where `op` executes.
pub(crate) fn route(op: Op) -> Route {
    use Family as F;
    use Op::*;
    match op {
        Elect | BarWarpSync | Ldmatrix | Stmatrix | Movmatrix | Mma | MmaSp | MmaSpOrdered
        | WmmaMma | WgmmaMmaAsync | WgmmaMmaAsyncSp => Route::Collective,
        Shfl | Vote | Match | Redux => Route::CollectiveIfSync,
        Bra | BrxIdx | Call | Ret | Exit | Trap | Brkpt | Bar | Barrier => Route::Control,
        CpAsync
        | CpAsyncCommitGroup
        | CpAsyncWaitGroup
        | CpAsyncWaitAll
        | CpAsyncMbarrierArrive
        | CpAsyncBulk
        | CpReduceAsyncBulk
        | CpAsyncBulkPrefetch
        | CpAsyncBulkTensor
        | CpReduceAsyncBulkTensor
        | CpAsyncBulkPrefetchTensor
        | CpAsyncBulkCommitGroup
        | CpAsyncBulkWaitGroup
        | StAsync
        | RedAsync
        | MbarrierInit
        | MbarrierInval
        | MbarrierExpectTx
        | MbarrierCompleteTx
        | MbarrierArrive
        | MbarrierArriveDrop
        | MbarrierTestWait
        | MbarrierTryWait
        | MbarrierPendingCount => Route::Async,
        WgmmaFence | WgmmaCommitGroup | WgmmaWaitGroup => Route::WgmmaSync,
        BarrierCluster => Route::ClusterBarrier,
        Setmaxnreg => Route::Setmaxnreg,
        Ld | Ldu | St | Atom | Red | Cvta | Isspacep | Prefetch | Prefetchu | Mapa | Getctarank => {
            Route::Family(F::Memory)
        }
        Activemask => Route::Family(F::Warp),
        TensormapReplace | TensormapCpFenceproxy => Route::Family(F::TensormapEdit),
        StBulk => Route::Family(F::StBulk),
        Tex | Tld4 | Txq | Suld | Sust | Sured | Suq => Route::Family(F::Texture),
        Cvt | CvtPack => Route::Family(F::Convert),
        WmmaLoad | WmmaStore => Route::Family(F::WmmaMove),
        Createpolicy => Route::Family(F::Policy),
        Membar
        | Fence
        | FenceProxyAlias
        | FenceProxyAsync
        | FenceProxyAsyncGeneric
        | FenceProxyTensormap
        | FenceMbarrierInit
        | Nanosleep
        | Pmevent
        | Griddepcontrol
        | Discard
        | Applypriority => Route::Family(F::Fence),
        Add | Sub | Addc | Subc | Mul | Mad | Madc | Mul24 | Mad24 | Sad | Div | Rem | Abs
        | Neg | Min | Max | Popc | Clz | Bfind | Fns | Brev | Bfe | Bfi | Szext | Bmsk | Dp4a
        | Dp2a | Copysign | Testp | Fma | Rcp | Sqrt | Rsqrt | Sin | Cos | Lg2 | Ex2 | Tanh
        | Set | Setp | Selp | Slct | And | Or | Xor | Not | Cnot | Lop3 | Shf | Shl | Shr | Mov
        | Prmt | Vadd | Vsub | Vabsdiff | Vmin | Vmax | Vshl | Vshr | Vmad | Vset | Vadd2
        | Vsub2 | Vavrg2 | Vabsdiff2 | Vmin2 | Vmax2 | Vset2 | Vadd4 | Vsub4 | Vavrg4
        | Vabsdiff4 | Vmin4 | Vmax4 | Vset4 => Route::Family(F::Arithmetic),
        Stacksave | Stackrestore | Alloca | Tcgen05 | Istypep | Multimem | Clusterlaunchcontrol => {
            Route::Family(F::Unsupported)
        }
    }
}

//! The hazard kinds of the contract (`../shared/contract.md` "Hazard kinds", the README's
//! table): every kind of undefined behaviour ptxrun reports, as one enum whose [`HazardKind::as_str`]
//! gives the name that reports, launch files (`[expect] hazard`), suppressions and SARIF rule ids
//! use. Adding a kind means adding a variant here and its meaning to `report::KINDS`; a kind the
//! code reports but the contract does not name cannot be written.

use std::fmt;

/// A kind of undefined behaviour (or usually unintended behaviour, reported as a warning) that
/// the checker or the executor found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum HazardKind {
    /// A read of bytes an asynchronous operation writes, not ordered after its completion.
    ReadBeforeComplete,
    /// A write to bytes an in-flight asynchronous operation writes.
    WriteBeforeComplete,
    /// An asynchronous write to bytes a read not ordered before its issue reads.
    AsyncWriteAfterRead,
    /// A write to bytes an in-flight asynchronous operation reads.
    SourceModifiedBeforeComplete,
    /// The async proxy touches bytes last accessed through the generic proxy with no
    /// `fence.proxy.async` between.
    MissingProxyFence,
    /// Two ordinary accesses of different threads, one a write, unordered by happens-before.
    DataRace,
    TxCountUnderflow,
    TxCountOverflow,
    /// An mbarrier operation on memory no `mbarrier.init` initialized.
    UninitializedMbarrier,
    /// Any other mbarrier misuse (re-init while in use, a store over a live mbarrier, ...).
    MbarrierMisuse,
    /// `bar.sync`/`barrier.sync` with inconsistent counts, or reached divergently.
    BarrierMisuse,
    /// An access to a CTA's shared memory after that CTA exited.
    DsmemAccessAfterExit,
    /// A tensor copy through a tensor map written by generic stores with no tensormap fence.
    MissingTensormapProxyFence,
    /// An access to registers of an in-flight `wgmma.mma_async` before its wait.
    WgmmaRegisterBeforeWait,
    /// A `wgmma.mma_async` whose registers were accessed since the last `wgmma.fence`.
    MissingWgmmaFence,
    /// A `.sync.aligned` instruction executed by only part of its warp or warpgroup.
    DivergentAligned,
    /// An `mma.sp` metadata index pair the PTX ISA leaves undefined.
    InvalidSparseMetadata,
}

impl HazardKind {
    /// Every kind, in the contract's order.
    pub const ALL: [HazardKind; 17] = [
        HazardKind::ReadBeforeComplete,
        HazardKind::WriteBeforeComplete,
        HazardKind::AsyncWriteAfterRead,
        HazardKind::SourceModifiedBeforeComplete,
        HazardKind::MissingProxyFence,
        HazardKind::DataRace,
        HazardKind::TxCountUnderflow,
        HazardKind::TxCountOverflow,
        HazardKind::UninitializedMbarrier,
        HazardKind::MbarrierMisuse,
        HazardKind::BarrierMisuse,
        HazardKind::DsmemAccessAfterExit,
        HazardKind::MissingTensormapProxyFence,
        HazardKind::WgmmaRegisterBeforeWait,
        HazardKind::MissingWgmmaFence,
        HazardKind::DivergentAligned,
        HazardKind::InvalidSparseMetadata,
    ];

    /// The contract's name of the kind (`read-before-complete`, ...).
    pub const fn as_str(self) -> &'static str {
        match self {
            HazardKind::ReadBeforeComplete => "read-before-complete",
            HazardKind::WriteBeforeComplete => "write-before-complete",
            HazardKind::AsyncWriteAfterRead => "async-write-after-read",
            HazardKind::SourceModifiedBeforeComplete => "source-modified-before-complete",
            HazardKind::MissingProxyFence => "missing-proxy-fence",
            HazardKind::DataRace => "data-race",
            HazardKind::TxCountUnderflow => "tx-count-underflow",
            HazardKind::TxCountOverflow => "tx-count-overflow",
            HazardKind::UninitializedMbarrier => "uninitialized-mbarrier",
            HazardKind::MbarrierMisuse => "mbarrier-misuse",
            HazardKind::BarrierMisuse => "barrier-misuse",
            HazardKind::DsmemAccessAfterExit => "dsmem-access-after-exit",
            HazardKind::MissingTensormapProxyFence => "missing-tensormap-proxy-fence",
            HazardKind::WgmmaRegisterBeforeWait => "wgmma-register-before-wait",
            HazardKind::MissingWgmmaFence => "missing-wgmma-fence",
            HazardKind::DivergentAligned => "divergent-aligned",
            HazardKind::InvalidSparseMetadata => "invalid-sparse-metadata",
        }
    }

    /// The kind a contract name names, if any.
    pub fn parse(name: &str) -> Option<HazardKind> {
        HazardKind::ALL.into_iter().find(|k| k.as_str() == name)
    }
}

/// A kind equals its contract name, so callers can compare with the names reports print.
impl PartialEq<&str> for HazardKind {
    fn eq(&self, name: &&str) -> bool {
        self.as_str() == *name
    }
}

impl fmt::Display for HazardKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::HazardKind;

    #[test]
    fn names_round_trip_and_are_distinct() {
        for k in HazardKind::ALL {
            assert_eq!(HazardKind::parse(k.as_str()), Some(k));
        }
        let mut names: Vec<_> = HazardKind::ALL.iter().map(|k| k.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), HazardKind::ALL.len());
        assert_eq!(HazardKind::parse("deadlock"), None);
    }

    #[test]
    fn every_kind_has_a_meaning_in_the_report_table() {
        for k in HazardKind::ALL {
            assert!(
                crate::report::KINDS
                    .iter()
                    .any(|(name, _)| *name == k.as_str()),
                "{k} has no description in report::KINDS"
            );
        }
    }
}

//! The executor's view of the hazard checker (`crate::check`): the hooks it calls and the types
//! it builds for them. The checker lives in `check/` and never imports the executor back.

pub(crate) use crate::check::{
    describe, Access, Checker, CopySlot, HazardKey, Region, Site, FENCE_GLOBAL, FENCE_SHARED,
};

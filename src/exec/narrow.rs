//! The narrow float formats (tf32, e4m3, e5m2; PTX ISA 9.0 sections 5.2.5.1, 9.7.9.21) for the
//! executor's tensor and copy paths: their conversions are pure and live in `sem/narrow.rs`.

pub(crate) use crate::sem::narrow::*;

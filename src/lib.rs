//! ptxrun: an interpreter for NVIDIA PTX that runs the PTX nvcc emits and reports where a kernel
//! relies on undefined behaviour around asynchronous copies.
//!
//! Stages, each a module, data flowing one way: [`lex`] -> [`parse`] -> [`ir`] -> [`exec`]
//! (scheduler, warps) -> [`mem`] (spaces, async copy engine, mbarriers) -> [`latency`] ->
//! [`trace`]; [`diag`] is shared by all of them. [`launch`] reads launch files, [`runner`]
//! drives one launch from file to report, and [`explore`] runs one under many schedules.

pub mod diag;
pub mod exec;
pub mod explore;
pub mod ir;
pub mod latency;
pub mod launch;
pub mod lex;
pub mod mem;
pub mod parse;
pub mod runner;
pub mod trace;

//! ptxrun: an interpreter for NVIDIA PTX that runs the PTX nvcc emits and reports where a kernel
//! relies on undefined behaviour around asynchronous copies.
//!
//! Stages, each a module, data flowing one way: [`lex`] -> [`parse`] -> [`ir`] -> [`exec`]
//! (scheduler, warps) -> [`mem`] (spaces, async copy engine, mbarriers) -> [`latency`] ->
//! [`trace`]; [`diag`] is shared by all of them. [`api`] is the library facade every caller
//! goes through (a [`api::Module`], its kernels, a launch, a [`api::Report`]); [`launch`]
//! reads launch files and [`runner`] turns one into a facade launch; [`explore`] runs a launch
//! under many schedules; [`cli`] is the command line.
//!
//! Public: the facade and what the command line, the Python package and the tests still reach
//! past it (`cli`, `explore`, `runner`, `latency` (a caller may write its own model), and for now
//! `diag`, `exec`, `ir`, `launch`, `lex`, `mem`,
//! `parse`); `files`, `report`, `source` and `trace` are crate-private, their types
//! re-exported by [`api`] where a caller needs them.

pub mod api;
pub mod check;
pub mod cli;
pub mod diag;
pub mod exec;
pub mod explore;
pub(crate) mod files;
pub mod ir;
pub mod latency;
pub mod launch;
pub mod lex;
pub mod mem;
pub mod parse;
pub(crate) mod report;
pub mod runner;
pub(crate) mod sem;
pub(crate) mod source;
pub(crate) mod trace;

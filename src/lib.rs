//! ptxrun: an interpreter for NVIDIA PTX that runs the PTX nvcc emits and reports where a kernel
//! relies on undefined behaviour around asynchronous copies.
//!
//! Stages, each a crate-private module, data flowing one way: `lex` -> `parse` -> `ir` -> `exec`
//! (scheduler, warps) -> `mem` (spaces, async copy engine, mbarriers) -> `latency` -> `trace`;
//! `diag` is shared by all of them, `check` and `report` turn what the executor saw into
//! findings. `launch` reads launch files, `runner` turns one into a facade launch and `explore`
//! runs a launch under many schedules.
//!
//! Public, and the only ways in: [`api`], the library facade (a [`api::Module`], its kernels, a
//! launch, a [`api::Report`], and every type a caller names beside them, the [`api::LatencyModel`]
//! trait of a caller's own latency model included); [`launchfile`], the launch-file layer over
//! it (load, run and test launch files, explore schedules), which the command line, the Python
//! package and the sample tests use; and [`cli`], the command line itself (its `main`, for the
//! binary and the Python package's `ptxrun` command).

pub mod api;
pub(crate) mod check;
pub mod cli;
pub(crate) mod diag;
pub(crate) mod exec;
pub(crate) mod explore;
pub(crate) mod files;
pub(crate) mod ir;
pub(crate) mod latency;
pub(crate) mod launch;
pub mod launchfile;
pub(crate) mod lex;
pub(crate) mod mem;
pub(crate) mod parse;
pub(crate) mod report;
pub(crate) mod runner;
pub(crate) mod sem;
pub(crate) mod source;
pub(crate) mod trace;

//! The launch-file layer's public face (README "Launch files"): load a `launch.toml`, run it
//! through the library facade ([`crate::api`]), check its `[expect]` as `ptxrun test` does, and
//! explore one launch under many schedules as `ptxrun check --explore` does. The command line,
//! the Python package and the sample tests go through these names; the modules behind them
//! (`launch` reads the file, `runner` turns it into a facade launch, `explore` runs schedules)
//! stay crate-private. It is its own module, not part of `api`, because `runner` and `explore`
//! are built on `api`: `api` naming them back would be an import circle.

pub use crate::explore::{explore_prepared, schedules, Explored, Schedule};
pub use crate::launch::{load, Launch, LaunchError};
pub use crate::runner::{
    execute, find_launches, prepare, run, test_one, test_with, BadInput, Finished, Prepared,
    Settings, Verdict, DEFAULT_LATENCY,
};

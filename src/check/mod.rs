//! The hazard checker's vocabulary, shared by the executor that finds hazards and the reports
//! that print them: the contract's hazard kinds as a typed enum ([`HazardKind`]).

mod kind;

pub use kind::HazardKind;

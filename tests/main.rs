//! The integration tests, in one binary (one link on a first `cargo test`): each module
//! drives the built `simulate` command or the library from the outside, sharing the helpers
//! of [`common`].

mod common;

mod architecture;
mod article_limits;
mod browser;
mod charts;
mod cli;
mod compare;
mod contention;
mod crashes;
mod engines;
mod fuzz_regressions;
mod json;
mod load;
mod loops_agree;
mod measured;
mod mistakes;
mod offline;
mod properties;
mod queueing;
mod readable;
mod reliability;
mod sharding;
mod statistics;
mod sweeps;
mod timeline;
mod timeline_summary;
mod traces;

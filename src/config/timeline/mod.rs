//! Timeline files (`model = "timeline"`): the keys ([`keys`]) read from the file's one
//! parse ([`file`]); every scenario read for the plain timeline ([`plain`]: each payment on
//! its own, an unlimited server) or, when the file has a shared-server key, for the load
//! model's shared clock ([`shared`]). Every rejection names the file, the line, the key and
//! the value.
//!
//! The top-level tables `[arrivals]`, `[network]`, `[server]`, `[client]` (and `[provider]`,
//! `[receipts]`) describe the base scenario; each optional `[[scenario]]` entry has a `name`
//! and the same tables, whose keys override the base for that scenario.

pub mod file;
pub mod keys;
mod plain;
mod shared;
#[cfg(test)]
mod tests;

use super::OutputSettings;
use crate::model::load::LoadModel;
use crate::model::timeline::TimelineModel;

/// Everything a plain timeline run needs, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineConfig {
    /// The experiment.
    pub model: TimelineModel,
    /// Worker threads.
    pub threads: usize,
    /// Where the files go and what is printed.
    pub output: OutputSettings,
}

/// Everything a run on a shared server needs, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadConfig {
    /// The experiment.
    pub model: LoadModel,
    /// Worker threads.
    pub threads: usize,
    /// Where the files go and what is printed.
    pub output: OutputSettings,
}

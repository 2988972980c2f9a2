//! What both models' `--json` summaries share: the paths written and the pretty printing.

use std::path::PathBuf;

use serde::Serialize;

/// The paths written, as text (lossy where a path is not UTF-8).
pub fn paths(files: &[PathBuf]) -> Vec<String> {
    files
        .iter()
        .map(|path| path.to_string_lossy().into_owned())
        .collect()
}

/// `summary` as pretty-printed JSON, ending in a newline.
pub fn pretty(summary: &impl Serialize) -> Vec<u8> {
    let mut bytes =
        serde_json::to_vec_pretty(summary).expect("serializing into memory cannot fail");
    bytes.push(b'\n');
    bytes
}

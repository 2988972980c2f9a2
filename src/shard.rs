//! Sharded runs: a run's cells (every sweep point's [`Model::cells`], point by point) cut
//! into `N` shares balanced by their estimated cost, one share per process (`--shard K/N`),
//! each written to a partial folder; `simulate merge` checks that the folders belong together
//! and are complete, and rebuilds the results of the unsharded run from their cells.
//!
//! A partial folder holds two files: [`MANIFEST`] (what the shard is: the tool version, a
//! hash of the configuration, `K/N`, the cells it holds, the command line and the config
//! file's text, so that the merge needs neither) and [`CELLS`] (each cell's results,
//! `[[cell, results], ...]`, as JSON whose floats read back bit for bit). Every cell is a
//! pure function of its index and the seed, so the merged results are those of one process,
//! and so are the files written from them.
//!
//! [`Model::cells`]: crate::models::Model::cells

use std::collections::{BTreeMap, BinaryHeap};
use std::path::{Path, PathBuf};

use crate::config::shard::Shard;
use crate::report::OutputFile;

/// The manifest's file name in a partial folder.
pub const MANIFEST: &str = "shard.json";
/// The cells' file name in a partial folder.
pub const CELLS: &str = "cells.json";
/// What a manifest's `kind` says.
const KIND: &str = "simulate shard";
/// The manifest's format; a merge refuses another.
const FORMAT: u32 = 1;

/// What a partial folder is, as [`MANIFEST`] holds it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Manifest {
    /// Always `simulate shard`.
    pub kind: String,
    /// The manifest's format (1).
    pub format: u32,
    /// The version of the tool that wrote it; a merge takes shards of its own version only.
    pub version: String,
    /// The model that ran (`article`, `timeline`, `contention`, `load`).
    pub model: String,
    /// The FNV-1a hash (64 bits, hex) of everything that decides the results: the model,
    /// the config file's text and the command that runs it (see [`config_hash`]).
    pub config_hash: String,
    /// Which shard of how many.
    pub shard: Shard,
    /// The run's cells in all, over every sweep point.
    pub cells_total: usize,
    /// The cells this shard holds, ascending: indices into every point's cells, point by
    /// point.
    pub cells: Vec<usize>,
    /// The command line's arguments after the program's name, as given.
    pub arguments: Vec<String>,
    /// The config file's text, if a file was run.
    pub config_text: Option<String>,
}

/// Why shards cannot be run or merged: each one line, naming the folder.
#[derive(Debug, thiserror::Error)]
pub enum ShardError {
    /// A folder that holds no shard, or one that cannot be read.
    #[error("{}: {reason}", path.display())]
    Unreadable {
        /// The folder.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A shard that does not belong with the first one given.
    #[error("{}: {reason}", path.display())]
    Foreign {
        /// The folder.
        path: PathBuf,
        /// How it differs.
        reason: String,
    },
    /// The same shard twice.
    #[error("{}: shard {shard} again (also in {})", path.display(), first.display())]
    Duplicated {
        /// The second folder.
        path: PathBuf,
        /// The shard.
        shard: Shard,
        /// The first folder that holds it.
        first: PathBuf,
    },
    /// Shards not given.
    #[error("{}: shard {missing} of {count} is missing (give every folder from 0/{count} to {}/{count})", first.display(), count - 1)]
    Missing {
        /// The first folder given.
        first: PathBuf,
        /// The missing shards, e.g. `1, 3`.
        missing: String,
        /// The number of shards.
        count: u32,
    },
    /// A command line argument that is not UTF-8 (a manifest holds them as text).
    #[error("--shard: the argument {argument:?} is not valid UTF-8, so no manifest can hold it")]
    NotUtf8 {
        /// The argument, lossily.
        argument: String,
    },
}

/// The hash of a run's configuration: FNV-1a over the model's name, the config file's text
/// and the command that runs it again ([`crate::report::html::command_line`], which leaves
/// out what changes only where the files go, how fast they come or what is printed), in hex.
/// (FNV-1a, a few lines: no dependency for a check that guards against mistakes, not
/// attacks.)
pub fn config_hash(model: &str, config_text: Option<&str>, command: &str) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in [model, config_text.unwrap_or(""), command] {
        for &byte in part.as_bytes().iter().chain(&[0xff]) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{hash:016x}")
}

/// The shard of every cell of costs `costs` (s) cut into `count` shards: the longest cell
/// first to the shard with the least work so far (ties: the lower index), so every shard gets
/// about `1/count` of the total and no shard more than the fairest share plus one cell.
pub fn assign(costs: &[f64], count: u32) -> Vec<u32> {
    /// A shard's work so far, ordered so that the heap's top is the least loaded, lowest index.
    #[derive(PartialEq)]
    struct Load(f64, u32);
    impl Eq for Load {}
    impl PartialOrd for Load {
        fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
            Some(self.cmp(other))
        }
    }
    impl Ord for Load {
        fn cmp(&self, other: &Self) -> std::cmp::Ordering {
            other.0.total_cmp(&self.0).then(other.1.cmp(&self.1))
        }
    }
    let mut order: Vec<usize> = (0..costs.len()).collect();
    order.sort_by(|&a, &b| costs[b].total_cmp(&costs[a]).then(a.cmp(&b)));
    let mut loads: BinaryHeap<Load> = (0..count).map(|shard| Load(0.0, shard)).collect();
    let mut owner = vec![0; costs.len()];
    for cell in order {
        let Load(load, shard) = loads.pop().expect("at least one shard");
        owner[cell] = shard;
        loads.push(Load(load + costs[cell].max(0.0), shard));
    }
    owner
}

impl Manifest {
    /// The manifest of shard `shard` holding `cells` of `cells_total`.
    pub fn new(
        model: &str,
        config_hash: String,
        shard: Shard,
        cells_total: usize,
        cells: Vec<usize>,
        arguments: Vec<String>,
        config_text: Option<String>,
    ) -> Self {
        Self {
            kind: KIND.into(),
            format: FORMAT,
            version: env!("CARGO_PKG_VERSION").into(),
            model: model.into(),
            config_hash,
            shard,
            cells_total,
            cells,
            arguments,
            config_text,
        }
    }

    /// The two files of the partial folder: the manifest and `cells` (JSON).
    pub fn files(&self, cells: Vec<u8>) -> Vec<OutputFile> {
        let mut manifest = serde_json::to_vec_pretty(self).expect("a manifest serialises");
        manifest.push(b'\n');
        vec![
            OutputFile::new(MANIFEST, manifest),
            OutputFile::new(CELLS, cells),
        ]
    }
}

/// The process's arguments after the program's name, as text.
pub fn arguments() -> Result<Vec<String>, ShardError> {
    std::env::args_os()
        .skip(1)
        .map(|argument| {
            argument
                .into_string()
                .map_err(|argument| ShardError::NotUtf8 {
                    argument: argument.to_string_lossy().into_owned(),
                })
        })
        .collect()
}

/// Reads the manifests of `folders` and checks that they belong together (one kind, format,
/// version, model, config hash and count, as the first folder's) and are complete (every
/// shard once, every cell in exactly one): the manifests by shard index, with their folders.
pub fn read_manifests(folders: &[PathBuf]) -> Result<Vec<(PathBuf, Manifest)>, ShardError> {
    let mut shards: BTreeMap<u32, (PathBuf, Manifest)> = BTreeMap::new();
    let mut first: Option<(PathBuf, Manifest)> = None;
    for folder in folders {
        let manifest = read_manifest(folder)?;
        match &first {
            None => first = Some((folder.clone(), manifest.clone())),
            Some((first_folder, reference)) => belongs(folder, &manifest, first_folder, reference)?,
        }
        if let Some((earlier, _)) = shards.get(&manifest.shard.index) {
            return Err(ShardError::Duplicated {
                path: folder.clone(),
                shard: manifest.shard,
                first: earlier.clone(),
            });
        }
        shards.insert(manifest.shard.index, (folder.clone(), manifest));
    }
    let (first_folder, reference) = first.expect("merge takes at least one folder");
    let missing: Vec<String> = (0..reference.shard.count)
        .filter(|index| !shards.contains_key(index))
        .map(|index| index.to_string())
        .collect();
    if !missing.is_empty() {
        return Err(ShardError::Missing {
            first: first_folder,
            missing: missing.join(", "),
            count: reference.shard.count,
        });
    }
    let mut holder: Vec<Option<&Path>> = vec![None; reference.cells_total];
    for (folder, manifest) in shards.values() {
        for &cell in &manifest.cells {
            let foreign = |reason: String| ShardError::Foreign {
                path: folder.clone(),
                reason,
            };
            match holder.get_mut(cell) {
                None => {
                    return Err(foreign(format!(
                        "holds cell {cell}, but the run has {} cells",
                        reference.cells_total
                    )));
                }
                Some(Some(other)) => {
                    return Err(foreign(format!(
                        "holds cell {cell}, which {} holds too: the shards were cut differently",
                        other.display()
                    )));
                }
                Some(slot) => *slot = Some(folder),
            }
        }
    }
    if let Some(cell) = holder.iter().position(Option::is_none) {
        return Err(ShardError::Foreign {
            path: first_folder,
            reason: format!("no shard holds cell {cell}: the shards were cut differently"),
        });
    }
    Ok(shards.into_values().collect())
}

/// The most a shard's manifest may hold: 64 MiB (it lists the shard's cells and its command
/// line; a sweep of a million cells writes a few MB).
const MAX_MANIFEST_BYTES: u64 = 64 << 20;

/// The most a shard's cells may hold: 16 GiB (2,000 runs of a load file with its time series
/// write 123 MB; a merge holds every shard's cells in memory at once, so a larger file would
/// not merge on a machine that could write it).
const MAX_CELLS_BYTES: u64 = 16 << 30;

/// The manifest in `folder`.
fn read_manifest(folder: &Path) -> Result<Manifest, ShardError> {
    let unreadable = |reason: String| ShardError::Unreadable {
        path: folder.to_path_buf(),
        reason,
    };
    let path = folder.join(MANIFEST);
    let bytes = crate::input::read_bytes(&path, MAX_MANIFEST_BYTES).map_err(|error| {
        unreadable(match error {
            error if error.is_not_found() => format!(
                "not a shard's folder: it has no {MANIFEST} (write one with --shard K/N --out \
                 DIR)"
            ),
            _ => format!("cannot read {MANIFEST}: {error}"),
        })
    })?;
    let manifest: Manifest = serde_json::from_slice(&bytes)
        .map_err(|error| unreadable(format!("{MANIFEST} is not a shard's manifest: {error}")))?;
    if manifest.kind != KIND || manifest.format != FORMAT {
        return Err(unreadable(format!(
            "{MANIFEST} is of kind {:?}, format {}; this merge reads {KIND:?}, format {FORMAT}",
            manifest.kind, manifest.format
        )));
    }
    Ok(manifest)
}

/// Whether `manifest` (in `folder`) belongs with `reference` (in `first`).
fn belongs(
    folder: &Path,
    manifest: &Manifest,
    first: &Path,
    reference: &Manifest,
) -> Result<(), ShardError> {
    let differs = |what: &str, this: &str, that: &str| ShardError::Foreign {
        path: folder.to_path_buf(),
        reason: format!(
            "a shard of another run: its {what} is {this}, but {} has {that}",
            first.display()
        ),
    };
    if manifest.version != reference.version {
        return Err(differs(
            "tool version",
            &manifest.version,
            &reference.version,
        ));
    }
    if manifest.model != reference.model {
        return Err(differs("model", &manifest.model, &reference.model));
    }
    if manifest.config_hash != reference.config_hash {
        return Err(differs(
            "config hash",
            &manifest.config_hash,
            &reference.config_hash,
        ));
    }
    if manifest.shard.count != reference.shard.count {
        return Err(differs(
            "shard count",
            &manifest.shard.count.to_string(),
            &reference.shard.count.to_string(),
        ));
    }
    Ok(())
}

/// The cells in `folder`'s [`CELLS`], `(cell, results)`, checked against its manifest's list.
pub fn read_cells<C: serde::de::DeserializeOwned>(
    folder: &Path,
    manifest: &Manifest,
) -> Result<Vec<(usize, C)>, ShardError> {
    let unreadable = |reason: String| ShardError::Unreadable {
        path: folder.to_path_buf(),
        reason,
    };
    let bytes = crate::input::read_bytes(&folder.join(CELLS), MAX_CELLS_BYTES)
        .map_err(|error| unreadable(format!("cannot read {CELLS}: {error}")))?;
    let cells: Vec<(usize, C)> = serde_json::from_slice(&bytes)
        .map_err(|error| unreadable(format!("{CELLS} does not hold this run's cells: {error}")))?;
    if !cells
        .iter()
        .map(|(cell, _)| *cell)
        .eq(manifest.cells.iter().copied())
    {
        return Err(unreadable(format!(
            "{CELLS} does not hold the cells its {MANIFEST} lists"
        )));
    }
    Ok(cells)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_cells_go_round_robin_and_unequal_ones_balance() {
        assert_eq!(assign(&[1.0; 6], 4), vec![0, 1, 2, 3, 0, 1]);
        // Longest first: 5 to shard 0, 4 to 1, 3 to 2, then 2 (to 2: 3 < 4 < 5), then 1 to
        // 1 (4 < 5 = 5): loads 5, 5, 5.
        assert_eq!(assign(&[1.0, 2.0, 3.0, 4.0, 5.0], 3), vec![1, 2, 2, 1, 0]);
        // More shards than cells: the last shards hold none.
        assert_eq!(assign(&[1.0, 1.0], 3), vec![0, 1]);
        assert!(assign(&[], 2).is_empty());
    }

    #[test]
    fn the_hash_sees_every_part() {
        let base = config_hash("load", Some("a = 1\n"), "simulate --config a.toml");
        assert_eq!(base.len(), 16);
        assert_ne!(
            base,
            config_hash("timeline", Some("a = 1\n"), "simulate --config a.toml")
        );
        assert_ne!(
            base,
            config_hash("load", Some("a = 2\n"), "simulate --config a.toml")
        );
        assert_ne!(
            base,
            config_hash("load", Some("a = 1\n"), "simulate --config b.toml")
        );
        // The parts are kept apart: moving a byte from one to the next changes the hash.
        assert_ne!(config_hash("ab", None, "c"), config_hash("a", None, "bc"));
        // FNV-1a of the empty input is its offset basis; of one 0xff byte, by hand:
        // (0xcbf29ce484222325 ^ 0xff) * 0x100000001b3 mod 2^64.
        let by_hand = (0xcbf2_9ce4_8422_2325_u64 ^ 0xff).wrapping_mul(0x0100_0000_01b3);
        let mut expected = by_hand;
        for _ in 0..2 {
            expected = (expected ^ 0xff).wrapping_mul(0x0100_0000_01b3);
        }
        assert_eq!(config_hash("", None, ""), format!("{expected:016x}"));
    }
}

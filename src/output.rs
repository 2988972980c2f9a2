//! Writes a run's files into the output folder all together or not at all.
//!
//! Every file is first written in full into a hidden staging folder inside the output folder
//! (`.simulate-staging-XXXXXX`, so on the same file system). Only when all
//! of them are complete are they renamed over the old files, one by one (each rename is
//! atomic). Before a file is replaced its previous version is kept as a hard link in the
//! staging folder; if any rename fails, the files already replaced are put back, so the folder
//! holds either the complete new set or the complete old one. An error or an interruption
//! before the renames changes nothing. The staging folder is removed in every case; other
//! files in the output folder are never touched. (A power cut or `kill -9` in the middle of
//! the renames can still leave a mix, and then a stale staging folder.) Nothing is forced to
//! disk with `fsync`: that guards against a power cut, not against a failed run, and a dozen
//! of them would cost more than the article's whole simulation.

use std::io::Write;
use std::path::{Path, PathBuf};

use tempfile::TempDir;

use crate::report::OutputFile;

/// Why the outputs could not be written.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// The output folder could not be created.
    #[error("cannot create output folder {}", path.display())]
    CreateFolder {
        /// The folder.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The staging folder could not be created inside the output folder.
    #[error("cannot write into output folder {}", path.display())]
    Stage {
        /// The output folder.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A file could not be written or put in place; the previous outputs were restored.
    #[error("cannot write {}", path.display())]
    Write {
        /// The file that was being written.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The run was interrupted before the files were put in place; nothing was changed.
    #[error("interrupted before the outputs were put in place; {} is unchanged", path.display())]
    Interrupted {
        /// The output folder.
        path: PathBuf,
    },
}

/// Writes `files` into `folder` (created if missing); returns the paths written, in order.
/// `interrupted` is asked after each file is staged; once the renames begin they finish.
pub fn write_all(
    folder: &Path,
    files: &[OutputFile],
    interrupted: impl Fn() -> bool,
) -> Result<Vec<PathBuf>, OutputError> {
    std::fs::create_dir_all(folder).map_err(|source| OutputError::CreateFolder {
        path: folder.to_path_buf(),
        source,
    })?;
    let stage_error = |source| OutputError::Stage {
        path: folder.to_path_buf(),
        source,
    };
    let staging = tempfile::Builder::new()
        .prefix(".simulate-staging-")
        .tempdir_in(folder)
        .map_err(stage_error)?;
    let previous = staging.path().join("previous");
    std::fs::create_dir(&previous).map_err(stage_error)?;
    for file in files {
        stage(&staging, file).map_err(|source| OutputError::Write {
            path: folder.join(file.name),
            source,
        })?;
        if interrupted() {
            return Err(OutputError::Interrupted {
                path: folder.to_path_buf(),
            });
        }
    }
    let mut replaced: Vec<Replaced> = Vec::with_capacity(files.len());
    for file in files {
        let target = folder.join(file.name);
        match replace(&staging, &previous, file.name, &target) {
            Ok(step) => replaced.push(step),
            Err(source) => {
                for step in replaced.iter().rev() {
                    step.undo();
                }
                return Err(OutputError::Write {
                    path: target,
                    source,
                });
            }
        }
    }
    Ok(replaced.into_iter().map(|step| step.target).collect())
}

/// Writes one file in full into the staging folder.
fn stage(staging: &TempDir, file: &OutputFile) -> std::io::Result<()> {
    let mut handle = std::fs::File::create(staging.path().join(file.name))?;
    handle.write_all(&file.bytes)?;
    handle.flush()
}

/// One file put in place, and how to take it back.
struct Replaced {
    target: PathBuf,
    /// The previous version, if there was one.
    backup: Option<PathBuf>,
}

impl Replaced {
    /// Puts the previous version back (or removes the new file if there was none); best
    /// effort, as it only runs while another error is being reported.
    fn undo(&self) {
        let _ = match &self.backup {
            Some(backup) => std::fs::rename(backup, &self.target),
            None => std::fs::remove_file(&self.target),
        };
    }
}

/// Keeps the previous version of `target` (if any) in `previous`, then renames the staged
/// file over it, so `target` always exists while it is replaced.
fn replace(
    staging: &TempDir,
    previous: &Path,
    name: &str,
    target: &Path,
) -> std::io::Result<Replaced> {
    let backup = match std::fs::symlink_metadata(target) {
        Ok(_) => {
            let backup = previous.join(name);
            if std::fs::hard_link(target, &backup).is_err() {
                // File systems without hard links: keep a copy instead.
                std::fs::copy(target, &backup)?;
            }
            Some(backup)
        }
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
        Err(error) => return Err(error),
    };
    std::fs::rename(staging.path().join(name), target)?;
    Ok(Replaced {
        target: target.to_path_buf(),
        backup,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files() -> Vec<OutputFile> {
        vec![
            OutputFile {
                name: "a.csv",
                bytes: b"new a".to_vec(),
            },
            OutputFile {
                name: "b.csv",
                bytes: b"new b".to_vec(),
            },
            OutputFile {
                name: "c.svg",
                bytes: b"new c".to_vec(),
            },
        ]
    }

    fn listing(folder: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(folder)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    fn read(path: PathBuf) -> String {
        std::fs::read_to_string(path).unwrap()
    }

    #[test]
    fn writes_every_file_and_nothing_else() {
        let folder = tempfile::tempdir().unwrap();
        let target = folder.path().join("nested/out");
        let written = write_all(&target, &files(), || false).unwrap();
        assert_eq!(
            written,
            vec![
                target.join("a.csv"),
                target.join("b.csv"),
                target.join("c.svg")
            ]
        );
        assert_eq!(listing(&target), vec!["a.csv", "b.csv", "c.svg"]);
        assert_eq!(read(target.join("c.svg")), "new c");
    }

    #[test]
    fn replaces_old_versions_and_leaves_other_files_alone() {
        let folder = tempfile::tempdir().unwrap();
        std::fs::write(folder.path().join("a.csv"), b"old a").unwrap();
        std::fs::write(folder.path().join("notes.txt"), b"mine").unwrap();
        write_all(folder.path(), &files(), || false).unwrap();
        assert_eq!(
            listing(folder.path()),
            vec!["a.csv", "b.csv", "c.svg", "notes.txt"]
        );
        assert_eq!(read(folder.path().join("a.csv")), "new a");
        assert_eq!(read(folder.path().join("notes.txt")), "mine");
    }

    #[test]
    fn an_interruption_changes_nothing() {
        let folder = tempfile::tempdir().unwrap();
        std::fs::write(folder.path().join("a.csv"), b"old a").unwrap();
        let error = write_all(folder.path(), &files(), || true).unwrap_err();
        assert!(matches!(error, OutputError::Interrupted { .. }));
        assert_eq!(listing(folder.path()), vec!["a.csv"]);
        assert_eq!(read(folder.path().join("a.csv")), "old a");
    }

    #[test]
    fn a_rename_failing_midway_puts_the_replaced_files_back() {
        // a.csv and b.csv are replaced first; c.svg is a folder with content, which a file
        // cannot be renamed over, so the third rename fails.
        let folder = tempfile::tempdir().unwrap();
        std::fs::write(folder.path().join("a.csv"), b"old a").unwrap();
        std::fs::create_dir(folder.path().join("c.svg")).unwrap();
        std::fs::write(folder.path().join("c.svg/inside"), b"x").unwrap();
        let error = write_all(folder.path(), &files(), || false).unwrap_err();
        assert!(
            matches!(&error, OutputError::Write { path, .. } if path.ends_with("c.svg")),
            "{error}"
        );
        // a.csv is the old one again, b.csv (new) is gone, no staging folder is left.
        assert_eq!(listing(folder.path()), vec!["a.csv", "c.svg"]);
        assert_eq!(read(folder.path().join("a.csv")), "old a");
        assert_eq!(read(folder.path().join("c.svg/inside")), "x");
    }

    #[test]
    fn a_file_in_the_way_of_the_folder_is_an_error() {
        let folder = tempfile::tempdir().unwrap();
        let blocker = folder.path().join("out");
        std::fs::write(&blocker, b"not a folder").unwrap();
        let error = write_all(&blocker, &files(), || false).unwrap_err();
        assert!(
            error.to_string().contains("cannot create output folder"),
            "{error}"
        );
    }
}

//! Writes a run's files into the output folder all together or not at all.
//!
//! Every file is first written in full to a hidden temporary file in the output folder; only
//! when all of them are complete are they renamed over the old files (a rename within one
//! folder is atomic). An error or an interruption before that point deletes the temporary
//! files and leaves the previous outputs exactly as they were. The files are not forced to
//! disk (`fsync`): that would guard against a power cut, not against a failed run, and would
//! cost more than the simulation itself for the article's run.

use std::io::Write;
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

use crate::report::OutputFile;

/// Why the outputs could not be written.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// The output folder could not be created.
    #[error("cannot create output folder {}: {source}", path.display())]
    CreateFolder {
        /// The folder.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A file could not be written.
    #[error("cannot write {}: {source}", path.display())]
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
/// `interrupted` is asked once more before anything is replaced.
pub fn write_all(
    folder: &Path,
    files: &[OutputFile],
    interrupted: impl Fn() -> bool,
) -> Result<Vec<PathBuf>, OutputError> {
    std::fs::create_dir_all(folder).map_err(|source| OutputError::CreateFolder {
        path: folder.to_path_buf(),
        source,
    })?;
    let mut staged = Vec::with_capacity(files.len());
    for file in files {
        let target = folder.join(file.name);
        let failed = |source| OutputError::Write {
            path: target.clone(),
            source,
        };
        let mut temporary = tempfile::Builder::new()
            .prefix(&format!(".{}.", file.name))
            .suffix(".partial")
            .tempfile_in(folder)
            .map_err(failed)?;
        temporary.write_all(&file.bytes).map_err(failed)?;
        staged.push((temporary, target));
    }
    if interrupted() {
        return Err(OutputError::Interrupted {
            path: folder.to_path_buf(),
        });
    }
    let mut written = Vec::with_capacity(staged.len());
    for (temporary, target) in staged {
        persist(temporary, &target)?;
        written.push(target);
    }
    Ok(written)
}

fn persist(temporary: NamedTempFile, target: &Path) -> Result<(), OutputError> {
    temporary
        .persist(target)
        .map(drop)
        .map_err(|error| OutputError::Write {
            path: target.to_path_buf(),
            source: error.error,
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
                name: "b.svg",
                bytes: b"new b".to_vec(),
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

    #[test]
    fn writes_every_file_and_nothing_else() {
        let folder = tempfile::tempdir().unwrap();
        let target = folder.path().join("nested/out");
        let written = write_all(&target, &files(), || false).unwrap();
        assert_eq!(written, vec![target.join("a.csv"), target.join("b.svg")]);
        assert_eq!(listing(&target), vec!["a.csv", "b.svg"]);
        assert_eq!(std::fs::read(target.join("b.svg")).unwrap(), b"new b");
    }

    #[test]
    fn an_interruption_changes_nothing() {
        let folder = tempfile::tempdir().unwrap();
        std::fs::write(folder.path().join("a.csv"), b"old a").unwrap();
        let error = write_all(folder.path(), &files(), || true).unwrap_err();
        assert!(matches!(error, OutputError::Interrupted { .. }));
        assert_eq!(listing(folder.path()), vec!["a.csv"]);
        assert_eq!(
            std::fs::read(folder.path().join("a.csv")).unwrap(),
            b"old a"
        );
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

//! Writes a run's files into the output folder all together or not at all, one run at a time.
//!
//! A run first takes an exclusive advisory lock on the output folder itself (`flock` on the
//! folder; a second run into the same folder waits until the first is done). Under the lock it
//! removes the staging folders that runs killed outright (`kill -9`) left behind, then writes
//! every file in full into a hidden staging folder inside the output folder
//! (`.simulate-staging-XXXXXX`, so on the same file system). Only when all of them are
//! complete are they renamed over the old files, one by one (each rename is atomic). Before a
//! file is replaced its previous version is kept as a hard link in the staging folder; if any
//! rename fails, the files already replaced are put back, so the folder holds either the
//! complete new set or the complete old one. An error or an interruption before the renames
//! changes nothing, and an output folder this run created is removed again.
//!
//! A run's file set replaces the previous run's: a manifest, `.simulate-<kind>-files`, lists
//! the files the last run of that kind wrote, and a file listed there that the new run does not
//! write (e.g. a one-run chart once a file becomes a sweep) is removed with the renames.
//! No other file in the output folder is ever touched. (A power cut or `kill -9` in the middle
//! of the renames can still leave a mix; its staging folder is removed by the next run. So is
//! one that could not be removed, e.g. in an append-only folder; the caller hears of it.)
//! Nothing is forced to disk with `fsync`: that guards against a power cut, not against a
//! failed run, and a dozen of them would cost more than the article's whole simulation.

use std::io::Write;
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use tempfile::TempDir;

use crate::report::OutputFile;

/// The start of a staging folder's name.
const STAGING_PREFIX: &str = ".simulate-staging-";

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
    /// The output folder's path is a symbolic link to nothing.
    #[error(
        "cannot create output folder {}: it is a symbolic link to {}, which does not exist",
        path.display(),
        target.display()
    )]
    DanglingLink {
        /// The folder as given.
        path: PathBuf,
        /// Where the link points.
        target: PathBuf,
    },
    /// The output folder's path names something that is not a folder.
    #[error(
        "cannot create output folder {}: something that is not a folder has that name",
        path.display()
    )]
    NotAFolder {
        /// The folder as given.
        path: PathBuf,
    },
    /// The output folder could not be locked against other runs.
    #[error("cannot lock output folder {} against other runs", path.display())]
    Lock {
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

/// A manifest's file name is `MANIFEST_PREFIX`, the kind, `MANIFEST_SUFFIX`.
const MANIFEST_PREFIX: &str = ".simulate-";
/// See [`MANIFEST_PREFIX`].
const MANIFEST_SUFFIX: &str = "-files";

/// The kind a manifest's file name names (`timeline` for `.simulate-timeline-files`); `None`
/// for any other file name (the staging folders' included).
pub fn manifest_kind(file_name: &str) -> Option<&str> {
    let kind = file_name
        .strip_prefix(MANIFEST_PREFIX)?
        .strip_suffix(MANIFEST_SUFFIX)?;
    (!kind.is_empty()).then_some(kind)
}

/// What a run writes: which model's files (named in the manifest) and the files.
#[derive(Debug, Clone, Copy)]
pub struct FileSet<'a> {
    /// The model, `article` or `timeline`: the manifest is `.simulate-<kind>-files`.
    pub kind: &'static str,
    /// The files, in the order they are put in place.
    pub files: &'a [OutputFile],
}

impl FileSet<'_> {
    /// The manifest's file name.
    pub fn manifest_name(&self) -> String {
        format!("{MANIFEST_PREFIX}{}{MANIFEST_SUFFIX}", self.kind)
    }

    /// The manifest's contents: a comment, then one file name per line.
    fn manifest(&self) -> Vec<u8> {
        let mut text = format!(
            "# The files simulate's last {} run wrote into this folder; the next one removes\n\
             # those it does not write itself.\n",
            self.kind
        );
        for file in self.files {
            text.push_str(&file.name);
            text.push('\n');
        }
        text.into_bytes()
    }
}

/// How the writer talks to its caller.
pub struct Hooks<'a> {
    /// Asked while waiting for the lock, after each file is staged and before the renames
    /// begin; once the renames begin they finish.
    pub interrupted: &'a dyn Fn() -> bool,
    /// Called once if another run holds the folder's lock and this one has to wait.
    pub waiting: &'a dyn Fn(),
    /// Called if this run's staging folder cannot be removed (e.g. in an append-only
    /// folder), with the folder and the error; the next run into the folder removes it.
    pub leftover: &'a dyn Fn(&Path, &std::io::Error),
}

/// Writes `set` into `folder` (created if missing); returns the paths written, in order.
pub fn write_all(
    folder: &Path,
    set: FileSet<'_>,
    hooks: &Hooks<'_>,
) -> Result<Vec<PathBuf>, OutputError> {
    if (hooks.interrupted)() {
        return Err(OutputError::Interrupted {
            path: folder.to_path_buf(),
        });
    }
    let mut waited = false;
    loop {
        let created = prepare_folder(folder)?;
        let result = match lock_folder(folder, hooks, &mut waited) {
            Ok(Some(lock)) => {
                let result = write_locked(folder, set, hooks);
                drop(lock);
                result
            }
            // The folder was removed or replaced while this run waited (by a run that had
            // created it and then stopped): start again.
            Ok(None) => continue,
            Err(error) => Err(error),
        };
        if result.is_err() {
            remove_created(&created);
        }
        return result;
    }
}

/// Checks the output folder's path, creates the folder if missing and returns the folders
/// this created (outermost first), to be removed again if the run does not complete.
fn prepare_folder(folder: &Path) -> Result<Vec<PathBuf>, OutputError> {
    if let Ok(metadata) = std::fs::symlink_metadata(folder) {
        if metadata.file_type().is_symlink() && std::fs::metadata(folder).is_err() {
            return Err(OutputError::DanglingLink {
                path: folder.to_path_buf(),
                target: std::fs::read_link(folder).unwrap_or_default(),
            });
        }
        if !std::fs::metadata(folder).is_ok_and(|metadata| metadata.is_dir()) {
            return Err(OutputError::NotAFolder {
                path: folder.to_path_buf(),
            });
        }
        return Ok(Vec::new());
    }
    let mut missing: Vec<PathBuf> = folder
        .ancestors()
        .filter(|path| !path.as_os_str().is_empty())
        .take_while(|path| std::fs::symlink_metadata(path).is_err())
        .map(Path::to_path_buf)
        .collect();
    missing.reverse();
    std::fs::create_dir_all(folder).map_err(|source| OutputError::CreateFolder {
        path: folder.to_path_buf(),
        source,
    })?;
    Ok(missing)
}

/// Removes the folders this run created, innermost first, if they are still empty.
fn remove_created(created: &[PathBuf]) {
    for folder in created.iter().rev() {
        if std::fs::remove_dir(folder).is_err() {
            return;
        }
    }
}

/// Takes the exclusive lock on the folder, waiting (and asking `interrupted`) while another
/// run holds it. `None` if the folder was removed or replaced meanwhile. On a file system
/// without `flock` the run goes on unlocked.
fn lock_folder(
    folder: &Path,
    hooks: &Hooks<'_>,
    waited: &mut bool,
) -> Result<Option<Option<std::fs::File>>, OutputError> {
    let lock_error = |source| OutputError::Lock {
        path: folder.to_path_buf(),
        source,
    };
    let Ok(handle) = std::fs::File::open(folder) else {
        return Ok(Some(None));
    };
    loop {
        match handle.try_lock() {
            Ok(()) => break,
            Err(std::fs::TryLockError::WouldBlock) => {
                if !std::mem::replace(waited, true) {
                    (hooks.waiting)();
                }
                if (hooks.interrupted)() {
                    return Err(OutputError::Interrupted {
                        path: folder.to_path_buf(),
                    });
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(std::fs::TryLockError::Error(error))
                if error.kind() == std::io::ErrorKind::Unsupported =>
            {
                return Ok(Some(None));
            }
            Err(std::fs::TryLockError::Error(error)) => return Err(lock_error(error)),
        }
    }
    let same = same_file(&handle, folder).map_err(lock_error)?;
    Ok(same.then_some(Some(handle)))
}

/// Whether `path` is still the folder that `handle` has open.
#[cfg(unix)]
fn same_file(handle: &std::fs::File, path: &Path) -> std::io::Result<bool> {
    use std::os::unix::fs::MetadataExt;
    let open = handle.metadata()?;
    Ok(match std::fs::metadata(path) {
        Ok(now) => now.dev() == open.dev() && now.ino() == open.ino(),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => false,
        Err(error) => return Err(error),
    })
}

/// Whether `path` is still the folder that `handle` has open (always assumed elsewhere).
#[cfg(not(unix))]
fn same_file(_handle: &std::fs::File, _path: &Path) -> std::io::Result<bool> {
    Ok(true)
}

/// Removes staging folders that no live run owns: under the lock, every one is stale.
fn remove_stale_staging(folder: &Path) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        let stale = entry
            .file_name()
            .to_string_lossy()
            .starts_with(STAGING_PREFIX)
            && entry.file_type().is_ok_and(|kind| kind.is_dir());
        if stale {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// The files the previous run of this kind wrote that this one does not: names from the
/// manifest that are plain file names (no path, not hidden) of regular files.
fn left_over(folder: &Path, set: FileSet<'_>) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(folder.join(set.manifest_name())) else {
        return Vec::new();
    };
    text.lines()
        .map(str::trim)
        .filter(|name| !name.is_empty() && !name.starts_with(['#', '.']) && !name.contains('/'))
        .filter(|name| {
            matches!(
                Path::new(name).components().collect::<Vec<_>>()[..],
                [Component::Normal(_)]
            )
        })
        .filter(|name| set.files.iter().all(|file| file.name != *name))
        .filter(|name| std::fs::symlink_metadata(folder.join(name)).is_ok_and(|m| m.is_file()))
        .map(str::to_string)
        .collect()
}

/// Stages every file, then puts them in place; the caller holds the lock.
fn write_locked(
    folder: &Path,
    set: FileSet<'_>,
    hooks: &Hooks<'_>,
) -> Result<Vec<PathBuf>, OutputError> {
    remove_stale_staging(folder);
    let stage_error = |source| OutputError::Stage {
        path: folder.to_path_buf(),
        source,
    };
    let staging = tempfile::Builder::new()
        .prefix(STAGING_PREFIX)
        .tempdir_in(folder)
        .map_err(stage_error)?;
    let result = stage_and_commit(folder, set, hooks, &staging);
    let path = staging.path().to_path_buf();
    if let Err(error) = staging.close() {
        (hooks.leftover)(&path, &error);
    }
    result
}

/// Stages every file into `staging`, then puts them in place.
fn stage_and_commit(
    folder: &Path,
    set: FileSet<'_>,
    hooks: &Hooks<'_>,
    staging: &TempDir,
) -> Result<Vec<PathBuf>, OutputError> {
    let previous = staging.path().join("previous");
    std::fs::create_dir(&previous).map_err(|source| OutputError::Stage {
        path: folder.to_path_buf(),
        source,
    })?;
    let interrupted = || OutputError::Interrupted {
        path: folder.to_path_buf(),
    };
    let manifest_name = set.manifest_name();
    let manifest = set.manifest();
    let staged = set
        .files
        .iter()
        .map(|file| (file.name.as_ref(), file.bytes.as_slice()))
        .chain([(manifest_name.as_str(), manifest.as_slice())]);
    for (name, bytes) in staged {
        stage(staging, name, bytes).map_err(|source| OutputError::Write {
            path: folder.join(name),
            source,
        })?;
        if (hooks.interrupted)() {
            return Err(interrupted());
        }
    }
    let mut steps: Vec<Step> = set.files.iter().map(|file| Step::Put(&file.name)).collect();
    steps.extend(left_over(folder, set).into_iter().map(Step::Remove));
    steps.push(Step::Put(&manifest_name));
    let replaced = commit(staging, &previous, folder, &steps)?;
    Ok(replaced
        .into_iter()
        .take(set.files.len())
        .map(|step| step.target)
        .collect())
}

/// One change to the output folder.
enum Step<'a> {
    /// Rename the staged file of this name into place.
    Put(&'a str),
    /// Remove the previous run's file of this name.
    Remove(String),
}

/// Carries out `steps` in order; if one fails, undoes those done and returns the error.
fn commit(
    staging: &TempDir,
    previous: &Path,
    folder: &Path,
    steps: &[Step<'_>],
) -> Result<Vec<Replaced>, OutputError> {
    let mut replaced: Vec<Replaced> = Vec::with_capacity(steps.len());
    for step in steps {
        let (name, staged) = match step {
            Step::Put(name) => (*name, Some(staging.path().join(name))),
            Step::Remove(name) => (name.as_str(), None),
        };
        let target = folder.join(name);
        match replace(previous, name, staged.as_deref(), &target) {
            Ok(done) => replaced.push(done),
            Err(source) => {
                for done in replaced.iter().rev() {
                    done.undo();
                }
                return Err(OutputError::Write {
                    path: target,
                    source,
                });
            }
        }
    }
    Ok(replaced)
}

/// Writes one file in full into the staging folder.
fn stage(staging: &TempDir, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    let mut handle = std::fs::File::create(staging.path().join(name))?;
    handle.write_all(bytes)?;
    handle.flush()
}

/// One file put in place or removed, and how to take it back.
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
/// file over it, so `target` always exists while it is replaced; with no staged file, removes
/// `target`.
fn replace(
    previous: &Path,
    name: &str,
    staged: Option<&Path>,
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
    match staged {
        Some(staged) => std::fs::rename(staged, target)?,
        None => std::fs::remove_file(target)?,
    }
    Ok(Replaced {
        target: target.to_path_buf(),
        backup,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manifest_name_reads_back_as_its_kind() {
        let set = FileSet {
            kind: "timeline",
            files: &[],
        };
        assert_eq!(manifest_kind(&set.manifest_name()), Some("timeline"));
        assert_eq!(manifest_kind(".simulate-timeline-files"), Some("timeline"));
        for other in [
            ".simulate--files",
            "summary.csv",
            ".simulate-timeline",
            "simulate-x-files",
        ] {
            assert_eq!(manifest_kind(other), None, "{other}");
        }
    }

    fn files() -> Vec<OutputFile> {
        vec![
            OutputFile {
                name: "a.csv".into(),
                bytes: b"new a".to_vec(),
            },
            OutputFile {
                name: "b.csv".into(),
                bytes: b"new b".to_vec(),
            },
            OutputFile {
                name: "c.svg".into(),
                bytes: b"new c".to_vec(),
            },
        ]
    }

    /// Writes the article-kind set `files` into `folder`; `stop` answers every interruption
    /// check.
    fn write(folder: &Path, files: &[OutputFile], stop: bool) -> Result<Vec<PathBuf>, OutputError> {
        let set = FileSet {
            kind: "test",
            files,
        };
        let hooks = Hooks {
            interrupted: &|| stop,
            waiting: &|| {},
            leftover: &|path, error| panic!("{} left: {error}", path.display()),
        };
        write_all(folder, set, &hooks)
    }

    const MANIFEST: &str = ".simulate-test-files";

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
        let written = write(&target, &files(), false).unwrap();
        assert_eq!(
            written,
            vec![
                target.join("a.csv"),
                target.join("b.csv"),
                target.join("c.svg")
            ]
        );
        assert_eq!(listing(&target), vec![MANIFEST, "a.csv", "b.csv", "c.svg"]);
        assert_eq!(read(target.join("c.svg")), "new c");
    }

    #[test]
    fn replaces_old_versions_and_leaves_other_files_alone() {
        let folder = tempfile::tempdir().unwrap();
        std::fs::write(folder.path().join("a.csv"), b"old a").unwrap();
        std::fs::write(folder.path().join("notes.txt"), b"mine").unwrap();
        write(folder.path(), &files(), false).unwrap();
        assert_eq!(
            listing(folder.path()),
            vec![MANIFEST, "a.csv", "b.csv", "c.svg", "notes.txt"]
        );
        assert_eq!(read(folder.path().join("a.csv")), "new a");
        assert_eq!(read(folder.path().join("notes.txt")), "mine");
    }

    #[test]
    fn an_interruption_changes_nothing() {
        let folder = tempfile::tempdir().unwrap();
        std::fs::write(folder.path().join("a.csv"), b"old a").unwrap();
        let error = write(folder.path(), &files(), true).unwrap_err();
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
        let error = write(folder.path(), &files(), false).unwrap_err();
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
        let error = write(&blocker, &files(), false).unwrap_err();
        assert!(error.to_string().contains("is not a folder"), "{error}");
    }

    #[test]
    fn an_interrupted_run_removes_the_folders_it_created() {
        let folder = tempfile::tempdir().unwrap();
        let target = folder.path().join("new/out");
        let error = write(&target, &files(), true).unwrap_err();
        assert!(matches!(error, OutputError::Interrupted { .. }), "{error}");
        assert_eq!(listing(folder.path()), Vec::<String>::new());
    }

    #[test]
    fn stale_staging_folders_are_removed() {
        let folder = tempfile::tempdir().unwrap();
        let stale = folder.path().join(".simulate-staging-AbC123");
        std::fs::create_dir_all(stale.join("previous")).unwrap();
        std::fs::write(stale.join("a.csv"), b"partial").unwrap();
        std::fs::write(
            folder.path().join(".simulate-staging-file"),
            b"not a folder",
        )
        .unwrap();
        write(folder.path(), &files(), false).unwrap();
        assert_eq!(
            listing(folder.path()),
            vec![
                ".simulate-staging-file",
                MANIFEST,
                "a.csv",
                "b.csv",
                "c.svg"
            ]
        );
    }

    #[test]
    fn files_of_the_previous_set_are_removed_others_kept() {
        let folder = tempfile::tempdir().unwrap();
        write(folder.path(), &files(), false).unwrap();
        std::fs::write(folder.path().join("mine.csv"), b"mine").unwrap();
        let fewer = &files()[..2];
        write(folder.path(), fewer, false).unwrap();
        assert_eq!(
            listing(folder.path()),
            vec![MANIFEST, "a.csv", "b.csv", "mine.csv"]
        );
        // A manifest naming paths outside the folder, hidden files or folders removes nothing.
        let outside = tempfile::tempdir().unwrap();
        let victim = outside.path().join("victim.csv");
        std::fs::write(&victim, b"keep").unwrap();
        std::fs::create_dir(folder.path().join("dir.svg")).unwrap();
        std::fs::write(folder.path().join(".hidden"), b"keep").unwrap();
        let manifest = format!("{}\n../x\n.hidden\ndir.svg\nmine.csv/\n", victim.display());
        std::fs::write(folder.path().join(MANIFEST), manifest).unwrap();
        write(folder.path(), &files()[..1], false).unwrap();
        assert!(victim.exists());
        assert_eq!(
            listing(folder.path()),
            vec![".hidden", MANIFEST, "a.csv", "b.csv", "dir.svg", "mine.csv"]
        );
    }

    #[test]
    fn a_dangling_link_is_named_as_such() {
        let folder = tempfile::tempdir().unwrap();
        let link = folder.path().join("out");
        std::os::unix::fs::symlink(folder.path().join("nowhere"), &link).unwrap();
        let error = write(&link, &files(), false).unwrap_err().to_string();
        assert!(
            error.contains("symbolic link") && error.contains("nowhere"),
            "{error}"
        );
    }
}

//! `simulate compare DIR... --out DIR`: two or more output folders of one model side by side.
//! It reads what each run left in its folder (the list of files naming the model,
//! `summary.csv`, `parameters.csv`, `report.md`'s title; see [`folder`]), matches their
//! estimates cell by cell ([`table`]), and writes `compare.csv`, a chart per headline metric
//! and a self-contained `report.html` into the `--out` folder, all together or not at all
//! (through [`crate::output`], as a run's files).
//!
//! What it refuses, each in one line with exit code 2 and nothing written: fewer than two
//! folders, no `--out`, an `--out` that is one of the folders, a folder that no simulate run
//! wrote, and folders of different models.

mod chart;
pub mod folder;
mod page;
pub mod table;

use std::path::{Path, PathBuf};

use folder::Folder;

/// What `simulate compare` was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The folders, the first the baseline.
    pub folders: Vec<PathBuf>,
    /// Where the comparison goes.
    pub out: Option<PathBuf>,
    /// The question it answers, the page's title.
    pub title: Option<String>,
    /// Print nothing on success.
    pub quiet: bool,
}

/// Why the folders cannot be compared.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    /// Fewer than two folders.
    #[error("simulate compare needs two output folders or more, got {count}")]
    TooFew {
        /// How many were given.
        count: usize,
    },
    /// No `--out`.
    #[error("simulate compare needs --out DIR, the folder to write the comparison into")]
    NoOut,
    /// `--out` names one of the folders compared.
    #[error(
        "--out {} is one of the folders compared: write the comparison into another folder",
        out.display()
    )]
    OutIsInput {
        /// The folder.
        out: PathBuf,
    },
    /// A folder no simulate run wrote.
    #[error("{} is not a simulate output folder: {why}", folder.display())]
    NotOutput {
        /// The folder.
        folder: PathBuf,
        /// What it lacks.
        why: String,
    },
    /// A file of a folder that cannot be read as simulate writes it.
    #[error("cannot read {}: {why}", file.display())]
    Unreadable {
        /// The file.
        file: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// Two folders of different models.
    #[error(
        "{} holds {} outputs but {} holds {} outputs: simulate compare compares folders of one \
         model",
        first.display(),
        first_model,
        other.display(),
        other_model
    )]
    Models {
        /// The first folder.
        first: PathBuf,
        /// Its model.
        first_model: String,
        /// The first folder of another model.
        other: PathBuf,
        /// Its model.
        other_model: String,
    },
}

/// Whether two paths name the same folder (the same file once resolved, or the same words
/// where one does not exist yet).
fn same_folder(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a.components().eq(b.components()),
    }
}

/// The command that writes the comparison again, quoted for a POSIX shell.
fn command_line(request: &Request, out: &Path) -> String {
    let mut words: Vec<String> = vec!["simulate".into(), "compare".into()];
    words.extend(request.folders.iter().map(|f| f.display().to_string()));
    words.extend(["--out".into(), out.display().to_string()]);
    if let Some(title) = &request.title {
        words.extend(["--title".into(), title.clone()]);
    }
    words
        .iter()
        .map(|word| shlex::try_quote(word).map_or_else(|_| word.clone(), |q| q.into_owned()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Runs `simulate compare`: checks the request, reads the folders, writes the comparison
/// and prints its table and the paths written (nothing with `quiet`).
pub fn run(request: Request) -> anyhow::Result<()> {
    if request.folders.len() < 2 {
        return Err(CompareError::TooFew {
            count: request.folders.len(),
        }
        .into());
    }
    let out = request.out.clone().ok_or(CompareError::NoOut)?;
    if request
        .folders
        .iter()
        .any(|folder| same_folder(folder, &out))
    {
        return Err(CompareError::OutIsInput { out }.into());
    }
    let folders = request
        .folders
        .iter()
        .map(|path| Folder::read(path))
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(other) = folders.iter().find(|f| f.model != folders[0].model) {
        return Err(CompareError::Models {
            first: folders[0].path.clone(),
            first_model: folders[0].model.clone(),
            other: other.path.clone(),
            other_model: other.model.clone(),
        }
        .into());
    }
    let comparison = table::compare(&folders);
    let labels: Vec<String> = folders.iter().map(Folder::label).collect();
    let title = request.title.clone().unwrap_or_else(|| {
        format!(
            "How do {} compare? ({} model)",
            labels.join(" and "),
            folders[0].model
        )
    });
    let files = page::files(&comparison, &title, &out, &command_line(&request, &out));
    let written = crate::driver::write_files(&out, folder::COMPARISON, &files, request.quiet)?;
    let text = page::text_table(&comparison);
    crate::driver::print_to_stdout(&crate::driver::told(&text, &written, request.quiet))?;
    Ok(())
}

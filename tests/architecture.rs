//! The layout's rules, checked in the source: only the binary's command line knows clap, and
//! no model's code takes anything from another model (a model's tests may compare with
//! another model's closed forms). The engine crate cannot import a model at all: it does not
//! depend on the library.

use std::path::{Path, PathBuf};

/// Every `.rs` file under `folder`.
fn sources(folder: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(folder).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(sources(&path));
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            files.push(path);
        }
    }
    files
}

/// The code of a file, without its comments (a line's `//` part).
fn code(path: &Path) -> String {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| line.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn only_the_command_line_knows_clap() {
    let cli = root().join("src/cli");
    let main = root().join("src/main.rs");
    let offenders: Vec<PathBuf> = sources(&root().join("src"))
        .into_iter()
        .filter(|path| !path.starts_with(&cli) && *path != main)
        .filter(|path| code(path).contains("clap"))
        .collect();
    assert!(
        offenders.is_empty(),
        "clap outside the command line: {offenders:?}"
    );
}

#[test]
fn no_model_takes_from_another() {
    let models = ["article", "timeline", "contention", "load"];
    let mut offenders = Vec::new();
    for model in models {
        for path in sources(&root().join("src/model").join(model)) {
            let name = path.file_name().unwrap().to_string_lossy();
            if name == "tests.rs" || name.ends_with("_tests.rs") {
                continue;
            }
            let code = code(&path);
            for other in models.iter().filter(|other| **other != model) {
                if code.contains(&format!("model::{other}")) {
                    offenders.push(format!("{} uses model::{other}", path.display()));
                }
            }
        }
    }
    assert!(offenders.is_empty(), "{offenders:#?}");
}

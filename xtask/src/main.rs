//! The maintainers' commands (`cargo xtask ...`, an alias in `.cargo/config.toml`).
//!
//! `cargo xtask docs` rewrites every generated region of README.md, CONTRIBUTING.md and the
//! Markdown files under docs/ from the committed outputs (`output/`), the committed reference
//! data (`benches/*.csv`, `tests/reference/`) and the recorded measurements
//! (`docs/measurements/`), and the JSON Schema of every model's `--json`
//! (`schemas/<model>.schema.json`) from the library's declarations. `cargo xtask docs --check` changes nothing and exits 1 naming every
//! stale region. A region is a function of the files its start line names; the prose around
//! it is free to change.

mod data;
mod markers;
mod numbers;
mod regions;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use data::Ctx;
use markers::Generated;

const USAGE: &str = "usage: cargo xtask docs [--check]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let check = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["docs"] => false,
        ["docs", "--check"] => true,
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask/ is inside the repository")
        .to_path_buf();
    match docs(&root, check) {
        Ok(stale) if stale.is_empty() => ExitCode::SUCCESS,
        Ok(stale) => {
            for (file, region) in &stale {
                eprintln!("stale: {file}: region {region}");
            }
            eprintln!(
                "{} generated region(s) differ from the committed outputs: run `cargo xtask docs`",
                stale.len()
            );
            ExitCode::FAILURE
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

/// The Markdown files that may hold regions, relative to `root`: README.md, CONTRIBUTING.md
/// and every `.md` under docs/, sorted.
fn documents(root: &Path) -> Result<Vec<String>, String> {
    let mut files = Vec::new();
    for top in ["README.md", "CONTRIBUTING.md"] {
        if root.join(top).is_file() {
            files.push(top.to_string());
        }
    }
    let mut pending = vec![PathBuf::from("docs")];
    let mut under_docs = Vec::new();
    while let Some(folder) = pending.pop() {
        let entries = std::fs::read_dir(root.join(&folder))
            .map_err(|error| format!("{}: {error}", folder.display()))?;
        for entry in entries {
            let entry = entry.map_err(|error| error.to_string())?;
            let path = folder.join(entry.file_name());
            if entry.path().is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|ext| ext == "md") {
                under_docs.push(path.to_string_lossy().into_owned());
            }
        }
    }
    under_docs.sort();
    files.extend(under_docs);
    Ok(files)
}

/// Regenerates (or, with `check`, compares) every region of every document; returns the stale
/// regions as (file, label).
fn docs(root: &Path, check: bool) -> Result<Vec<(String, String)>, String> {
    let ctx = Ctx::new(root);
    let mut stale = Vec::new();
    for file in documents(root)? {
        let path = root.join(&file);
        let text = std::fs::read_to_string(&path).map_err(|error| format!("{file}: {error}"))?;
        let (rewritten, changed) = markers::rewrite(&text, |region| {
            let body = regions::render(&ctx, &region.name, region.argument.as_deref());
            let sources = ctx.take_sources();
            Ok(Generated {
                sources,
                body: body?,
            })
        })
        .map_err(|error| format!("{file}: {error}"))?;
        if changed.is_empty() {
            continue;
        }
        if check {
            stale.extend(changed.into_iter().map(|label| (file.clone(), label)));
        } else {
            std::fs::write(&path, rewritten).map_err(|error| format!("{file}: {error}"))?;
            for label in changed {
                println!("updated {file}: {label}");
            }
        }
    }
    stale.extend(schemas(root, check)?);
    Ok(stale)
}

/// Regenerates (or, with `check`, compares) the JSON Schema of every model's `--json`,
/// `schemas/<model>.schema.json`, from the library's declarations; returns the stale ones as
/// (file, `schema`).
fn schemas(root: &Path, check: bool) -> Result<Vec<(String, String)>, String> {
    let mut stale = Vec::new();
    for (file, bytes) in simulate::report::schemas::schema_files() {
        let path = root.join(&file);
        if std::fs::read(&path).ok().as_deref() == Some(&bytes[..]) {
            continue;
        }
        if check {
            stale.push((file, "schema".to_string()));
        } else {
            if let Some(folder) = path.parent() {
                std::fs::create_dir_all(folder).map_err(|error| format!("{file}: {error}"))?;
            }
            std::fs::write(&path, bytes).map_err(|error| format!("{file}: {error}"))?;
            println!("updated {file}");
        }
    }
    Ok(stale)
}

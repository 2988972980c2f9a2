//! What the page shows of a run's inputs ([`Inputs`]): the config file's leading comment
//! (the question), every scenario's settings, the command that runs it again and the way up
//! to the docs.

use std::path::{Component, Path};

use crate::config::Overrides;
use crate::config::settings::ScenarioSettings;

/// What the page shows of the run's inputs, beside its results: taken by the driver from the
/// command line and the config file.
#[derive(Debug, Clone, PartialEq)]
pub struct Inputs {
    /// The config file as typed, if one was run.
    pub file: Option<String>,
    /// The config file's leading comment block, `#` taken off, if it has one.
    pub comment: Option<String>,
    /// Every scenario's settings, as `simulate check` shows them.
    pub scenarios: Vec<ScenarioSettings>,
    /// The command that runs it again, as a shell reads it.
    pub command: String,
    /// The way from the output folder up to the folder it was given from (`../../`), when
    /// the folder was given as a relative path without `..`: where the docs' links start.
    pub up: Option<String>,
}

impl Inputs {
    /// The inputs of a run of `config_text` (empty without a file) with `overrides`, whose
    /// settings are `scenarios`, into `out_dir`.
    pub fn new(
        config_text: &str,
        overrides: &Overrides,
        scenarios: Vec<ScenarioSettings>,
        out_dir: &Path,
    ) -> Self {
        Self {
            file: overrides
                .config
                .as_ref()
                .map(|path| path.to_string_lossy().into_owned()),
            comment: leading_comment(config_text),
            scenarios,
            command: command_line(overrides),
            up: way_up(out_dir),
        }
    }
}

/// The comment block a config file opens with, each line's `#` (and one space after it)
/// taken off; `None` when the file does not open with a comment.
pub fn leading_comment(text: &str) -> Option<String> {
    let lines: Vec<&str> = text
        .lines()
        .map_while(|line| line.trim_start().strip_prefix('#'))
        .map(|line| line.strip_prefix(' ').unwrap_or(line).trim_end())
        .collect();
    let block = lines.join("\n");
    (!block.trim().is_empty()).then(|| block.trim_matches('\n').to_string())
}

/// The command that runs the same inputs again: the file and every flag that changes what
/// is computed (not `--out`, `--threads`, `--engine`, `--quiet` or `--json`, which change
/// where the files go, how fast they come or what is printed), each quoted for a POSIX shell.
pub fn command_line(overrides: &Overrides) -> String {
    let mut words: Vec<String> = vec!["simulate".into()];
    let mut flag = |name: &str, value: String| {
        words.push(name.to_string());
        words.push(value);
    };
    if let Some(path) = &overrides.config {
        flag("--config", path.to_string_lossy().into_owned());
    }
    if let Some(values) = &overrides.ack_loss {
        let values: Vec<String> = values.iter().map(f64::to_string).collect();
        flag("--p", values.join(","));
    }
    if let Some(seed) = overrides.seed {
        flag("--seed", seed.to_string());
    }
    if let Some(requests) = overrides.requests {
        flag("--requests", requests.to_string());
    }
    if let Some(retries) = overrides.max_retries {
        flag("--max-retries", retries.to_string());
    }
    if let Some(payments) = overrides.payments {
        flag("--payments", payments.to_string());
    }
    if let Some(runs) = overrides.runs {
        flag("--runs", runs.to_string());
    }
    for set in &overrides.set {
        let written = match &set.source {
            crate::config::assignment::Source::Flag(flag) => {
                flag.strip_prefix("--set ").unwrap_or(flag).to_string()
            }
            crate::config::assignment::Source::File { .. } => continue,
        };
        flag("--set", written);
    }
    for sweep in &overrides.sweep {
        flag("--sweep", sweep.written.clone());
    }
    words
        .iter()
        .map(|word| shlex::try_quote(word).map_or_else(|_| word.clone(), |q| q.into_owned()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `../` once per folder of `out_dir`, when it is relative and has no `..`.
fn way_up(out_dir: &Path) -> Option<String> {
    let mut up = String::new();
    for component in out_dir.components() {
        match component {
            Component::Normal(_) => up.push_str("../"),
            Component::CurDir => {}
            _ => return None,
        }
    }
    Some(up)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::assignment::{Assignment, SweepFlag};
    use std::path::PathBuf;

    #[test]
    fn the_leading_comment_block_is_the_question() {
        assert_eq!(
            leading_comment("# One\n#two\n#\n#   three\nkey = 1\n# later\n").as_deref(),
            Some("One\ntwo\n\n  three")
        );
        assert_eq!(leading_comment("key = 1\n# later\n"), None);
        assert_eq!(leading_comment("#\n#\nkey = 1\n"), None);
    }

    #[test]
    fn the_command_has_every_input_flag_quoted_and_not_out_threads_engine_or_output() {
        let overrides = Overrides {
            config: Some(PathBuf::from("my configs/x.toml")),
            ack_loss: Some(vec![0.01, 0.1]),
            runs: Some(20),
            threads: Some(8),
            out: Some(PathBuf::from("elsewhere")),
            engine: Some(crate::config::EngineName::Servers),
            quiet: true,
            json: true,
            set: vec![Assignment::parse("server.error_policy=retry").unwrap()],
            sweep: vec![SweepFlag::parse("client.timeout_ms=500,1s").unwrap()],
            ..Overrides::default()
        };
        assert_eq!(
            command_line(&overrides),
            "simulate --config 'my configs/x.toml' --p '0.01,0.1' --runs 20 --set \
             'server.error_policy=retry' --sweep 'client.timeout_ms=500,1s'"
        );
        assert_eq!(command_line(&Overrides::default()), "simulate");
    }

    #[test]
    fn the_docs_are_linked_from_a_relative_folder_only() {
        assert_eq!(way_up(Path::new("output/a")).as_deref(), Some("../../"));
        assert_eq!(way_up(Path::new("./output")).as_deref(), Some("../"));
        assert_eq!(way_up(Path::new("/tmp/out")), None);
        assert_eq!(way_up(Path::new("../out")), None);
    }
}

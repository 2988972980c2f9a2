//! The article model's settings: its keys ([`SCHEMA`]), read from an optional file and merged
//! under the flags into one checked [`ArticleConfig`].

use std::path::Path;

use crate::config::document::Document;
use crate::config::key::{Key, Kind, SEED, Schema, THREADS_KEY, runs_key};
use crate::config::lookup::Lookup;
use crate::config::overrides::{EngineName, Overrides};
use crate::config::read::Found;
use crate::config::set;
use crate::config::{ConfigError, OutputSettings};
use crate::model::article::{ArticleModel, Engine};
use crate::parse::{self, AckLossList};

/// Everything a run needs, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct ArticleConfig {
    /// The experiment.
    pub model: ArticleModel,
    /// How it is computed.
    pub engine: Engine,
    /// Where the files go and what is printed.
    pub output: OutputSettings,
}

/// Every key of an article file.
pub const KEYS: &[Key] = &[
    Key::file(
        "p",
        Kind::Special {
            expected: "ACK-loss probabilities: a list such as [0.01, 0.05], a number, or a string \
                       in the --p syntax such as \"0:0.3:0.01\" (each from 0 to 1, at most 10000, \
                       each once)",
        },
        Some("[0.01, 0.05, 0.10]"),
        "The ACK-loss probabilities p simulated, each with the same draws; `--p` overrides.",
    ),
    Key::file(
        "seed",
        SEED,
        Some("42"),
        "Seed of numpy's default_rng; 42 with the defaults is the article's table. `--seed` overrides.",
    ),
    Key::file(
        "requests",
        Kind::Whole {
            min: 1,
            max: parse::MAX_REQUESTS,
            unit: "requests",
        },
        Some("10000"),
        "Payment requests per run. `--requests` overrides.",
    ),
    Key::file(
        "max_retries",
        Kind::Whole {
            min: 0,
            max: parse::MAX_RETRIES as u64,
            unit: "retries",
        },
        Some("20"),
        "Retries a client makes at most after its first send. `--max-retries` overrides.",
    ),
    runs_key(
        "1",
        "Independent replications of every p; run 0 is the article's run. `--runs` overrides.",
    ),
    Key::file(
        "out",
        Kind::Folder,
        Some("\"output\""),
        "Output folder. `--out` overrides.",
    ),
    THREADS_KEY,
    Key::file(
        "engine",
        Kind::Choice(&["fast", "servers"]),
        Some("\"fast\""),
        "fast: constant memory, all cores; servers: the article's numpy code with both real servers (memory grows with the requests). Both give identical results. `--engine` overrides.",
    ),
];

/// The article model's schema.
pub const SCHEMA: Schema = Schema {
    model: "article",
    keys: KEYS,
    listed_when_written: &[],
};

/// Reads an article file (or none) merged under the flags.
pub fn read(
    document: Option<&Document<'_>>,
    others: &[Schema],
    overrides: &Overrides,
    default_threads: usize,
) -> Result<ArticleConfig, ConfigError> {
    let empty = Document::parse("", Path::new(""))?;
    let document = document.unwrap_or(&empty);
    let sets = set::documents(overrides)?;
    let entries = set::entries_with_sets(document, &sets, &SCHEMA, others, overrides)?;
    let file = Lookup::top(&SCHEMA, &entries);
    let ack_loss = match &overrides.ack_loss {
        Some(values) => values.clone(),
        None => file.with("p", ack_loss)?,
    };
    let seed = overrides.seed.map_or_else(|| file.whole("seed"), Ok)?;
    let requests = overrides
        .requests
        .map_or_else(|| file.whole("requests"), Ok)?;
    let max_retries = match overrides.max_retries {
        Some(max_retries) => max_retries,
        None => file.whole("max_retries")? as u32,
    };
    let runs = file.flag_or_whole(overrides.runs.map(u64::from), "runs")? as u32;
    parse::check_total_deliveries(requests, max_retries, runs)
        .map_err(|reason| ConfigError::TooLarge { reason })?;
    let threads = file.threads(overrides.threads, default_threads)?;
    let engine = match overrides.engine {
        Some(engine) => engine,
        None if file.name("engine")? == "servers" => EngineName::Servers,
        None => EngineName::Fast,
    };
    let out_dir = match &overrides.out {
        Some(out) => out.clone(),
        None => file.folder("out")?,
    };
    Ok(ArticleConfig {
        model: ArticleModel {
            ack_loss,
            requests,
            max_retries,
            seed,
            runs,
        },
        engine: match engine {
            EngineName::Fast => Engine::Fast { threads },
            EngineName::Servers => Engine::Servers,
        },
        output: overrides.output(out_dir),
    })
}

/// `p`: a list of probabilities, one number, or a string in the `--p` syntax.
fn ack_loss(found: &Found<'_, '_>) -> Result<Vec<f64>, ConfigError> {
    use toml::de::DeValue;
    let one = |item: &Found<'_, '_>| -> Result<f64, ConfigError> {
        match crate::config::read::as_number(item.value) {
            Some(p) => parse::check_ack_loss(p).map_err(|reason| item.invalid(reason)),
            None => Err(item.invalid("expected a number such as 0.05")),
        }
    };
    match found.value {
        DeValue::String(text) => parse::ack_loss_list(text)
            .map(|AckLossList(values)| values)
            .map_err(|reason| found.invalid(reason)),
        DeValue::Array(_) => {
            let items = found.list()?;
            parse::check_value_count(items.len()).map_err(|reason| found.invalid(reason))?;
            let values = items.iter().map(one).collect::<Result<Vec<f64>, _>>()?;
            parse::check_ack_loss_values(values).map_err(|reason| found.invalid(reason))
        }
        DeValue::Integer(_) | DeValue::Float(_) => one(found).map(|p| vec![p]),
        _ => Err(found.invalid(
            "expected an array of probabilities such as [0.01, 0.05] or a string \"0:0.3:0.01\"",
        )),
    }
}

//! `parameters.csv`: the machine-readable record, in every output folder, of which model wrote
//! it and every key it ran with (what `simulate check` shows and `report.html` lays out), one
//! row per scenario and key. `simulate compare` reads it to name the parameters that differ
//! between folders.
//!
//! The keys that change where the files go or how fast they come (`out`, `threads`,
//! `engine`) are left out, as on the page, so the file is the same whatever they are.

use engine::counters::Column;

use crate::config::settings::ScenarioSettings;
use crate::report::OutputFile;
use crate::report::html::NOT_INPUTS;

/// The file's name.
pub const NAME: &str = "parameters.csv";

/// The file's columns, in order: the one declaration its header, its reader and the docs'
/// column table are written from.
pub const COLUMNS: [Column; 6] = [
    Column {
        name: "model",
        unit: "",
        doc: &["The model that wrote the folder: `article`, `timeline`, `load` or `contention`."],
    },
    Column {
        name: "scenario",
        unit: "",
        doc: &[
            "The scenario (`[[scenario]]`'s `name`, or the file's name without `.toml`; empty",
            "for the article model without a file).",
        ],
    },
    Column {
        name: "key",
        unit: "",
        doc: &["The key, dotted as a config file writes it (`client.timeout_ms`)."],
    },
    Column {
        name: "value",
        unit: "the key's",
        doc: &[
            "Its value as the run read it (empty when unset); for a swept key, its values",
            "in the sweep's order, joined by `, `.",
        ],
    },
    Column {
        name: "unit",
        unit: "",
        doc: &["The value's unit (empty for a name, a switch or a count without one)."],
    },
    Column {
        name: "source",
        unit: "",
        doc: &[
            "Where the value came from: a line of the config file (`line 4`), a flag",
            "(`--seed`), `default`, `not set`, or `swept`.",
        ],
    },
];

/// `parameters.csv` of a run of `model` with `scenarios`' settings; `swept` names each swept
/// key with its values in the sweep's order (none for a plain run).
pub fn file(
    model: &str,
    scenarios: &[ScenarioSettings],
    swept: &[(String, Vec<String>)],
) -> OutputFile {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer
        .write_record(COLUMNS.iter().map(|column| column.name))
        .expect("writing into memory cannot fail");
    for scenario in scenarios {
        for setting in &scenario.settings {
            if NOT_INPUTS.contains(&setting.key) {
                continue;
            }
            let (value, source) = match swept.iter().find(|(key, _)| key == setting.key) {
                Some((_, values)) => (values.join(", "), "swept"),
                None => (setting.value.clone(), setting.source.as_str()),
            };
            writer
                .write_record([
                    model,
                    &scenario.name,
                    setting.key,
                    &value,
                    setting.unit,
                    source,
                ])
                .expect("writing into memory cannot fail");
        }
    }
    OutputFile::new(
        NAME,
        writer
            .into_inner()
            .expect("flushing into memory cannot fail"),
    )
}

/// One row of a `parameters.csv` read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parameter {
    /// The model that wrote it.
    pub model: String,
    /// The scenario.
    pub scenario: String,
    /// The key.
    pub key: String,
    /// Its value.
    pub value: String,
    /// Its unit.
    pub unit: String,
    /// Where it came from.
    pub source: String,
}

/// The rows of a `parameters.csv`; an error names what is wrong (a missing column, a short
/// row) in a few words.
pub fn read(bytes: &[u8]) -> Result<Vec<Parameter>, String> {
    let mut reader = csv::Reader::from_reader(bytes);
    let header = reader.headers().map_err(|error| error.to_string())?.clone();
    let mut at = [0; COLUMNS.len()];
    for (slot, column) in at.iter_mut().zip(&COLUMNS) {
        *slot = header
            .iter()
            .position(|name| name == column.name)
            .ok_or_else(|| format!("it has no `{}` column", column.name))?;
    }
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|error| error.to_string())?;
        let field = |index: usize| record.get(at[index]).unwrap_or_default().to_string();
        rows.push(Parameter {
            model: field(0),
            scenario: field(1),
            key: field(2),
            value: field(3),
            unit: field(4),
            source: field(5),
        });
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::settings::Setting;

    fn scenario(name: &str, ttl: &str) -> ScenarioSettings {
        let setting = |key, value: &str, unit, source: &str| Setting {
            key,
            value: value.into(),
            unit,
            source: source.into(),
        };
        ScenarioSettings {
            name: name.into(),
            settings: vec![
                setting("seed", "42", "", "line 1"),
                setting("threads", "8", "", "--threads"),
                setting("server.key_ttl_ms", ttl, "ms", "default"),
                setting("client.timeout_ms", "2000", "ms", "line 3"),
            ],
        }
    }

    #[test]
    fn a_row_per_scenario_and_key_but_out_threads_and_engine_read_back() {
        let scenarios = [scenario("a, b", "1000"), scenario("c", "2000")];
        let swept = [(
            "client.timeout_ms".to_string(),
            vec!["500".to_string(), "2s".to_string()],
        )];
        let file = file("timeline", &scenarios, &swept);
        assert_eq!(file.name, "parameters.csv");
        let text = String::from_utf8(file.bytes.clone()).unwrap();
        assert_eq!(
            text.lines().collect::<Vec<_>>()[..3],
            [
                "model,scenario,key,value,unit,source",
                "timeline,\"a, b\",seed,42,,line 1",
                "timeline,\"a, b\",server.key_ttl_ms,1000,ms,default",
            ]
        );
        assert!(!text.contains("threads"));
        let rows = read(&file.bytes).unwrap();
        assert_eq!(rows.len(), 2 * 3);
        assert_eq!(
            rows[2],
            Parameter {
                model: "timeline".into(),
                scenario: "a, b".into(),
                key: "client.timeout_ms".into(),
                value: "500, 2s".into(),
                unit: "ms".into(),
                source: "swept".into(),
            }
        );
        assert_eq!(rows[4].value, "2000");
        assert!(
            read(b"model,key\ntimeline,seed\n")
                .unwrap_err()
                .contains("`scenario`")
        );
    }
}

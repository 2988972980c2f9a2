//! One output folder as `simulate compare` reads it: which model wrote it (the hidden
//! `.simulate-<model>-files` list, or `parameters.csv` where two models wrote there), its
//! estimates (`summary.csv`, in the shared summary shape or the article model's own), its
//! resolved parameters (`parameters.csv`) and its title (`report.md`'s first heading).

use std::path::{Path, PathBuf};

use engine::replications::{Estimate, Method};
use engine::stats::Interval;

use super::CompareError;
use crate::report::parameters::{self, Parameter};

/// The kind of the lists `simulate compare` writes itself: a comparison, not a run.
pub const COMPARISON: &str = "compare";

/// The most a file read back from an output folder may hold: 256 MiB (a sweep of a load file
/// writes a summary.csv of a few MB).
const MAX_FILE_BYTES: u64 = 256 << 20;

/// One estimate of `summary.csv`, its numbers as the file writes them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The cell's labels, one per cell column.
    pub cell: Vec<String>,
    /// The metric.
    pub metric: String,
    /// Its unit (empty where the file has none: the article model's).
    pub unit: String,
    /// `mean` or `proportion` (the article model's: `proportion` for a Wilson interval).
    pub kind: String,
    /// The runs, the mean, sd, se, the interval's ends and its method, as written.
    pub runs: String,
    /// The mean.
    pub mean: String,
    /// The standard deviation across runs.
    pub sd: String,
    /// The standard error.
    pub se: String,
    /// The interval's low end.
    pub ci_low: String,
    /// The interval's high end.
    pub ci_high: String,
    /// How the interval was computed (`t`, `wilson`, `score`, or empty).
    pub interval: String,
}

impl Row {
    /// The estimate the row states; `None` without a mean.
    pub fn estimate(&self) -> Option<Estimate> {
        let number = |text: &str| text.parse::<f64>().ok();
        let mean = number(&self.mean)?;
        let interval = match (number(&self.ci_low), number(&self.ci_high)) {
            (Some(low), Some(high)) => Some(Interval { low, high }),
            _ => None,
        };
        Some(Estimate {
            mean,
            runs: self.runs.parse().ok()?,
            sd: number(&self.sd),
            se: number(&self.se),
            interval,
            method: match self.interval.as_str() {
                "t" | "student_t" => Method::StudentT,
                "wilson" => Method::Wilson,
                "score" => Method::Score,
                _ => Method::None,
            },
        })
    }

    /// Whether it is a share (shown as a percentage).
    pub fn is_share(&self) -> bool {
        self.kind == "proportion"
    }
}

/// An output folder's contents, as far as a comparison needs them.
#[derive(Debug, Clone, PartialEq)]
pub struct Folder {
    /// The folder as given.
    pub path: PathBuf,
    /// The model that wrote it.
    pub model: String,
    /// The columns naming a cell (those before `metric`).
    pub cell_columns: Vec<String>,
    /// Every estimate, in the file's order.
    pub rows: Vec<Row>,
    /// Its resolved parameters; `None` for a folder written before `parameters.csv` existed.
    pub parameters: Option<Vec<Parameter>>,
    /// `report.md`'s title, if it has one.
    pub title: Option<String>,
}

impl Folder {
    /// The folder's name as given, for tables and the CSV.
    pub fn label(&self) -> String {
        self.path.display().to_string()
    }

    /// Reads `path`; refuses what is not a run's output folder.
    pub fn read(path: &Path) -> Result<Self, CompareError> {
        let refuse = |why: String| CompareError::NotOutput {
            folder: path.to_path_buf(),
            why,
        };
        if !path.is_dir() {
            return Err(refuse("not a folder".into()));
        }
        let kinds = manifests(path);
        let runs: Vec<&String> = kinds.iter().filter(|kind| *kind != COMPARISON).collect();
        if runs.is_empty() {
            return Err(refuse(if kinds.is_empty() {
                "it has no `.simulate-<model>-files` list, so no simulate run wrote it".into()
            } else {
                "it is a comparison (simulate compare), not a run's outputs".into()
            }));
        }
        let parameters =
            match crate::input::read_bytes(&path.join(parameters::NAME), MAX_FILE_BYTES) {
                Ok(bytes) => {
                    Some(
                        parameters::read(&bytes).map_err(|why| CompareError::Unreadable {
                            file: path.join(parameters::NAME),
                            why,
                        })?,
                    )
                }
                Err(error) if error.is_not_found() => None,
                Err(error) => {
                    return Err(CompareError::Unreadable {
                        file: path.join(parameters::NAME),
                        why: error.to_string(),
                    });
                }
            };
        let recorded = parameters
            .as_ref()
            .and_then(|rows| rows.first())
            .map(|row| row.model.clone());
        let model = match (&runs[..], recorded) {
            ([one], _) => (*one).clone(),
            (_, Some(model)) if runs.contains(&&model) => model,
            _ => {
                let names: Vec<&str> = runs.iter().map(|kind| kind.as_str()).collect();
                return Err(refuse(format!(
                    "it holds the outputs of {} runs ({}) and no parameters.csv says which \
                     wrote its summary.csv",
                    names.len(),
                    names.join(", ")
                )));
            }
        };
        let summary = path.join("summary.csv");
        let bytes =
            crate::input::read_bytes(&summary, MAX_FILE_BYTES).map_err(|error| match error {
                crate::input::ReadError::TooLarge { .. } => CompareError::Unreadable {
                    file: summary.clone(),
                    why: error.to_string(),
                },
                _ => refuse("it has no summary.csv".into()),
            })?;
        let (cell_columns, rows) =
            read_summary(&bytes).map_err(|why| CompareError::Unreadable {
                file: summary.clone(),
                why,
            })?;
        let title = crate::input::read_text(&path.join("report.md"), MAX_FILE_BYTES)
            .ok()
            .and_then(|text| {
                text.lines().find_map(|line| {
                    line.strip_prefix("# ")
                        .map(|title| title.trim().to_string())
                })
            });
        Ok(Self {
            path: path.to_path_buf(),
            model,
            cell_columns,
            rows,
            parameters,
            title,
        })
    }
}

/// The kinds of the `.simulate-<kind>-files` lists in `folder`, sorted.
fn manifests(folder: &Path) -> Vec<String> {
    let mut kinds: Vec<String> = std::fs::read_dir(folder)
        .map(|entries| {
            entries
                .flatten()
                .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_file()))
                .filter_map(|entry| {
                    let name = entry.file_name().to_string_lossy().into_owned();
                    crate::output::manifest_kind(&name).map(str::to_string)
                })
                .collect()
        })
        .unwrap_or_default();
    kinds.sort();
    kinds
}

/// A `summary.csv`'s cell columns and rows: the shared shape (`metric`, `unit`, `kind`,
/// `runs`, `mean`, `sd`, `se`, `ci_low`, `ci_high`, `interval` after the cells) or the
/// article model's (`sd_across_runs`, `se_across_runs`, no unit or kind).
fn read_summary(bytes: &[u8]) -> Result<(Vec<String>, Vec<Row>), String> {
    let mut reader = csv::Reader::from_reader(bytes);
    let header = reader.headers().map_err(|error| error.to_string())?.clone();
    let find = |names: &[&str]| {
        header
            .iter()
            .position(|column| names.contains(&column))
            .ok_or_else(|| format!("it has no `{}` column", names[0]))
    };
    let metric = find(&["metric"])?;
    let at = [
        find(&["runs"])?,
        find(&["mean"])?,
        find(&["sd", "sd_across_runs"])?,
        find(&["se", "se_across_runs"])?,
        find(&["ci_low"])?,
        find(&["ci_high"])?,
        find(&["interval"])?,
    ];
    let unit = find(&["unit"]).ok();
    let kind = find(&["kind"]).ok();
    let cell_columns = header.iter().take(metric).map(str::to_string).collect();
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|error| error.to_string())?;
        let field = |index: usize| record.get(index).unwrap_or_default().to_string();
        let interval = field(at[6]);
        rows.push(Row {
            cell: (0..metric).map(field).collect(),
            metric: field(metric),
            unit: unit.map(field).unwrap_or_default(),
            kind: kind.map(field).unwrap_or_else(|| {
                if interval == "wilson" {
                    "proportion".into()
                } else {
                    "mean".into()
                }
            }),
            runs: field(at[0]),
            mean: field(at[1]),
            sd: field(at[2]),
            se: field(at[3]),
            ci_low: field(at[4]),
            ci_high: field(at[5]),
            interval,
        });
    }
    Ok((cell_columns, rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_summary_shapes_are_read() {
        let shared =
            b"scenario,strategy,metric,unit,kind,runs,mean,sd,se,ci_low,ci_high,interval\n\
                       a,none,charged,payments,proportion,1,0.01,,,0.0018,0.0545,wilson\n";
        let (cells, rows) = read_summary(shared).unwrap();
        assert_eq!(cells, ["scenario", "strategy"]);
        assert_eq!(rows[0].cell, ["a", "none"]);
        let side = rows[0].estimate().unwrap();
        assert_eq!((side.mean, side.method), (0.01, Method::Wilson));
        let article = b"p,server,metric,runs,requests_per_run,mean,sd_across_runs,se_across_runs,\
                        sd_per_request,ci_low,ci_high,interval,closed_form,z_score\n\
                        0.05,idempotent,double_charge_rate,2,100,0,0,0,0,0,0.01,wilson,0,\n\
                        0.05,idempotent,extra,2,100,3,1,0.5,2,1,5,t,3,0\n";
        let (cells, rows) = read_summary(article).unwrap();
        assert_eq!(cells, ["p", "server"]);
        assert!(rows[0].is_share() && !rows[1].is_share());
        assert_eq!((rows[1].sd.as_str(), rows[1].se.as_str()), ("1", "0.5"));
        assert_eq!(rows[1].estimate().unwrap().method, Method::StudentT);
        assert!(
            read_summary(b"a,b\n1,2\n")
                .unwrap_err()
                .contains("`metric`")
        );
    }
}

//! The folders' estimates matched cell by cell and metric by metric, each later folder's
//! difference from the first with its interval (independent samples), and `compare.csv`.
//!
//! Two cells match when their labels agree in every cell column they both have; the
//! `scenario` column is left out of the match when every folder holds one scenario only (a
//! file without `[[scenario]]` names its one scenario after itself, so two designs' files
//! would never match on it).

use engine::counters::Column;
use engine::replications::{Estimate, independent_difference};

use super::folder::{Folder, Row};
use crate::report::format::decimal;
use crate::report::summary::ESTIMATE_COLUMNS;

/// The file's name.
pub const CSV_NAME: &str = "compare.csv";

/// A column of labels, without a unit.
const fn label(name: &'static str, doc: &'static [&'static str]) -> Column {
    Column {
        name,
        unit: "",
        doc,
    }
}

/// The columns of `compare.csv` between the cell columns and the estimate's
/// ([`ESTIMATE_COLUMNS`]): the one declaration its header and the docs are written from.
pub const COLUMNS: [Column; 2] = [
    label(
        "folder",
        &["The output folder the estimate is of, as given on the command line."],
    ),
    label(
        "baseline",
        &[
            "Empty for a folder's own estimate (copied from its `summary.csv`); for a",
            "`difference` row, the first folder, which `folder` minus it is.",
        ],
    ),
];

/// One metric of one matched cell: every folder's estimate (if it has the cell) and every
/// later folder's difference from the first.
#[derive(Debug, Clone, PartialEq)]
pub struct Line<'a> {
    /// The metric's name.
    pub metric: &'a str,
    /// Each folder's row, in the folders' order.
    pub rows: Vec<Option<&'a Row>>,
    /// For each folder after the first, its estimate minus the first's, where both have one.
    pub differences: Vec<Option<Estimate>>,
}

impl Line<'_> {
    /// The first row present: the metric's unit and kind.
    pub fn any(&self) -> &Row {
        self.rows.iter().flatten().next().expect("a line has a row")
    }
}

/// One matched cell: its labels in [`Comparison::columns`] and a line per metric.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell<'a> {
    /// Its labels (empty where a folder lacks the column).
    pub labels: Vec<String>,
    /// A line per metric, in the first folder's order (then those only later ones have).
    pub lines: Vec<Line<'a>>,
}

/// The folders side by side.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison<'a> {
    /// The folders, in order; the first is the baseline.
    pub folders: &'a [Folder],
    /// The cell columns shown (every folder's, in order of first appearance, without
    /// `scenario` when it is left out of the match).
    pub columns: Vec<String>,
    /// The cells, in the first folder's order, then those only later ones have.
    pub cells: Vec<Cell<'a>>,
    /// Whether the scenarios were left out of the match (one scenario per folder).
    pub scenario_ignored: bool,
    /// Each folder's name in tables and charts: its last component, or the whole path as
    /// given where two folders share a last component.
    pub names: Vec<String>,
}

/// Matches the folders' estimates.
pub fn compare(folders: &[Folder]) -> Comparison<'_> {
    let scenario_ignored = folders.iter().all(|folder| {
        folder
            .cell_columns
            .iter()
            .any(|column| column == "scenario")
            && {
                let at = folder.cell_columns.iter().position(|c| c == "scenario");
                let mut names: Vec<&str> = folder
                    .rows
                    .iter()
                    .filter_map(|row| at.map(|at| row.cell[at].as_str()))
                    .collect();
                names.sort_unstable();
                names.dedup();
                names.len() <= 1
            }
    });
    let mut columns: Vec<String> = Vec::new();
    for folder in folders {
        for column in &folder.cell_columns {
            let left_out = scenario_ignored && column == "scenario";
            if !left_out && !columns.contains(column) {
                columns.push(column.clone());
            }
        }
    }
    // Each row's labels in `columns`.
    let labels = |folder: &Folder, row: &Row| -> Vec<String> {
        columns
            .iter()
            .map(|column| {
                folder
                    .cell_columns
                    .iter()
                    .position(|c| c == column)
                    .map(|at| row.cell[at].clone())
                    .unwrap_or_default()
            })
            .collect()
    };
    let mut cells: Vec<Cell> = Vec::new();
    for (index, folder) in folders.iter().enumerate() {
        for row in &folder.rows {
            let key = labels(folder, row);
            let at = match cells.iter().position(|cell| cell.labels == key) {
                Some(at) => at,
                None => {
                    cells.push(Cell {
                        labels: key,
                        lines: Vec::new(),
                    });
                    cells.len() - 1
                }
            };
            let lines = &mut cells[at].lines;
            let line = match lines.iter().position(|line| line.metric == row.metric) {
                Some(line) => line,
                None => {
                    lines.push(Line {
                        metric: &row.metric,
                        rows: vec![None; folders.len()],
                        differences: vec![None; folders.len() - 1],
                    });
                    lines.len() - 1
                }
            };
            lines[line].rows[index] = Some(row);
        }
    }
    for cell in &mut cells {
        for line in &mut cell.lines {
            let first = line.rows[0].and_then(Row::estimate);
            for (later, difference) in line.rows[1..].iter().zip(&mut line.differences) {
                if let (Some(first), Some(later)) = (first, later.and_then(Row::estimate)) {
                    *difference = Some(independent_difference(&later, &first));
                }
            }
        }
    }
    let last = |folder: &Folder| {
        folder.path.file_name().map_or_else(
            || folder.label(),
            |name| name.to_string_lossy().into_owned(),
        )
    };
    let mut names: Vec<String> = folders.iter().map(last).collect();
    let mut sorted = names.clone();
    sorted.sort();
    sorted.dedup();
    if sorted.len() < names.len() {
        names = folders.iter().map(Folder::label).collect();
    }
    Comparison {
        folders,
        columns,
        cells,
        scenario_ignored,
        names,
    }
}

/// `compare.csv`: the cell columns, `folder`, `baseline`, then the estimate's columns; per
/// cell and metric, each folder's row as its `summary.csv` writes it, then each later
/// folder's difference from the first (`kind` `difference`, the interval `welch`,
/// `newcombe` or none).
pub fn csv(comparison: &Comparison) -> Vec<u8> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    let header = comparison
        .columns
        .iter()
        .map(String::as_str)
        .chain(COLUMNS.iter().map(|column| column.name))
        .chain(ESTIMATE_COLUMNS.iter().map(|column| column.name));
    writer
        .write_record(header)
        .expect("writing into memory cannot fail");
    let baseline = comparison.folders[0].label();
    for cell in &comparison.cells {
        for line in &cell.lines {
            for (folder, row) in comparison.folders.iter().zip(&line.rows) {
                let Some(row) = row else { continue };
                let estimate = [
                    &row.metric,
                    &row.unit,
                    &row.kind,
                    &row.runs,
                    &row.mean,
                    &row.sd,
                    &row.se,
                    &row.ci_low,
                    &row.ci_high,
                    &row.interval,
                ];
                let (label, none) = (folder.label(), String::new());
                let record = cell.labels.iter().chain([&label, &none]).chain(estimate);
                writer
                    .write_record(record)
                    .expect("writing into memory cannot fail");
            }
            let row = line.any();
            for (folder, difference) in comparison.folders[1..].iter().zip(&line.differences) {
                let Some(difference) = difference else {
                    continue;
                };
                let optional = |value: Option<f64>| value.map_or_else(String::new, decimal);
                let estimate = [
                    row.metric.clone(),
                    row.unit.clone(),
                    "difference".to_string(),
                    difference.runs.to_string(),
                    decimal(difference.mean),
                    String::new(),
                    optional(difference.se),
                    optional(difference.interval.map(|interval| interval.low)),
                    optional(difference.interval.map(|interval| interval.high)),
                    difference.method.name().to_string(),
                ];
                let record = cell
                    .labels
                    .iter()
                    .cloned()
                    .chain([folder.label(), baseline.clone()])
                    .chain(estimate);
                writer
                    .write_record(record)
                    .expect("writing into memory cannot fail");
            }
        }
    }
    writer
        .into_inner()
        .expect("flushing into memory cannot fail")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// A folder of `scenarios` × (none, key), one share metric each.
    fn folder(path: &str, scenarios: &[&str], share: &str) -> Folder {
        let rows = scenarios
            .iter()
            .flat_map(|scenario| {
                ["none", "key"].map(|strategy| Row {
                    cell: vec![scenario.to_string(), strategy.to_string()],
                    metric: "charged".into(),
                    unit: "payments".into(),
                    kind: "proportion".into(),
                    runs: "1".into(),
                    mean: share.into(),
                    sd: String::new(),
                    se: String::new(),
                    ci_low: "0.1".into(),
                    ci_high: "0.3".into(),
                    interval: "wilson".into(),
                })
            })
            .collect();
        Folder {
            path: PathBuf::from(path),
            model: "timeline".into(),
            cell_columns: vec!["scenario".into(), "strategy".into()],
            rows,
            parameters: None,
            title: None,
        }
    }

    #[test]
    fn one_scenario_each_is_matched_by_strategy_several_by_both() {
        let folders = [
            folder("out/design-a", &["design-a"], "0.2"),
            folder("out/design-b", &["design-b"], "0.25"),
        ];
        let comparison = compare(&folders);
        assert!(comparison.scenario_ignored);
        assert_eq!(comparison.columns, ["strategy"]);
        assert_eq!(comparison.names, ["design-a", "design-b"]);
        assert_eq!(comparison.cells.len(), 2);
        // 0.25 [0.1, 0.3] − 0.2 [0.1, 0.3], Newcombe: 0.05 − √(0.15² + 0.1²) to
        // 0.05 + √(0.05² + 0.1²).
        let difference = comparison.cells[0].lines[0].differences[0].unwrap();
        let interval = difference.interval.unwrap();
        assert!((difference.mean - 0.05).abs() < 1e-15);
        assert!((interval.low - (0.05 - 0.0325f64.sqrt())).abs() < 1e-15);
        assert!((interval.high - (0.05 + 0.0125f64.sqrt())).abs() < 1e-15);
        // Two scenarios in one folder: matched on both columns, so the other folder's
        // scenario `b` is a cell of its own, without a difference.
        let folders = [
            folder("x/a", &["a", "b"], "0.2"),
            folder("y/a", &["a", "c"], "0.2"),
        ];
        let comparison = compare(&folders);
        assert!(!comparison.scenario_ignored);
        assert_eq!(comparison.names, ["x/a", "y/a"], "the same last name twice");
        let labels: Vec<&[String]> = comparison.cells.iter().map(|c| &c.labels[..]).collect();
        assert_eq!(labels.len(), 6);
        let b = &comparison.cells[2];
        assert_eq!(b.labels, ["b", "none"]);
        assert_eq!(b.lines[0].differences, [None]);
        assert!(comparison.cells[0].lines[0].differences[0].is_some());
        let text = String::from_utf8(csv(&comparison)).unwrap();
        assert_eq!(
            text.lines().next(),
            Some(
                "scenario,strategy,folder,baseline,metric,unit,kind,runs,mean,sd,se,ci_low,\
                 ci_high,interval"
            )
        );
        assert_eq!(
            text.lines().nth(3),
            Some(
                "a,none,y/a,x/a,charged,payments,difference,1,0,,,-0.1414213562373095,0.1414213562373095,newcombe"
            )
        );
    }
}

//! The one shape of every model's answer across runs: per cell (the labels a model's results
//! are split by, e.g. scenario and strategy) and metric, the estimate over the runs
//! (`summary.csv`), and the paired differences between the designs of a run
//! (`differences.csv`): the scenarios and strategies of one run share its random numbers, so
//! the difference of two designs is estimated run by run, with an interval much narrower than
//! the two designs' own.
//!
//! A model feeds a [`SummaryBuilder`] one run at a time, in run order, with every cell's
//! observations of that run; the builder keeps running sums only, so its memory grows with
//! cells × metrics (and pairs of cells), not with the runs.

use crate::report::format::decimal;
use engine::counters::Column;
use engine::metric::Kind;
use engine::replications::{Estimate, Replications};

/// One metric a model summarises: its column (name, unit, doc) and its kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Metric {
    /// Its name, unit and doc.
    pub column: &'static Column,
    /// How it is estimated: a mean per run (t interval) or a share of units (Wilson).
    pub kind: Kind,
}

/// One run's value of a metric in one cell.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Observation {
    /// A value per run (a count, a rate, a time).
    Value(f64),
    /// `with_property` of the run's `units` (payments charged twice of the payments).
    Share {
        /// Units with the property.
        with_property: u64,
        /// Units in all.
        units: u64,
    },
    /// No value this run (a recovery time of a run that never recovered): the metric's
    /// estimate is over the runs that have one, and a paired difference over the runs where
    /// both designs have one.
    Absent,
}

impl Observation {
    /// Folds it into `runs`.
    fn fold(self, runs: &mut Replications) {
        match self {
            Observation::Value(value) => runs.push(value),
            Observation::Share {
                with_property,
                units,
            } => runs.push_share(with_property, units),
            Observation::Absent => {}
        }
    }

    /// Its value as a number (a share as a fraction); `None` when absent.
    fn value(self) -> Option<f64> {
        match self {
            Observation::Value(value) => Some(value),
            Observation::Share { units: 0, .. } => Some(0.0),
            Observation::Share {
                with_property,
                units,
            } => Some(with_property as f64 / units as f64),
            Observation::Absent => None,
        }
    }
}

/// One (cell, metric) estimate.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The cell's labels, one per cell column.
    pub cell: Vec<String>,
    /// The metric.
    pub metric: Metric,
    /// What the runs say of it.
    pub estimate: Estimate,
}

/// One paired difference: a design against a baseline that differs from it in one cell column
/// only, per metric, estimated from the per-run differences (Student's t, two runs at least).
#[derive(Debug, Clone, PartialEq)]
pub struct Difference {
    /// The design's cell labels.
    pub cell: Vec<String>,
    /// Which cell column the two differ in (`strategy`, `scenario`).
    pub compared: &'static str,
    /// The baseline's label in that column (the design's is in `cell`).
    pub baseline: String,
    /// The metric.
    pub metric: Metric,
    /// The estimate of the design's value minus the baseline's.
    pub estimate: Estimate,
}

/// Every estimate of a run, in cell order then metric order.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// The columns naming a cell (`scenario`, `strategy`), with their docs.
    pub cell_columns: Vec<Column>,
    /// One row per cell and metric.
    pub rows: Vec<Row>,
    /// One row per design, baseline and metric.
    pub differences: Vec<Difference>,
}

/// Builds a [`Summary`] from runs given one at a time, in run order.
#[derive(Debug)]
pub struct SummaryBuilder {
    /// The columns naming a cell.
    cell_columns: Vec<Column>,
    /// The columns the paired differences compare over, by index into `cell_columns`.
    compared: Vec<usize>,
    /// The metrics, in order.
    metrics: Vec<Metric>,
    /// Each cell's labels and its metrics' running sums, in first-seen order.
    cells: Vec<(Vec<String>, Vec<Replications>)>,
    /// Each pair of cells (design, baseline: indices into `cells`) differing in exactly one
    /// compared column, that column, and the differences' running sums per metric.
    pairs: Vec<(usize, usize, usize, Vec<Replications>)>,
}

impl SummaryBuilder {
    /// A builder for cells named by `cell_columns`, differences taken over the columns named
    /// in `compared` (each a cell column's name), of `metrics`.
    ///
    /// # Panics
    /// If a compared column is not a cell column (a programming error the tests catch).
    pub fn new(cell_columns: Vec<Column>, compared: &[&str], metrics: Vec<Metric>) -> Self {
        let compared = compared
            .iter()
            .map(|name| {
                cell_columns
                    .iter()
                    .position(|column| column.name == *name)
                    .unwrap_or_else(|| panic!("`{name}` is not a cell column"))
            })
            .collect();
        Self {
            cell_columns,
            compared,
            metrics,
            cells: Vec::new(),
            pairs: Vec::new(),
        }
    }

    /// Folds in one run: every cell's labels and its observations, one per metric in order.
    /// The first run fixes the cells and their order; later runs give the same cells.
    ///
    /// # Panics
    /// If a cell has not one observation per metric, or a later run's cells differ from the
    /// first's.
    pub fn run(&mut self, cells: Vec<(Vec<String>, Vec<Observation>)>) {
        let first = self.cells.is_empty();
        if first {
            self.cells = cells
                .iter()
                .map(|(labels, _)| {
                    (
                        labels.clone(),
                        vec![Replications::default(); self.metrics.len()],
                    )
                })
                .collect();
            self.pairs = self.find_pairs();
        }
        assert_eq!(
            cells.len(),
            self.cells.len(),
            "every run has the same cells"
        );
        for ((labels, observations), (known, sums)) in cells.iter().zip(&mut self.cells) {
            assert_eq!(labels, known, "every run has its cells in the same order");
            assert_eq!(
                observations.len(),
                self.metrics.len(),
                "one observation per metric"
            );
            for (observation, sums) in observations.iter().zip(sums.iter_mut()) {
                observation.fold(sums);
            }
        }
        for (design, baseline, _, sums) in &mut self.pairs {
            let (design, baseline) = (&cells[*design].1, &cells[*baseline].1);
            for ((a, b), sums) in design.iter().zip(baseline).zip(sums.iter_mut()) {
                if let (Some(a), Some(b)) = (a.value(), b.value()) {
                    sums.push(a - b);
                }
            }
        }
    }

    /// The pairs of cells that differ in exactly one compared column and in no other: the
    /// later cell is the design, the earlier the baseline.
    fn find_pairs(&self) -> Vec<(usize, usize, usize, Vec<Replications>)> {
        let mut pairs = Vec::new();
        for (design, (labels, _)) in self.cells.iter().enumerate() {
            for (baseline, (other, _)) in self.cells[..design].iter().enumerate() {
                let differing: Vec<usize> = (0..labels.len())
                    .filter(|&column| labels[column] != other[column])
                    .collect();
                if let [column] = differing[..]
                    && self.compared.contains(&column)
                {
                    let sums = vec![Replications::default(); self.metrics.len()];
                    pairs.push((design, baseline, column, sums));
                }
            }
        }
        pairs
    }

    /// The summary of the runs folded in.
    pub fn finish(self) -> Summary {
        let rows = self
            .cells
            .iter()
            .flat_map(|(labels, sums)| {
                self.metrics.iter().zip(sums).map(|(metric, sums)| Row {
                    cell: labels.clone(),
                    metric: *metric,
                    estimate: sums.estimate(metric.kind),
                })
            })
            .collect();
        let mut differences = Vec::new();
        for (design, baseline, column, sums) in &self.pairs {
            for (metric, sums) in self.metrics.iter().zip(sums) {
                differences.push(Difference {
                    cell: self.cells[*design].0.clone(),
                    compared: self.cell_columns[*column].name,
                    baseline: self.cells[*baseline].0[*column].clone(),
                    metric: *metric,
                    estimate: sums.estimate(Kind::Mean),
                });
            }
        }
        Summary {
            cell_columns: self.cell_columns,
            rows,
            differences,
        }
    }
}

/// The columns of an estimate, after a row's labels, in order: the one declaration that
/// `summary.csv`, `differences.csv` and the docs' column tables are written from.
pub const ESTIMATE_COLUMNS: [Column; 10] = [
    Column {
        name: "metric",
        unit: "",
        doc: &["The metric's name: a column of the model's per-run CSV, or one declared with it."],
    },
    Column {
        name: "unit",
        unit: "",
        doc: &["The metric's unit (for a share: the units it is a share of)."],
    },
    Column {
        name: "kind",
        unit: "",
        doc: &[
            "`mean` (a value per run), `proportion` (a share of units) or, in",
            "`differences.csv`, `difference` (design minus baseline, run by run).",
        ],
    },
    Column {
        name: "runs",
        unit: "runs",
        doc: &["Runs the estimate is over."],
    },
    Column {
        name: "mean",
        unit: "the metric's",
        doc: &[
            "The mean over runs; for a proportion, the share of the units pooled over runs",
            "(empty over no run: a metric no run had a value of).",
        ],
    },
    Column {
        name: "sd",
        unit: "the metric's",
        doc: &[
            "The sample standard deviation of the per-run values, divisor runs − 1 (empty for one run).",
        ],
    },
    Column {
        name: "se",
        unit: "the metric's",
        doc: &["The standard error of the mean over runs, sd / √runs (empty for one run)."],
    },
    Column {
        name: "ci_low",
        unit: "the metric's",
        doc: &["The low end of the 95% interval (empty when there is none)."],
    },
    Column {
        name: "ci_high",
        unit: "the metric's",
        doc: &["The high end of the 95% interval (empty when there is none)."],
    },
    Column {
        name: "interval",
        unit: "",
        doc: &[
            "How the interval was computed: `t` (Student's t across runs, runs − 1 degrees of",
            "freedom) or `wilson` (the Wilson score interval of the units pooled over runs);",
            "empty when there is none (a mean over one run).",
        ],
    },
];

/// An estimate's cells, in the order of [`ESTIMATE_COLUMNS`]; `kind` names its kind.
fn estimate_cells(metric: Metric, kind: &str, estimate: &Estimate) -> [String; 10] {
    let optional = |value: Option<f64>| value.map_or_else(String::new, decimal);
    [
        metric.column.name.to_string(),
        metric.column.unit.to_string(),
        kind.to_string(),
        estimate.runs.to_string(),
        if estimate.runs == 0 {
            String::new()
        } else {
            decimal(estimate.mean)
        },
        optional(estimate.sd),
        optional(estimate.se),
        optional(estimate.interval.map(|interval| interval.low)),
        optional(estimate.interval.map(|interval| interval.high)),
        estimate.method.name().to_string(),
    ]
}

/// Writes one CSV: the cell columns, `extra` columns, then the estimate's.
fn write_csv(
    cell_columns: &[Column],
    extra: &[&str],
    rows: impl Iterator<Item = (Vec<String>, [String; 10])>,
) -> Vec<u8> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    let header = cell_columns
        .iter()
        .map(|column| column.name)
        .chain(extra.iter().copied())
        .chain(ESTIMATE_COLUMNS.iter().map(|column| column.name));
    writer
        .write_record(header)
        .expect("writing into memory cannot fail");
    for (labels, estimate) in rows {
        writer
            .write_record(labels.iter().chain(estimate.iter()))
            .expect("writing into memory cannot fail");
    }
    writer
        .into_inner()
        .expect("flushing into memory cannot fail")
}

/// `summary.csv`: one row per cell and metric: the cell columns, then `metric`, `unit`,
/// `kind`, `runs`, `mean`, `sd`, `se`, `ci_low`, `ci_high`, `interval`.
pub fn summary_csv(summary: &Summary) -> Vec<u8> {
    write_csv(
        &summary.cell_columns,
        &[],
        summary.rows.iter().map(|row| {
            let kind = row.metric.kind.name();
            (
                row.cell.clone(),
                estimate_cells(row.metric, kind, &row.estimate),
            )
        }),
    )
}

/// `differences.csv`: one row per design, baseline and metric: the design's cell columns,
/// `compared` (the column the two differ in), `baseline` (the baseline's label in it), then
/// the estimate of design minus baseline as in [`summary_csv`] (always a t interval over the
/// per-run differences, so empty for one run).
pub fn differences_csv(summary: &Summary) -> Vec<u8> {
    write_csv(
        &summary.cell_columns,
        &["compared", "baseline"],
        summary.differences.iter().map(|difference| {
            let mut labels = difference.cell.clone();
            labels.push(difference.compared.to_string());
            labels.push(difference.baseline.clone());
            let estimate = estimate_cells(difference.metric, "difference", &difference.estimate);
            (labels, estimate)
        }),
    )
}

/// An estimate as a person reads it in a table: `623 ± 12` with an interval, `623` without,
/// `decimals` after the point (a share is shown as a percentage).
pub fn plus_minus(metric: Metric, estimate: &Estimate, decimals: usize) -> String {
    plus_minus_of(metric.kind, estimate, decimals)
}

/// [`plus_minus`] of an estimate of kind `kind`.
pub fn plus_minus_of(kind: Kind, estimate: &Estimate, decimals: usize) -> String {
    let scale = if kind == Kind::Proportion { 100.0 } else { 1.0 };
    let mean = format!("{:.decimals$}", estimate.mean * scale);
    match estimate.half_width() {
        Some(half) => format!("{mean} ± {:.decimals$}", half * scale),
        None => mean,
    }
}

/// One column of a paired-differences table: its header, the metric (by column name), the
/// factor its values are shown at (100 for a share in percentage points, the payments per run
/// for a share shown as a count) and the decimals shown.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DifferenceColumn {
    /// The column's header.
    pub header: &'static str,
    /// The metric's column name.
    pub metric: &'static str,
    /// What the estimate is multiplied by when shown.
    pub factor: f64,
    /// Decimals shown.
    pub decimals: usize,
}

/// The paired differences of every design against `baseline` in the cell column `compared`:
/// the headers (the cell columns, then each entry of `columns`) and a row per design (its
/// cell labels, in the summary's order, then per column `mean ± half-width` of the 95%
/// interval: the mean alone without one, empty when the summary lacks it). No rows when no
/// design has that baseline.
pub fn differences_rows(
    summary: &Summary,
    compared: &str,
    baseline: &str,
    columns: &[DifferenceColumn],
) -> (Vec<&'static str>, Vec<Vec<String>>) {
    let against: Vec<&Difference> = summary
        .differences
        .iter()
        .filter(|difference| difference.compared == compared && difference.baseline == baseline)
        .collect();
    let mut cells: Vec<&[String]> = Vec::new();
    for difference in &against {
        if !cells.contains(&difference.cell.as_slice()) {
            cells.push(&difference.cell);
        }
    }
    let headers = summary
        .cell_columns
        .iter()
        .map(|column| column.name)
        .chain(columns.iter().map(|column| column.header))
        .collect();
    let rows = cells
        .into_iter()
        .map(|cell| {
            let mut row = cell.to_vec();
            row.extend(columns.iter().map(|column| {
                let found = against.iter().find(|difference| {
                    difference.cell == cell && difference.metric.column.name == column.metric
                });
                found.map_or_else(String::new, |difference| {
                    let estimate = &difference.estimate;
                    let decimals = column.decimals;
                    let mean = format!("{:.decimals$}", estimate.mean * column.factor);
                    match estimate.half_width() {
                        Some(half) => format!("{mean} ± {:.decimals$}", half * column.factor),
                        None => mean,
                    }
                })
            }));
            row
        })
        .collect();
    (headers, rows)
}

/// [`differences_rows`] as a Markdown table; empty without rows.
pub fn differences_markdown(
    summary: &Summary,
    compared: &str,
    baseline: &str,
    columns: &[DifferenceColumn],
) -> String {
    let (headers, rows) = differences_rows(summary, compared, baseline, columns);
    if rows.is_empty() {
        return String::new();
    }
    let mut text = String::from("|");
    for header in &headers {
        text.push_str(&format!(" {header} |"));
    }
    text.push_str(&format!("\n|{}\n", "---|".repeat(headers.len())));
    for row in rows {
        text.push('|');
        for cell in row {
            text.push_str(&format!(" {cell} |"));
        }
        text.push('\n');
    }
    text
}

/// Columns for the tests of the summary and of what draws it.
#[cfg(test)]
pub(crate) mod test_columns {
    use super::Metric;
    use engine::counters::Column;
    use engine::metric::Kind;

    /// A column without a unit's doc.
    const fn column(
        name: &'static str,
        unit: &'static str,
        doc: &'static [&'static str],
    ) -> Column {
        Column { name, unit, doc }
    }

    /// A scenario's name.
    pub const SCENARIO: Column = column("scenario", "", &["The scenario."]);
    /// A strategy's name.
    pub const STRATEGY: Column = column("strategy", "", &["The strategy."]);
    /// A share of payments.
    pub static CHARGED: Column =
        column("double_charged", "payments", &["Payments charged <twice>."]);
    /// A mean per run.
    pub static LATENCY: Column = column("latency_ms", "ms", &["Latency."]);

    /// The two metrics of the tests: [`CHARGED`] a share, [`LATENCY`] a mean.
    pub fn metrics() -> Vec<Metric> {
        vec![
            Metric {
                column: &CHARGED,
                kind: Kind::Proportion,
            },
            Metric {
                column: &LATENCY,
                kind: Kind::Mean,
            },
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::test_columns::*;
    use super::*;

    fn builder() -> SummaryBuilder {
        SummaryBuilder::new(
            vec![SCENARIO, STRATEGY],
            &["strategy", "scenario"],
            metrics(),
        )
    }

    fn cell(
        scenario: &str,
        strategy: &str,
        charged: u64,
        latency: f64,
    ) -> (Vec<String>, Vec<Observation>) {
        (
            vec![scenario.to_string(), strategy.to_string()],
            vec![
                Observation::Share {
                    with_property: charged,
                    units: 100,
                },
                Observation::Value(latency),
            ],
        )
    }

    #[test]
    fn rows_and_paired_differences_by_hand() {
        let mut builder = builder();
        // Two runs of two scenarios (a, b) × two strategies (none, key).
        builder.run(vec![
            cell("a", "none", 10, 100.0),
            cell("a", "key", 0, 110.0),
            cell("b", "none", 20, 200.0),
            cell("b", "key", 1, 230.0),
        ]);
        builder.run(vec![
            cell("a", "none", 14, 104.0),
            cell("a", "key", 0, 112.0),
            cell("b", "none", 16, 190.0),
            cell("b", "key", 3, 222.0),
        ]);
        let summary = builder.finish();
        assert_eq!(summary.rows.len(), 4 * 2);
        let first = &summary.rows[0];
        assert_eq!(first.cell, ["a", "none"]);
        assert_eq!(first.estimate.mean, 24.0 / 200.0);
        // Pairs: (a key vs a none) over strategy, (b none vs a none) and (b key vs a key)
        // over scenario, (b key vs b none) over strategy; the diagonal (b key vs a none)
        // differs in two columns and is no pair.
        let pairs: Vec<(Vec<String>, &str, &str)> = summary
            .differences
            .iter()
            .filter(|difference| difference.metric.column.name == "latency_ms")
            .map(|d| (d.cell.clone(), d.compared, d.baseline.as_str()))
            .collect();
        let label = |a: &str, b: &str| vec![a.to_string(), b.to_string()];
        assert_eq!(
            pairs,
            [
                (label("a", "key"), "strategy", "none"),
                (label("b", "none"), "scenario", "a"),
                (label("b", "key"), "scenario", "a"),
                (label("b", "key"), "strategy", "none"),
            ]
        );
        // a key − a none latency: 10 and 8, mean 9, sd √2, t(0.975, 1) · 1 = 12.706205.
        let latency = summary
            .differences
            .iter()
            .find(|d| d.metric.column.name == "latency_ms")
            .unwrap();
        assert_eq!(latency.estimate.mean, 9.0);
        assert!((latency.estimate.half_width().unwrap() - 12.706_205).abs() < 1e-6);
        // The share's difference is per run: 0 − 0.10 and 0 − 0.14.
        let charged = &summary.differences[0];
        assert!((charged.estimate.mean - -0.12).abs() < 1e-15);
    }

    #[test]
    fn the_csv_files_have_one_header_and_a_row_per_estimate() {
        let mut builder = builder();
        builder.run(vec![cell("a", "none", 1, 5.0), cell("a", "key", 0, 6.0)]);
        let summary = builder.finish();
        let text = String::from_utf8(summary_csv(&summary)).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "scenario,strategy,metric,unit,kind,runs,mean,sd,se,ci_low,ci_high,interval"
        );
        assert_eq!(lines.len(), 1 + 4);
        // One run of a mean: no spread, no interval.
        assert_eq!(lines[2], "a,none,latency_ms,ms,mean,1,5,,,,,");
        // One in 100: the Wilson interval 0.0018 to 0.0545 (Newcombe 1998, table I).
        let fields: Vec<&str> = lines[1].split(',').collect();
        assert_eq!(
            fields[..8],
            [
                "a",
                "none",
                "double_charged",
                "payments",
                "proportion",
                "1",
                "0.01",
                ""
            ]
        );
        let low: f64 = fields[9].parse().unwrap();
        let high: f64 = fields[10].parse().unwrap();
        assert!(
            (low - 0.0018).abs() < 5e-5 && (high - 0.0545).abs() < 5e-5,
            "{low} {high}"
        );
        assert_eq!(fields[11], "wilson");
        let text = String::from_utf8(differences_csv(&summary)).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "scenario,strategy,compared,baseline,metric,unit,kind,runs,mean,sd,se,ci_low,\
             ci_high,interval"
        );
        assert_eq!(
            lines[2],
            "a,key,strategy,none,latency_ms,ms,difference,1,1,,,,,"
        );
    }

    #[test]
    fn estimates_read_as_mean_plus_minus_half_width() {
        let metric = Metric {
            column: &LATENCY,
            kind: Kind::Mean,
        };
        let mut runs = Replications::default();
        runs.push(1.0);
        assert_eq!(plus_minus(metric, &runs.estimate(Kind::Mean), 1), "1.0");
        runs.push(3.0);
        assert_eq!(
            plus_minus(metric, &runs.estimate(Kind::Mean), 1),
            "2.0 ± 12.7"
        );
    }

    #[test]
    fn absent_observations_are_left_out_of_the_estimate_and_the_pairs() {
        let metric = Metric {
            column: &LATENCY,
            kind: Kind::Mean,
        };
        let mut builder = SummaryBuilder::new(vec![STRATEGY], &["strategy"], vec![metric]);
        let cell = |strategy: &str, observation| (vec![strategy.to_string()], vec![observation]);
        builder.run(vec![
            cell("none", Observation::Value(10.0)),
            cell("key", Observation::Value(4.0)),
        ]);
        builder.run(vec![
            cell("none", Observation::Absent),
            cell("key", Observation::Value(6.0)),
        ]);
        builder.run(vec![
            cell("none", Observation::Value(14.0)),
            cell("key", Observation::Value(5.0)),
        ]);
        let summary = builder.finish();
        // none: 10 and 14 (mean 12, two runs); key: 4, 6, 5 (mean 5, three runs).
        assert_eq!(
            (summary.rows[0].estimate.runs, summary.rows[0].estimate.mean),
            (2, 12.0)
        );
        assert_eq!(
            (summary.rows[1].estimate.runs, summary.rows[1].estimate.mean),
            (3, 5.0)
        );
        // key − none over runs 0 and 2 only: −6 and −9.
        let difference = &summary.differences[0].estimate;
        assert_eq!((difference.runs, difference.mean), (2, -7.5));
        // A cell with no value at all has an empty mean in the CSV.
        let mut never = SummaryBuilder::new(vec![STRATEGY], &[], vec![metric]);
        never.run(vec![cell("none", Observation::Absent)]);
        let text = String::from_utf8(summary_csv(&never.finish())).unwrap();
        assert_eq!(text.lines().nth(1), Some("none,latency_ms,ms,mean,0,,,,,,"));
    }
}

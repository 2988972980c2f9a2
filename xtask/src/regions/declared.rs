//! The tables written from the code's own declarations: a model's config keys (its
//! `Schema`) and its output columns and summary metrics (the `counters!` and `metrics!`
//! declarations), so that the docs list exactly what the code reads and writes.

use engine::counters::Column;
use simulate::config::key::Schema;

use super::{required, table};
use crate::data::Ctx;

/// `keys MODEL`: every key a model's files may hold.
pub fn keys(ctx: &Ctx, argument: Option<&str>) -> Result<String, String> {
    let model = required(argument, "a model: article, timeline or contention")?;
    let (schema, source): (&Schema, &str) = match model {
        "article" => (
            &simulate::config::article::SCHEMA,
            "src/config/article/mod.rs",
        ),
        "timeline" => (
            &simulate::config::timeline::keys::SCHEMA,
            "src/config/timeline/keys.rs",
        ),
        "contention" => (
            &simulate::config::contention::SCHEMA,
            "src/config/contention/mod.rs",
        ),
        other => return Err(format!("no model {other}")),
    };
    ctx.declared(source);
    Ok(schema.markdown())
}

/// `columns WHAT`: the columns of an output file, or a model's summary metrics.
pub fn columns(ctx: &Ctx, argument: Option<&str>) -> Result<String, String> {
    use simulate::model::{article, contention, load, timeline};
    let what = required(
        argument,
        "timeline, timeline-metrics, timeline-summary, load, load-buckets, load-steady, \
         load-key-store, load-bodies, load-receipts, load-provider, load-metrics, article-metrics, \
         contention-metrics, summary, parameters or compare",
    )?;
    // summary.csv's columns: the cells', then the estimate's.
    let timeline_summary: Vec<Column> = simulate::report::timeline::summary::CELL_COLUMNS
        .iter()
        .chain(&simulate::report::summary::ESTIMATE_COLUMNS)
        .copied()
        .collect();
    // compare.csv's columns after the cells': the folder's, then the estimate's.
    let compare: Vec<Column> = simulate::compare::table::COLUMNS
        .iter()
        .chain(&simulate::report::summary::ESTIMATE_COLUMNS)
        .copied()
        .collect();
    let (columns, source): (&[Column], &str) = match what {
        "timeline-metrics" => (
            simulate::report::timeline::summary::TimelineMetric::COLUMNS,
            "src/report/timeline/summary.rs",
        ),
        "timeline-summary" => {
            ctx.declared("src/report/summary.rs");
            (&timeline_summary, "src/report/timeline/summary.rs")
        }
        "timeline" => (
            timeline::Counters::COLUMNS,
            "src/model/timeline/counters.rs",
        ),
        "load" => (load::tally::LoadCounts::COLUMNS, "src/model/load/tally.rs"),
        "load-buckets" => (load::tally::Bucket::COLUMNS, "src/model/load/tally.rs"),
        "load-steady" => (load::steady::Steady::COLUMNS, "src/model/load/steady.rs"),
        "load-key-store" => (
            load::tally::KeyStoreCounts::COLUMNS,
            "src/model/load/tally.rs",
        ),
        "load-bodies" => (load::tally::BodyCounts::COLUMNS, "src/model/load/tally.rs"),
        "load-receipts" => (
            load::tally::ReceiptCounts::COLUMNS,
            "src/model/load/tally.rs",
        ),
        "load-provider" => (
            load::tally::ProviderCounts::COLUMNS,
            "src/model/load/tally.rs",
        ),
        "load-metrics" => (
            simulate::report::load::summary::LoadMetric::COLUMNS,
            "src/report/load/summary.rs",
        ),
        "article-metrics" => (
            article::summary::Metric::COLUMNS,
            "src/model/article/summary.rs",
        ),
        "contention-metrics" => (
            contention::summary::Metric::COLUMNS,
            "src/model/contention/summary.rs",
        ),
        "summary" => (
            &simulate::report::summary::ESTIMATE_COLUMNS,
            "src/report/summary.rs",
        ),
        "parameters" => (
            &simulate::report::parameters::COLUMNS,
            "src/report/parameters.rs",
        ),
        "compare" => {
            ctx.declared("src/report/summary.rs");
            (&compare, "src/compare/table.rs")
        }
        other => return Err(format!("no columns {other}")),
    };
    ctx.declared(source);
    let rows: Vec<Vec<String>> = columns
        .iter()
        .map(|column| {
            vec![
                format!("`{}`", column.name),
                column.unit.to_string(),
                column.description(),
            ]
        })
        .collect();
    Ok(table(
        &["column", "unit", "meaning"],
        &[false, false, false],
        &rows,
    ))
}

//! The charts of a run whose scenarios use the backend (issue #12), run 0: the key-store
//! designs side by side (`timeline_key_stores.svg`: payments charged twice and keys stuck in
//! flight) when a scenario crashes, fails key writes or moves the key, and the duplicate side
//! effects per design (`timeline_side_effects.svg`: the API's ledger, the provider, the
//! receipts) when a scenario has a provider or receipts. Neither is written otherwise.

use plotters::prelude::*;

use super::charts::{
    CHECKED, CONFLICTED, FAILED, Layout, REJECTED, count_chart, legend_box, parameters,
};
use crate::model::timeline::{Counters, KeyStore, TimelineModel, TimelineResults};
use crate::report::OutputFile;
use crate::report::chart_style::{CHARGED_TWICE, bar, bold_label, draw_legend, svg, value_label};
use crate::report::format::grouped;

/// Whether some scenario crashes, fails key writes or keeps its key outside the charge's
/// transaction.
pub fn compares_key_stores(model: &TimelineModel) -> bool {
    model.scenarios.iter().any(|scenario| {
        let backend = &scenario.backend;
        backend.key.crash_rate > 0.0
            || backend.key.key_write_failure > 0.0
            || backend.key.key_store != KeyStore::SameTransaction
    })
}

/// Whether some scenario has a provider or receipts.
pub fn has_side_effects(model: &TimelineModel) -> bool {
    model
        .scenarios
        .iter()
        .any(|scenario| scenario.backend.provider.is_some() || scenario.backend.receipts.is_some())
}

/// The backend charts this run writes (none without the backend).
pub fn all(results: &TimelineResults) -> Vec<OutputFile> {
    let mut files = Vec::new();
    if compares_key_stores(&results.model) {
        files.push(OutputFile::new(
            "timeline_key_stores.svg",
            key_stores(results),
        ));
    }
    if has_side_effects(&results.model) {
        files.push(OutputFile::new(
            "timeline_side_effects.svg",
            side_effects(results),
        ));
    }
    files
}

/// One series of side-by-side bars.
#[derive(Clone, Copy)]
struct Series {
    /// The bars' colour.
    colour: RGBColor,
    /// The series' legend.
    legend: &'static str,
    /// The count a bar stands for, from a row's counters.
    count: fn(&Counters) -> u64,
    /// The label above a bar; `None`: the count, grouped by thousands.
    label: Option<fn(&Counters) -> String>,
}

impl Series {
    /// Bars of `count` in `colour`, named `legend`, each labelled with its count.
    fn new(colour: RGBColor, legend: &'static str, count: fn(&Counters) -> u64) -> Self {
        Self {
            colour,
            legend,
            count,
            label: None,
        }
    }

    /// The same bars labelled by `label` instead.
    fn labelled(self, label: fn(&Counters) -> String) -> Self {
        Self {
            label: Some(label),
            ..self
        }
    }

    /// The label above the bar of `counts`.
    fn label_of(&self, counts: &Counters) -> String {
        self.label
            .map_or_else(|| grouped((self.count)(counts)), |label| label(counts))
    }
}

/// Purple, as the 409s: keys stuck in flight answer 409 until they are released.
const STUCK: RGBColor = CONFLICTED;

/// The stuck payments and their keys' mean time in flight: `348 · 2.7 s`.
fn stuck_label(counts: &Counters) -> String {
    match counts.stuck_payments {
        0 => "0".to_string(),
        stuck => format!(
            "{} · {:.1} s",
            grouped(stuck),
            counts.stuck_in_flight_ms as f64 / stuck as f64 / 1000.0
        ),
    }
}

/// (1) Per design (scenario) and strategy: the payments charged twice and the payments whose
/// key a crash left in flight.
pub fn key_stores(results: &TimelineResults) -> String {
    let series = [
        Series::new(CHARGED_TWICE, "payments charged twice or more", |counts| {
            counts.double_charged_payments
        }),
        Series::new(
            STUCK,
            "payments whose key a crash left in flight (key_first)",
            |counts| counts.stuck_payments,
        )
        .labelled(stuck_label),
    ];
    side_by_side(
        results,
        "Key store designs: payments charged twice and keys stuck in flight",
        "payments (count)",
        &series,
    )
}

/// (2) Per design and strategy: the duplicates each layer produced: extra charges in the API's
/// ledger, extra charges at the provider (money that moved twice), receipts sent twice, and
/// charged payments without a receipt; the provider's and receipts' only when some scenario
/// has them.
pub fn side_effects(results: &TimelineResults) -> String {
    let model = &results.model;
    let provider = model.scenarios.iter().any(|s| s.backend.provider.is_some());
    let receipts = model.scenarios.iter().any(|s| s.backend.receipts.is_some());
    let mut series = vec![Series::new(
        CHARGED_TWICE,
        "extra charges in the API's ledger",
        |counts| counts.extra_charges,
    )];
    if provider {
        series.push(Series::new(
            CHECKED,
            "extra charges at the provider (money moved)",
            |counts| counts.duplicate_provider_charges,
        ));
    }
    if receipts {
        series.extend([
            Series::new(REJECTED, "receipts sent twice", |counts| {
                counts.receipts_duplicated
            }),
            Series::new(FAILED, "charged payments without a receipt", |counts| {
                counts.receipts_missing
            }),
        ]);
    }
    side_by_side(
        results,
        "Duplicate side effects per design: ledger, provider, receipts",
        "count",
        &series,
    )
}

/// Bars of `series` side by side at each strategy's place, grouped by scenario, each with its
/// count above it, the scenarios' names above their groups and the legend at the top right.
fn side_by_side(results: &TimelineResults, title: &str, y_desc: &str, series: &[Series]) -> String {
    let layout = Layout::new(results).with_small_ticks();
    let highest = series
        .iter()
        .map(|series| layout.highest(|row| (series.count)(&row.tally.counts) as f64))
        .fold(1.0, f64::max);
    // Room above the bars for their labels, the scenario names and the legend.
    let top = highest * (1.35 + 0.1 * series.len() as f64);
    let width = 0.8 / series.len() as f64;
    svg(title, &parameters(results), |area| {
        let mut chart = count_chart(area, &layout, top, y_desc)?;
        let size = layout.tick_font() - 1;
        for (index, series) in series.iter().enumerate() {
            let (colour, count) = (series.colour, series.count);
            let left = |x: f64| x - 0.4 + width * index as f64;
            chart
                .draw_series(layout.rows.iter().map(|row| {
                    let x = left(layout.centre(row));
                    bar(x, x + width, 0.0, count(&row.tally.counts) as f64, colour)
                }))
                .map_err(|e| e.to_string())?
                .label(series.legend)
                .legend(legend_box(colour));
            chart
                .draw_series(layout.rows.iter().map(|row| {
                    let x = left(layout.centre(row)) + width / 2.0;
                    let value = count(&row.tally.counts) as f64;
                    value_label(
                        series.label_of(&row.tally.counts),
                        (x, value + top * 0.005),
                        size,
                    )
                }))
                .map_err(|e| e.to_string())?;
        }
        if layout.scenarios_drawn() > 1 {
            chart
                .draw_series(layout.scenario_centres().map(|(index, x)| {
                    design_title(
                        results.model.scenarios[index].name.clone(),
                        (x, highest * 1.12),
                    )
                }))
                .map_err(|e| e.to_string())?;
        }
        draw_legend(&mut chart, SeriesLabelPosition::UpperRight, 13)
    })
}

/// A design's (scenario's) name above its group of bars, small enough for four groups.
fn design_title(text: String, at: (f64, f64)) -> Text<'static, (f64, f64), String> {
    bold_label(text, at, 14, BLACK)
}

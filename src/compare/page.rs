//! The comparison's `report.html` (self-contained like a run's: inline CSS and SVG, no script)
//! and the text table printed on stdout: the headline metrics side by side with their 95%
//! intervals and each later folder's difference from the first, the side-by-side charts,
//! every metric, the parameters that differ and how the differences are computed.

use std::fmt::Write as _;
use std::path::{Component, Path};

use engine::metric::Kind;
use engine::replications::Estimate;

use super::chart;
use super::folder::{Folder, Row};
use super::table::{Comparison, Line};
use crate::report::format::layout;
use crate::report::html::markdown::figure;
use crate::report::html::summary::{cell, decimals};
use crate::report::html::{Section, document, escape, file_list};
use crate::report::parameters::Parameter;
use crate::report::summary::plus_minus_of;
use crate::report::{OutputFile, Report};

/// The page's file name.
pub const NAME: &str = "report.html";

/// The metrics a model's answer is read from first (its sweep charts' headline), by name.
pub fn headline(model: &str) -> &'static [&'static str] {
    match model {
        "article" => <crate::model::article::ArticleResults as Report>::HEADLINE,
        "timeline" => <crate::report::timeline::TimelineReport as Report>::HEADLINE,
        "load" => <crate::model::load::LoadResults as Report>::HEADLINE,
        "contention" => <crate::model::contention::ContentionResults as Report>::HEADLINE,
        _ => &[],
    }
}

/// The headline metrics the folders hold, in the model's order (the first metric of the
/// first cell when they hold none of them).
pub fn headline_metrics<'a>(comparison: &Comparison<'a>) -> Vec<&'a str> {
    let present = |metric: &str| {
        comparison
            .cells
            .iter()
            .any(|cell| cell.lines.iter().any(|line| line.metric == metric))
    };
    let mut metrics: Vec<&'a str> = headline(&comparison.folders[0].model)
        .iter()
        .copied()
        .filter(|metric| present(metric))
        .collect();
    if metrics.is_empty()
        && let Some(line) = comparison.cells.first().and_then(|cell| cell.lines.first())
    {
        metrics.push(line.metric);
    }
    metrics
}

/// A row's kind as the summary's.
fn kind(row: &Row) -> Kind {
    if row.is_share() {
        Kind::Proportion
    } else {
        Kind::Mean
    }
}

/// A metric's unit in a header: `% of payments` for a share (percentage points for a
/// difference), its unit for a mean.
fn unit(row: &Row, difference: bool) -> String {
    match (row.is_share(), difference, row.unit.as_str()) {
        (true, true, _) => "percentage points".into(),
        (true, false, "") => "%".into(),
        (true, false, of) => format!("% of {of}"),
        (false, _, unit) => unit.to_string(),
    }
}

/// The headers of a side-by-side table: the cell columns, each folder, each difference.
fn headers(comparison: &Comparison) -> Vec<String> {
    let first = &comparison.names[0];
    comparison
        .columns
        .iter()
        .chain(&comparison.names)
        .cloned()
        .chain(
            comparison.names[1..]
                .iter()
                .map(|name| format!("{name} − {first}")),
        )
        .collect()
}

/// One line's estimates and differences, each as `mean ± half-width`.
fn texts(line: &Line) -> Vec<String> {
    let shown = |kind: Kind, estimate: Option<Estimate>| match estimate {
        Some(estimate) => plus_minus_of(kind, &estimate, decimals(kind, &estimate)),
        None => "-".into(),
    };
    let kind = kind(line.any());
    line.rows
        .iter()
        .map(|row| shown(kind, row.and_then(Row::estimate)))
        .chain(line.differences.iter().map(|d| shown(kind, *d)))
        .collect()
}

/// The text printed on stdout: per headline metric, a table of the cells side by side.
pub fn text_table(comparison: &Comparison) -> String {
    let mut text = String::new();
    let headers = headers(comparison);
    let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
    for metric in headline_metrics(comparison) {
        let mut rows = Vec::new();
        let mut shown_unit = String::new();
        for cell in &comparison.cells {
            let Some(line) = cell.lines.iter().find(|line| line.metric == metric) else {
                continue;
            };
            shown_unit = unit(line.any(), false);
            let mut row = cell.labels.clone();
            row.extend(texts(line));
            rows.push(row);
        }
        if !text.is_empty() {
            text.push('\n');
        }
        match shown_unit.as_str() {
            "" => {
                let _ = writeln!(text, "{metric}, 95% intervals:");
            }
            unit => {
                let _ = writeln!(text, "{metric} ({unit}), 95% intervals:");
            }
        }
        text.push_str(&layout(&headers, &rows));
    }
    text
}

/// A table's head: the cell columns (and `metric` without `unit_row`), each folder, each
/// difference; with `unit_row`, the metric's unit under each.
fn head(comparison: &Comparison, unit_row: Option<&Row>) -> String {
    let mut html = String::from("<thead><tr>");
    for column in &comparison.columns {
        let _ = write!(html, "<th>{}</th>", escape(column));
    }
    if unit_row.is_none() {
        html.push_str("<th>metric</th>");
    }
    // Each folder's header with its swatch, then each difference's; a unit below each.
    let first = &comparison.names[0];
    let folders = comparison.names.iter().enumerate().map(|(index, name)| {
        let swatch = format!("<span style=\"{}\"></span>", swatch(index));
        (swatch + &escape(name), false)
    });
    let differences = comparison.names[1..]
        .iter()
        .map(|name| (format!("{} − {}", escape(name), escape(first)), true));
    for (text, difference) in folders.chain(differences) {
        let _ = write!(html, "<th class=\"num\">{text}");
        if let Some(row) = unit_row {
            let _ = write!(
                html,
                "<br><small>{}</small>",
                escape(&unit(row, difference))
            );
        }
        html.push_str("</th>");
    }
    html.push_str("</tr></thead>\n");
    html
}

/// The inline style of a folder's colour swatch (the page's CSS is every page's, so the
/// swatch carries its own).
fn swatch(index: usize) -> String {
    let colour = chart::colour(index);
    format!(
        "display:inline-block;width:.8em;height:.8em;margin-right:.35em;background:#{:02x}{:02x}{:02x}",
        colour.0, colour.1, colour.2
    )
}

/// One line's cells: each folder's estimate, then each difference (`-` where there is none).
fn line_cells(line: &Line) -> String {
    let kind = kind(line.any());
    let mut html = String::new();
    let estimates = line
        .rows
        .iter()
        .map(|row| (row.and_then(Row::estimate), false));
    let differences = line
        .differences
        .iter()
        .map(|difference| (*difference, true));
    for (estimate, difference) in estimates.chain(differences) {
        let Some(estimate) = estimate else {
            html.push_str("<td class=\"num\">-</td>");
            continue;
        };
        let shown = cell(kind, &estimate);
        let excludes_zero = estimate
            .interval
            .is_some_and(|interval| interval.low > 0.0 || interval.high < 0.0);
        if difference && excludes_zero {
            // A difference the runs show at 95%: in bold.
            html.push_str(&shown.replacen(
                "<td class=\"num\">",
                "<td class=\"num\" style=\"font-weight:bold\" title=\"the 95% interval excludes 0\">",
                1,
            ));
        } else {
            html.push_str(&shown);
        }
    }
    html
}

/// The answer: per headline metric, the cells side by side and the chart.
fn answer(comparison: &Comparison, charts: &[(String, OutputFile)]) -> Section {
    let mut html = String::from(
        "<p>Each folder's estimate as its <code>summary.csv</code> states it: the mean ± the \
         half-width of its 95% interval, the interval below; then each later folder minus the \
         first, with the 95% interval of the difference (see <a href=\"#method\">how</a>), in \
         bold where that interval excludes 0.</p>\n",
    );
    for metric in headline_metrics(comparison) {
        let lines: Vec<(&Vec<String>, &Line)> = comparison
            .cells
            .iter()
            .filter_map(|cell| {
                let line = cell.lines.iter().find(|line| line.metric == metric)?;
                Some((&cell.labels, line))
            })
            .collect();
        let Some((_, first)) = lines.first() else {
            continue;
        };
        let _ = writeln!(html, "<h3><code>{}</code></h3>", escape(metric));
        html.push_str("<div class=\"wide\"><table class=\"compare\">\n");
        html.push_str(&head(comparison, Some(first.any())));
        html.push_str("<tbody>\n");
        for (labels, line) in &lines {
            html.push_str("<tr>");
            for label in *labels {
                let _ = write!(html, "<td>{}</td>", escape(label));
            }
            html.push_str(&line_cells(line));
            html.push_str("</tr>\n");
        }
        html.push_str("</tbody></table></div>\n");
        if let Some((title, file)) = charts.iter().find(|(name, _)| name == metric) {
            html.push_str(&figure(file, &format!("{title}: {}", file.name)));
        }
    }
    Section {
        id: "answer",
        heading: "The answer, side by side".into(),
        html,
    }
}

/// Every metric of every cell, folded away.
fn every_metric(comparison: &Comparison) -> Section {
    let count: usize = comparison.cells.iter().map(|cell| cell.lines.len()).sum();
    let mut html = format!(
        "<details>\n<summary>All {count} estimates (every cell and metric)</summary>\n\
         <div class=\"wide\"><table class=\"compare\">\n"
    );
    html.push_str(&head(comparison, None));
    html.push_str("<tbody>\n");
    for cell in &comparison.cells {
        for line in &cell.lines {
            html.push_str("<tr>");
            for label in &cell.labels {
                let _ = write!(html, "<td>{}</td>", escape(label));
            }
            let row = line.any();
            let _ = write!(
                html,
                "<td><code>{}</code><br><small>{}</small></td>",
                escape(line.metric),
                escape(&unit(row, false))
            );
            html.push_str(&line_cells(line));
            html.push_str("</tr>\n");
        }
    }
    html.push_str("</tbody></table></div>\n</details>\n");
    Section {
        id: "metrics",
        heading: "Every metric".into(),
        html,
    }
}

/// A parameter's value with its unit, `-` when unset.
fn value_text(parameter: &Parameter) -> String {
    match (parameter.value.as_str(), parameter.unit.as_str()) {
        ("", _) => "-".into(),
        (value, "") => value.into(),
        (value, unit) => format!("{value} {unit}"),
    }
}

/// A folder's value of `key`: one value when every scenario has it, else one per scenario.
fn folder_value(parameters: &[Parameter], key: &str) -> Option<String> {
    let of_key: Vec<&Parameter> = parameters.iter().filter(|p| p.key == key).collect();
    let first = of_key.first()?;
    if of_key.iter().all(|p| p.value == first.value) {
        return Some(value_text(first));
    }
    Some(
        of_key
            .iter()
            .map(|p| format!("{}: {}", p.scenario, value_text(p)))
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

/// The parameters whose values differ between the folders.
fn parameters(comparison: &Comparison) -> Section {
    let folders = comparison.folders;
    let mut html = String::new();
    let missing: Vec<String> = folders
        .iter()
        .filter(|folder| folder.parameters.is_none())
        .map(Folder::label)
        .collect();
    if !missing.is_empty() {
        let _ = writeln!(
            html,
            "<p>No <code>parameters.csv</code> in {} (written by an older simulate): run it \
             again to compare its parameters.</p>",
            escape(&missing.join(", "))
        );
    }
    let mut keys: Vec<&str> = Vec::new();
    for parameters in folders
        .iter()
        .filter_map(|folder| folder.parameters.as_ref())
    {
        for parameter in parameters {
            if !keys.contains(&parameter.key.as_str()) {
                keys.push(&parameter.key);
            }
        }
    }
    let values = |key: &str| -> Vec<Option<String>> {
        folders
            .iter()
            .map(|folder| folder_value(folder.parameters.as_deref()?, key))
            .collect()
    };
    let differing: Vec<(&str, Vec<Option<String>>)> = keys
        .iter()
        .map(|key| (*key, values(key)))
        .filter(|(_, values)| values.iter().any(|value| value != &values[0]))
        .collect();
    let _ = writeln!(
        html,
        "<p>{} of the {} keys the folders' <code>parameters.csv</code> record differ (a value \
         per scenario where a folder's scenarios differ); the others are the same in every \
         folder.</p>",
        differing.len(),
        keys.len()
    );
    if !differing.is_empty() {
        html.push_str("<div class=\"wide\"><table class=\"settings\">\n<thead><tr><th>key</th>");
        for name in &comparison.names {
            let _ = write!(html, "<th>{}</th>", escape(name));
        }
        html.push_str("</tr></thead>\n<tbody>\n");
        for (key, values) in differing {
            let _ = write!(html, "<tr><td class=\"key\">{}</td>", escape(key));
            for value in values {
                let text = value.unwrap_or_else(|| "(not a key of this folder)".into());
                let _ = write!(
                    html,
                    "<td class=\"value differs\">{}</td>",
                    escape(&text).replace('\n', "<br>")
                );
            }
            html.push_str("</tr>\n");
        }
        html.push_str("</tbody></table></div>\n");
    }
    Section {
        id: "parameters",
        heading: "Parameters that differ".into(),
        html,
    }
}

/// How the cells are matched and the differences computed.
fn method(comparison: &Comparison) -> Section {
    let mut html = String::from(
        "<p>A cell of one folder is matched with the cell of another that has the same labels \
         in every cell column",
    );
    if comparison.scenario_ignored {
        html.push_str(
            " but <code>scenario</code>: every folder holds one scenario, named after its \
             config file, so the folders are matched strategy by strategy",
        );
    }
    html.push_str(
        ". Each later folder's estimate is compared with the first's as two <b>independent \
         samples</b> (the folders' runs are not paired, even where they share a seed):</p>\n\
         <ul>\n<li>a mean over two runs or more in both (a Student-t interval): <b>Welch's t \
         interval</b>, <code>d ± t(0.975, ν) · √(s₁²/n₁ + s₂²/n₂)</code> with the \
         Welch–Satterthwaite degrees of freedom <code>ν</code> (<code>interval</code> \
         <code>welch</code> in <code>compare.csv</code>);</li>\n<li>a share (a Wilson interval) \
         or the article model's score interval in both: <b>Newcombe's hybrid score \
         interval</b> of the difference (Newcombe 1998, method 10), \
         <code>d − √((p₁ − l₁)² + (u₂ − p₂)²)</code> to \
         <code>d + √((u₁ − p₁)² + (p₂ − l₂)²)</code> from the two intervals \
         (<code>newcombe</code>);</li>\n<li>anything else (a mean over one run, which has no \
         interval): the difference alone.</li>\n</ul>\n<p>A difference whose interval excludes \
         0 is a difference the runs show at 95%; one whose interval holds 0 is not shown to \
         be one, and more runs (<code>--runs</code>) narrow it.</p>\n",
    );
    Section {
        id: "method",
        heading: "How the differences are computed".into(),
        html,
    }
}

/// The way from `from` to `to` when both are relative paths without `..`.
fn relative(from: &Path, to: &Path) -> Option<String> {
    let parts = |path: &Path| -> Option<Vec<String>> {
        path.components()
            .filter(|component| *component != Component::CurDir)
            .map(|component| match component {
                Component::Normal(part) => Some(part.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect()
    };
    let (from, to) = (parts(from)?, parts(to)?);
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut way = "../".repeat(from.len() - common);
    for part in &to[common..] {
        way.push_str(part);
        way.push('/');
    }
    Some(way)
}

/// The question and the folders.
fn question(comparison: &Comparison, title: &str, out: &Path) -> Section {
    let mut html = format!(
        "<div class=\"question\">\n<p>{}</p>\n</div>\n<p>The {} model's outputs in {} \
         folders, the first the baseline:</p>\n<ul>\n",
        escape(title),
        escape(&comparison.folders[0].model),
        comparison.folders.len()
    );
    for (index, folder) in comparison.folders.iter().enumerate() {
        let name = match relative(out, &folder.path) {
            Some(way) => format!(
                "<a href=\"{}report.html\"><code>{}</code></a>",
                escape(&way),
                escape(&folder.label())
            ),
            None => format!("<code>{}</code>", escape(&folder.label())),
        };
        let _ = write!(html, "<li><span style=\"{}\"></span>{name}", swatch(index));
        if let Some(title) = &folder.title {
            let _ = write!(html, ": {}", escape(title));
        }
        html.push_str("</li>\n");
    }
    html.push_str("</ul>\n");
    Section {
        id: "question",
        heading: "The question".into(),
        html,
    }
}

/// The command that writes the comparison again.
fn reproduce(command: &str) -> Section {
    Section {
        id: "reproduce",
        heading: "Reproduce".into(),
        html: format!(
            "<p>From the folder the comparison was made in:</p>\n<pre><code>{}</code></pre>\n\
             <p>simulate {}. The page is a function of the folders' files alone: the same \
             folders give the same bytes.</p>\n",
            escape(command),
            escape(env!("CARGO_PKG_VERSION"))
        ),
    }
}

/// Every file the comparison writes: `compare.csv`, a chart per headline metric, then the
/// page.
pub fn files(comparison: &Comparison, title: &str, out: &Path, command: &str) -> Vec<OutputFile> {
    let subtitle = format!("{} · 95% intervals", comparison.names.join(" vs "));
    let charts: Vec<(String, OutputFile)> = headline_metrics(comparison)
        .into_iter()
        .filter_map(|metric| {
            let svg = chart::chart(comparison, metric, &subtitle)?;
            Some((
                metric.to_string(),
                OutputFile::new(chart::file_name(metric), svg),
            ))
        })
        .collect();
    let mut files = vec![OutputFile::new(
        super::table::CSV_NAME,
        super::table::csv(comparison),
    )];
    files.extend(charts.iter().map(|(_, file)| file.clone()));
    let sections = [
        question(comparison, title, out),
        answer(comparison, &charts),
        every_metric(comparison),
        parameters(comparison),
        method(comparison),
        reproduce(command),
        file_list(&files),
    ];
    let meta = format!(
        "simulate {} · a comparison of {} folders of the {} model",
        escape(env!("CARGO_PKG_VERSION")),
        comparison.folders.len(),
        escape(&comparison.folders[0].model)
    );
    files.push(OutputFile::new(NAME, document(title, &meta, &sections)));
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_way_between_two_relative_folders() {
        let way = |a: &str, b: &str| relative(Path::new(a), Path::new(b));
        assert_eq!(way("output/c", "output/a").as_deref(), Some("../a/"));
        assert_eq!(way("./c", "x/y").as_deref(), Some("../x/y/"));
        assert_eq!(way("/tmp/c", "output/a"), None);
        assert_eq!(way("c", "../a"), None);
    }
}

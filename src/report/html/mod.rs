//! `report.html`: one self-contained page per run for a design review, in every output
//! folder. It holds the question (the config file's leading comment, or the model's own), the
//! answer (the estimates with their 95% intervals and the paired differences, where the model
//! has a [`Summary`](crate::report::summary::Summary)), the run's `report.md` with every chart
//! inline as SVG, the resolved parameters (what `simulate check` shows), what the model
//! assumes, and the command, version and seed that reproduce it.
//!
//! The page needs nothing but itself: the CSS is inline, there is no script, no font and no
//! image to fetch, so it opens from `file://` and reads the same offline. It is a function of
//! its inputs alone (no clock, no path but those typed), so identical runs write identical
//! bytes. Every text is escaped by `pulldown-cmark`'s escaper; Markdown is rendered by
//! `pulldown-cmark`.

mod inputs;
pub(crate) mod markdown;
mod models;
pub(crate) mod summary;

use std::fmt::Write as _;

use crate::config::settings::{ScenarioSettings, Setting};
use crate::report::{OutputFile, Report};

pub use inputs::{Inputs, command_line, leading_comment};
pub use models::{About, about};

/// The page's file name.
pub const NAME: &str = "report.html";

/// The page's CSS, inline in its `<style>`.
const STYLE: &str = include_str!("style.css");

/// The keys the page leaves out: they change where the files go or how fast they are
/// computed, never what they hold, so the page is the same whatever they are.
pub(crate) const NOT_INPUTS: [&str; 3] = ["out", "threads", "engine"];

/// `text` with `&`, `<`, `>`, `"` and `'` escaped, for HTML text and attribute values.
pub fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    pulldown_cmark_escape::escape_html(&mut escaped, text)
        .expect("writing into a String cannot fail");
    escaped
}

/// One section of the page: its anchor, its heading and its HTML.
pub(crate) struct Section {
    /// Its `id` (the table of contents links to it).
    pub(crate) id: &'static str,
    /// Its heading.
    pub(crate) heading: String,
    /// Its contents.
    pub(crate) html: String,
}

/// The whole page: the head with the CSS, the title and the line under it, a table of
/// contents, the sections and the footer.
pub(crate) fn document(title: &str, meta: &str, sections: &[Section]) -> String {
    let mut html =
        String::from("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    html.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    // No request may leave the page: not even a favicon.
    html.push_str("<link rel=\"icon\" href=\"data:,\">\n");
    let _ = writeln!(html, "<title>{}</title>", escape(title));
    let _ = write!(
        html,
        "<style>\n{STYLE}</style>\n</head>\n<body>\n<main>\n<header>\n"
    );
    let _ = writeln!(
        html,
        "<h1>{}</h1>\n<p class=\"meta\">{meta}</p>",
        escape(title)
    );
    // The contents list and the sections, in one pass over the sections.
    let (mut contents, mut body) = (String::new(), String::new());
    for section in sections {
        let (id, heading) = (&section.id, escape(&section.heading));
        let _ = writeln!(contents, "<li><a href=\"#{id}\">{heading}</a></li>");
        let _ = write!(
            body,
            "<section id=\"{id}\">\n<h2>{heading}</h2>\n{}</section>\n",
            section.html
        );
    }
    html.push_str("<nav aria-label=\"Contents\"><ul>\n");
    html.push_str(&contents);
    html.push_str("</ul></nav>\n</header>\n");
    html.push_str(&body);
    let _ = write!(
        html,
        "<footer>Written by simulate {}. This page is self-contained: its style is inline and \
         it loads no script, font or image.</footer>\n</main>\n</body>\n</html>\n",
        env!("CARGO_PKG_VERSION")
    );
    html
}

/// A config file's comment as HTML: each paragraph's plain lines as Markdown, its indented
/// lines (a list laid out by hand) as they are.
fn comment_html(comment: &str) -> String {
    let mut html = String::new();
    for paragraph in comment.split("\n\n") {
        let lines: Vec<&str> = paragraph.lines().collect();
        for block in lines.chunk_by(|a, b| a.starts_with(' ') == b.starts_with(' ')) {
            let text = block.join("\n");
            if block[0].starts_with(' ') {
                let _ = writeln!(html, "<pre>{}</pre>", escape(&text));
            } else {
                html.push_str(&markdown::inline(&text));
            }
        }
    }
    html
}

/// The question: the config file's leading comment (paragraphs as Markdown, indented lines
/// as they are), or the model's own question.
fn question(inputs: &Inputs, about: &About) -> Section {
    let mut html = String::from("<div class=\"question\">\n");
    match &inputs.comment {
        None => {
            let _ = writeln!(html, "<p>{}</p>", escape(about.question));
        }
        Some(comment) => html.push_str(&comment_html(comment)),
    }
    html.push_str("</div>\n");
    let heading = match &inputs.comment {
        Some(_) => "The question (from the config file)",
        None => "The question",
    };
    Section {
        id: "question",
        heading: heading.into(),
        html,
    }
}

/// A setting's cell: its value and, under it, where the value came from (escaped HTML).
fn setting_cell(setting: &Setting) -> String {
    format!(
        "{}<br><small>{}</small>",
        escape(&value_text(setting)),
        escape(&setting.source)
    )
}

/// A setting's value as `simulate check` prints it: with its unit, `-` when unset.
fn value_text(setting: &Setting) -> String {
    match (setting.value.as_str(), setting.unit) {
        ("", _) => "-".to_string(),
        (value, "") => value.to_string(),
        (value, _) if value.ends_with(')') => value.to_string(),
        (value, unit) => format!("{value} {unit}"),
    }
}

/// Whether a setting was given rather than left to its default.
fn given(setting: &Setting) -> bool {
    !matches!(setting.source.as_str(), "default" | "not set")
}

/// The resolved parameters: a row per key, a column per scenario, each value with where it
/// came from; the keys set by the file or a flag first, the others folded away below.
fn parameters(scenarios: &[ScenarioSettings], swept: &[String]) -> Section {
    let mut html = String::from(
        "<p>Every key of the model as the run read it (what <code>simulate check</code> \
         prints): its value, and where it came from: a line of the config file, a flag, or the \
         key's default.</p>\n",
    );
    if scenarios.len() > 1 {
        html.push_str(
            "<p>A value the same in every scenario spans their columns; one that differs is \
             shaded.</p>\n",
        );
    }
    let Some(first) = scenarios.first() else {
        return Section {
            id: "parameters",
            heading: "Parameters".into(),
            html,
        };
    };
    let keys: Vec<usize> = (0..first.settings.len())
        .filter(|&index| !NOT_INPUTS.contains(&first.settings[index].key))
        .collect();
    let is_given = |index: usize| {
        swept.iter().any(|key| key == first.settings[index].key)
            || scenarios
                .iter()
                .any(|scenario| given(&scenario.settings[index]))
    };
    let (set, defaults): (Vec<usize>, Vec<usize>) = keys.into_iter().partition(|&i| is_given(i));
    let table = |html: &mut String, rows: &[usize]| {
        html.push_str("<div class=\"wide\"><table class=\"settings\">\n<thead><tr><th>key</th>");
        for scenario in scenarios {
            let name = match (scenarios.len(), scenario.name.as_str()) {
                (1, _) | (_, "") => "value".to_string(),
                (_, name) => format!("scenario {name}"),
            };
            let _ = write!(html, "<th>{}</th>", escape(&name));
        }
        html.push_str("</tr></thead>\n<tbody>\n");
        for &index in rows {
            let key = first.settings[index].key;
            let _ = write!(html, "<tr><td class=\"key\">{}</td>", escape(key));
            let span = scenarios.len();
            if swept.iter().any(|swept| swept == key) {
                let _ = write!(
                    html,
                    "<td class=\"value\" colspan=\"{span}\"><b>swept</b><br><small>see the \
                     points</small></td>"
                );
            } else if scenarios
                .iter()
                .all(|scenario| scenario.settings[index] == first.settings[index])
            {
                // The same in every scenario: one cell across them.
                let setting = &first.settings[index];
                let _ = write!(
                    html,
                    "<td class=\"value\" colspan=\"{span}\">{}</td>",
                    setting_cell(setting)
                );
            } else {
                for scenario in scenarios {
                    let setting = &scenario.settings[index];
                    let _ = write!(
                        html,
                        "<td class=\"value differs\">{}</td>",
                        setting_cell(setting)
                    );
                }
            }
            html.push_str("</tr>\n");
        }
        html.push_str("</tbody></table></div>\n");
    };
    table(&mut html, &set);
    if !defaults.is_empty() {
        let _ = writeln!(
            html,
            "<details>\n<summary>The other {} keys, at their defaults</summary>",
            defaults.len()
        );
        table(&mut html, &defaults);
        html.push_str("</details>\n");
    }
    Section {
        id: "parameters",
        heading: "Parameters".into(),
        html,
    }
}

/// What the model assumes and leaves out, and its docs page.
fn assumptions(model: &str, about: &About, up: Option<&str>) -> Section {
    let mut html = String::new();
    for paragraph in about.assumptions {
        html.push_str(&markdown::inline(paragraph));
    }
    let page = match up {
        Some(up) => format!(
            "<a href=\"{}\"><code>{}</code></a>",
            escape(&format!("{up}{}", about.docs)),
            escape(about.docs)
        ),
        None => format!("<code>{}</code>", escape(about.docs)),
    };
    let _ = writeln!(
        html,
        "<p>The {} model's semantics, keys and outputs in full: {page} in the simulate \
         repository.</p>",
        escape(model)
    );
    Section {
        id: "model",
        heading: "What the model assumes".into(),
        html,
    }
}

/// The seed setting of the run (the first scenario's), as `42 (line 2)`.
fn seed_text(scenarios: &[ScenarioSettings]) -> Option<String> {
    let setting = scenarios
        .first()?
        .settings
        .iter()
        .find(|setting| setting.key == "seed")?;
    Some(format!("{} ({})", value_text(setting), setting.source))
}

/// The command, version and seed that reproduce the run.
fn reproduce(inputs: &Inputs) -> Section {
    let mut html = format!(
        "<p>From the folder the run was started in:</p>\n<pre><code>{}</code></pre>\n",
        escape(&inputs.command)
    );
    let _ = write!(html, "<p>simulate {}", escape(env!("CARGO_PKG_VERSION")));
    if let Some(seed) = seed_text(&inputs.scenarios) {
        let _ = write!(html, ", seed {}", escape(&seed));
    }
    html.push_str(
        ". The same version with the same inputs writes byte-identical files, this page \
         included, whatever <code>--threads</code> and <code>--engine</code> (they change only \
         how fast); <code>--out DIR</code> writes them elsewhere.</p>\n",
    );
    Section {
        id: "reproduce",
        heading: "Reproduce".into(),
        html,
    }
}

/// Every file of the folder, linked.
pub(crate) fn file_list(files: &[OutputFile]) -> Section {
    let mut html = String::from("<p>This page's folder holds:</p>\n<ul>\n");
    for name in files.iter().map(|file| file.name.as_ref()).chain([NAME]) {
        let _ = writeln!(
            html,
            "<li><a href=\"{0}\"><code>{0}</code></a></li>",
            escape(name)
        );
    }
    html.push_str("</ul>\n");
    Section {
        id: "files",
        heading: "Files".into(),
        html,
    }
}

/// The charts of `files` the report did not show, as figures.
fn other_charts(files: &[OutputFile], shown: &[String]) -> Option<Section> {
    let html: String = files
        .iter()
        .filter(|file| file.name.ends_with(".svg") && !shown.iter().any(|name| *name == file.name))
        .map(|file| markdown::figure(file, &file.name))
        .collect();
    (!html.is_empty()).then(|| Section {
        id: "charts",
        heading: "Other charts".into(),
        html,
    })
}

/// The figures with captions of their own (the traces of a double charge), each with its
/// caption, in a section; `None` when there are none.
fn traces(files: &[OutputFile], captioned: &[crate::report::Captioned]) -> Option<Section> {
    let html: String = captioned
        .iter()
        .filter_map(|figure| {
            let file = files.iter().find(|file| file.name == figure.file)?;
            Some(markdown::figure(file, &figure.caption))
        })
        .collect();
    (!html.is_empty()).then(|| Section {
        id: "traces",
        heading: "Traces of single payments".into(),
        html: format!(
            "<p>Each figure follows one payment of run 0, from the first of its kind: the              client, the network, the server's worker, the key store and the provider, with              the times of every step.</p>\n{html}"
        ),
    })
}

/// The line under the title: version, model, file and seed.
fn meta(model: &str, inputs: &Inputs) -> String {
    let mut parts = vec![
        format!("simulate {}", escape(env!("CARGO_PKG_VERSION"))),
        format!("the {} model", escape(model)),
    ];
    match &inputs.file {
        Some(file) => parts.push(format!("<code>{}</code>", escape(file))),
        None => parts.push("the defaults (no config file)".into()),
    }
    if let Some(seed) = inputs
        .scenarios
        .first()
        .and_then(|scenario| scenario.settings.iter().find(|s| s.key == "seed"))
    {
        parts.push(format!("seed {}", escape(&value_text(seed))));
    }
    parts.join(" · ")
}

/// The run's `report.md` among `files`, rendered (empty when there is none).
fn rendered_report(files: &[OutputFile]) -> markdown::Rendered {
    let text = files
        .iter()
        .find(|file| file.name == "report.md")
        .map(|file| String::from_utf8_lossy(&file.bytes).into_owned())
        .unwrap_or_default();
    markdown::render(&text, files)
}

/// A page of `model`: the question, the sections `middle` makes of the rendered report's
/// section, the charts the report did not show, the parameters (`swept` keys marked), what
/// the model assumes, the command and the files; titled by the report's title, or `A {what}
/// of the {model} model`.
fn assemble(
    model: &str,
    inputs: &Inputs,
    files: &[OutputFile],
    (what, swept): (&str, &[String]),
    captioned: &[crate::report::Captioned],
    middle: impl FnOnce(Section) -> Vec<Section>,
) -> OutputFile {
    let about = about(model);
    let markdown::Rendered {
        title,
        body,
        charts,
    } = rendered_report(files);
    let title = title.unwrap_or_else(|| format!("A {what} of the {model} model"));
    let mut sections = vec![question(inputs, about)];
    sections.extend(middle(Section {
        id: "report",
        heading: "The report".into(),
        html: body,
    }));
    sections.extend(traces(files, captioned));
    let mut shown = charts;
    shown.extend(captioned.iter().map(|figure| figure.file.clone()));
    sections.extend(other_charts(files, &shown));
    sections.push(parameters(&inputs.scenarios, swept));
    sections.push(assumptions(model, about, inputs.up.as_deref()));
    sections.push(reproduce(inputs));
    sections.push(file_list(files));
    OutputFile::new(NAME, document(&title, &meta(model, inputs), &sections))
}

/// `report.html` of a run of `model` (a [`crate::models::Model::NAME`]) whose results are
/// `report` and whose other files are `files`.
pub fn page(
    model: &str,
    inputs: &Inputs,
    report: &impl Report,
    files: &[OutputFile],
) -> OutputFile {
    assemble(
        model,
        inputs,
        files,
        ("run", &[]),
        &report.captioned(),
        |rendered| {
            let mut sections = Vec::new();
            if let Some(summary) = report.summary().filter(|summary| !summary.rows.is_empty()) {
                sections.push(Section {
                    id: "answer",
                    heading: "The answer, with 95% intervals".into(),
                    html: summary::tables(&summary),
                });
            }
            sections.push(rendered);
            sections
        },
    )
}

/// `report.html` of a sweep of `model` over `keys`, at `points` (each point's values in the
/// keys' order), whose other files are `files`.
pub fn sweep_page(
    model: &str,
    inputs: &Inputs,
    keys: &[String],
    points: &[Vec<String>],
    files: &[OutputFile],
) -> OutputFile {
    let mut list = format!(
        "<p>The file ran at {} points, each with the parameters below but the swept keys; \
         every point uses the same seed, so the points share their random numbers.</p>\n\
         <div class=\"wide\"><table class=\"points\">\n<thead><tr><th>point</th>",
        points.len()
    );
    for key in keys {
        let _ = write!(list, "<th>{}</th>", escape(key));
    }
    list.push_str("</tr></thead>\n<tbody>\n");
    for (index, point) in points.iter().enumerate() {
        let _ = write!(list, "<tr><td class=\"num\">{index}</td>");
        for value in point {
            let _ = write!(list, "<td>{}</td>", escape(value));
        }
        list.push_str("</tr>\n");
    }
    list.push_str("</tbody></table></div>\n");
    let points = Section {
        id: "points",
        heading: "The points".into(),
        html: list,
    };
    assemble(model, inputs, files, ("sweep", keys), &[], |rendered| {
        vec![points, rendered]
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Overrides;
    use crate::config::assignment::Assignment;
    use std::path::{Path, PathBuf};

    /// A report with no summary, whose files are given.
    struct Files;

    impl Report for Files {
        const JSON_SHAPE: fn() -> crate::report::json::Shape = crate::report::article::json::shape;

        fn files(&self) -> Vec<OutputFile> {
            Vec::new()
        }
        fn table(&self) -> String {
            String::new()
        }
        fn json(&self, _: &[std::path::PathBuf]) -> Vec<u8> {
            Vec::new()
        }
    }

    fn setting(key: &'static str, value: &str, source: &str) -> Setting {
        Setting {
            key,
            value: value.into(),
            unit: "",
            source: source.into(),
        }
    }

    fn inputs() -> Inputs {
        let overrides = Overrides {
            config: Some(PathBuf::from("configs/a b.toml")),
            seed: Some(7),
            threads: Some(3),
            quiet: true,
            set: vec![Assignment::parse("client.timeout_ms=2s").unwrap()],
            ..Overrides::default()
        };
        let scenarios = ["slow", "fast"]
            .iter()
            .map(|name| ScenarioSettings {
                name: (*name).into(),
                settings: vec![
                    setting("seed", "7", "--seed"),
                    setting("threads", "3", "--threads"),
                    setting(
                        "client.max_retries",
                        if *name == "slow" { "3" } else { "5" },
                        "line 4",
                    ),
                    setting("server.workers", "", "not set"),
                ],
            })
            .collect();
        Inputs::new(
            "# Which <design> wins?\n# `simulate` it.\n#\n#   a  list\nmodel = \"timeline\"\n# not this\n",
            &overrides,
            scenarios,
            Path::new("output/a"),
        )
    }

    fn files() -> Vec<OutputFile> {
        vec![
            OutputFile::new("timeline.csv", "a\n1\n"),
            OutputFile::new(
                "shown.svg",
                "<?xml version=\"1.0\"?>\n<svg viewBox=\"0 0 4 2\"><rect/></svg>\n",
            ),
            OutputFile::new("extra.svg", "<svg viewBox=\"0 0 4 2\"><circle/></svg>"),
            OutputFile::report_md("# The title\n\nText.\n\n![Shown chart](shown.svg)\n"),
        ]
    }

    #[test]
    fn the_page_holds_question_report_charts_parameters_and_command() {
        let inputs = inputs();
        let page = page("timeline", &inputs, &Files, &files());
        assert_eq!(page.name, "report.html");
        let html = String::from_utf8(page.bytes.clone()).unwrap();
        assert!(html.starts_with("<!DOCTYPE html>\n"));
        assert!(html.contains("<title>The title</title>"));
        // The question: the comment, escaped, its code span as code, its indented line kept.
        assert!(html.contains("Which &lt;design&gt; wins?"), "{html}");
        assert!(html.contains("<code>simulate</code> it."));
        assert!(html.contains("<pre>  a  list</pre>"));
        assert!(!html.contains("not this"));
        // Both charts inline, each once, the report's where it shows it, the other after.
        assert_eq!(html.matches("<svg").count(), 2);
        assert!(html.contains("<figcaption>Shown chart</figcaption>"));
        assert!(html.contains("<figcaption>extra.svg</figcaption>"));
        assert!(!html.contains("<?xml"));
        assert!(html.find("Shown chart").unwrap() < html.find("id=\"charts\"").unwrap());
        // Nothing to fetch: no script, no image, no stylesheet, no address but the page's own
        // files and the docs.
        for needle in [
            "<script",
            "<img",
            "<link rel=\"stylesheet\"",
            "http:",
            "https:",
            "url(",
        ] {
            assert!(!html.contains(needle), "{needle}");
        }
        // The parameters: a row per key but threads, a value the scenarios share spans them,
        // one that differs is per scenario, the unset key under the defaults.
        assert!(html.contains("<th>scenario slow</th><th>scenario fast</th>"));
        assert!(html.contains("colspan=\"2\">7<br><small>--seed</small>"));
        assert!(
            html.contains("differs\">3<br><small>line 4</small></td><td class=\"value differs\">5")
        );
        assert!(!html.contains(">threads<"));
        assert!(html.contains("The other 1 keys, at their defaults"));
        // The command, version, seed and the docs.
        assert!(html.contains(
            "<pre><code>simulate --config &#39;configs/a b.toml&#39; --seed 7 --set \
             &#39;client.timeout_ms=2s&#39;</code></pre>"
        ));
        assert!(html.contains(concat!(
            "simulate ",
            env!("CARGO_PKG_VERSION"),
            ", seed 7 (--seed)"
        )));
        assert!(html.contains("<a href=\"../../docs/models/timeline.md\">"));
        // Identical inputs, identical bytes.
        assert_eq!(page, super::page("timeline", &inputs, &Files, &files()));
    }

    #[test]
    fn a_sweep_page_lists_its_points_and_marks_the_swept_keys() {
        let keys = vec!["client.max_retries".to_string()];
        let points = vec![vec!["1".to_string()], vec!["<2>".to_string()]];
        let page = sweep_page("timeline", &inputs(), &keys, &points, &files());
        let html = String::from_utf8(page.bytes).unwrap();
        assert!(html.contains("<th>point</th><th>client.max_retries</th>"));
        assert!(html.contains("<td class=\"num\">1</td><td>&lt;2&gt;</td>"));
        assert!(html.contains("colspan=\"2\"><b>swept</b>"));
        assert_eq!(html.matches("<svg").count(), 2);
    }

    #[test]
    fn every_model_has_its_words() {
        for model in ["article", "timeline", "load", "contention"] {
            let about = about(model);
            assert!(about.docs.ends_with(&format!("{model}.md")));
            assert!(!about.question.is_empty() && !about.assumptions.is_empty());
        }
    }
}

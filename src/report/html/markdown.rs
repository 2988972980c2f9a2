//! Markdown to HTML for the page, by `pulldown-cmark` (which escapes every text and
//! attribute): a run's `report.md` with each chart it shows (`![title](chart.svg)`) put inline
//! as its SVG, each table in a box that scrolls sideways when it is wider than the page, and
//! its first `#` heading taken out as the page's title.

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};

use super::escape;
use crate::report::OutputFile;

/// A Markdown text as HTML.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    /// The text of its first level-1 heading, left out of `body`.
    pub title: Option<String>,
    /// The HTML of the rest.
    pub body: String,
    /// The charts it shows inline, by file name, in order.
    pub charts: Vec<String>,
}

/// A chart's SVG as a figure: the SVG inline (its XML prologue, if any, dropped), named for
/// screen readers by `title`, and `title` as its caption.
pub fn figure(chart: &OutputFile, title: &str) -> String {
    let text = String::from_utf8_lossy(&chart.bytes);
    let svg = text.find("<svg").map_or("", |start| &text[start..]);
    let label = escape(title);
    let svg = svg.replacen(
        "<svg",
        &format!("<svg role=\"img\" aria-label=\"{label}\""),
        1,
    );
    format!(
        "<figure>\n{}\n<figcaption>{label}</figcaption>\n</figure>\n",
        svg.trim_end()
    )
}

/// Raw HTML in the Markdown as the text it is: a config file's comment or a scenario's name
/// never becomes markup.
fn as_text(event: Event<'_>) -> Event<'_> {
    match event {
        Event::Html(text) | Event::InlineHtml(text) => Event::Text(text),
        event => event,
    }
}

/// A Markdown text without tables, as HTML: a config file's comment.
pub fn inline(text: &str) -> String {
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, Parser::new(text).map(as_text));
    html
}

/// `markdown` as HTML, the images that name one of `files`' SVG charts drawn inline.
pub fn render(markdown: &str, files: &[OutputFile]) -> Rendered {
    let events: Vec<Event<'_>> = Parser::new_ext(markdown, Options::ENABLE_TABLES)
        .map(as_text)
        .collect();
    let chart = |name: &str| {
        files
            .iter()
            .find(|file| file.name.ends_with(".svg") && file.name == name)
    };
    let mut out: Vec<Event<'_>> = Vec::with_capacity(events.len());
    let mut title = None;
    let mut charts = Vec::new();
    let mut index = 0;
    while index < events.len() {
        match &events[index] {
            Event::Start(Tag::Heading {
                level: HeadingLevel::H1,
                ..
            }) if title.is_none() => {
                let end = closing(&events, index);
                title = Some(plain_text(&events[index + 1..end]));
                index = end + 1;
            }
            Event::Start(Tag::Image { dest_url, .. }) if chart(dest_url).is_some() => {
                let end = closing(&events, index);
                let caption = plain_text(&events[index + 1..end]);
                let file = chart(dest_url).expect("matched above");
                charts.push(file.name.to_string());
                // An image alone in its paragraph becomes a figure in its place.
                let alone = matches!(out.last(), Some(Event::Start(Tag::Paragraph)))
                    && matches!(events.get(end + 1), Some(Event::End(TagEnd::Paragraph)));
                if alone {
                    out.pop();
                    out.push(Event::Html(figure(file, &caption).into()));
                    index = end + 2;
                } else {
                    let text = String::from_utf8_lossy(&file.bytes);
                    let svg = text.find("<svg").map_or("", |start| &text[start..]);
                    out.push(Event::InlineHtml(svg.trim_end().to_string().into()));
                    index = end + 1;
                }
            }
            // An image that is no chart of the run would be a file to fetch: its words stay.
            Event::Start(Tag::Image { .. }) => {
                let end = closing(&events, index);
                out.push(Event::Start(Tag::Emphasis));
                out.extend(events[index + 1..end].iter().cloned());
                out.push(Event::End(TagEnd::Emphasis));
                index = end + 1;
            }
            // The page's sections are level 2: the report's own headings sit one below.
            Event::Start(Tag::Heading {
                level,
                id,
                classes,
                attrs,
            }) => {
                out.push(Event::Start(Tag::Heading {
                    level: below(*level),
                    id: id.clone(),
                    classes: classes.clone(),
                    attrs: attrs.clone(),
                }));
                index += 1;
            }
            Event::End(TagEnd::Heading(level)) => {
                out.push(Event::End(TagEnd::Heading(below(*level))));
                index += 1;
            }
            Event::Start(Tag::Table(_)) => {
                out.push(Event::Html("<div class=\"wide\">".into()));
                out.push(events[index].clone());
                index += 1;
            }
            Event::End(TagEnd::Table) => {
                out.push(events[index].clone());
                out.push(Event::Html("</div>\n".into()));
                index += 1;
            }
            event => {
                out.push(event.clone());
                index += 1;
            }
        }
    }
    let mut body = String::new();
    pulldown_cmark::html::push_html(&mut body, out.into_iter());
    Rendered {
        title,
        body,
        charts,
    }
}

/// The heading level one below `level` (a level 6 stays 6).
fn below(level: HeadingLevel) -> HeadingLevel {
    match level {
        HeadingLevel::H1 => HeadingLevel::H2,
        HeadingLevel::H2 => HeadingLevel::H3,
        HeadingLevel::H3 => HeadingLevel::H4,
        HeadingLevel::H4 => HeadingLevel::H5,
        HeadingLevel::H5 | HeadingLevel::H6 => HeadingLevel::H6,
    }
}

/// The index of the event that closes the one that starts at `start`.
fn closing(events: &[Event<'_>], start: usize) -> usize {
    let mut depth = 0usize;
    for (index, event) in events.iter().enumerate().skip(start) {
        match event {
            Event::Start(_) => depth += 1,
            Event::End(_) => {
                depth -= 1;
                if depth == 0 {
                    return index;
                }
            }
            _ => {}
        }
    }
    events.len() - 1
}

/// The text of `events`, without markup (a heading's or an image's words).
fn plain_text(events: &[Event<'_>]) -> String {
    let mut text = String::new();
    for event in events {
        match event {
            Event::Text(words) | Event::Code(words) => text.push_str(words),
            Event::SoftBreak | Event::HardBreak => text.push(' '),
            _ => {}
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    const SVG: &str = "<svg width=\"10\" height=\"5\" viewBox=\"0 0 10 5\"><rect/></svg>\n";

    #[test]
    fn the_title_is_taken_out_headings_go_one_down_and_a_chart_alone_is_a_figure() {
        let files = [OutputFile::new("a.svg", SVG)];
        let markdown = "# Runs <of> *p*\n\n## Part\n\nBefore.\n\n![Charges & more](a.svg)\n\nAfter \
                        ![missing](b.svg).\n";
        let rendered = render(markdown, &files);
        assert_eq!(rendered.title.as_deref(), Some("Runs <of> p"));
        assert_eq!(rendered.charts, ["a.svg"]);
        assert_eq!(
            rendered.body,
            "<h3>Part</h3>\n<p>Before.</p>\n<figure>\n<svg role=\"img\" aria-label=\"Charges &amp; more\" \
             width=\"10\" height=\"5\" viewBox=\"0 0 10 5\"><rect/></svg>\n<figcaption>Charges \
             &amp; more</figcaption>\n</figure>\n<p>After <em>missing</em>.</p>\n"
        );
    }

    #[test]
    fn a_table_scrolls_in_its_own_box_and_raw_html_is_text() {
        let rendered = render(
            "| a | b |\n|---|---|\n| <x> | & |\n\n<script>x</script>\n",
            &[],
        );
        assert_eq!(rendered.title, None);
        assert!(
            rendered.body.starts_with("<div class=\"wide\"><table>"),
            "{}",
            rendered.body
        );
        assert!(rendered.body.contains("<td>&lt;x&gt;</td><td>&amp;</td>"));
        assert!(rendered.body.contains("</table>\n</div>"));
        // Raw HTML is text.
        assert!(!rendered.body.contains("<script>"));
        assert!(rendered.body.contains("&lt;script&gt;x&lt;/script&gt;"));
    }
}

//! A sequence diagram as SVG, written directly: lanes across the top (who takes part), time
//! down the side, and the messages between lanes as arrows, what happens on one lane as a
//! mark or a span. The trace of a double charge is drawn with it.
//!
//! plotters draws charts over numeric axes; a sequence diagram needs arrows with heads, labels
//! along them, crosses where a message is lost and a time axis whose rows follow the events
//! rather than a linear scale, so it is written here as plain SVG elements (a few hundred
//! lines, every text escaped), which the tests read back with an XML parser.
//!
//! **Time.** Each distinct time of the diagram is a row, labelled with its time in ms. Rows are
//! in time order and further apart the longer the wait between them (growing with its
//! logarithm, so a 2 s backoff does not push the rest off the page): the spacing shows order
//! and rough length, the labels the exact times.

use std::fmt::Write as _;

use crate::report::OutputFile;
use crate::report::chart_style::{FONT, hue};
use crate::report::format::grouped_hundredths;
use crate::report::html::escape;

/// How an item is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// Plain: a message or an event that went as planned.
    Normal,
    /// Lost on the way, or a failure: drawn dashed, in orange, ending in a cross.
    Lost,
    /// What the diagram is about (the second charge, the stuck key): red and bold.
    Highlight,
    /// Waiting (a backoff, a timeout): grey.
    Muted,
}

impl Style {
    /// Its colour, as CSS.
    fn colour(self) -> String {
        let rgb = match self {
            Style::Normal => plotters::style::RGBColor(0x22, 0x22, 0x22),
            Style::Lost => hue::ORANGE,
            Style::Highlight => hue::RED,
            Style::Muted => hue::DARK_GREY,
        };
        format!("#{:02x}{:02x}{:02x}", rgb.0, rgb.1, rgb.2)
    }
}

/// A side of a lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// Left of the lane, the label ending there.
    Left,
    /// Right of the lane.
    Right,
}

/// One thing the diagram draws.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// A message from lane `from` at `from_ms` to lane `to` at `to_ms`, labelled along its
    /// middle. A [`Style::Lost`] message ends in a cross at `to`.
    Arrow {
        /// The sending lane.
        from: usize,
        /// When it is sent (ms).
        from_ms: f64,
        /// The receiving lane (where a lost message's cross is).
        to: usize,
        /// When it arrives, or is lost (ms).
        to_ms: f64,
        /// What it is.
        label: String,
        /// How it is drawn.
        style: Style,
    },
    /// Something that happens on lane `lane` at `at_ms`: a dot (a cross if lost or
    /// highlighted), labelled beside it on the side `side`.
    Mark {
        /// The lane.
        lane: usize,
        /// Which side of the lane its label is on.
        side: Side,
        /// When (ms).
        at_ms: f64,
        /// What.
        label: String,
        /// How it is drawn.
        style: Style,
    },
    /// Something that lasts on lane `lane` from `from_ms` to `to_ms` (a processing, a
    /// backoff, a key in flight): a bar along the lane, labelled on the side `side`: on the
    /// left beside its start (beside its middle on the first lane, whose marks are labelled at
    /// their rows), on the right beside its middle.
    Span {
        /// The lane.
        lane: usize,
        /// Which side of the lane its label is on.
        side: Side,
        /// When it starts (ms).
        from_ms: f64,
        /// When it ends (ms).
        to_ms: f64,
        /// What.
        label: String,
        /// How it is drawn.
        style: Style,
    },
}

impl Item {
    /// The times it is drawn at.
    fn times(&self) -> [f64; 2] {
        match *self {
            Item::Arrow { from_ms, to_ms, .. } => [from_ms, to_ms],
            Item::Mark { at_ms, .. } => [at_ms, at_ms],
            Item::Span { from_ms, to_ms, .. } => [from_ms, to_ms],
        }
    }
}

/// A whole diagram.
#[derive(Debug, Clone, PartialEq)]
pub struct Diagram {
    /// The title, top left.
    pub title: String,
    /// The line under it.
    pub subtitle: String,
    /// The lanes' names, left to right.
    pub lanes: Vec<String>,
    /// What it draws, in drawing order.
    pub items: Vec<Item>,
    /// Lines of explanation under the diagram.
    pub notes: Vec<String>,
}

/// One trace as the folder and the page show it.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceFigure {
    /// The SVG's file name.
    pub file: String,
    /// What it shows, in one sentence.
    pub caption: String,
    /// The SVG.
    pub svg: String,
}

impl TraceFigure {
    /// Its file.
    pub fn output_file(&self) -> OutputFile {
        OutputFile::new(self.file.clone(), self.svg.clone())
    }
}

/// The lanes of a payment's trace, left to right: the client, the network, the server's
/// worker, the key store and the provider (whom a charge reaches). The load and the timeline
/// traces draw on the same lanes.
pub const PAYMENT_LANES: [&str; 5] = [
    "client",
    "network",
    "server worker",
    "key store",
    "provider",
];
/// The client's lane in [`PAYMENT_LANES`].
pub const CLIENT: usize = 0;
/// The network's lane in [`PAYMENT_LANES`].
pub const NETWORK: usize = 1;
/// The server worker's lane in [`PAYMENT_LANES`].
pub const SERVER: usize = 2;
/// The key store's lane in [`PAYMENT_LANES`].
pub const KEY_STORE: usize = 3;
/// The provider's lane in [`PAYMENT_LANES`].
pub const PROVIDER: usize = 4;

/// The longest line of the notes under a payment's trace (characters).
const NOTE_WIDTH: usize = 140;

/// The notes under a payment's trace: its caption, a blank line, then each of `notes`, every
/// one wrapped at 140 characters.
pub fn trace_notes(caption: &str, notes: &[&str]) -> Vec<String> {
    let mut lines = wrap(caption, NOTE_WIDTH);
    lines.push(String::new());
    for note in notes {
        lines.extend(wrap(note, NOTE_WIDTH));
    }
    lines
}

/// The items drawn for one event of a payment's trace: the event's time `at_ms` and the
/// diagram's last time `last_ms` (ms, both on the diagram's clock), beyond which no bar runs.
#[derive(Debug, Clone, Copy)]
pub struct TraceRow {
    /// When the event happened (ms).
    pub at_ms: f64,
    /// The diagram's last time (ms).
    pub last_ms: f64,
}

impl TraceRow {
    /// A message from lane `from` at the event's time to lane `to` at `to_ms` (ms).
    pub fn arrow(self, from: usize, to: usize, to_ms: f64, label: String, style: Style) -> Item {
        Item::Arrow {
            from,
            from_ms: self.at_ms,
            to,
            to_ms,
            label,
            style,
        }
    }

    /// A message that takes no time: from lane `from` to lane `to` at the event's time.
    pub fn level(self, from: usize, to: usize, label: String, style: Style) -> Item {
        self.arrow(from, to, self.at_ms, label, style)
    }

    /// A mark on `lane` at the event's time. Marks on the client and the server's worker are
    /// labelled on their left (the level messages leave them to the right), the others on
    /// their right.
    pub fn mark(self, lane: usize, label: String, style: Style) -> Item {
        Item::Mark {
            lane,
            side: if lane <= SERVER {
                Side::Left
            } else {
                Side::Right
            },
            at_ms: self.at_ms,
            label,
            style,
        }
    }

    /// A bar on `lane`, labelled on `side`, from the event's time to `to_ms` (ms), cut at the
    /// diagram's last time.
    pub fn span(self, lane: usize, side: Side, to_ms: f64, label: String, style: Style) -> Item {
        Item::Span {
            lane,
            side,
            from_ms: self.at_ms,
            to_ms: to_ms.min(self.last_ms.max(self.at_ms)),
            label,
            style,
        }
    }
}

/// Splits `text` into lines of at most `width` characters, at spaces.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        if !line.is_empty() && line.len() + 1 + word.len() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// The width of the drawing (px).
const WIDTH: f64 = 1000.0;
/// The x of the first lane and the distance between lanes (px).
const FIRST_LANE_X: f64 = 300.0;
const LANE_GAP: f64 = 150.0;
/// The right edge of the time labels (px).
const AXIS_X: f64 = 104.0;
/// The space between two messages of one lane drawn at one time, stacked (px).
const SLOT: f64 = 17.0;
/// The y of the first row (px).
const TOP: f64 = 120.0;
/// The least and most space between two rows (px).
const ROW_MIN: f64 = 24.0;
const ROW_MAX: f64 = 84.0;
/// The height of a line of notes (px).
const NOTE_LINE: f64 = 17.0;

/// The x of lane `lane`.
fn lane_x(lane: usize) -> f64 {
    FIRST_LANE_X + LANE_GAP * lane as f64
}

/// The space between two rows `gap_ms` apart: [`ROW_MIN`] plus a share growing with the
/// logarithm of the gap, at most [`ROW_MAX`].
fn row_gap(gap_ms: f64) -> f64 {
    (ROW_MIN + 8.0 * (1.0 + gap_ms.max(0.0)).ln()).min(ROW_MAX)
}

/// A time as the axis and the captions print it: `1,130 ms`, `812.43 ms`.
pub fn ms(value: f64) -> String {
    format!("{} ms", grouped_hundredths(value))
}

/// Whether an item is a message that takes no time (from one lane to another at one time):
/// several of them at one time are stacked in slots under each other.
fn is_level(item: &Item) -> bool {
    matches!(item, Item::Arrow { from_ms, to_ms, .. } if from_ms == to_ms)
}

/// The slot of each item within its row: the level messages at one time count 0, 1, 2, ...
/// in drawing order; every other item is in slot 0.
fn slots(items: &[Item]) -> Vec<usize> {
    let mut taken: Vec<(f64, usize)> = Vec::new();
    items
        .iter()
        .map(|item| {
            if !is_level(item) {
                return 0;
            }
            let time = item.times()[0];
            match taken.iter_mut().find(|(t, _)| *t == time) {
                Some((_, count)) => {
                    *count += 1;
                    *count - 1
                }
                None => {
                    taken.push((time, 1));
                    0
                }
            }
        })
        .collect()
}

/// The rows: every distinct time of `items`, in order, with its y; a row holding several
/// level messages is taller by a [`SLOT`] for each after the first.
fn rows(items: &[Item]) -> Vec<(f64, f64)> {
    let mut times: Vec<f64> = items.iter().flat_map(Item::times).collect();
    times.sort_by(f64::total_cmp);
    times.dedup();
    let slots = slots(items);
    let extra = |time: f64| {
        items
            .iter()
            .zip(&slots)
            .filter(|(item, _)| item.times()[0] == time)
            .map(|(_, &slot)| slot)
            .max()
            .unwrap_or(0) as f64
            * SLOT
    };
    let mut rows = Vec::with_capacity(times.len());
    let mut y = TOP;
    for (index, &time) in times.iter().enumerate() {
        if index > 0 {
            let previous = times[index - 1];
            y += row_gap(time - previous) + extra(previous);
        }
        rows.push((time, y));
    }
    rows
}

/// The y of time `time` among `rows` (every drawn time is a row).
fn y_of(rows: &[(f64, f64)], time: f64) -> f64 {
    let index = rows.partition_point(|&(t, _)| t < time);
    rows.get(index).map_or(TOP, |&(_, y)| y)
}

/// An arrow's head at (x, y), pointing from (from_x, from_y).
fn head(svg: &mut String, (from_x, from_y): (f64, f64), (x, y): (f64, f64), style: Style) {
    let length = ((x - from_x).powi(2) + (y - from_y).powi(2))
        .sqrt()
        .max(1e-9);
    let (ux, uy) = ((x - from_x) / length, (y - from_y) / length);
    let size = if style == Style::Highlight { 12.0 } else { 9.0 };
    let (bx, by) = (x - ux * size, y - uy * size);
    let (px, py) = (-uy * size * 0.45, ux * size * 0.45);
    let _ = writeln!(
        svg,
        "<path d=\"M{x:.1},{y:.1}L{:.1},{:.1}L{:.1},{:.1}z\" fill=\"{}\"/>",
        bx + px,
        by + py,
        bx - px,
        by - py,
        style.colour()
    );
}

/// A text element.
fn text(svg: &mut String, x: f64, y: f64, anchor: &str, style: Style, bold: bool, label: &str) {
    let weight = if bold || style == Style::Highlight {
        " font-weight=\"bold\""
    } else {
        ""
    };
    let _ = writeln!(
        svg,
        "<text x=\"{x:.1}\" y=\"{y:.1}\" text-anchor=\"{anchor}\" fill=\"{}\"{weight}>{}</text>",
        style.colour(),
        escape(label)
    );
}

/// A cross centred at (x, y).
fn cross(svg: &mut String, x: f64, y: f64, style: Style) {
    let _ = writeln!(
        svg,
        "<path d=\"M{:.1},{:.1}L{:.1},{:.1}M{:.1},{:.1}L{:.1},{:.1}\" stroke=\"{}\" \
         stroke-width=\"2.5\"/>",
        x - 6.0,
        y - 6.0,
        x + 6.0,
        y + 6.0,
        x - 6.0,
        y + 6.0,
        x + 6.0,
        y - 6.0,
        style.colour()
    );
}

impl Item {
    /// Draws it into `svg`, `slot` level messages below its row's first.
    fn draw(&self, svg: &mut String, rows: &[(f64, f64)], slot: usize) {
        let nudge = slot as f64 * SLOT;
        match self {
            Item::Arrow {
                from,
                from_ms,
                to,
                to_ms,
                label,
                style,
            } => {
                let (x0, y0) = (lane_x(*from), y_of(rows, *from_ms) + nudge);
                let (x1, y1) = (lane_x(*to), y_of(rows, *to_ms) + nudge);
                let dash = if *style == Style::Lost {
                    " stroke-dasharray=\"6 4\""
                } else {
                    ""
                };
                let width = if *style == Style::Highlight { 2.5 } else { 1.5 };
                let _ = writeln!(
                    svg,
                    "<line x1=\"{x0:.1}\" y1=\"{y0:.1}\" x2=\"{x1:.1}\" y2=\"{y1:.1}\" \
                     stroke=\"{}\" stroke-width=\"{width}\"{dash}/>",
                    style.colour()
                );
                if *style == Style::Lost {
                    cross(svg, x1, y1, *style);
                } else {
                    head(svg, (x0, y0), (x1, y1), *style);
                }
                // The label above the middle of the arrow.
                let (mx, my) = ((x0 + x1) / 2.0, (y0 + y1) / 2.0 - 5.0);
                text(svg, mx, my, "middle", *style, false, label);
            }
            Item::Mark {
                lane,
                side,
                at_ms,
                label,
                style,
            } => {
                let (x, y) = (lane_x(*lane), y_of(rows, *at_ms));
                if *style == Style::Lost || *style == Style::Highlight {
                    cross(svg, x, y, *style);
                } else {
                    let _ = writeln!(
                        svg,
                        "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"4.5\" fill=\"{}\"/>",
                        style.colour()
                    );
                }
                match side {
                    Side::Left => text(svg, x - 10.0, y + 4.0, "end", *style, false, label),
                    Side::Right => text(svg, x + 10.0, y + 4.0, "start", *style, false, label),
                }
            }
            Item::Span {
                lane,
                side,
                from_ms,
                to_ms,
                label,
                style,
            } => {
                let x = lane_x(*lane);
                let (y0, y1) = (y_of(rows, *from_ms), y_of(rows, *to_ms));
                let opacity = if *style == Style::Normal { 0.25 } else { 0.35 };
                let _ = writeln!(
                    svg,
                    "<rect x=\"{:.1}\" y=\"{y0:.1}\" width=\"10\" height=\"{:.1}\" fill=\"{}\" \
                     fill-opacity=\"{opacity}\" stroke=\"{}\"/>",
                    x - 5.0,
                    (y1 - y0).max(1.0),
                    style.colour(),
                    style.colour()
                );
                let middle = (y0 + y1) / 2.0 + 4.0;
                match side {
                    Side::Left if *lane == 0 => {
                        text(svg, x - 10.0, middle, "end", *style, false, label)
                    }
                    Side::Left => text(svg, x - 10.0, y0 + 14.0, "end", *style, false, label),
                    Side::Right => text(svg, x + 10.0, middle, "start", *style, false, label),
                }
            }
        }
    }
}

impl Diagram {
    /// The diagram as a standalone SVG document.
    pub fn svg(&self) -> String {
        let rows = rows(&self.items);
        let extra = slots(&self.items).into_iter().max().unwrap_or(0) as f64 * SLOT;
        let last_y = rows.last().map_or(TOP, |&(_, y)| y) + extra;
        let notes_top = last_y + 40.0;
        let height = notes_top + NOTE_LINE * self.notes.len() as f64 + 16.0;
        let mut svg = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{height:.0}\" \
             viewBox=\"0 0 {WIDTH} {height:.0}\" font-family=\"{FONT}\" font-size=\"12\">\n"
        );
        let _ = writeln!(
            svg,
            "<rect width=\"{WIDTH}\" height=\"{height:.0}\" fill=\"white\"/>"
        );
        let _ = writeln!(
            svg,
            "<text x=\"16\" y=\"28\" font-size=\"17\" font-weight=\"bold\">{}</text>",
            escape(&self.title)
        );
        let _ = writeln!(
            svg,
            "<text x=\"16\" y=\"48\" fill=\"{}\">{}</text>",
            Style::Muted.colour(),
            escape(&self.subtitle)
        );
        // The lanes: a name on top and a dashed life line down to the last row.
        for (lane, name) in self.lanes.iter().enumerate() {
            let x = lane_x(lane);
            let _ = writeln!(
                svg,
                "<rect x=\"{:.1}\" y=\"68\" width=\"130\" height=\"26\" rx=\"4\" fill=\"#eef2f6\" \
                 stroke=\"#8899aa\"/>",
                x - 65.0
            );
            text(&mut svg, x, 85.0, "middle", Style::Normal, true, name);
            let _ = writeln!(
                svg,
                "<line x1=\"{x:.1}\" y1=\"94\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"#aab4be\" \
                 stroke-dasharray=\"3 3\"/>",
                last_y + 16.0
            );
        }
        // The time axis: a label per row, and a faint line across.
        text(&mut svg, AXIS_X, 85.0, "end", Style::Muted, true, "time");
        for &(time, y) in &rows {
            text(
                &mut svg,
                AXIS_X,
                y + 4.0,
                "end",
                Style::Muted,
                false,
                &ms(time),
            );
            let _ = writeln!(
                svg,
                "<line x1=\"{:.0}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" \
                 stroke=\"#f0f0f0\"/>",
                AXIS_X + 6.0,
                WIDTH - 16.0
            );
        }
        for (item, slot) in self.items.iter().zip(slots(&self.items)) {
            item.draw(&mut svg, &rows, slot);
        }
        for (index, note) in self.notes.iter().enumerate() {
            text(
                &mut svg,
                16.0,
                notes_top + NOTE_LINE * index as f64,
                "start",
                Style::Muted,
                false,
                note,
            );
        }
        svg.push_str("</svg>\n");
        svg
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diagram() -> Diagram {
        Diagram {
            title: "A <trace>".into(),
            subtitle: "one payment".into(),
            lanes: vec!["client".into(), "network".into(), "server".into()],
            items: vec![
                Item::Arrow {
                    from: 0,
                    from_ms: 0.0,
                    to: 2,
                    to_ms: 20.0,
                    label: "attempt 1".into(),
                    style: Style::Normal,
                },
                Item::Arrow {
                    from: 2,
                    from_ms: 70.0,
                    to: 1,
                    to_ms: 70.0,
                    label: "ACK lost".into(),
                    style: Style::Lost,
                },
                Item::Mark {
                    lane: 0,
                    side: Side::Left,
                    at_ms: 1000.0,
                    label: "timeout".into(),
                    style: Style::Muted,
                },
                Item::Span {
                    lane: 2,
                    side: Side::Left,
                    from_ms: 20.0,
                    to_ms: 70.0,
                    label: "processing".into(),
                    style: Style::Normal,
                },
            ],
            notes: vec!["a note".into()],
        }
    }

    #[test]
    fn rows_follow_time_and_grow_with_the_wait() {
        let rows = rows(&diagram().items);
        let times: Vec<f64> = rows.iter().map(|&(t, _)| t).collect();
        assert_eq!(times, [0.0, 20.0, 70.0, 1000.0]);
        // 20 ms, 50 ms, 930 ms apart: 24 + 8 ln(21), 24 + 8 ln(51), 24 + 8 ln(931).
        let gaps: Vec<f64> = rows.windows(2).map(|w| w[1].1 - w[0].1).collect();
        for (gap, wait) in gaps.iter().zip([20.0f64, 50.0, 930.0]) {
            assert!(
                (gap - (24.0 + 8.0 * (1.0 + wait).ln())).abs() < 1e-9,
                "{gap}"
            );
        }
        assert_eq!(row_gap(1e12), ROW_MAX);
        assert_eq!(row_gap(0.0), ROW_MIN);
    }

    #[test]
    fn the_svg_parses_and_holds_every_label_escaped_once() {
        let svg = diagram().svg();
        let document = roxmltree::Document::parse(&svg).expect("well-formed SVG");
        let texts: Vec<String> = document
            .descendants()
            .filter(|node| node.has_tag_name("text"))
            .map(|node| node.text().unwrap_or_default().to_string())
            .collect();
        for label in [
            "A <trace>",
            "client",
            "network",
            "server",
            "attempt 1",
            "ACK lost",
            "timeout",
            "processing",
            "a note",
            "0 ms",
            "20 ms",
            "70 ms",
            "1,000 ms",
        ] {
            assert_eq!(
                texts.iter().filter(|text| *text == label).count(),
                1,
                "{label}: {texts:?}"
            );
        }
        // The lost ACK is dashed with a cross and no head; the request has a head.
        let lines: Vec<_> = document
            .descendants()
            .filter(|node| node.has_tag_name("line") && node.attribute("x1") != Some("110"))
            .filter(|node| node.attribute("stroke-dasharray") != Some("3 3"))
            .collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].attribute("stroke-dasharray"), None);
        assert_eq!(lines[1].attribute("stroke-dasharray"), Some("6 4"));
        // One head (the request's) and one cross (the lost ACK's), a path each.
        let paths = document
            .descendants()
            .filter(|node| node.has_tag_name("path"))
            .count();
        assert_eq!(paths, 2);
    }

    #[test]
    fn times_print_grouped_with_at_most_two_decimals() {
        assert_eq!(ms(1130.0), "1,130 ms");
        assert_eq!(ms(812.4321), "812.43 ms");
    }
}

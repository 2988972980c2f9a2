//! The house style every model's charts share: size, fonts, colours, the frame with title and
//! subtitle, legends, bars and value labels (plotters' SVG backend, no fonts needed).

use plotters::coord::Shift;
use plotters::coord::ranged1d::AsRangedCoord;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Every chart's size in pixels (width, height).
pub const SIZE: (u32, u32) = (960, 560);
/// A CSS font list: common sans-serif faces first, the generic family last.
pub const FONT: &str = "Helvetica, Arial, DejaVu Sans, Liberation Sans, sans-serif";
/// The hues more than one model's charts draw in (most of them matplotlib's "tab10"), by name,
/// so that a colour is written once.
pub mod hue {
    use plotters::style::RGBColor;

    /// tab10 blue.
    pub const BLUE: RGBColor = RGBColor(0x1f, 0x77, 0xb4);
    /// tab10 orange.
    pub const ORANGE: RGBColor = RGBColor(0xff, 0x7f, 0x0e);
    /// tab10 green.
    pub const GREEN: RGBColor = RGBColor(0x2c, 0xa0, 0x2c);
    /// tab10 red.
    pub const RED: RGBColor = RGBColor(0xd6, 0x27, 0x28);
    /// tab10 purple.
    pub const PURPLE: RGBColor = RGBColor(0x94, 0x67, 0xbd);
    /// tab10 brown.
    pub const BROWN: RGBColor = RGBColor(0x8c, 0x56, 0x4b);
    /// tab10 pink.
    pub const PINK: RGBColor = RGBColor(0xe3, 0x77, 0xc2);
    /// tab10 cyan.
    pub const CYAN: RGBColor = RGBColor(0x17, 0xbe, 0xcf);
    /// A brighter violet than tab10's purple.
    pub const VIOLET: RGBColor = RGBColor(0x9d, 0x4e, 0xdd);
    /// The dark grey of subtitles and notes.
    pub const DARK_GREY: RGBColor = RGBColor(0x55, 0x55, 0x55);
}

/// Red: money taken twice.
pub const CHARGED_TWICE: RGBColor = hue::RED;
/// Green: duplicates the key store absorbed.
pub const ABSORBED: RGBColor = hue::GREEN;
/// Grey: the one legitimate charge per request.
pub const FIRST_CHARGE: RGBColor = RGBColor(0xb8, 0xbe, 0xc6);
/// Blue: the key server's bars in the double-charge chart.
pub const KEYED: RGBColor = hue::BLUE;
/// The light grid lines of the line charts.
pub const GRID: RGBColor = RGBColor(0xf0, 0xf0, 0xf0);
/// Renders into an SVG string of [`SIZE`]: white background, title, subtitle; `draw` gets the
/// rest.
pub fn svg(
    title: &str,
    subtitle: &str,
    draw: impl FnOnce(&DrawingArea<SVGBackend, Shift>) -> Result<(), String>,
) -> String {
    svg_sized(title, subtitle, SIZE, draw)
}

/// [`svg`] of another size (pixels, width and height): a chart whose panels grow with the
/// number of series groups.
pub fn svg_sized(
    title: &str,
    subtitle: &str,
    size: (u32, u32),
    draw: impl FnOnce(&DrawingArea<SVGBackend, Shift>) -> Result<(), String>,
) -> String {
    let mut buffer = String::new();
    {
        let root = SVGBackend::with_string(&mut buffer, size).into_drawing_area();
        let result = (|| -> Result<(), String> {
            root.fill(&WHITE).map_err(|e| e.to_string())?;
            let centre = Pos::new(HPos::Center, VPos::Top);
            root.draw(&Text::new(
                title.to_string(),
                (size.0 as i32 / 2, 12),
                (FONT, 24)
                    .into_font()
                    .style(FontStyle::Bold)
                    .color(&BLACK)
                    .pos(centre),
            ))
            .map_err(|e| e.to_string())?;
            root.draw(&Text::new(
                subtitle.to_string(),
                (size.0 as i32 / 2, 44),
                (FONT, 15).into_font().color(&hue::DARK_GREY).pos(centre),
            ))
            .map_err(|e| e.to_string())?;
            let (_, body) = root.split_vertically(68);
            draw(&body)?;
            root.present().map_err(|e| e.to_string())
        })();
        result.expect("drawing into an in-memory SVG cannot fail");
    }
    buffer
}

/// A chart on an SVG drawing with `X` across and `Y` up.
pub type SvgChart<'a, 'b, X, Y> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<X, Y>>;

/// A chart on `area` in the house frame: 16-pixel margins (`right_margin` on the right, where
/// a last tick label may need more), 48 pixels below the plot for the x axis's labels and 80
/// left of it for the y axis's, `x` across and `y` up.
pub fn frame<'a, 'b, X: AsRangedCoord, Y: AsRangedCoord>(
    area: &'a DrawingArea<SVGBackend<'b>, Shift>,
    x: X,
    y: Y,
    right_margin: u32,
) -> Result<SvgChart<'a, 'b, X::CoordDescType, Y::CoordDescType>, String> {
    ChartBuilder::on(area)
        .margin(16)
        .margin_right(right_margin)
        .x_label_area_size(48)
        .y_label_area_size(80)
        .build_cartesian_2d(x, y)
        .map_err(|e| e.to_string())
}

/// Draws the legend of `chart`'s labelled series in the house style.
pub fn draw_legend<'a, DB, CT>(
    chart: &mut ChartContext<'a, DB, CT>,
    position: SeriesLabelPosition,
    font_size: u32,
) -> Result<(), String>
where
    DB: DrawingBackend + 'a,
    CT: CoordTranslate,
{
    chart
        .configure_series_labels()
        .position(position)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK.mix(0.3))
        .label_font((FONT, font_size))
        .draw()
        .map_err(|e| e.to_string())
}

/// Height of a [`legend_row`] (pixels).
pub const LEGEND_ROW_HEIGHT: u32 = 30;

/// One entry of a [`legend_row`]: a stroke of `colour`, `stroke` pixels wide, then `label`.
#[derive(Debug, Clone)]
pub struct LegendEntry {
    /// The series' name.
    pub label: String,
    /// Its colour.
    pub colour: RGBColor,
    /// Its line width (pixels).
    pub stroke: u32,
}

/// Draws one legend for all the panels below it, in a row across the top of `area`, outside
/// every plot (so it never covers data), in the house legend style; returns the area below.
pub fn legend_row<'a>(
    area: &DrawingArea<SVGBackend<'a>, Shift>,
    entries: &[LegendEntry],
    font_size: u32,
) -> Result<DrawingArea<SVGBackend<'a>, Shift>, String> {
    let (row, rest) = area.split_vertically(LEGEND_ROW_HEIGHT);
    let stroke_length = 22;
    let gap = 6;
    let spacing = 22;
    // An estimate of the text's width: no fonts are loaded to measure it.
    let text_width = |label: &str| (label.chars().count() as f64 * font_size as f64 * 0.5) as i32;
    let widths: Vec<i32> = entries
        .iter()
        .map(|entry| stroke_length + gap + text_width(&entry.label))
        .collect();
    let total = widths.iter().sum::<i32>() + spacing * (entries.len().max(1) as i32 - 1);
    let width = row.dim_in_pixel().0 as i32;
    let middle = LEGEND_ROW_HEIGHT as i32 / 2;
    let mut x = (width - total) / 2;
    row.draw(&Rectangle::new(
        [(x - 10, 3), (x + total + 10, LEGEND_ROW_HEIGHT as i32 - 3)],
        WHITE.mix(0.9).filled(),
    ))
    .map_err(|e| e.to_string())?;
    row.draw(&Rectangle::new(
        [(x - 10, 3), (x + total + 10, LEGEND_ROW_HEIGHT as i32 - 3)],
        BLACK.mix(0.3),
    ))
    .map_err(|e| e.to_string())?;
    for (entry, width) in entries.iter().zip(widths) {
        row.draw(&PathElement::new(
            vec![(x, middle), (x + stroke_length, middle)],
            entry.colour.stroke_width(entry.stroke),
        ))
        .map_err(|e| e.to_string())?;
        row.draw(&Text::new(
            entry.label.clone(),
            (x + stroke_length + gap, middle),
            (FONT, font_size)
                .into_font()
                .color(&BLACK)
                .pos(Pos::new(HPos::Left, VPos::Center)),
        ))
        .map_err(|e| e.to_string())?;
        x += width + spacing;
    }
    Ok(rest)
}

/// The stroke width (pixels) of series `index` of `count` drawn in order: the last 2 pixels,
/// each earlier one a pixel wider (up to 4), so that a line drawn over an equal one leaves
/// its edges visible and no legend entry names a line nobody can see.
pub fn layered_stroke(index: usize, count: usize) -> u32 {
    2 + count.saturating_sub(index + 1).min(2) as u32
}

/// A chart area with linear axes, x and y in `f64`: what every line and bar chart draws on.
pub type LinearChart<'a, DB> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// Draws `points` as a line of `colour`, `stroke` pixels wide, with a dot at each point,
/// labelled `label` in the legend by a stroke `legend_width` pixels long.
pub fn draw_marked_line<'a, DB>(
    chart: &mut LinearChart<'a, DB>,
    points: &[(f64, f64)],
    (colour, stroke): (RGBColor, u32),
    label: &str,
    legend_width: i32,
) -> Result<(), String>
where
    DB: DrawingBackend + 'a,
{
    chart
        .draw_series(LineSeries::new(
            points.to_vec(),
            colour.stroke_width(stroke),
        ))
        .map_err(|e| e.to_string())?
        .label(label)
        .legend(move |(x, y)| {
            PathElement::new(
                vec![(x, y), (x + legend_width, y)],
                colour.stroke_width(stroke),
            )
        });
    let radius = stroke + 1;
    chart
        .draw_series(
            points
                .iter()
                .map(|&point| Circle::new(point, radius, colour.filled())),
        )
        .map_err(|e| e.to_string())?;
    Ok(())
}

/// A filled bar from `(x0, y0)` to `(x1, y1)` in chart coordinates.
pub fn bar(x0: f64, x1: f64, y0: f64, y1: f64, colour: RGBColor) -> Rectangle<(f64, f64)> {
    Rectangle::new([(x0, y0), (x1, y1)], colour.filled())
}

/// A value printed centred above `at`.
pub fn value_label(text: String, at: (f64, f64), size: u32) -> Text<'static, (f64, f64), String> {
    centred_above(text, at, (FONT, size).into_font().color(&BLACK))
}

/// A bold label in `colour`, `size` pixels high, centred above `at`: a group's title or a
/// value in its series' colour.
pub fn bold_label(
    text: String,
    at: (f64, f64),
    size: u32,
    colour: RGBColor,
) -> Text<'static, (f64, f64), String> {
    let font = (FONT, size).into_font().style(FontStyle::Bold);
    centred_above(text, at, font.color(&colour))
}

/// `text` in `style`, centred above `at`.
fn centred_above(
    text: String,
    at: (f64, f64),
    style: TextStyle<'static>,
) -> Text<'static, (f64, f64), String> {
    Text::new(text, at, style.pos(Pos::new(HPos::Center, VPos::Bottom)))
}

/// The outline of a band of `(x, low, high)` points: along the highs left to right, then
/// back along the lows, a polygon's corners.
pub fn band_outline(band: &[(f64, f64, f64)]) -> Vec<(f64, f64)> {
    band.iter()
        .map(|&(x, _, high)| (x, high))
        .chain(band.iter().rev().map(|&(x, low, _)| (x, low)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earlier_series_are_drawn_wider() {
        let widths: Vec<u32> = (0..6).map(|index| layered_stroke(index, 6)).collect();
        assert_eq!(widths, [4, 4, 4, 4, 3, 2]);
        assert_eq!(layered_stroke(0, 1), 2);
    }
}

//! The house style every model's charts share: size, fonts, colours, the frame with title and
//! subtitle, legends, bars and value labels (plotters' SVG backend, no fonts needed).

use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Every chart's size in pixels (width, height).
pub const SIZE: (u32, u32) = (960, 560);
/// A CSS font list: common sans-serif faces first, the generic family last.
pub const FONT: &str = "Helvetica, Arial, DejaVu Sans, Liberation Sans, sans-serif";
/// Red: money taken twice.
pub const CHARGED_TWICE: RGBColor = RGBColor(0xd6, 0x27, 0x28);
/// Green: duplicates the key store absorbed.
pub const ABSORBED: RGBColor = RGBColor(0x2c, 0xa0, 0x2c);
/// Grey: the one legitimate charge per request.
pub const FIRST_CHARGE: RGBColor = RGBColor(0xb8, 0xbe, 0xc6);
/// Blue: the key server's bars in the double-charge chart.
pub const KEYED: RGBColor = RGBColor(0x1f, 0x77, 0xb4);
/// Renders into an SVG string: white background, title, subtitle; `draw` gets the rest.
pub fn svg(
    title: &str,
    subtitle: &str,
    draw: impl FnOnce(&DrawingArea<SVGBackend, Shift>) -> Result<(), String>,
) -> String {
    let mut buffer = String::new();
    {
        let root = SVGBackend::with_string(&mut buffer, SIZE).into_drawing_area();
        let result = (|| -> Result<(), String> {
            root.fill(&WHITE).map_err(|e| e.to_string())?;
            let centre = Pos::new(HPos::Center, VPos::Top);
            root.draw(&Text::new(
                title.to_string(),
                (SIZE.0 as i32 / 2, 12),
                (FONT, 24)
                    .into_font()
                    .style(FontStyle::Bold)
                    .color(&BLACK)
                    .pos(centre),
            ))
            .map_err(|e| e.to_string())?;
            root.draw(&Text::new(
                subtitle.to_string(),
                (SIZE.0 as i32 / 2, 44),
                (FONT, 15)
                    .into_font()
                    .color(&RGBColor(0x55, 0x55, 0x55))
                    .pos(centre),
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

/// Draws `points` as a line of `colour` with a dot at each point, labelled `label` in the
/// legend by a stroke `legend_width` pixels long.
pub fn draw_marked_line<'a, DB>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    points: &[(f64, f64)],
    colour: RGBColor,
    label: &str,
    legend_width: i32,
) -> Result<(), String>
where
    DB: DrawingBackend + 'a,
{
    chart
        .draw_series(LineSeries::new(points.to_vec(), colour.stroke_width(2)))
        .map_err(|e| e.to_string())?
        .label(label)
        .legend(move |(x, y)| {
            PathElement::new(vec![(x, y), (x + legend_width, y)], colour.stroke_width(2))
        });
    chart
        .draw_series(
            points
                .iter()
                .map(|&point| Circle::new(point, 3, colour.filled())),
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
    Text::new(
        text,
        at,
        (FONT, size)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Bottom)),
    )
}

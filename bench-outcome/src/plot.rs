//! The offered load over time per strategy, as SVG.

use plotters::prelude::*;

use crate::metrics::BIN;
use crate::schedule::Schedule;

const COLORS: [RGBColor; 7] = [
    RGBColor(0x55, 0x55, 0x55),
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0x00, 0x00, 0x00),
];

/// Draws one line per `(label, calls per bin averaged over the runs)` into `path`, the
/// outages shaded.
pub fn offered_load(
    path: &std::path::Path,
    title: &str,
    series: &[(&str, Vec<f64>)],
    schedule: &Schedule,
) -> Result<(), Box<dyn std::error::Error>> {
    let per_second = 1.0 / BIN.as_secs_f64();
    let end = schedule.run.as_secs_f64();
    let top = series
        .iter()
        .flat_map(|(_, s)| s.iter())
        .fold(0.0f64, |m, v| m.max(v * per_second))
        * 1.1;
    let root = SVGBackend::new(path, (960, 520)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(56)
        .build_cartesian_2d(0f64..end, 0f64..top.max(1.0))?;
    chart
        .configure_mesh()
        .x_desc("time since the start of the run (s)")
        .y_desc("tools/call offered per second")
        .draw()?;
    chart.draw_series(schedule.outages.iter().map(|(from, to)| {
        Rectangle::new(
            [(from.as_secs_f64(), 0.0), (to.as_secs_f64(), top.max(1.0))],
            RGBColor(0xee, 0xee, 0xee).filled(),
        )
    }))?;
    for (i, (label, bins)) in series.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let points = bins
            .iter()
            .enumerate()
            .map(|(bin, v)| ((bin as f64 + 0.5) * BIN.as_secs_f64(), v * per_second));
        chart
            .draw_series(LineSeries::new(points, color.stroke_width(2)))?
            .label(*label)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    Ok(())
}

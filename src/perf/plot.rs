//! A window's series drawn for people who would rather look: CPU, memory and (where the
//! platform counts them) frame time against time, one panel each, as SVG and as PNG, by
//! `plotters`; labels in the embedded DejaVu Sans, so nothing is read from the host.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::series::SeriesPoint;

/// Why a plot was not drawn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlotError(pub String);

impl std::fmt::Display for PlotError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "drawing the plot: {}", self.0)
    }
}

type Result<T> = std::result::Result<T, PlotError>;

/// The picture's size, px.
const SIZE: (u32, u32) = (1000, 720);
/// The font family the labels ask for.
const FAMILY: &str = "sans-serif";

/// One panel: its caption, unit and the figure it shows.
struct Panel {
    caption: &'static str,
    unit: &'static str,
    colour: RGBColor,
    value: fn(&SeriesPoint) -> Option<f64>,
}

const PANELS: [Panel; 3] = [
    Panel {
        caption: "CPU",
        unit: "% of a core",
        colour: RGBColor(0xd6, 0x27, 0x28),
        value: |p| p.cpu_percent,
    },
    Panel {
        caption: "Memory",
        unit: "MB",
        colour: RGBColor(0x1f, 0x77, 0xb4),
        value: |p| p.memory_kib.map(|k| k as f64 / 1024.0),
    },
    Panel {
        caption: "Frame time, p90 of each interval",
        unit: "ms",
        colour: RGBColor(0x2c, 0xa0, 0x2c),
        value: |p| p.frame_p90_ms,
    },
];

fn font() -> Result<()> {
    static REGISTERED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let ok = *REGISTERED.get_or_init(|| {
        plotters::style::register_font(FAMILY, FontStyle::Normal, dejavu::sans::regular()).is_ok()
    });
    ok.then_some(())
        .ok_or_else(|| PlotError("the embedded font did not load".into()))
}

/// The series as an SVG document, titled `title`.
pub fn svg(points: &[SeriesPoint], title: &str) -> Result<String> {
    font()?;
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, SIZE).into_drawing_area();
        draw(&root, points, title).map_err(plot_error)?;
        root.present().map_err(plot_error)?;
    }
    Ok(out)
}

/// The series as a PNG picture, titled `title`.
pub fn png(points: &[SeriesPoint], title: &str) -> Result<Vec<u8>> {
    font()?;
    let mut rgb = vec![0u8; (SIZE.0 * SIZE.1 * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, SIZE).into_drawing_area();
        draw(&root, points, title).map_err(plot_error)?;
        root.present().map_err(plot_error)?;
    }
    let picture = image::RgbImage::from_raw(SIZE.0, SIZE.1, rgb)
        .ok_or_else(|| PlotError("its buffer has the wrong size".into()))?;
    let mut png = std::io::Cursor::new(Vec::new());
    picture
        .write_to(&mut png, image::ImageFormat::Png)
        .map_err(|e| PlotError(format!("encoding it: {e}")))?;
    Ok(png.into_inner())
}

fn plot_error(e: impl std::fmt::Display) -> PlotError {
    PlotError(e.to_string())
}

type Drawn<DB> = std::result::Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// Draws the panels that have figures under `title`, time in seconds across.
fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    points: &[SeriesPoint],
    title: &str,
) -> Drawn<DB> {
    root.fill(&WHITE)?;
    let root = root.titled(title, (FAMILY, 22))?;
    let shown: Vec<&Panel> = PANELS
        .iter()
        .filter(|p| points.iter().any(|pt| (p.value)(pt).is_some()))
        .collect();
    if shown.is_empty() {
        root.draw(&Text::new(
            "no figures were sampled",
            (40, 40),
            (FAMILY, 18).into_font(),
        ))?;
        return Ok(());
    }
    let end_s = points
        .last()
        .map_or(1.0, |p| p.t_ms as f64 / 1000.0)
        .max(0.001);
    for (area, panel) in root.split_evenly((shown.len(), 1)).iter().zip(shown) {
        let values: Vec<(f64, f64)> = points
            .iter()
            .filter_map(|p| Some((p.t_ms as f64 / 1000.0, (panel.value)(p)?)))
            .collect();
        let top = values.iter().map(|v| v.1).fold(0.0_f64, f64::max);
        let top = if top > 0.0 { top * 1.1 } else { 1.0 };
        let mut chart = ChartBuilder::on(area)
            .caption(format!("{} ({})", panel.caption, panel.unit), (FAMILY, 16))
            .margin(8)
            .x_label_area_size(28)
            .y_label_area_size(56)
            .build_cartesian_2d(0.0..end_s, 0.0..top)?;
        chart
            .configure_mesh()
            .x_desc("s")
            .label_style((FAMILY, 12))
            .light_line_style(WHITE.mix(0.0))
            .draw()?;
        chart.draw_series(LineSeries::new(values, panel.colour.stroke_width(2)))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn points(frames: bool) -> Vec<SeriesPoint> {
        (0..40)
            .map(|i| SeriesPoint {
                t_ms: i * 500,
                samples: 1,
                cpu_percent: Some((i % 7) as f64 * 12.5),
                memory_kib: Some(40_000 + i * 512),
                threads: Some(21),
                frames: frames.then_some(30),
                janky_frames: frames.then_some(2),
                frame_p90_ms: frames.then_some(10.0 + (i % 5) as f64),
            })
            .collect()
    }

    #[test]
    fn the_svg_has_a_panel_per_figure_sampled() {
        let with_frames = svg(&points(true), "com.example").unwrap();
        assert!(with_frames.starts_with("<svg"), "{}", &with_frames[..80]);
        assert!(with_frames.contains("com.example"));
        assert!(with_frames.contains("CPU (% of a core)"));
        assert!(with_frames.contains("Memory (MB)"));
        assert!(with_frames.contains("Frame time"));
        let without = svg(&points(false), "host app").unwrap();
        assert!(without.contains("Memory (MB)") && !without.contains("Frame time"));
    }

    #[test]
    fn the_png_is_a_picture_with_lines_and_labels() {
        let bytes = png(&points(true), "com.example").unwrap();
        let picture = image::load_from_memory(&bytes).unwrap().to_rgb8();
        assert_eq!(picture.dimensions(), SIZE);
        // The CPU line's red and some dark label pixels are drawn on the white.
        let red = picture
            .pixels()
            .filter(|p| p.0 == [0xd6, 0x27, 0x28])
            .count();
        let dark = picture
            .pixels()
            .filter(|p| p.0.iter().all(|&c| c < 60))
            .count();
        assert!(red > 200 && dark > 200, "red {red}, dark {dark}");
    }

    #[test]
    fn an_empty_series_still_draws_and_says_so() {
        assert!(svg(&[], "nothing")
            .unwrap()
            .contains("no figures were sampled"));
        assert!(!png(&[], "nothing").unwrap().is_empty());
    }
}

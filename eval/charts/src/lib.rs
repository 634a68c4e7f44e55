//! Attacker-share charts (PNG and SVG) with 95 % intervals, one point per
//! rule set or per generation. Text uses the DejaVu Sans font compiled in
//! (`assets/fonts`), so no system fonts are needed.

use brandubh_arena::balance::Share;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Why a chart could not be written; each names the file.
#[derive(Debug, thiserror::Error)]
pub enum ChartError {
    #[error("{}: drawing the chart: {why}", path.display())]
    Draw { path: PathBuf, why: String },
    #[error("{}: encoding the PNG: {source}", path.display())]
    Png {
        path: PathBuf,
        source: png::EncodingError,
    },
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

const FONT: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans.ttf");

fn ensure_font() {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, FONT);
    });
}

fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    title: &str,
    items: &[(String, Share)],
) -> Result<(), String> {
    let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
    root.fill(&WHITE).map_err(e)?;
    let n = items.len().max(1);
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(20)
        .x_label_area_size(70)
        .y_label_area_size(60)
        .build_cartesian_2d(-0.5f64..(n as f64 - 0.5), 0f64..1f64)
        .map_err(e)?;
    let labels: Vec<String> = items.iter().map(|i| i.0.clone()).collect();
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(n)
        .x_label_formatter(&|x| {
            let i = x.round();
            if (x - i).abs() < 1e-6 && i >= 0.0 {
                labels.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .y_desc("attackers' share of games (95 % CI)")
        .label_style(("sans-serif", 14))
        .draw()
        .map_err(e)?;
    chart
        .draw_series(items.iter().enumerate().map(|(i, (_, s))| {
            ErrorBar::new_vertical(i as f64, s.ci95[0], s.share, s.ci95[1], BLUE.filled(), 12)
        }))
        .map_err(e)?;
    chart
        .draw_series(
            items
                .iter()
                .enumerate()
                .map(|(i, (_, s))| Circle::new((i as f64, s.share), 5, BLUE.filled())),
        )
        .map_err(e)?;
    chart
        .draw_series(LineSeries::new(
            vec![(-0.5, 0.5), (n as f64 - 0.5, 0.5)],
            BLACK.mix(0.3),
        ))
        .map_err(e)?;
    root.present().map_err(e)?;
    Ok(())
}

/// Writes `STEM.png` and `STEM.svg`.
pub fn attacker_share_chart(
    stem: &Path,
    title: &str,
    items: &[(String, Share)],
) -> Result<(), ChartError> {
    ensure_font();
    let width = (160 * items.len().max(3)) as u32 + 120;
    write_both(
        stem,
        (width, 480),
        |root| draw(root, title, items),
        |root| draw(root, title, items),
    )
}

/// Draws one chart into memory as PNG and as SVG, then writes `STEM.png`
/// and `STEM.svg` durably, so a crash never leaves a half-drawn chart.
fn write_both(
    stem: &Path,
    size: (u32, u32),
    bitmap: impl FnOnce(DrawingArea<BitMapBackend, Shift>) -> Result<(), String>,
    vector: impl FnOnce(DrawingArea<SVGBackend, Shift>) -> Result<(), String>,
) -> Result<(), ChartError> {
    let png_path = stem.with_extension("png");
    let svg_path = stem.with_extension("svg");
    let mut rgb = vec![0u8; size.0 as usize * size.1 as usize * 3];
    bitmap(BitMapBackend::with_buffer(&mut rgb, size).into_drawing_area()).map_err(|why| {
        ChartError::Draw {
            path: png_path.clone(),
            why,
        }
    })?;
    let png = encode_png(&rgb, size).map_err(|source| ChartError::Png {
        path: png_path.clone(),
        source,
    })?;
    let mut svg = String::new();
    vector(SVGBackend::with_string(&mut svg, size).into_drawing_area()).map_err(|why| {
        ChartError::Draw {
            path: svg_path.clone(),
            why,
        }
    })?;
    for (path, bytes) in [(&png_path, png.as_slice()), (&svg_path, svg.as_bytes())] {
        brandubh_durable::write(path, bytes).map_err(|source| ChartError::Io {
            path: path.clone(),
            source,
        })?;
    }
    Ok(())
}

fn encode_png(rgb: &[u8], (width, height): (u32, u32)) -> Result<Vec<u8>, png::EncodingError> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::RGB);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.write_header()?.write_image_data(rgb)?;
    Ok(out)
}

/// A point `(x, y)` with an optional 95 % interval `(low, high)`, drawn as
/// an error bar.
pub type Point = (f64, f64, Option<(f64, f64)>);

/// One line of a line chart.
pub struct Series {
    pub name: String,
    pub points: Vec<Point>,
}

/// Horizontal reference lines (a fixed player's rating, say): name, y.
pub type Reference = (String, f64);

const PALETTE: [RGBColor; 9] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(127, 127, 127),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
];

fn draw_lines<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    title: &str,
    axes: (&str, &str),
    series: &[Series],
    refs: &[Reference],
    x_names: Option<&[String]>,
) -> Result<(), String> {
    let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
    root.fill(&WHITE).map_err(e)?;
    let xs = series.iter().flat_map(|s| s.points.iter().map(|p| p.0));
    let ys = series
        .iter()
        .flat_map(|s| {
            s.points
                .iter()
                .flat_map(|p| [Some(p.1), p.2.map(|c| c.0), p.2.map(|c| c.1)])
        })
        .flatten()
        .chain(refs.iter().map(|r| r.1));
    let (x0, x1) = xs.fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
    let (y0, y1) = ys.fold((f64::MAX, f64::MIN), |(a, b), y| (a.min(y), b.max(y)));
    let (x0, x1) = if x0 > x1 {
        (0.0, 1.0)
    } else {
        (x0, x1.max(x0 + 1e-9))
    };
    let (y0, y1) = if y0 > y1 {
        (0.0, 1.0)
    } else {
        (y0, y1.max(y0 + 1e-9))
    };
    let pad = (y1 - y0) * 0.08;
    let xpad = (x1 - x0) * 0.03;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(20)
        .margin_right(if x_names.is_some() { 60 } else { 20 })
        .x_label_area_size(50)
        .y_label_area_size(70)
        .build_cartesian_2d((x0 - xpad)..(x1 + xpad), (y0 - pad)..(y1 + pad))
        .map_err(e)?;
    // Named x positions 1..=n label only their own whole numbers.
    let name_at = |x: &f64| -> String {
        let k = x.round();
        match x_names {
            Some(names) if (x - k).abs() < 1e-6 && k >= 1.0 => {
                names.get(k as usize - 1).cloned().unwrap_or_default()
            }
            Some(_) => String::new(),
            None => format!("{}", (x * 100.0).round() / 100.0),
        }
    };
    chart
        .configure_mesh()
        .x_labels(x_names.map_or(10, |n| n.len().max(1)))
        .x_label_formatter(&name_at)
        .x_desc(axes.0)
        .y_desc(axes.1)
        .label_style(("sans-serif", 14))
        .draw()
        .map_err(e)?;
    // Reference lines are labelled where they end, not in the legend, so
    // that a ladder of fixed players does not crowd it.
    for (i, r) in refs.iter().enumerate() {
        let color = BLACK.mix(0.25 + 0.1 * (i % 3) as f64);
        chart
            .draw_series(LineSeries::new(
                vec![(x0 - xpad, r.1), (x1 + xpad, r.1)],
                color,
            ))
            .map_err(e)?;
        chart
            .draw_series(std::iter::once(Text::new(
                if r.1.fract() == 0.0 || r.1.abs() >= 10.0 {
                    format!("{} ({:+.0})", r.0, r.1)
                } else {
                    format!("{} ({})", r.0, r.1)
                },
                (x0 - xpad, r.1),
                ("sans-serif", 12).into_font().color(&BLACK.mix(0.7)),
            )))
            .map_err(e)?;
    }
    for (i, s) in series.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        chart
            .draw_series(LineSeries::new(s.points.iter().map(|p| (p.0, p.1)), color))
            .map_err(e)?
            .label(s.name.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
        chart
            .draw_series(s.points.iter().filter_map(|p| {
                p.2.map(|(lo, hi)| ErrorBar::new_vertical(p.0, lo, p.1, hi, color.filled(), 8))
            }))
            .map_err(e)?;
        chart
            .draw_series(
                s.points
                    .iter()
                    .map(|p| Circle::new((p.0, p.1), 3, color.filled())),
            )
            .map_err(e)?;
    }
    chart
        .configure_series_labels()
        .position(legend_corner(series, (x0, x1), (y0, y1)))
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK.mix(0.3))
        .label_font(("sans-serif", 13))
        .draw()
        .map_err(e)?;
    root.present().map_err(e)?;
    Ok(())
}

/// The corner of the plot the legend covers least: the one with the
/// fewest points (or error bars) in the quarter of the plot beside it.
fn legend_corner(
    series: &[Series],
    (x0, x1): (f64, f64),
    (y0, y1): (f64, f64),
) -> SeriesLabelPosition {
    let near = |right: bool, upper: bool| {
        series
            .iter()
            .flat_map(|s| s.points.iter())
            .filter(|p| {
                let fx = (p.0 - x0) / (x1 - x0);
                let (lo, hi) = p.2.unwrap_or((p.1, p.1));
                let (flo, fhi) = ((lo - y0) / (y1 - y0), (hi - y0) / (y1 - y0));
                let in_x = if right { fx > 0.6 } else { fx < 0.4 };
                let in_y = if upper { fhi > 0.55 } else { flo < 0.45 };
                in_x && in_y
            })
            .count()
    };
    [
        (near(true, false), SeriesLabelPosition::LowerRight),
        (near(true, true), SeriesLabelPosition::UpperRight),
        (near(false, false), SeriesLabelPosition::LowerLeft),
        (near(false, true), SeriesLabelPosition::UpperLeft),
    ]
    .into_iter()
    .min_by_key(|c| c.0)
    .map_or(SeriesLabelPosition::LowerRight, |c| c.1)
}

/// Writes a line chart as `STEM.png` and `STEM.svg`.
pub fn line_chart(
    stem: &Path,
    title: &str,
    axes: (&str, &str),
    series: &[Series],
    refs: &[Reference],
) -> Result<(), ChartError> {
    ensure_font();
    write_both(
        stem,
        (900, 520),
        |root| draw_lines(root, title, axes, series, refs, None),
        |root| draw_lines(root, title, axes, series, refs, None),
    )
}

/// A line chart whose points sit at x = 1, 2, …, each named on the axis
/// by `x_names` (rungs of a ladder, variants).
pub fn named_line_chart(
    stem: &Path,
    title: &str,
    axes: (&str, &str),
    series: &[Series],
    refs: &[Reference],
    x_names: &[String],
) -> Result<(), ChartError> {
    ensure_font();
    write_both(
        stem,
        (900, 520),
        |root| draw_lines(root, title, axes, series, refs, Some(x_names)),
        |root| draw_lines(root, title, axes, series, refs, Some(x_names)),
    )
}

//! Attacker-share charts (PNG and SVG) with 95 % intervals, one point per
//! rule set or per generation. Text uses the DejaVu Sans font compiled in
//! (`assets/fonts`), so no system fonts are needed.

use crate::balance::Share;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;
use std::sync::OnceLock;

const FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");

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
) -> Result<(), String> {
    ensure_font();
    let width = (160 * items.len().max(3)) as u32 + 120;
    let png = stem.with_extension("png");
    let svg = stem.with_extension("svg");
    draw(
        BitMapBackend::new(&png, (width, 480)).into_drawing_area(),
        title,
        items,
    )
    .map_err(|e| format!("{}: {e}", png.display()))?;
    draw(
        SVGBackend::new(&svg, (width, 480)).into_drawing_area(),
        title,
        items,
    )
    .map_err(|e| format!("{}: {e}", svg.display()))?;
    Ok(())
}

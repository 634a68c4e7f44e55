//! The charts are images that open: valid PNG and SVG with the data drawn.

use brandubh_arena::balance::wilson;
use brandubh_charts::attacker_share_chart;

#[test]
fn charts_are_valid_png_and_svg() {
    let dir = std::env::temp_dir().join(format!("brandubh-chart-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let items = vec![
        ("modern".to_string(), wilson(30, 100)),
        ("ludii".to_string(), wilson(45, 100)),
    ];
    attacker_share_chart(&dir.join("share"), "test", &items).unwrap();
    let png = std::fs::read(dir.join("share.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "PNG signature");
    assert_eq!(&png[12..16], b"IHDR");
    let width = u32::from_be_bytes(png[16..20].try_into().unwrap());
    let height = u32::from_be_bytes(png[20..24].try_into().unwrap());
    assert_eq!((width, height), (600, 480));
    assert!(png.len() > 2000, "a drawn chart, not an empty image");
    let svg = std::fs::read_to_string(dir.join("share.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert!(svg.contains("modern") && svg.contains("ludii"));
    std::fs::remove_dir_all(&dir).ok();
}

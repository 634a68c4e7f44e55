use anyhow::{Context, Result};
use brandubh_rules::RuleSet;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

/// A local web page to play the nets, see what they think, open and save
/// games and watch training runs (docs/serve.md).
///
/// Binds to loopback by default and prints the address to open. The page
/// plays any of the five rule sets (and any `--rules` file) against a
/// shipped net, alpha-beta or random; analyses positions with a net's
/// policy heat map, win/draw/loss and search lines, or alpha-beta's score
/// and line; opens and saves OpenTafl `.otg` files and match records;
/// shows the runs under `--runs`; and runs an exported net in the browser
/// itself (onnxruntime-web, installed by `npm ci` in `web/`).
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Address to listen on (use 0.0.0.0:PORT to serve other machines,
    /// which the server does not guard against).
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    /// Folder of nets (each `NAME/model.json`, with `model.onnx` and
    /// `model.card.json` for the in-browser net).
    #[arg(long, default_value = "models")]
    models: PathBuf,
    /// Folder of training runs to show.
    #[arg(long, default_value = "runs")]
    runs: PathBuf,
    /// A further rule-set file to offer beside the five named ones (repeatable).
    #[arg(long = "rules", value_name = "FILE.toml")]
    rules_files: Vec<PathBuf>,
    /// onnxruntime-web's `dist` folder (default: web/node_modules/onnxruntime-web/dist
    /// when present).
    #[arg(long)]
    vendor: Option<PathBuf>,
    /// The longest a search may think for a request, in milliseconds.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(10..=120_000))]
    max_ms: u64,
    /// Searches that may run at once (more wait their turn).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..=64))]
    searches: u64,
}

pub fn run(a: Args, env: &super::Env) -> Result<()> {
    let mut rules: Vec<Arc<RuleSet>> = Vec::new();
    for name in brandubh_rules::all_names() {
        rules.push(Arc::new(RuleSet::named(&name)?));
    }
    for f in &a.rules_files {
        let r = RuleSet::from_file(f)?;
        if rules.iter().any(|x| x.name() == r.name()) {
            anyhow::bail!(
                "{}: a rule set named `{}` is already offered",
                f.display(),
                r.name()
            );
        }
        rules.push(Arc::new(r));
    }
    let vendor = a.vendor.clone().or_else(|| {
        let d = PathBuf::from("web/node_modules/onnxruntime-web/dist");
        d.join("ort.min.js").is_file().then_some(d)
    });
    let cfg = brandubh_web::ServeConfig {
        rules,
        models_dir: a.models.clone(),
        runs_dir: a.runs.clone(),
        vendor_dir: vendor.clone(),
        ctx: env.play_context(),
        reporter: Some(Arc::new(|dir: &std::path::Path| {
            super::report::data(dir).map_err(|e| format!("{e:#}"))
        })),
        limits: brandubh_web::Limits {
            max_ms: a.max_ms,
            ..brandubh_web::Limits::default()
        },
        searches: a.searches as usize,
    };
    if vendor.is_none() {
        eprintln!(
            "serve: onnxruntime-web not found; the page's in-browser net needs `npm ci` in web/"
        );
    }
    brandubh_web::serve_blocking(a.addr, cfg, |addr| {
        println!(
            "brandubh serve: open http://{addr}/  (models {}, runs {}; Ctrl-C stops)",
            a.models.display(),
            a.runs.display()
        );
    })
    .with_context(|| format!("serving on {}", a.addr))
}

use anyhow::{bail, Result};
use brandubh_model::export::export;
use burn::tensor::Device;
use std::path::PathBuf;
use std::sync::Arc;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Checkpoint directory.
    #[arg(long)]
    model: PathBuf,
    /// The ONNX file to write; the model card goes beside it as FILE.json.
    #[arg(long)]
    out: PathBuf,
}

pub fn run(a: Args) -> Result<()> {
    let meta = brandubh_model::read_meta(&a.model)?;
    let rules = Arc::new(super::load_rules(&meta.rules)?);
    if format!("{:016x}", rules.hash) != meta.rules_hash {
        bail!(
            "{}: trained for rule set `{}` with hash {}, but `{}` here has hash {:016x}",
            a.model.display(),
            meta.rules,
            meta.rules_hash,
            meta.rules,
            rules.hash
        );
    }
    let device = Device::flex();
    let (net, config, meta) = brandubh_model::load(&a.model, &rules, &device)?;
    if let Some(dir) = a.out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let report = export(&net, &config, &meta, &rules, &a.out)?;
    println!(
        "wrote {} and {} (input `{}`, output `{}`); tract matches burn within {:.2e} on the test vectors",
        a.out.display(),
        a.out.with_extension("json").display(),
        report.input_name,
        report.output_name,
        report.max_abs_diff
    );
    Ok(())
}

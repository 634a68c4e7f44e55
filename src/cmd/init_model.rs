use anyhow::{bail, Result};
use brandubh_model::{save, NetConfig, NetShape};
use burn::tensor::Device;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Rule set the net plays.
    #[arg(long, default_value = "wtf")]
    rules: String,
    /// Checkpoint directory to write.
    #[arg(long)]
    out: PathBuf,
    /// Net config: JSON with the net shape a checkpoint records, e.g.
    /// {"channels":64,"blocks":4,"value_hidden":64}, plus "moves_left":true
    /// for a moves-left output.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Trunk channels (when no --config), 1 to 512.
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u16).range(1..=512))]
    channels: u16,
    /// Residual blocks (when no --config), 0 to 64.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(0..=64))]
    blocks: u16,
    /// Seed of the random initialisation.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Replace an existing checkpoint.
    #[arg(long)]
    force: bool,
}

pub fn run(a: Args) -> Result<()> {
    let rules = super::load_rules(&a.rules)?;
    if a.out.join("model.json").exists() && !a.force {
        bail!(
            "{} already holds a checkpoint (use --force to replace it)",
            a.out.display()
        );
    }
    // The directory is replaced whole: never one that holds anything else.
    if a.out.exists() && !a.out.join("model.json").exists() {
        let empty = std::fs::read_dir(&a.out).is_ok_and(|mut d| d.next().is_none());
        if !empty {
            bail!(
                "{} exists and is not a checkpoint; give a new or empty directory",
                a.out.display()
            );
        }
    }
    let config = match &a.config {
        Some(p) => {
            let text =
                std::fs::read_to_string(p).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
            serde_json::from_str::<NetShape>(&text)
                .map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?
                .config()
        }
        None => NetConfig::new()
            .with_channels(a.channels as usize)
            .with_blocks(a.blocks as usize),
    };
    if let Err(why) = brandubh_model::NetShape::from(&config).check() {
        match &a.config {
            Some(p) => bail!("{}: {why}", p.display()),
            None => bail!("{why}"),
        }
    }
    let device = Device::flex();
    device.seed(a.seed);
    let net = config.init(&device);
    // A fresh directory beside the target, put in its place whole, so that
    // `--force` never leaves weights and metadata of two different nets.
    let name = a
        .out
        .file_name()
        .map_or_else(|| "checkpoint".into(), |n| n.to_string_lossy().into_owned());
    let tmp = a
        .out
        .with_file_name(format!(".{name}.{}.new", std::process::id()));
    let aside = a
        .out
        .with_file_name(format!(".{name}.{}.old", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let meta = save(
        &tmp,
        &net,
        &config,
        &rules,
        0,
        0,
        brandubh_model::Provenance {
            note: "init-model: random weights".into(),
            seed: Some(a.seed),
            ..Default::default()
        },
    )?;
    if let Some(parent) = a.out.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)?;
    }
    brandubh_durable::replace_dir(&tmp, &a.out, &aside)
        .map_err(|e| anyhow::anyhow!("{}: {e}", a.out.display()))?;
    println!(
        "wrote {} ({} channels × {} blocks, rules {}, model id {})",
        a.out.display(),
        config.channels,
        config.blocks,
        rules.name(),
        meta.model_id()
    );
    Ok(())
}

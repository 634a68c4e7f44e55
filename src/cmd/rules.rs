use anyhow::Result;
use brandubh_rules::{all_names, opentafl_rules, Position};
use clap::Subcommand;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    what: What,
}

#[derive(Subcommand, Debug)]
enum What {
    /// Names of the known rule sets.
    List,
    /// A rule set's options in words, its OpenTafl rules string and hash.
    Show {
        /// Rule set name or path to a TOML file.
        name: String,
    },
}

pub fn run(args: Args) -> Result<()> {
    match args.what {
        What::List => {
            for name in all_names() {
                match super::load_rules(&name) {
                    Ok(r) => println!("{name:<10} {}", r.options.description),
                    Err(e) => println!("{name:<10} (invalid: {e:#})"),
                }
            }
        }
        What::Show { name } => {
            let rules = super::load_rules(&name)?;
            println!("{} — {}", rules.name(), rules.options.description);
            println!("hash: {:016x}", rules.hash);
            for line in rules.describe() {
                println!("  - {line}");
            }
            let start = Position::start(&rules);
            println!("start position: {}", start.board().to_record());
            print!("{}", start.board().diagram());
            let (ot, missing) = opentafl_rules(&rules);
            println!("OpenTafl rules string: {ot}");
            if !missing.is_empty() {
                println!("OpenTafl cannot express:");
                for m in missing {
                    println!("  - {m}");
                }
            }
        }
    }
    Ok(())
}

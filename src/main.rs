//! `brandubh`: the command-line front end. Parses arguments and calls the
//! libraries; each subcommand lives in `cmd/`.

mod cmd;

use clap::Parser;

fn main() {
    let cli = cmd::Cli::parse();
    if let Err(err) = cmd::run(cli) {
        eprintln!("error: {err:#}");
        std::process::exit(1);
    }
}

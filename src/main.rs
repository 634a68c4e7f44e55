//! `brandubh`: the command-line front end. Parses arguments and calls the
//! libraries; each subcommand lives in `cmd/`.

mod cmd;

use clap::Parser;

fn main() {
    // Model directories given to `mcts:model=DIR` or `--model DIR` load
    // through the burn net.
    brandubh_selfplay::register_model_loader(brandubh_model::model_loader);
    let cli = cmd::Cli::parse();
    if let Err(err) = cmd::run(cli) {
        eprintln!("error: {err:#}");
        std::process::exit(1);
    }
}

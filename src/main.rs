//! `brandubh`: the command-line front end. Parses arguments and calls the
//! libraries; each subcommand lives in `cmd/`.

mod cmd;

use clap::Parser;

fn main() {
    // A damaged shard is reported as an error naming it; the parquet
    // decoder's panic behind that error is not printed as well.
    brandubh_selfplay::records::quiet_decoder_panics();
    let cli = cmd::Cli::parse();
    if let Err(err) = cmd::run(cli) {
        eprintln!("error: {}", message(&err));
        std::process::exit(1);
    }
}

/// The error and its causes in one line, leaving out a cause whose text
/// the message already holds (many errors name their cause themselves).
fn message(err: &anyhow::Error) -> String {
    let mut text = err.to_string();
    for cause in err.chain().skip(1) {
        let c = cause.to_string();
        if !text.contains(&c) {
            text.push_str(": ");
            text.push_str(&c);
        }
    }
    text
}

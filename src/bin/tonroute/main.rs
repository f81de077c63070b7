//! `tonroute`: quote, build swaps and serve the `/v4` API from a shell.
//!
//! Every command goes through [`tonroute::api::Api`], so the shell sees exactly what HTTP clients see (same
//! validation, same `{code, message}` errors). The clock lives here, not in the library: a swap's `query_id`
//! and deadline are derived from the time the command runs.
//!
//! Layout: [`args`] is the whole command line (clap); [`cmd`] runs one command a file (the composition root:
//! files read, graph built, [`tonroute::api::Api`] assembled); [`print`] writes answers to stdout; [`error`] is
//! the one error type and its exit codes. Adding a command: a variant in [`args::Command`], a file in `cmd/`,
//! an arm in [`cmd::run`].

mod args;
mod cmd;
mod error;
#[cfg(any(feature = "server", feature = "sync"))]
mod logs;
mod print;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let command = args::Cli::parse().command;
    // A command whose answer is machine output reports a refusal as the API's `{code, message}` object.
    let json = matches!(&command, args::Command::Quote(q) if q.json);
    match cmd::run(command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => e.report(json),
    }
}

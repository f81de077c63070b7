//! The commands, one file each, and what they share: finding and loading the snapshot, and writing snapshot
//! files atomically (`files.rs`, for `import` and `sync`). This is the binary's
//! composition root (files read, graph built, [`tonroute::api::Api`] assembled); the routing, validation and
//! errors all come from the library.

mod files;
mod import;
#[cfg(feature = "store")]
mod market;
#[cfg(feature = "nats")]
mod publish;
mod quote;
#[cfg(feature = "server")]
mod serve;
mod swap;
#[cfg(feature = "sync")]
mod sync;

use std::path::{Path, PathBuf};

use tonroute::graph::snapshot::Snapshot;
use tonroute::graph::PoolGraph;

use crate::args::{Command, SnapshotArg};
use crate::error::CliError;

/// Runs one command.
pub(crate) fn run(command: Command) -> Result<(), CliError> {
    match command {
        Command::Quote(args) => quote::run(args),
        Command::Swap(args) => swap::run(args),
        #[cfg(feature = "server")]
        Command::Serve(args) => serve::run(args),
        Command::Import(args) => import::run(args),
        #[cfg(feature = "sync")]
        Command::Sync(args) => sync::run(args),
        #[cfg(feature = "store")]
        Command::Market(command) => market::run(command),
        #[cfg(feature = "nats")]
        Command::Publish(args) => publish::run(args),
    }
}

/// `data/snapshot.json` of the source tree this binary was built from, or of the current directory.
fn default_snapshot() -> PathBuf {
    let bundled = Path::new(env!("CARGO_MANIFEST_DIR")).join("data").join("snapshot.json");
    if bundled.exists() {
        bundled
    } else {
        PathBuf::from("data").join("snapshot.json")
    }
}

/// The snapshot file, read and parsed once (a command that needs two graphs of it builds both from this).
struct LoadedSnapshot {
    path: PathBuf,
    snapshot: Snapshot,
}

impl LoadedSnapshot {
    fn read(arg: SnapshotArg) -> Result<LoadedSnapshot, CliError> {
        let path = arg.snapshot.unwrap_or_else(default_snapshot);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(source) => return Err(CliError::ReadSnapshot { path, source }),
        };
        match Snapshot::from_json(&text) {
            Ok(snapshot) => Ok(LoadedSnapshot { path, snapshot }),
            Err(source) => Err(CliError::Snapshot { path, source }),
        }
    }

    /// A graph of the snapshot's pools (a fresh one at each call: each holds its own live reserves).
    fn graph(&self) -> Result<PoolGraph, CliError> {
        self.snapshot.into_graph().map_err(|source| CliError::Snapshot { path: self.path.clone(), source })
    }
}

/// The graph of the snapshot file a command was given (or the bundled one).
fn load_graph(arg: SnapshotArg) -> Result<PoolGraph, CliError> {
    LoadedSnapshot::read(arg)?.graph()
}

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

/// A warning when a route's min-out is 0 (`outs`: each route's quoted output, in order): its output is so
/// small that the slippage rounds the minimum down to nothing, and the swap message then accepts any output.
/// The exchanges take a zero limit (their SDKs pass it on as "no limit"), so this warns and does not refuse.
fn zero_min_out_warning(slippage_bps: u32, outs: impl IntoIterator<Item = u128>) -> Option<String> {
    let outs: Vec<u128> = outs.into_iter().collect();
    let zero: Vec<String> = outs
        .iter()
        .enumerate()
        .filter(|(_, out)| tonroute::route::min_out(**out, slippage_bps).is_ok_and(|m| m == 0))
        .map(|(i, _)| (i + 1).to_string())
        .collect();
    if zero.is_empty() {
        return None;
    }
    let which = if outs.len() == 1 {
        "the min out is 0".to_string()
    } else {
        format!("the min out of route {} (of {}) is 0", zero.join(", "), outs.len())
    };
    Some(format!(
        "{which} (the quoted output less {}.{:02} % slippage rounds down to nothing): the swap message would \
         accept any output, with no slippage protection; quote a larger amount",
        slippage_bps / 100,
        slippage_bps % 100
    ))
}

/// The environment variable naming where the bundled data is installed, for a binary whose source tree is gone
/// (`cargo install --git` builds in a directory it then deletes).
pub(crate) const DATA_DIR_ENV: &str = "TONROUTE_DATA_DIR";

/// The bundled data's directories in the order they are looked for: `data/` of the current directory (a
/// checkout run from its root, or a copy of the bundle), then the installed one: `$TONROUTE_DATA_DIR` when set,
/// else `data/` of the source tree this binary was built from. One rule for every default file
/// (`data/snapshot.json`, `data/market.json`, `data/market.db`): it is the relative path `data/…` a user would
/// type, resolved against the current directory like any path given on the command line, with the installed
/// data as the fallback when the current directory holds no bundle.
fn data_dirs() -> Vec<PathBuf> {
    let here = std::env::current_dir().map_or_else(|_| PathBuf::from("data"), |d| d.join("data"));
    let installed = match std::env::var_os(DATA_DIR_ENV) {
        Some(dir) if !dir.is_empty() => absolute(Path::new(&dir)),
        _ => Path::new(env!("CARGO_MANIFEST_DIR")).join("data"),
    };
    if here == installed {
        vec![here]
    } else {
        vec![here, installed]
    }
}

/// The bundled data directory: the first of [`data_dirs`] holding `snapshot.json` (the bundle), else the
/// first (where a missing file is then reported).
#[cfg(feature = "store")]
pub(crate) fn data_dir() -> PathBuf {
    let dirs = data_dirs();
    dirs.iter().find(|d| d.join("snapshot.json").is_file()).unwrap_or(&dirs[0]).clone()
}

/// The default snapshot: `snapshot.json` of the bundled data directory, or the error naming every path tried.
fn default_snapshot() -> Result<PathBuf, CliError> {
    let tried: Vec<PathBuf> = data_dirs().into_iter().map(|d| d.join("snapshot.json")).collect();
    match tried.iter().find(|p| p.is_file()) {
        Some(found) => Ok(found.clone()),
        None => Err(CliError::NoDefaultSnapshot { tried }),
    }
}

/// `path` made absolute against the current directory (for messages: a relative path does not say where a file
/// went), lexically (the file may not exist yet).
pub(crate) fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The snapshot file, read and parsed once (a command that needs two graphs of it builds both from this).
struct LoadedSnapshot {
    path: PathBuf,
    snapshot: Snapshot,
}

impl LoadedSnapshot {
    fn read(arg: SnapshotArg) -> Result<LoadedSnapshot, CliError> {
        let path = match arg.snapshot {
            Some(path) => path,
            None => default_snapshot()?,
        };
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(source) => return Err(CliError::ReadSnapshot { path, source }),
        };
        let snapshot = parse_snapshot(&path, &text)?;
        Ok(LoadedSnapshot { path, snapshot })
    }

    /// Refuses a snapshot without a pool: a command that quotes on it could only say that no asset is known.
    fn require_pools(&self) -> Result<(), CliError> {
        if self.snapshot.pools.is_empty() {
            return Err(CliError::EmptySnapshot { path: self.path.clone() });
        }
        Ok(())
    }

    /// A graph of the snapshot's pools (a fresh one at each call: each holds its own live reserves).
    fn graph(&self) -> Result<PoolGraph, CliError> {
        self.snapshot.into_graph().map_err(|source| CliError::Snapshot { path: self.path.clone(), source })
    }
}

/// The snapshot file `path` holding `text`, parsed. JSON of another shape (an exchange API response, an array)
/// is named as what it is, with the command that makes a snapshot of a response, instead of the parser's
/// field-level complaint.
fn parse_snapshot(path: &Path, text: &str) -> Result<Snapshot, CliError> {
    Snapshot::from_json(text).map_err(|source| match not_a_snapshot(path, text) {
        Some(what) => CliError::NotASnapshot { path: path.to_path_buf(), what },
        None => CliError::Snapshot { path: path.to_path_buf(), source },
    })
}

/// What the JSON `text` is when it is plainly not a snapshot (an object with `assets` and `pools`); `None`
/// for text that is not JSON or looks like a snapshot (its own error says what is wrong).
fn not_a_snapshot(path: &Path, text: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    let expected = "a tonroute snapshot is a JSON object with `assets` and `pools`";
    let is_empty_array = value.as_array().is_some_and(Vec::is_empty);
    if let Some(kind) = tonroute::import::detect(&value).filter(|_| !is_empty_array) {
        return Some(format!(
            "this is an exchange API response ({}), not a tonroute snapshot: `tonroute import {} --out \
             snapshot.json` makes a snapshot of it",
            kind.describe(),
            path.display()
        ));
    }
    match &value {
        serde_json::Value::Object(o) if o.contains_key("assets") || o.contains_key("pools") => None,
        serde_json::Value::Object(_) => Some(format!("a JSON object without `assets` and `pools`; {expected}")),
        serde_json::Value::Array(_) => Some(format!("a JSON array; {expected}")),
        _ => Some(format!("a JSON {}; {expected}", if value.is_string() { "string" } else { "scalar" })),
    }
}

/// The graph of the snapshot file a command was given (or the bundled one), which must have a pool.
fn load_graph(arg: SnapshotArg) -> Result<PoolGraph, CliError> {
    let loaded = LoadedSnapshot::read(arg)?;
    loaded.require_pools()?;
    loaded.graph()
}

//! The binary's one error type: everything a command can fail on, each with its cause kept as the source, and
//! how it is reported (stderr text and exit code). The library's errors are wrapped, never flattened to text.

use std::io;
use std::path::PathBuf;
use std::process::ExitCode;

use tonroute::api::ApiError;
use tonroute::graph::GraphError;

/// Why a command failed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CliError {
    /// The API refused the request (bad asset, no route, bad `swap_data`…): the same `{code, message}` an HTTP
    /// client gets. Exit code 1.
    #[error(transparent)]
    Refused(#[from] ApiError),
    /// The snapshot file cannot be read.
    #[error("cannot read snapshot {}", path.display())]
    ReadSnapshot {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// The snapshot file is not a valid snapshot.
    #[error("snapshot {}", path.display())]
    Snapshot {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: GraphError,
    },
    /// Standard input cannot be read.
    #[error("reading stdin")]
    ReadStdin(#[source] io::Error),
    /// Standard input is not JSON.
    #[error("stdin is not JSON")]
    StdinNotJson(#[source] serde_json::Error),
    /// An answer cannot be written as JSON.
    #[error("writing the answer as JSON")]
    WriteJson(#[source] serde_json::Error),
    /// The market-data file cannot be read.
    #[cfg(feature = "store")]
    #[error("reading {}", path.display())]
    ReadMarket {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// The market-data file is refused (shape, or a trade that does not replay on the snapshot).
    #[cfg(feature = "store")]
    #[error("market data {}", path.display())]
    Market {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: tonroute::market::MarketDataError,
    },
    /// The market data's last pool states cannot be written onto the router's graph.
    #[cfg(feature = "store")]
    #[error("market data {}", path.display())]
    ApplyMarket {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: GraphError,
    },
    /// The market database cannot be opened, read or written.
    #[cfg(feature = "store")]
    #[error("market database {url}")]
    Store {
        /// The URL's scheme and path or host (never a password).
        url: String,
        /// Why (boxed, like a trade line's refusal).
        #[source]
        source: Box<tonroute::market::store::sql::StoreError>,
    },
    /// A trade file cannot be read.
    #[cfg(feature = "store")]
    #[error("reading {}", path.display())]
    ReadTrades {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// A trade line is refused; nothing of its file was written.
    #[cfg(feature = "store")]
    #[error("{}:{line}: trade refused, nothing of this file was stored", path.display())]
    TradeLine {
        /// The file.
        path: PathBuf,
        /// Line number, from 1.
        line: usize,
        /// Why (boxed: the largest refusal would make every command's error large).
        #[source]
        source: Box<tonroute::market::ingest::LineError>,
    },
    /// A liquidity-event line is refused; nothing of its file was written.
    #[cfg(feature = "store")]
    #[error("{}:{line}: liquidity event refused, nothing of this file was stored", path.display())]
    LiquidityLine {
        /// The file.
        path: PathBuf,
        /// Line number, from 1.
        line: usize,
        /// Why.
        #[source]
        source: Box<tonroute::market::liquidity::LiquidityLineError>,
    },
    /// A balance line is refused; nothing of its file was written.
    #[cfg(feature = "store")]
    #[error("{}:{line}: balance refused, nothing of this file was stored", path.display())]
    BalanceLine {
        /// The file.
        path: PathBuf,
        /// Line number, from 1.
        line: usize,
        /// Why.
        #[source]
        source: Box<tonroute::market::wallets::BalanceLineError>,
    },
    /// The admin tokens (TONROUTE_ADMIN_TOKEN, --admin-token-file) are unusable.
    #[cfg(feature = "server")]
    #[error("admin token")]
    AdminToken(#[source] tonroute::server::auth::AuthConfigError),
    /// The async runtime does not start.
    #[cfg(any(feature = "server", feature = "sync", feature = "nats"))]
    #[error("starting the runtime")]
    Runtime(#[source] io::Error),
    /// The listening address cannot be bound.
    #[cfg(feature = "server")]
    #[error("binding {addr}")]
    Bind {
        /// The address asked for.
        addr: String,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// Logging cannot be set up (`RUST_LOG` does not parse).
    #[cfg(any(feature = "server", feature = "sync"))]
    #[error("setting up logs")]
    Logs(#[source] crate::logs::LogInitError),
    /// The server stopped on an error.
    #[cfg(feature = "server")]
    #[error("server")]
    Serve(#[source] io::Error),
    /// An input file (a saved API response) cannot be read.
    #[error("reading {}", path.display())]
    ReadInput {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// The `--base` snapshot of `import` does not exist.
    #[error("--base {}: no such file", path.display())]
    NoBase {
        /// The file asked for.
        path: PathBuf,
    },
    /// The saved responses do not import (nothing is written).
    #[error("import; nothing written")]
    Import(#[from] tonroute::import::ImportError),
    /// A snapshot cannot be encoded as JSON.
    #[error("encoding the snapshot")]
    EncodeSnapshot(#[source] serde_json::Error),
    /// A snapshot file cannot be written (the old file, if any, is untouched).
    #[error("writing {}", path.display())]
    WriteSnapshot {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// `sync --rate` is not a positive number of requests per second.
    #[cfg(feature = "sync")]
    #[error("--rate must be a positive number of requests per second, not {rate}")]
    BadRate {
        /// The rate given.
        rate: f64,
    },
    /// No snapshot could be built from the exchanges' APIs and toncenter (nothing is written).
    #[cfg(feature = "sync")]
    #[error("sync; nothing written")]
    Sync(#[from] tonroute::sync::SyncError),
    /// `serve --nats` cannot follow the bucket (a bucket name NATS refuses; an unreachable server is not an
    /// error: the replica retries in the background).
    #[cfg(all(feature = "server", feature = "nats"))]
    #[error("following the reserve stream")]
    Follow(#[source] tonroute::feed::FeedError),
    /// `publish` cannot write the snapshot into the bucket (connection, bucket, a write not acknowledged).
    #[cfg(feature = "nats")]
    #[error("publishing to NATS")]
    Publish(#[source] tonroute::feed::FeedError),
    /// `sync --nats`: a refreshed pool cannot be stated on the stream (a snapshot entry that does not parse).
    #[cfg(all(feature = "sync", feature = "nats"))]
    #[error("publishing to NATS")]
    StreamChange(#[source] tonroute::sync::publish::StreamChangeError),
    /// `sync --market-db`: the synced pools cannot be stored as a market.
    #[cfg(all(feature = "sync", feature = "store"))]
    #[error("storing the synced pools in the market database")]
    SyncMarket(#[source] tonroute::market::MarketDataError),
    /// `sync --wallets FILE` cannot be read.
    #[cfg(all(feature = "sync", feature = "store"))]
    #[error("reading the wallets file {}", path.display())]
    ReadWallets {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// A tracked wallet (`--wallet`, or a line of `--wallets FILE`) is not an address.
    #[cfg(all(feature = "sync", feature = "store"))]
    #[error("{origin}: `{text}` is not a wallet address")]
    BadWallet {
        /// `--wallet`, or `FILE:LINE`.
        origin: String,
        /// The text.
        text: String,
        /// Why.
        #[source]
        source: tonroute::asset::AddressError,
    },
    /// `sync --nats` without `--watch`: the snapshot file was written but publishing it failed (logged above).
    #[cfg(all(feature = "sync", feature = "nats"))]
    #[error("the snapshot was written, but publishing it to NATS at {url} failed")]
    PublishIncomplete {
        /// The NATS URL.
        url: String,
    },
}

impl CliError {
    /// Writes the error to stderr and gives the exit code: 1 for a refusal by the API (its JSON body first, as
    /// HTTP clients get it), 2 for everything else (files, stdin, network), with the chain of causes.
    pub(crate) fn report(&self) -> ExitCode {
        match self {
            CliError::Refused(e) => {
                eprintln!("{}", e.to_json());
                eprintln!("error: {e}");
                ExitCode::from(1)
            }
            other => {
                eprintln!("error: {}", chain(other));
                ExitCode::from(2)
            }
        }
    }
}

/// `error: cause: cause of the cause…`, one line. A cause whose text its wrapper already ends with (library
/// errors that print their source too) is not written twice.
pub(crate) fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut next = e.source();
    while let Some(cause) = next {
        let said = cause.to_string();
        if !text.ends_with(&said) {
            text.push_str(": ");
            text.push_str(&said);
        }
        next = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::{chain, CliError};

    #[test]
    fn the_report_names_the_file_and_every_cause() {
        let e = CliError::ReadSnapshot {
            path: PathBuf::from("nowhere/snapshot.json"),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "No such file or directory"),
        };
        assert_eq!(chain(&e), "cannot read snapshot nowhere/snapshot.json: No such file or directory");
    }

    #[test]
    fn a_cause_its_wrapper_already_printed_is_not_repeated() {
        let json = serde_json::from_str::<serde_json::Value>("{").unwrap_err();
        let said = json.to_string();
        let e = CliError::Import(tonroute::import::ImportError::Json { file: "cut.json".into(), source: json });
        assert_eq!(chain(&e), format!("import; nothing written: cut.json: not JSON: {said}"));
    }
}

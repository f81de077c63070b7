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
    /// The API refused the request and the shell knows more about why (e.g. AMOUNT read in smallest units):
    /// the refusal as [`CliError::Refused`], with `hint` after it. Exit code 1.
    #[error("{error}; {hint}")]
    Hinted {
        /// The refusal.
        error: ApiError,
        /// What to do about it, in the shell's terms.
        hint: String,
    },
    /// No `--snapshot` was given and no bundled snapshot exists where it is looked for.
    #[error(
        "no --snapshot FILE given and no bundled snapshot found (tried {}); give one with --snapshot FILE, or set \
         TONROUTE_DATA_DIR to the directory of the bundled data",
        tried.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
    )]
    NoDefaultSnapshot {
        /// Every path tried, in order.
        tried: Vec<PathBuf>,
    },
    /// The snapshot file cannot be read.
    #[error("cannot read snapshot {}", path.display())]
    ReadSnapshot {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// The snapshot file is JSON of another shape (an exchange API response, an array): `what` says which.
    #[error("snapshot {}: {what}", path.display())]
    NotASnapshot {
        /// The file.
        path: PathBuf,
        /// What the file is instead, and what to do.
        what: String,
    },
    /// The snapshot has no pool: nothing could be quoted on it (`serve --nats` may start from one and fill it
    /// from the bucket).
    #[error("snapshot {}: it has no pool, so no quote can be made on it; give a snapshot with pools (`tonroute import` or `tonroute sync` write one)", path.display())]
    EmptySnapshot {
        /// The file.
        path: PathBuf,
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
    /// Standard input is not JSON (`swap` reads a quote as JSON); `table` says whether it looks like the table
    /// `quote` prints without `--json`, the usual slip.
    #[error(
        "{}; swap reads the JSON of a quote: tonroute quote IN OUT AMOUNT --json | tonroute swap --sender ADDR",
        if *table { "stdin holds the table `quote` prints, not its JSON".to_string() }
        else if error.is_eof() && error.line() == 1 && error.column() == 0 { "stdin is empty".to_string() }
        else { format!("stdin is not JSON ({error})") }
    )]
    StdinNotJson {
        /// Why (said in the message, not a separate cause: the hint comes last).
        error: serde_json::Error,
        /// The input looks like `quote`'s table.
        table: bool,
    },
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
    /// The seed market file given with `--market-seed` cannot be read or is refused (checked before any database
    /// is opened).
    #[cfg(feature = "store")]
    #[error("--market-seed")]
    MarketSeed(#[source] Box<CliError>),
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
    /// An ingest file holds no line (empty, or blank lines only): nothing is written, so the command does not
    /// report a store of nothing as done.
    #[cfg(feature = "store")]
    #[error("{}: no trade, liquidity event or balance line in it; nothing was stored", path.display())]
    NoLines {
        /// The file.
        path: PathBuf,
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
    /// A line gives another version of a record (same key, other content) than the store or an earlier line of
    /// the ingest holds; nothing of its file was written.
    #[cfg(feature = "store")]
    #[error("{}:{line}: {what} refused, nothing of this file was stored", path.display())]
    Conflict {
        /// The file.
        path: PathBuf,
        /// Line number, from 1.
        line: usize,
        /// `trade`, `liquidity event`, `balance`.
        what: &'static str,
        /// Both versions.
        #[source]
        source: Box<tonroute::market::conflict::Conflict>,
    },
    /// The admin tokens (TONROUTE_ADMIN_TOKEN, --admin-token-file) are unusable.
    #[cfg(feature = "server")]
    #[error("admin token")]
    AdminToken(#[source] tonroute::server::auth::AuthConfigError),
    /// `serve`'s settings do not fit together (e.g. a memory budget smaller than the loaded data).
    #[cfg(feature = "server")]
    #[error("{0}")]
    ServeSettings(String),
    /// The async runtime does not start.
    #[cfg(any(feature = "server", feature = "sync", feature = "nats"))]
    #[error("starting the runtime")]
    Runtime(#[source] io::Error),
    /// The listening address cannot be bound.
    #[cfg(feature = "server")]
    #[error("{flag} {addr}: cannot listen there")]
    Bind {
        /// The flag that named it (`--addr`, `--metrics-addr`).
        flag: &'static str,
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
    /// `import --out` names one of its inputs (a saved response or `--base`): refused before anything is read.
    #[error("--out {} is the input {}: an import never writes over what it reads; choose another --out", out.display(), input.display())]
    OutIsInput {
        /// The `--out` path.
        out: PathBuf,
        /// The input it is (as given).
        input: PathBuf,
    },
    /// `--out` names a directory, not the snapshot file to write.
    #[error("--out {}: is a directory; give the snapshot file to write (e.g. {})", out.display(), out.join("snapshot.json").display())]
    OutIsDirectory {
        /// The `--out` path.
        out: PathBuf,
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
    /// The build read nothing usable: nothing is written to `out` (a file there stays as it was).
    #[cfg(feature = "sync")]
    #[error("sync; nothing written to {}", out.display())]
    SyncBuild {
        /// The `--out` file.
        out: PathBuf,
        /// Why (boxed: the largest sync error would make every command's error large).
        #[source]
        source: Box<tonroute::sync::SyncError>,
    },
    /// `serve --nats` cannot follow the bucket (a bucket name NATS refuses; an unreachable server is not an
    /// error: the replica retries in the background).
    #[cfg(all(feature = "server", feature = "nats"))]
    #[error("following the reserve stream")]
    Follow(#[source] tonroute::feed::FeedError),
    /// `publish` was given a snapshot without a pool: nothing would be written, so nothing is reported as
    /// published (and NATS is not contacted).
    #[cfg(feature = "nats")]
    #[error("{}: the snapshot has no pool; nothing was published", path.display())]
    NothingToPublish {
        /// The snapshot file.
        path: std::path::PathBuf,
    },
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
    /// Writes the error to stderr, one line, and gives the exit code: 1 for a refusal by the API, 2 for
    /// everything else (files, stdin, network), with the chain of causes. A refusal is `error: MESSAGE (code
    /// N)` in the shell's terms (arguments and flags, not the HTTP body's fields: [`in_shell_terms`]); with
    /// `json` (a command whose answer is machine output, `quote --json`) it is the API's `{code, message}`
    /// object instead, as HTTP clients get it.
    pub(crate) fn report(&self, json: bool) -> ExitCode {
        match self {
            CliError::Refused(e) | CliError::Hinted { error: e, .. } if json => {
                eprintln!("{}", e.to_json());
                ExitCode::from(1)
            }
            CliError::Refused(e) => {
                eprintln!("error: {} (code {})", in_shell_terms(e.message()), e.code());
                ExitCode::from(1)
            }
            CliError::Hinted { error, hint } => {
                eprintln!("error: {} (code {}); {hint}", in_shell_terms(error.message()), error.code());
                ExitCode::from(1)
            }
            other => {
                eprintln!("error: {}", chain(other));
                ExitCode::from(2)
            }
        }
    }
}

/// An API message in the shell's terms: the request fields the shell filled in are named as the arguments and
/// flags they came from (`field `amount`: …` → `AMOUNT: …`, `max_length 4` → `--max-length 4`); the fields of the
/// JSON read on stdin (`swap_data.…`) keep their path, said to be on stdin.
pub(crate) fn in_shell_terms(message: &str) -> String {
    // Longest first: `swap_data.slippage_bps` before `slippage_bps`.
    const NAMES: [(&str, &str); 7] = [
        ("in_minter", "IN"),
        ("out_minter", "OUT"),
        ("amount", "AMOUNT"),
        ("max_splits", "--max-splits"),
        ("max_length", "--max-length"),
        ("slippage_bps", "--slippage-bps"),
        ("sender_address", "--sender"),
    ];
    let mut text = match message.strip_prefix("field `").and_then(|rest| rest.split_once("`: ")) {
        Some((field, rest)) if field.starts_with("swap_data") => format!("stdin `{field}`: {rest}"),
        Some((field, rest)) => match NAMES.iter().find(|(api, _)| *api == field) {
            Some((_, shell)) => format!("{shell}: {rest}"),
            None => message.to_string(),
        },
        None => message.to_string(),
    };
    for (api, shell) in NAMES {
        text = text.replace(&format!("`{api}`"), shell);
        // The core's messages name some limits bare (`more than max_length 3 (ask with max_length 4)`); `amount`
        // is also an ordinary word, so it is only replaced in backticks.
        if api != "amount" && api != "in_minter" && api != "out_minter" {
            text = replace_word(&text, api, shell);
        }
    }
    text
}

/// `text` with every occurrence of the identifier `word` (not part of a longer identifier, nor a JSON path's
/// segment such as `swap_data.slippage_bps`) replaced by `with`.
fn replace_word(text: &str, word: &str, with: &str) -> String {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.';
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(word) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + word.len()..].chars().next();
        out.push_str(&rest[..at]);
        if before.is_some_and(ident) || after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            out.push_str(word);
        } else {
            out.push_str(with);
        }
        rest = &rest[at + word.len()..];
    }
    out.push_str(rest);
    out
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
    fn api_messages_name_the_shell_arguments() {
        use super::in_shell_terms as t;
        assert_eq!(t("field `amount`: must be positive"), "AMOUNT: must be positive");
        assert_eq!(t("field `max_length`: 9 is out of range 1..=5"), "--max-length: 9 is out of range 1..=5");
        assert_eq!(t("field `out_minter`: same asset as `in_minter` (native)"), "OUT: same asset as IN (native)");
        assert_eq!(
            t("no route from A to B: the shortest route has 4 hops, more than max_length 3 (ask with max_length 4)"),
            "no route from A to B: the shortest route has 4 hops, more than --max-length 3 (ask with --max-length 4)"
        );
        assert_eq!(
            t("field `swap_data.slippage_bps`: 20000 is out of range 0..=10000"),
            "stdin `swap_data.slippage_bps`: 20000 is out of range 0..=10000"
        );
        assert_eq!(t("field `sender_address`: bad checksum"), "--sender: bad checksum");
        assert_eq!(
            t("every route refuses this amount (output rounds to zero)"),
            "every route refuses this amount (output rounds to zero)"
        );
    }

    #[test]
    fn a_cause_its_wrapper_already_printed_is_not_repeated() {
        let json = serde_json::from_str::<serde_json::Value>("{").unwrap_err();
        let said = json.to_string();
        let e = CliError::Import(tonroute::import::ImportError::Json { file: "cut.json".into(), source: json });
        assert_eq!(chain(&e), format!("import; nothing written: cut.json: not JSON: {said}"));
    }
}

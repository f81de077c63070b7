//! The process's one log subscriber (`serve` and `sync`): lines on stderr, human text or JSON (`--log-json`),
//! filtered by `RUST_LOG`. The library only emits `tracing` events (request lines, stream and sync events);
//! installing a global subscriber is the binary's business, so it lives here.

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object per line (for log shippers).
    Json,
}

/// The directives used when `RUST_LOG` is unset: info for everything (one line per request included), but
/// warnings only from the NATS client, which logs every reconnect attempt (once a second while NATS is away,
/// without the address): the replica logs those failures itself, with the URL and at most once a minute
/// (`tonroute::feed::watch`).
pub(crate) const DEFAULT_FILTER: &str = "info,async_nats=warn";

/// Installs the process's log subscriber: lines on stderr in `format`, filtered by `RUST_LOG` (e.g.
/// `RUST_LOG=warn` silences request lines, `RUST_LOG=info,tonroute::request=off` only them). Returns an error
/// (and installs nothing) when `RUST_LOG` does not parse or a subscriber is already installed.
pub(crate) fn init(format: LogFormat) -> Result<(), LogInitError> {
    let filter = match std::env::var("RUST_LOG") {
        Ok(directives) => tracing_subscriber::EnvFilter::try_new(&directives)
            .map_err(|source| LogInitError::Filter { directives, source })?,
        Err(_) => tracing_subscriber::EnvFilter::new(DEFAULT_FILTER),
    };
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr);
    let installed = match format {
        LogFormat::Text => builder.with_ansi(false).try_init(),
        LogFormat::Json => builder.json().flatten_event(true).with_current_span(false).with_span_list(false).try_init(),
    };
    installed.map_err(|e| LogInitError::Installed(e.to_string()))
}

/// Why logging could not be set up.
#[derive(Debug, thiserror::Error)]
pub(crate) enum LogInitError {
    /// `RUST_LOG` does not parse.
    #[error("RUST_LOG={directives:?} does not parse: {source}")]
    Filter {
        /// The variable's value.
        directives: String,
        /// The parser's complaint.
        #[source]
        source: tracing_subscriber::filter::ParseError,
    },
    /// A global subscriber was already installed (its error type is not `Send`; its text is kept).
    #[error("a log subscriber is already installed: {0}")]
    Installed(String),
}

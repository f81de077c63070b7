//! The command line, all of it: every command and flag a user can type, with its help text. Parsing only;
//! what a command does lives in `cmd/`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Exact swap routing for TON DEXes.
#[derive(Parser, Debug)]
#[command(name = "tonroute", version, about)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// One command.
#[derive(Subcommand, Debug)]
pub(crate) enum Command {
    /// Best route(s) for swapping AMOUNT (smallest units) of IN into OUT.
    Quote(QuoteArgs),
    /// Build the swap messages for a quote read from stdin (a /v4/router/quote response, or its swap_data).
    Swap(SwapArgs),
    /// Serve the /v4 API over HTTP.
    #[cfg(feature = "server")]
    Serve(ServeArgs),
}

/// The snapshot a command routes on.
#[derive(Args, Debug, Clone, Default)]
pub(crate) struct SnapshotArg {
    /// Snapshot file (default: the bundled data/snapshot.json).
    #[arg(long)]
    pub(crate) snapshot: Option<PathBuf>,
}

/// `tonroute quote`.
#[derive(Args, Debug)]
pub(crate) struct QuoteArgs {
    /// Asset offered: `native`, `jetton:0:<hex>`, `0:<hex>`, a friendly master address, or a ticker that names
    /// exactly one asset of the snapshot (`TON`, `USDT`).
    #[arg(value_name = "IN")]
    pub(crate) in_asset: String,
    /// Asset wanted (same forms).
    #[arg(value_name = "OUT")]
    pub(crate) out_asset: String,
    /// Amount offered in the asset's smallest units (nanotons for TON); with `--exact-out`, the amount of OUT
    /// wanted.
    pub(crate) amount: String,
    /// AMOUNT is the output wanted: find the smallest input that pays at least it.
    #[arg(long)]
    pub(crate) exact_out: bool,
    /// Most parallel routes (1..=20).
    #[arg(long, default_value_t = 4)]
    pub(crate) max_splits: u32,
    /// Most hops per route (1..=5).
    #[arg(long, default_value_t = 3)]
    pub(crate) max_length: u32,
    /// Slippage tolerance in basis points (0..=10000).
    #[arg(long, default_value_t = 100)]
    pub(crate) slippage_bps: u32,
    #[command(flatten)]
    pub(crate) snapshot: SnapshotArg,
    /// Print the /v4/router/quote response instead of a table.
    #[arg(long)]
    pub(crate) json: bool,
}

/// `tonroute swap`.
#[derive(Args, Debug)]
pub(crate) struct SwapArgs {
    /// The wallet that signs and receives.
    #[arg(long)]
    pub(crate) sender: String,
    #[command(flatten)]
    pub(crate) snapshot: SnapshotArg,
}

/// `tonroute serve`.
#[cfg(feature = "server")]
#[derive(Args, Debug)]
pub(crate) struct ServeArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub(crate) addr: String,
    #[command(flatten)]
    pub(crate) snapshot: SnapshotArg,
    /// Routing time budget per request, milliseconds.
    #[arg(long, default_value_t = 2000)]
    pub(crate) budget_ms: u64,
    /// Market-data file (e.g. data/market.json) generated on the same snapshot: serves /coins, /chart, pools
    /// and affiliates as of the file's `as_of`, and the router sees the pools after its trades.
    #[arg(long)]
    pub(crate) market: Option<PathBuf>,
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::Cli;

    #[test]
    fn the_command_line_is_consistent() {
        // clap's own check: no duplicate flags, defaults that parse, value names that fit.
        Cli::command().debug_assert();
    }
}

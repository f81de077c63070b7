//! `tonroute`: quote, build swaps and serve the `/v4` API from a shell.
//!
//! Every command goes through [`tonroute::api::Api`], so the shell sees exactly what HTTP clients see
//! (same validation, same `{code, message}` errors). The clock lives here, not in the library: a swap's
//! `query_id` and deadline are derived from the time the command runs.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

/// `println!` that ends the process quietly when stdout is closed (`tonroute quote … | head`), instead of
/// panicking on the broken pipe.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = writeln!(std::io::stdout().lock(), $($arg)*) {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                std::process::exit(0);
            }
        }
    }};
}

use clap::{Parser, Subcommand};
use tonroute::api::wire::{DisplayRoute, QuoteResponse};
use tonroute::api::{Api, ApiError, SwapClock};
use tonroute::graph::PoolGraph;

/// Exact swap routing for TON DEXes.
#[derive(Parser, Debug)]
#[command(name = "tonroute", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Best route(s) for swapping AMOUNT (smallest units) of IN into OUT.
    Quote {
        /// Asset offered: `native`, `jetton:0:<hex>`, `0:<hex>`, a friendly master address, or a ticker that
        /// names exactly one asset of the snapshot (`TON`, `USDT`).
        #[arg(value_name = "IN")]
        in_asset: String,
        /// Asset wanted (same forms).
        #[arg(value_name = "OUT")]
        out_asset: String,
        /// Amount offered in the asset's smallest units (nanotons for TON); with `--exact-out`, the amount of
        /// OUT wanted.
        amount: String,
        /// AMOUNT is the output wanted: find the smallest input that pays at least it.
        #[arg(long)]
        exact_out: bool,
        /// Most parallel routes (1..=20).
        #[arg(long, default_value_t = 4)]
        max_splits: u32,
        /// Most hops per route (1..=5).
        #[arg(long, default_value_t = 3)]
        max_length: u32,
        /// Slippage tolerance in basis points (0..=10000).
        #[arg(long, default_value_t = 100)]
        slippage_bps: u32,
        /// Snapshot file (default: the bundled data/snapshot.json).
        #[arg(long)]
        snapshot: Option<PathBuf>,
        /// Print the /v4/router/quote response instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Build the swap messages for a quote read from stdin (a /v4/router/quote response, or its swap_data).
    Swap {
        /// The wallet that signs and receives.
        #[arg(long)]
        sender: String,
        /// Snapshot file (default: the bundled data/snapshot.json).
        #[arg(long)]
        snapshot: Option<PathBuf>,
    },
    /// Serve the /v4 API over HTTP.
    #[cfg(feature = "server")]
    Serve {
        /// Address to listen on.
        #[arg(long, default_value = "127.0.0.1:8080")]
        addr: String,
        /// Snapshot file (default: the bundled data/snapshot.json).
        #[arg(long)]
        snapshot: Option<PathBuf>,
        /// Routing time budget per request, milliseconds.
        #[arg(long, default_value_t = 2000)]
        budget_ms: u64,
        /// Market-data file (e.g. data/market.json) generated on the same snapshot: serves /coins, /chart, pools
        /// and affiliates as of the file's `as_of`, and the router sees the pools after its trades.
        #[arg(long)]
        market: Option<PathBuf>,
    },
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

fn load_graph(path: Option<PathBuf>) -> Result<PoolGraph, String> {
    let path = path.unwrap_or_else(default_snapshot);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read snapshot {}: {e}", path.display()))?;
    PoolGraph::from_json(&text).map_err(|e| format!("snapshot {}: {e}", path.display()))
}

/// A convenience of the shell only: a ticker (`TON`, `usdt`) that names exactly one snapshot asset stands for
/// its id. An id or an address is passed on unchanged for the API's parser to accept or refuse; a word that is
/// neither is refused here, naming the nearest tickers of the snapshot (or, for a ticker several assets share,
/// their ids).
fn resolve_asset(graph: &PoolGraph, field: &str, text: String) -> Result<String, ApiError> {
    use tonroute::api::ErrorCode;
    if tonroute::asset::Asset::parse(&text).is_ok() {
        return Ok(text);
    }
    let fold = |s: &str| s.replace('₮', "T").to_lowercase();
    let wanted = fold(text.trim());
    let named = |a: &tonroute::graph::AssetMeta| format!("{} ({})", a.symbol, a.asset);
    let hits: Vec<_> = graph.assets().iter().filter(|a| fold(&a.symbol) == wanted).collect();
    match hits.as_slice() {
        [one] => return Ok(one.asset.to_string()),
        [] => {}
        many => {
            let list: Vec<String> = many.iter().map(|a| named(a)).collect();
            return Err(ApiError::new(
                ErrorCode::BadAsset,
                format!(
                    "field `{field}`: ticker `{text}` names {} assets; give the id: {}",
                    many.len(),
                    list.join(", ")
                ),
            ));
        }
    }
    // Something written as an address or an id: the API's parser says what is wrong with it.
    let t = text.trim();
    if t.contains(':') || t.len() == 48 || ["EQ", "UQ", "Ef", "Uf", "kQ", "0Q"].iter().any(|p| t.starts_with(p)) {
        return Ok(text);
    }
    let mut near: Vec<(usize, &tonroute::graph::AssetMeta)> =
        graph.assets().iter().map(|a| (edit_distance(&wanted, &fold(&a.symbol)), a)).collect();
    near.sort_by(|x, y| x.0.cmp(&y.0).then_with(|| x.1.symbol.cmp(&y.1.symbol)));
    let list: Vec<String> = near.iter().take(3).map(|(_, a)| named(a)).collect();
    Err(ApiError::new(
        ErrorCode::UnknownAsset,
        format!(
            "field `{field}`: `{text}` is neither an asset id (`native`, `jetton:0:<64 hex>`, an address) nor a \
             ticker of the snapshot; nearest tickers: {}",
            list.join(", ")
        ),
    ))
}

/// Levenshtein distance over characters (tickers are short: the quadratic table is a few hundred cells).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = diagonal + usize::from(ca != *cb);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

fn now_millis() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// `amount` (decimal string, smallest units) in whole tokens, trailing zeros trimmed.
fn units(amount: &str, decimals: u8) -> String {
    let d = usize::from(decimals);
    if d == 0 {
        return amount.to_string();
    }
    let padded = format!("{amount:0>width$}", width = d + 1);
    let (int, frac) = padded.split_at(padded.len() - d);
    let frac = frac.trim_end_matches('0');
    if frac.is_empty() {
        int.to_string()
    } else {
        format!("{int}.{frac}")
    }
}

fn short(addr: &str) -> String {
    if addr.len() > 16 {
        format!("{}…{}", &addr[..8], &addr[addr.len() - 4..])
    } else {
        addr.to_string()
    }
}

fn percent_of_fraction(text: &str) -> String {
    text.parse::<f64>().map_or_else(|_| text.to_string(), |v| format!("{:+.4} %", v * 100.0))
}

fn print_table(r: &QuoteResponse) {
    let first = r.display_data.first().and_then(|d| d.steps.first());
    let last = r.display_data.first().and_then(|d| d.steps.last());
    let (Some(first), Some(last)) = (first, last) else {
        out!("no routes");
        return;
    };
    let (tin, tout) = (&first.in_minter, &last.out_minter);
    let slippage = r.swap_data.slippage_bps;
    let min_out: u128 = r
        .swap_data
        .routes
        .iter()
        .filter_map(|route| route.last())
        .filter_map(|s| s.out_amount.parse::<u128>().ok())
        .filter_map(|o| tonroute::route::min_out(o, slippage).ok())
        .sum();
    let fee: u128 = r.display_data.iter().filter_map(|d| d.network_fee.parse::<u128>().ok()).sum();
    out!(
        "{} {} → {} {}",
        units(&r.in_amount, tin.decimals),
        tin.symbol,
        units(&r.out_amount, tout.decimals),
        tout.symbol
    );
    out!(
        "min out      {} {} (slippage {}.{:02} %)",
        units(&min_out.to_string(), tout.decimals),
        tout.symbol,
        slippage / 100,
        slippage % 100
    );
    out!("price impact {:.4} %", r.price_impact * 100.0);
    out!("improvement  {} over the best single route", percent_of_fraction(&r.improvement));
    out!("network fee  {} TON", units(&fee.to_string(), 9));
    out!("routes       {}", r.display_data.len());
    out!();
    out!("{:<6} {:>8}  {:>24}  {:>24}  {:>12}", "route", "share", "in", "out", "fee TON");
    for (i, d) in r.display_data.iter().enumerate() {
        print_route(i, d);
    }
}

fn print_route(i: usize, d: &DisplayRoute) {
    let (Some(first), Some(last)) = (d.steps.first(), d.steps.last()) else { return };
    out!(
        "{:<6} {:>6.2} %  {:>24}  {:>24}  {:>12}",
        format!("#{}", i + 1),
        d.in_percent,
        format!("{} {}", units(&first.in_amount, first.in_minter.decimals), first.in_minter.symbol),
        format!("{} {}", units(&last.out_amount, last.out_minter.decimals), last.out_minter.symbol),
        units(&d.network_fee, 9)
    );
    for (j, s) in d.steps.iter().enumerate() {
        out!(
            "         hop {}  {:<9} pool {}  {} {} → {} {}",
            j + 1,
            s.protocol.slug,
            short(&s.pool_address),
            units(&s.in_amount, s.in_minter.decimals),
            s.in_minter.symbol,
            units(&s.out_amount, s.out_minter.decimals),
            s.out_minter.symbol
        );
    }
}

fn fail(e: &ApiError) -> ExitCode {
    eprintln!("{}", e.to_json());
    eprintln!("error: {} (code {}, HTTP {})", e.message, e.code, e.status);
    ExitCode::from(1)
}

fn run(cli: Cli) -> Result<ExitCode, String> {
    match cli.command {
        Command::Quote {
            in_asset,
            out_asset,
            amount,
            exact_out,
            max_splits,
            max_length,
            slippage_bps,
            snapshot,
            json,
        } => {
            let swap_mode = if exact_out { "exact_out" } else { "exact_in" };
            let graph = load_graph(snapshot)?;
            let resolved = resolve_asset(&graph, "in_minter", in_asset)
                .and_then(|i| Ok((i, resolve_asset(&graph, "out_minter", out_asset)?)));
            let (in_asset, out_asset) = match resolved {
                Ok(pair) => pair,
                Err(e) => return Ok(fail(&e)),
            };
            let body = serde_json::json!({
                "in_minter": in_asset, "out_minter": out_asset, "amount": amount, "swap_mode": swap_mode,
                "slippage_bps": slippage_bps, "max_splits": max_splits, "max_length": max_length,
            });
            let api = Api::new(Arc::new(graph));
            match api.quote(body.to_string().as_bytes()) {
                Ok(r) if json => {
                    out!("{}", serde_json::to_string_pretty(&r).map_err(|e| e.to_string())?);
                    Ok(ExitCode::SUCCESS)
                }
                Ok(r) => {
                    print_table(&r);
                    Ok(ExitCode::SUCCESS)
                }
                Err(e) => Ok(fail(&e)),
            }
        }
        Command::Swap { sender, snapshot } => {
            let graph = load_graph(snapshot)?;
            let mut input = String::new();
            std::io::stdin().read_to_string(&mut input).map_err(|e| format!("reading stdin: {e}"))?;
            let value: serde_json::Value =
                serde_json::from_str(&input).map_err(|e| format!("stdin is not JSON: {e}"))?;
            // A whole quote response, or just its swap_data.
            let swap_data = value.get("swap_data").cloned().unwrap_or(value);
            let body = serde_json::json!({ "sender_address": sender, "swap_data": swap_data });
            let api = Api::new(Arc::new(graph));
            match api.swap(body.to_string().as_bytes(), SwapClock::at(now_millis())) {
                Ok(r) => {
                    out!("{}", serde_json::to_string_pretty(&r).map_err(|e| e.to_string())?);
                    Ok(ExitCode::SUCCESS)
                }
                Err(e) => Ok(fail(&e)),
            }
        }
        #[cfg(feature = "server")]
        Command::Serve { addr, snapshot, budget_ms, market } => {
            use tonroute::api::market::{MarketData, MarketView};
            use tonroute::api::server::{serve, ServerConfig};
            let graph = load_graph(snapshot.clone())?;
            let (assets, pools) = (graph.asset_count(), graph.pool_count());
            let graph = Arc::new(graph);
            let mut api = Api::new(graph.clone());
            if let Some(path) = market {
                let text = std::fs::read_to_string(&path).map_err(|e| format!("reading {}: {e}", path.display()))?;
                let data = MarketData::from_json(load_graph(snapshot)?, &text).map_err(|e| e.to_string())?;
                // The router continues from where the sample's trades left the pools (a concentrated pool from
                // its replayed state).
                data.apply_to(&graph, data.as_of).map_err(|e| format!("market data {}: {e}", path.display()))?;
                let data = Arc::new(data);
                let as_of = tonroute::api::market::types::DateTime::from_unix(data.as_of)
                    .map_or_else(|| format!("{} (Unix seconds)", data.as_of), |d| d.to_string());
                eprintln!(
                    "tonroute: market data: {} coins, {} trades, as of {as_of}",
                    data.coins.len(),
                    data.trades.len(),
                );
                api = api.with_market(Arc::new(MarketView::new(data.clone(), data.as_of)));
            }
            let config = ServerConfig { routing_budget: std::time::Duration::from_millis(budget_ms.max(1)) };
            let rt = tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
                .map_err(|e| format!("starting the runtime: {e}"))?;
            rt.block_on(async move {
                let listener =
                    tokio::net::TcpListener::bind(&addr).await.map_err(|e| format!("binding {addr}: {e}"))?;
                let local = listener.local_addr().map_err(|e| e.to_string())?;
                eprintln!("tonroute: serving {assets} assets, {pools} pools on http://{local}");
                let shutdown = async {
                    // If the signal handler cannot be installed the server runs until killed.
                    if tokio::signal::ctrl_c().await.is_err() {
                        std::future::pending::<()>().await;
                    }
                };
                serve(listener, api, config, shutdown).await.map_err(|e| format!("server: {e}"))
            })?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{edit_distance, units};

    #[test]
    fn edit_distance_counts_single_character_edits() {
        assert_eq!(edit_distance("usdt", "usdt"), 0);
        assert_eq!(edit_distance("usdtt", "usdt"), 1);
        assert_eq!(edit_distance("jt55", "jt5"), 1);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "ton"), 3);
    }

    #[test]
    fn units_place_the_point() {
        assert_eq!(units("100000000000", 9), "100");
        assert_eq!(units("1", 9), "0.000000001");
        assert_eq!(units("137912345678", 6), "137912.345678");
        assert_eq!(units("5", 0), "5");
        assert_eq!(units("1500000", 6), "1.5");
    }
}

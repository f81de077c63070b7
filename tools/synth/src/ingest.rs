//! The example files of `tonroute market ingest` (`data/examples/trades.jsonl`, `data/examples/more.jsonl`):
//! a few trades right after the bundled market sample ends, in the line format ingest reads (one docs/interface.md
//! `CoinTransaction` per line), and a wallet balance line.
//!
//! The trades continue the sample: each runs with the exact pool math on the state the sample's trades (then the
//! previous example trades) left its pool in, and the lines are the market API's own `/coin_transactions` answers
//! for them (so every field, prices included, is what the replay derives), read from a copy of the sample
//! extended with these trades, whose loading re-checks each amount against the pool math. The trader is a new
//! synthetic wallet (`0:` + SHA-256 of a label, like every synthetic address) and its balance line is the net
//! NOT its trades bought. A pure function of the snapshot and the sample; owns nothing else.

use std::sync::Arc;

use sha2::{Digest, Sha256};

use tonroute::api::market::params::decode_query;
use tonroute::api::market::MarketApi;
use tonroute::asset::known::USDT;
use tonroute::asset::Asset;
use tonroute::graph::snapshot::Snapshot;
use tonroute::market::replay::{MarketFile, ReplayState, TradeRecord};
use tonroute::market::types::DateTime;
use tonroute::market::wallets::BalanceRecord;
use tonroute::market::{MarketData, MarketView};

/// NOT's asset id (the real Notcoin master, as in the bundled snapshot).
pub const NOT: &str = "jetton:0:2f956143c461769579baef2e32cc2d7bc18283f40d20bb03e432cd603ac33ffc";
/// The `dex_b_v1` TON/USD₮ pool (real address).
const TON_USDT_V1: &str = "0:fc4c9f311160754a99d113877cf583b78e5d16d048819cd4b820168769499d7e";
/// The `dex_b_v2` TON/USD₮ pool (real address).
const TON_USDT_V2: &str = "0:8649cad97b5c5bc96a960ef748ea6ccff8601c01616fe995ee6893ae4aa7a6c6";
/// The `dex_b_v1` NOT/TON pool (real record).
const NOT_TON_V1: &str = "0:9a63c21f9764ba95104c049798df92c8b8c5cf73c25f22d586e2d97b9411ab4a";

/// The two files' text, one JSON object per line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IngestExamples {
    /// `trades.jsonl`: four trades.
    pub trades: String,
    /// `more.jsonl`: two more trades and the trader's NOT balance after all six.
    pub more: String,
}

/// One example trade: minutes after the sample's end, pool, asset in, amount in.
const TRADES: [(i64, &str, &str, u128); 6] = [
    (5, TON_USDT_V1, "native", 250_000_000_000),
    (12, TON_USDT_V2, USDT, 140_000_000),
    (20, NOT_TON_V1, "native", 75_000_000_000),
    (31, NOT_TON_V1, NOT, 2_000_000_000_000),
    (44, NOT_TON_V1, "native", 10_000_000_000),
    (58, TON_USDT_V1, USDT, 35_500_000),
];

/// How many of [`TRADES`] go to `trades.jsonl` (the rest to `more.jsonl`).
const FIRST_FILE: usize = 4;

fn hex(label: &str) -> String {
    Sha256::digest(label.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// The example trader: `0:` + SHA-256 of `tonroute example trader`.
pub fn trader() -> String {
    format!("0:{}", hex("tonroute example trader"))
}

/// Generates the example files for the bundled `snapshot` and market `sample`.
pub fn ingest_examples(
    snapshot: &Snapshot,
    sample: &MarketFile,
) -> Result<IngestExamples, Box<dyn std::error::Error + Send + Sync>> {
    let graph = snapshot.into_graph()?;
    // The pools as the sample's trades leave them.
    let mut state = ReplayState::new(&graph);
    for t in &sample.trades {
        let pool = graph.pool_id(&t.pool.parse()?).ok_or("a sample trade's pool is not in the snapshot")?;
        state.apply(&graph, pool, &Asset::parse(&t.asset_in)?, t.amount_in.parse()?)?;
    }
    let end = sample.as_of.unix();
    let trader = trader();
    let mut extended = sample.clone();
    let mut records = Vec::new();
    let mut not_held: i128 = 0;
    for (i, (minutes, pool, asset_in, amount_in)) in TRADES.iter().enumerate() {
        let id = graph.pool_id(&pool.parse()?).ok_or("an example pool is not in the snapshot")?;
        let asset = Asset::parse(asset_in)?;
        let (_, result, _) = state.apply(&graph, id, &asset, *amount_in)?;
        let meta = graph.pool(id);
        let out = if graph.asset(meta.assets[0]).asset == asset { meta.assets[1] } else { meta.assets[0] };
        if *asset_in == NOT {
            not_held -= i128::try_from(*amount_in)?;
        } else if graph.asset(out).asset.to_string() == NOT {
            not_held += i128::try_from(result.amount_out)?;
        }
        let record = TradeRecord {
            time: end + minutes * 60,
            pool: pool.to_string(),
            asset_in: asset_in.to_string(),
            amount_in: amount_in.to_string(),
            amount_out: result.amount_out.to_string(),
            trader: trader.clone(),
            tx_hash: hex(&format!("tonroute example trade {}", i + 1)),
        };
        extended.trades.push(record.clone());
        records.push((record, graph.asset(out).asset));
    }
    let last = records.last().map_or(end, |(r, _)| r.time);
    extended.as_of = DateTime::from_unix(last).ok_or("date out of range")?;
    // Loading re-checks every amount against the pool math; the API then answers for each trade's coin.
    let data = Arc::new(MarketData::load(snapshot.into_graph()?, &extended)?);
    let api = MarketApi::new(Arc::new(MarketView::new(data.clone(), data.as_of)));
    let mut lines = Vec::new();
    for (record, out) in &records {
        // The coin a line is about: the side that is not TON (a TON/USD₮ trade is USD₮'s).
        let coin = if record.asset_in == "native" { out.to_string() } else { record.asset_in.clone() };
        let start = DateTime::from_unix(record.time - 1).ok_or("date out of range")?;
        let query = decode_query(&format!("asset={coin}&limit=100&start_date={start}"))?;
        let page = api.get_coin_transactions(&query).map_err(|e| e.message().to_string())?;
        let item = page
            .items
            .into_iter()
            .find(|t| t.tx_hash.as_deref() == Some(record.tx_hash.as_str()))
            .ok_or("an example trade is missing from /coin_transactions")?;
        lines.push(serde_json::to_string(&item)?);
    }
    let balance = BalanceRecord {
        owner: trader,
        asset: NOT.to_string(),
        balance: u128::try_from(not_held)?.to_string(),
        as_of: extended.as_of,
        block: None,
    };
    let text = |lines: &[String]| lines.iter().map(|l| format!("{l}\n")).collect::<String>();
    let mut more = lines[FIRST_FILE..].to_vec();
    more.push(serde_json::to_string(&balance)?);
    Ok(IngestExamples { trades: text(&lines[..FIRST_FILE]), more: text(&more) })
}

//! The wallet and trader routes (issue #23 part B) over the bundled sample: `/wallets/{address}/portfolio`,
//! `/wallets/{address}/holdings`, `/coins/{asset}/top_traders`, `/traders`. Every required field and its type
//! is checked against docs/interface.md, and every value against an independent computation: the trades come from
//! `/coin_transactions` (paged, oldest first), prices from `/coin`, balances from the raw `data/market.json`,
//! and the average-cost PnL is recomputed here with lots (a list of (tokens, cost) kept per wallet and coin,
//! whose sum is the position), not with the library's book. `tests/it/market_store_sqlite.rs` and
//! `tests/it/market_store_postgres.rs` run this file against the database stores.
#![cfg(feature = "serde")]

use std::collections::BTreeMap;

use serde_json::Value;

#[path = "common/market.rs"]
mod market_common;

use market_common::{api, code, f, json, q, view, MARKET, NOT};

const LARGE_FLOAT: &str = r"^[-+]?[0-9]*\.?[0-9]+$";
const LARGE_INTEGER: &str = r"^[-+]?[0-9]+$";

// The store under test: the one of the module that mounts this file (the crate root's in-memory replay, or
// `market_store_sqlite` / `market_store_postgres`'s database store).
use super::market_store;

fn u(v: &Value) -> u128 {
    v.as_str().unwrap_or_else(|| panic!("not a decimal string: {v}")).parse().unwrap()
}

fn close(got: f64, want: f64, what: &str) {
    let tol = 1e-9 * want.abs().max(1e-9);
    assert!((got - want).abs() <= tol, "{what}: got {got}, want {want}");
}

fn matches(pattern: &str, text: &str) -> bool {
    // The two docs/interface.md patterns, checked by hand (no regex crate needed): optional sign, digits, one dot.
    let body = text.strip_prefix(['-', '+']).unwrap_or(text);
    if pattern == LARGE_INTEGER {
        !body.is_empty() && body.bytes().all(|b| b.is_ascii_digit())
    } else {
        let (a, b) = body.split_once('.').unwrap_or(("", body));
        !b.is_empty() && a.bytes().all(|c| c.is_ascii_digit()) && b.bytes().all(|c| c.is_ascii_digit())
    }
}

/// Every field of `names` is present with the docs/interface.md type `kind` ("float", "integer", "int", "number",
/// "string").
fn required(obj: &Value, kind: &str, names: &[&str]) {
    for n in names {
        let v = &obj[*n];
        let ok = match kind {
            "float" => v.as_str().is_some_and(|s| matches(LARGE_FLOAT, s)),
            "integer" => v.as_str().is_some_and(|s| matches(LARGE_INTEGER, s)),
            "int" => v.as_i64().is_some(),
            "number" => v.as_f64().is_some(),
            _ => v.as_str().is_some(),
        };
        assert!(ok, "`{n}` is not a {kind}: {v} in {obj}");
    }
}

/// A trade of one coin seen by one wallet, from `/coin_transactions`.
#[derive(Debug, Clone)]
struct Seen {
    buy: bool,
    tokens: u128,
    ton: f64,
    usd: f64,
    time: i64,
    trader: String,
}

/// Every trade of `asset` (optionally of one trader), oldest first, from `/coin_transactions`.
fn trades_of(asset: &str, trader: Option<&str>) -> Vec<Seen> {
    let mut out = Vec::new();
    let mut offset = 0;
    loop {
        let filter = trader.map_or(String::new(), |t| format!("&trader_address={t}"));
        let page = json(
            &api()
                .get_coin_transactions(&q(&format!(
                    "asset={asset}{filter}&limit=100&offset={offset}&sort_direction=asc"
                )))
                .unwrap(),
        );
        let items = page["items"].as_array().unwrap();
        if items.is_empty() {
            break;
        }
        offset += items.len();
        for t in items {
            let buy = t["type"] == "buy";
            out.push(Seen {
                buy,
                tokens: u(if buy { &t["trade_asset_out_amount"] } else { &t["trade_asset_in_amount"] }),
                ton: f(&t["volume_ton"]),
                usd: f(&t["volume_usd"]),
                time: tonroute::market::types::DateTime::parse(t["trade_date"].as_str().unwrap()).unwrap().unix(),
                trader: t["trader_address"].as_str().unwrap().to_string(),
            });
        }
    }
    out
}

/// Average cost with lots, by hand: buys append a lot (tokens, cost); a sell takes `min(q, held)` tokens out of
/// every lot in proportion (the average cost of the position), and tokens sold beyond the position count at cost
/// = proceeds. Returns (position, remaining cost, realized cost, realized PnL, bought, sold, bought value, sold
/// value, buys, sells) for values in TON (`ton = true`) or USD.
#[derive(Debug, Default, Clone)]
struct ByHand {
    lots: Vec<(f64, f64)>,
    position: u128,
    realized_cost: f64,
    realized_pnl: f64,
    bought: u128,
    sold: u128,
    bought_value: f64,
    sold_value: f64,
    buys: i64,
    sells: i64,
}

impl ByHand {
    fn run(trades: &[Seen], ton: bool) -> ByHand {
        let mut h = ByHand::default();
        for t in trades {
            let value = if ton { t.ton } else { t.usd };
            if t.buy {
                h.lots.push((t.tokens as f64, value));
                h.position += t.tokens;
                h.bought += t.tokens;
                h.bought_value += value;
                h.buys += 1;
                continue;
            }
            h.sold += t.tokens;
            h.sold_value += value;
            h.sells += 1;
            let covered = t.tokens.min(h.position);
            let cost: f64 = h.lots.iter().map(|l| l.1).sum();
            // The share of the position sold leaves every lot alike.
            let share = if h.position == 0 { 0.0 } else { covered as f64 / h.position as f64 };
            let taken = if covered == h.position { cost } else { cost * share };
            for l in &mut h.lots {
                l.0 *= 1.0 - share;
                l.1 *= 1.0 - share;
            }
            h.position -= covered;
            if h.position == 0 {
                h.lots.clear();
            }
            let proceeds_covered = if t.tokens == 0 { 0.0 } else { value * covered as f64 / t.tokens as f64 };
            h.realized_pnl += proceeds_covered - taken;
            h.realized_cost += taken + (value - proceeds_covered);
        }
        h
    }

    fn cost(&self) -> f64 {
        self.lots.iter().map(|l| l.1).sum()
    }
}

/// (usd, ton, decimals) of a coin now, from `/coin`.
fn price(asset: &str) -> (f64, f64, u8) {
    let c = json(&api().get_coin(&q(&format!("asset={asset}"))).unwrap());
    (f(&c["price"]["usd_value"]), f(&c["price"]["ton_value"]), c["metadata"]["decimals"].as_u64().unwrap() as u8)
}

fn whole(tokens: u128, decimals: u8) -> f64 {
    tokens as f64 / 10f64.powi(i32::from(decimals))
}

fn pct(a: f64, b: f64) -> f64 {
    if b != 0.0 {
        a / b * 100.0
    } else {
        0.0
    }
}

/// The sample's most active wallets (friendly form, as /coin_transactions writes them).
fn busiest_wallets(n: usize) -> Vec<String> {
    let mut count: BTreeMap<String, usize> = BTreeMap::new();
    for t in trades_of(NOT, None) {
        *count.entry(t.trader).or_default() += 1;
    }
    let mut v: Vec<(usize, String)> = count.into_iter().map(|(w, c)| (c, w)).collect();
    v.sort_by(|a, b| b.cmp(a));
    v.into_iter().take(n).map(|x| x.1).collect()
}

/// The jettons of the sample that have a USD price (the ones holdings value).
fn priced_jettons() -> Vec<String> {
    view()
        .data()
        .coins
        .iter()
        .enumerate()
        .filter(|(i, c)| view().coin_stats(*i).usd.is_some() && !c.asset.is_native())
        .map(|(_, c)| c.asset.to_string())
        .collect()
}

#[test]
fn holdings_are_average_cost_pnl_recomputed_by_hand() {
    let coins = priced_jettons();
    for wallet in busiest_wallets(3) {
        let got = json(&api().get_holdings(&wallet, &q("limit=500")).unwrap());
        let holdings = got["holdings"].as_array().unwrap();
        assert!(!holdings.is_empty(), "{wallet} has holdings");
        let mut expected = 0;
        for asset in &coins {
            let trades = trades_of(asset, Some(&wallet));
            if trades.is_empty() {
                continue;
            }
            expected += 1;
            let raw = asset.strip_prefix("jetton:").unwrap();
            let h = holdings
                .iter()
                .find(|h| h["asset_address"] == raw)
                .unwrap_or_else(|| panic!("{wallet}: no holding of {asset}"));
            required(
                h,
                "float",
                &[
                    "bought_ton",
                    "sold_ton",
                    "current_position_value_ton",
                    "realized_cost_ton",
                    "realized_pnl_ton",
                    "unrealized_pnl_ton",
                    "total_pnl_ton",
                    "realized_pnl_percent",
                    "unrealized_pnl_percent",
                    "realized_pnl_percent_of_total_cost",
                    "total_pnl_percent",
                ],
            );
            required(h, "integer", &["bought_tokens", "sold_tokens", "remaining_tokens"]);
            let b = ByHand::run(&trades, true);
            let (_, ton_now, dec) = price(asset);
            let value = whole(b.position, dec) * ton_now;
            let unrealized = value - b.cost();
            let total_cost = b.realized_cost + b.cost();
            assert_eq!(u(&h["bought_tokens"]), b.bought, "{asset}");
            assert_eq!(u(&h["sold_tokens"]), b.sold, "{asset}");
            assert_eq!(u(&h["remaining_tokens"]), b.position, "{asset}");
            close(f(&h["bought_ton"]), b.bought_value, "bought_ton");
            close(f(&h["sold_ton"]), b.sold_value, "sold_ton");
            close(f(&h["current_position_value_ton"]), value, "current value");
            close(f(&h["realized_cost_ton"]), b.realized_cost, "realized cost");
            close(f(&h["realized_pnl_ton"]), b.realized_pnl, "realized pnl");
            close(f(&h["unrealized_pnl_ton"]), unrealized, "unrealized pnl");
            close(f(&h["total_pnl_ton"]), b.realized_pnl + unrealized, "total pnl");
            close(f(&h["realized_pnl_percent"]), pct(b.realized_pnl, b.realized_cost), "realized %");
            close(f(&h["unrealized_pnl_percent"]), pct(unrealized, b.cost()), "unrealized %");
            close(f(&h["realized_pnl_percent_of_total_cost"]), pct(b.realized_pnl, total_cost), "realized % of total");
            close(f(&h["total_pnl_percent"]), pct(b.realized_pnl + unrealized, total_cost), "total %");
        }
        assert_eq!(holdings.len(), expected, "{wallet}: one holding per coin traded");
        // By current value, descending.
        let values: Vec<f64> = holdings.iter().map(|h| f(&h["current_position_value_ton"])).collect();
        assert!(values.windows(2).all(|w| w[0] >= w[1]), "{values:?}");
        // Paging is a window of the full list.
        let page = json(&api().get_holdings(&wallet, &q("limit=2&offset=1")).unwrap());
        assert_eq!(page["holdings"].as_array().unwrap()[..], holdings[1..3.min(holdings.len())]);
    }
}

#[test]
fn a_holding_by_hand_with_the_arithmetic_written_out() {
    // The smallest case the method has: buy q1 for c1, buy q2 for c2, sell s for p (s ≤ q1 + q2):
    //   average cost a = (c1 + c2) / (q1 + q2); realized cost = a·s; realized PnL = p − a·s;
    //   remaining = q1 + q2 − s at cost a·(q1 + q2 − s); unrealized = remaining · price − a·remaining.
    // Found in the sample: the first coin and wallet whose trades of it are exactly two buys then one covered sell.
    let coins = priced_jettons();
    for asset in &coins {
        let mut by: BTreeMap<String, Vec<Seen>> = BTreeMap::new();
        for t in trades_of(asset, None) {
            by.entry(t.trader.clone()).or_default().push(t);
        }
        for (wallet, t) in by {
            if t.len() != 3 || !(t[0].buy && t[1].buy && !t[2].buy) || t[2].tokens > t[0].tokens + t[1].tokens {
                continue;
            }
            let (q1, c1, q2, c2, s, p) = (t[0].tokens, t[0].ton, t[1].tokens, t[1].ton, t[2].tokens, t[2].ton);
            let a = (c1 + c2) / (q1 + q2) as f64;
            let remaining = q1 + q2 - s;
            let (_, ton_now, dec) = price(asset);
            let unrealized = whole(remaining, dec) * ton_now - a * remaining as f64;
            let got = json(&api().get_holdings(&wallet, &q("limit=500")).unwrap());
            let raw = asset.strip_prefix("jetton:").unwrap();
            let h = got["holdings"].as_array().unwrap().iter().find(|h| h["asset_address"] == raw).unwrap().clone();
            close(f(&h["bought_ton"]), c1 + c2, "c1 + c2");
            close(f(&h["realized_cost_ton"]), a * s as f64, "a·s");
            close(f(&h["realized_pnl_ton"]), p - a * s as f64, "p − a·s");
            close(f(&h["unrealized_pnl_ton"]), unrealized, "unrealized");
            assert_eq!(u(&h["remaining_tokens"]), remaining);
            return;
        }
    }
    panic!("no wallet of the sample has exactly two buys then one covered sell of a coin");
}

#[test]
fn top_traders_rank_every_trader_by_total_pnl() {
    let got = json(&api().get_top_traders(NOT, &q("limit=100")).unwrap());
    let traders = got["traders"].as_array().unwrap();
    assert!(!traders.is_empty());
    let (usd_now, ton_now, dec) = price(NOT);
    let mut by_wallet: BTreeMap<String, Vec<Seen>> = BTreeMap::new();
    for t in trades_of(NOT, None) {
        by_wallet.entry(t.trader.clone()).or_default().push(t);
    }
    assert_eq!(traders.len(), by_wallet.len().min(100));
    let mut totals: Vec<(f64, String)> = Vec::new();
    for (i, row) in traders.iter().enumerate() {
        required(
            row,
            "float",
            &[
                "bought_usd",
                "bought_tokens",
                "sold_usd",
                "sold_tokens",
                "remaining_tokens",
                "remaining_value_usd",
                "remaining_value_ton",
                "realized_pnl_usd",
                "realized_pnl_ton",
                "unrealized_pnl_usd",
                "unrealized_pnl_ton",
                "total_pnl_usd",
                "total_pnl_ton",
            ],
        );
        required(row, "int", &["rank", "buy_txns", "sell_txns"]);
        required(row, "number", &["remaining_percent_of_buys"]);
        required(row, "string", &["trader"]);
        assert_eq!(row["rank"].as_i64().unwrap(), i as i64 + 1);
        let wallet = row["trader"].as_str().unwrap();
        let trades = &by_wallet[wallet];
        let (t, d) = (ByHand::run(trades, true), ByHand::run(trades, false));
        let held = whole(t.position, dec);
        close(f(&row["bought_tokens"]), whole(t.bought, dec), "bought_tokens");
        close(f(&row["sold_tokens"]), whole(t.sold, dec), "sold_tokens");
        close(f(&row["remaining_tokens"]), held, "remaining_tokens");
        close(f(&row["bought_usd"]), d.bought_value, "bought_usd");
        close(f(&row["sold_usd"]), d.sold_value, "sold_usd");
        close(f(&row["remaining_value_usd"]), held * usd_now, "remaining usd");
        close(f(&row["remaining_value_ton"]), held * ton_now, "remaining ton");
        close(f(&row["realized_pnl_ton"]), t.realized_pnl, "realized ton");
        close(f(&row["realized_pnl_usd"]), d.realized_pnl, "realized usd");
        close(f(&row["unrealized_pnl_ton"]), held * ton_now - t.cost(), "unrealized ton");
        close(f(&row["unrealized_pnl_usd"]), held * usd_now - d.cost(), "unrealized usd");
        close(f(&row["total_pnl_ton"]), t.realized_pnl + held * ton_now - t.cost(), "total ton");
        close(f(&row["total_pnl_usd"]), d.realized_pnl + held * usd_now - d.cost(), "total usd");
        assert_eq!((row["buy_txns"].as_i64().unwrap(), row["sell_txns"].as_i64().unwrap()), (t.buys, t.sells));
        close(row["remaining_percent_of_buys"].as_f64().unwrap(), pct(held, whole(t.bought, dec)), "remaining %");
        totals.push((f(&row["total_pnl_ton"]), wallet.to_string()));
    }
    assert!(totals.windows(2).all(|w| w[0].0 >= w[1].0), "ranked by total PnL");
    // Every trader left off the page has a total PnL not above the last one listed.
    let last = totals.last().unwrap().0;
    for (wallet, trades) in &by_wallet {
        if totals.iter().any(|t| &t.1 == wallet) {
            continue;
        }
        let t = ByHand::run(trades, true);
        let total = t.realized_pnl + whole(t.position, dec) * ton_now - t.cost();
        assert!(total <= last + 1e-9 * last.abs(), "{wallet}: {total} above the page's last {last}");
    }
}

#[test]
fn traders_over_a_period_count_buys_and_sum_volumes() {
    let start = "2024-11-20T12:00:00Z";
    let end = "2024-11-21T06:00:00Z";
    let got =
        json(&api().get_traders(&q(&format!("asset={NOT}&start_date={start}&end_date={end}&limit=100"))).unwrap());
    let rows = got["traders"].as_array().unwrap();
    assert!(!rows.is_empty());
    let (s, e) = (1_732_104_000, 1_732_168_800);
    let mut by: BTreeMap<String, (i64, f64, f64)> = BTreeMap::new();
    for t in trades_of(NOT, None).into_iter().filter(|t| t.time > s && t.time <= e) {
        let x = by.entry(t.trader).or_insert((0, 0.0, 0.0));
        x.0 += i64::from(t.buy);
        x.1 += t.usd;
        x.2 += t.ton;
    }
    assert_eq!(rows.len(), by.len().min(100));
    for r in rows {
        required(r, "string", &["trader_address", "start_date", "end_date"]);
        required(r, "float", &["volume", "volume_ton"]);
        required(r, "int", &["transactions"]);
        let w = &by[r["trader_address"].as_str().unwrap()];
        assert_eq!(r["transactions"].as_i64().unwrap(), w.0);
        close(f(&r["volume"]), w.1, "volume");
        close(f(&r["volume_ton"]), w.2, "volume_ton");
        assert_eq!((r["start_date"].as_str().unwrap(), r["end_date"].as_str().unwrap()), (start, end));
    }
    let volumes: Vec<f64> = rows.iter().map(|r| f(&r["volume"])).collect();
    assert!(volumes.windows(2).all(|w| w[0] >= w[1]), "by volume");
    // Default period: the 24 hours up to now (2024-11-21T12:00:00Z).
    let default = json(&api().get_traders(&q(&format!("asset={NOT}&limit=1"))).unwrap());
    assert_eq!(default["traders"][0]["start_date"], "2024-11-20T12:00:00Z");
    assert_eq!(default["traders"][0]["end_date"], "2024-11-21T12:00:00Z");
}

#[test]
fn portfolio_values_the_stored_balances_at_the_coins_prices() {
    let file: Value = serde_json::from_str(MARKET).unwrap();
    let wallet = busiest_wallets(1).remove(0);
    let raw = tonroute::asset::parse_address(&wallet).unwrap().to_hex();
    let mine: Vec<&Value> =
        file["balances"].as_array().unwrap().iter().filter(|b| b["owner"] == raw.as_str()).collect();
    assert!(!mine.is_empty());
    let got = json(&api().get_portfolio(&wallet, &[]).unwrap());
    required(&got, "float", &["total_value_usd", "total_value_ton"]);
    let rows = got["jetton_balances"].as_array().unwrap();
    assert_eq!(rows.len(), mine.len());
    let (mut usd_sum, mut ton_sum) = (0.0, 0.0);
    for b in mine {
        let asset = b["asset"].as_str().unwrap();
        let row = rows.iter().find(|r| r["asset"] == asset).unwrap_or_else(|| panic!("{asset} missing"));
        required(row, "string", &["asset"]);
        required(row, "integer", &["balance"]);
        required(row, "float", &["balance_formatted", "price_usd", "price_ton", "value_usd", "value_ton"]);
        required(row, "int", &["verification_level"]);
        required(&row["price"], "float", &["usd_value", "ton_value"]);
        required(&row["metadata"], "string", &["name", "ticker"]);
        assert_eq!(row["balance"], b["balance"]);
        let (usd, ton, dec) = price(asset);
        let amount = whole(u(&b["balance"]), dec);
        close(f(&row["balance_formatted"]), amount, "balance_formatted");
        close(f(&row["price_usd"]), usd, "price_usd");
        close(f(&row["price_ton"]), ton, "price_ton");
        close(f(&row["value_usd"]), amount * usd, "value_usd");
        close(f(&row["value_ton"]), amount * ton, "value_ton");
        let level = json(&api().get_coin(&q(&format!("asset={asset}"))).unwrap())["verification_level"].clone();
        assert_eq!(row["verification_level"], level);
        usd_sum += amount * usd;
        ton_sum += amount * ton;
    }
    close(f(&got["total_value_usd"]), usd_sum, "total usd");
    close(f(&got["total_value_ton"]), ton_sum, "total ton");
    let values: Vec<f64> = rows.iter().map(|r| f(&r["value_usd"])).collect();
    assert!(values.windows(2).all(|w| w[0] >= w[1]), "by USD value");
    // A wallet without balances has an empty portfolio, not an error.
    let nobody = format!("0:{}", "12".repeat(32));
    let empty = json(&api().get_portfolio(&nobody, &[]).unwrap());
    assert_eq!(empty["jetton_balances"], Value::Array(vec![]));
    assert_eq!(empty["total_value_usd"], "0");
}

#[test]
fn bad_requests_are_refused_with_codes() {
    let wallet = busiest_wallets(1).remove(0);
    let unknown = format!("jetton:0:{}", "ab".repeat(32));
    assert_eq!(code(api().get_portfolio("x", &[])).0, 400);
    assert_eq!(code(api().get_portfolio(&wallet, &q("limit=1"))).0, 400);
    assert_eq!(code(api().get_holdings("x", &[])).0, 400);
    assert_eq!(code(api().get_holdings(&wallet, &q("limit=0"))).0, 400);
    assert_eq!(code(api().get_holdings(&wallet, &q("limit=501"))).0, 400);
    assert_eq!(code(api().get_holdings(&wallet, &q("offset=-1"))).0, 400);
    assert_eq!(code(api().get_holdings(&wallet, &q("limt=5"))).0, 400);
    assert_eq!(code(api().get_top_traders("nonsense", &[])).0, 400);
    assert_eq!(code(api().get_top_traders(&unknown, &[])).0, 404);
    assert_eq!(code(api().get_top_traders(NOT, &q("limit=101"))).0, 400);
    assert_eq!(code(api().get_traders(&[])).0, 400);
    assert_eq!(code(api().get_traders(&q(&format!("asset={unknown}")))).0, 404);
    assert_eq!(
        code(
            api()
                .get_traders(&q(&format!("asset={NOT}&start_date=2024-11-21T12:00:00Z&end_date=2024-11-20T12:00:00Z")))
        )
        .0,
        400
    );
    assert_eq!(code(api().get_traders(&q(&format!("asset={NOT}&start_date=yesterday")))).0, 400);
}

/// The trending formulas of `crates/market/src/trending.rs`, recomputed from `/coin_transactions` (the 48 h up to
/// now), `/coin` (market cap, liquidity, level) and the raw file's tags.
#[test]
fn trending_scores_recomputed_from_the_trades() {
    let now = view().now();
    let file: Value = serde_json::from_str(MARKET).unwrap();
    let since = tonroute::market::types::DateTime::from_unix(now - 2 * 86_400).unwrap();
    struct C {
        asset: String,
        tier: &'static str,
        liq: f64,
        level: f64,
        vol_1h: f64,
        vol_24h: f64,
        buy_24h: f64,
        tr_1h: f64,
        tr_24h: f64,
        tx_1h: i64,
        prices: Vec<(i64, f64)>,
    }
    let mut cands = Vec::new();
    for c in file["coins"].as_array().unwrap() {
        let asset = c["asset"].as_str().unwrap();
        if asset == "native" || c["tags"].as_array().unwrap().iter().any(|t| t == "stablecoin") {
            continue;
        }
        let coin = json(&api().get_coin(&q(&format!("asset={asset}"))).unwrap());
        if coin["price"].is_null() {
            continue;
        }
        let dec = coin["metadata"]["decimals"].as_u64().unwrap() as u8;
        let mcap = coin["market_cap"].as_str().map(|s| s.parse::<f64>().unwrap());
        let tier = match mcap {
            Some(m) if m >= 5e8 => "large",
            Some(m) if m >= 2e7 => "mid",
            Some(m) if m >= 1e6 => "micro",
            _ => "nano",
        };
        let mut x = C {
            asset: asset.to_string(),
            tier,
            liq: f(&coin["liquidity"]),
            level: coin["verification_level"].as_f64().unwrap(),
            vol_1h: 0.0,
            vol_24h: 0.0,
            buy_24h: 0.0,
            tr_1h: 0.0,
            tr_24h: 0.0,
            tx_1h: 0,
            prices: Vec::new(),
        };
        let (mut w1, mut w24) = (std::collections::BTreeSet::new(), std::collections::BTreeSet::new());
        let mut offset = 0;
        loop {
            let page = json(
                &api()
                    .get_coin_transactions(&q(&format!(
                        "asset={asset}&start_date={since}&limit=100&offset={offset}&sort_direction=asc"
                    )))
                    .unwrap(),
            );
            let items = page["items"].as_array().unwrap().clone();
            if items.is_empty() {
                break;
            }
            offset += items.len();
            for t in items {
                let time = tonroute::market::types::DateTime::parse(t["trade_date"].as_str().unwrap()).unwrap().unix();
                if time <= now - 2 * 86_400 {
                    continue;
                }
                let buy = t["type"] == "buy";
                let amount = u(if buy { &t["trade_asset_out_amount"] } else { &t["trade_asset_in_amount"] });
                let usd = f(&t["volume_usd"]);
                x.prices.push((time, usd / whole(amount, dec)));
                if time <= now - 86_400 {
                    continue;
                }
                x.vol_24h += usd;
                w24.insert(t["trader_address"].as_str().unwrap().to_string());
                if buy {
                    x.buy_24h += usd;
                }
                if time > now - 3_600 {
                    x.vol_1h += usd;
                    w1.insert(t["trader_address"].as_str().unwrap().to_string());
                    x.tx_1h += 1;
                }
            }
        }
        x.tr_1h = w1.len() as f64;
        x.tr_24h = w24.len() as f64;
        if x.tr_24h > 0.0 {
            cands.push(x);
        }
    }
    assert!(!cands.is_empty());
    let got = json(&api().get_trending(&q("limit=100")).unwrap());
    let coins = got["coins"].as_array().unwrap();
    assert_eq!(coins.len(), cands.len().min(100));
    let div = |a: f64, b: f64| if b != 0.0 { a / b } else { 0.0 };
    let med = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        let n = v.len();
        if n == 0 {
            0.0
        } else if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        }
    };
    let change = |p: &[(i64, f64)], secs: i64| {
        let last = p.last().unwrap().1;
        let from = now - secs;
        let then = p.iter().rev().find(|x| x.0 <= from).or(p.iter().find(|x| x.0 > from)).unwrap().1;
        if then > 0.0 {
            (last / then - 1.0) * 100.0
        } else {
            0.0
        }
    };
    let order = ["large", "mid", "micro", "nano"];
    let mut last: Option<(usize, f64, i64)> = None;
    for row in coins {
        required(row, "string", &["asset_address", "title", "ticker", "market_tier"]);
        required(row, "int", &["rank_in_tier", "traders_1h_count", "traders_24h_count", "transactions_1h_count"]);
        required(
            row,
            "float",
            &[
                "trend_score",
                "burst_score",
                "buy_pressure",
                "momentum_score",
                "strength_score",
                "quality_score",
                "volume_usd_24h",
            ],
        );
        let asset = format!("jetton:{}", row["asset_address"].as_str().unwrap());
        let c = cands.iter().find(|c| c.asset == asset).unwrap_or_else(|| panic!("{asset} is not a candidate"));
        let tier = row["market_tier"].as_str().unwrap();
        assert_eq!(tier, c.tier, "{asset}");
        let members: Vec<&C> = cands.iter().filter(|m| m.tier == c.tier).collect();
        let mv = med(members.iter().map(|m| m.vol_24h).collect());
        let mt = med(members.iter().map(|m| m.tr_24h).collect());
        let (c1, c24) = (change(&c.prices, 3_600), change(&c.prices, 86_400));
        let vb = div(c.vol_1h, c.vol_24h / 24.0);
        let tb = div(c.tr_1h, c.tr_24h / 24.0);
        let burst = (1.0 + vb).ln() + (1.0 + tb).ln();
        let strength = (1.0 + div(c.vol_24h, mv)).ln() + (1.0 + div(c.tr_24h, mt)).ln();
        let momentum = 0.5 * c1.clamp(-50.0, 50.0) / 50.0 + 0.5 * c24.clamp(-100.0, 100.0) / 100.0;
        let pressure = div(c.buy_24h, c.vol_24h);
        let quality = (c.liq / 10_000.0).min(1.0) * (0.5 + c.level / 8.0);
        let score = quality * (strength + burst + momentum.max(0.0) + pressure);
        close(f(&row["volume_usd_1h"]), c.vol_1h, "volume 1h");
        close(f(&row["volume_usd_24h"]), c.vol_24h, "volume 24h");
        assert_eq!(row["traders_24h_count"].as_f64().unwrap(), c.tr_24h);
        assert_eq!(row["traders_1h_count"].as_f64().unwrap(), c.tr_1h);
        assert_eq!(row["transactions_1h_count"].as_i64().unwrap(), c.tx_1h);
        close(f(&row["tier_median_vol_24h"]), mv, "median volume");
        close(f(&row["price_usd_1h_change"]), c1, "1h change");
        close(f(&row["price_usd_24h_change"]), c24, "24h change");
        close(f(&row["buy_pressure"]), pressure, "buy pressure");
        close(f(&row["burst_score"]), burst, "burst");
        close(f(&row["strength_score"]), strength, "strength");
        close(f(&row["momentum_score"]), momentum, "momentum");
        close(f(&row["quality_score"]), quality, "quality");
        close(f(&row["trend_score"]), score, "trend score");
        // Tiers large → nano; inside a tier by score, ranks from 1.
        let t = order.iter().position(|o| *o == tier).unwrap();
        let rank = row["rank_in_tier"].as_i64().unwrap();
        match last {
            Some((lt, ls, lr)) if lt == t => {
                assert!(ls >= score - 1e-9 * score.abs(), "ordered by score");
                assert_eq!(rank, lr + 1);
            }
            Some((lt, ..)) => {
                assert!(lt < t, "tiers in order");
                assert_eq!(rank, 1);
            }
            None => assert_eq!(rank, 1),
        }
        last = Some((t, score, rank));
    }
    // A tier filter keeps that tier's rows in the same order.
    let tier = coins[0]["market_tier"].as_str().unwrap().to_string();
    let only = json(&api().get_trending(&q(&format!("tier={tier}&limit=100"))).unwrap());
    let want: Vec<&Value> = coins.iter().filter(|c| c["market_tier"] == tier.as_str()).collect();
    assert_eq!(only["coins"].as_array().unwrap().iter().collect::<Vec<_>>(), want);
    assert_eq!(code(api().get_trending(&q("tier=huge"))).0, 400);
    assert_eq!(code(api().get_trending(&q("limit=101"))).0, 400);
}

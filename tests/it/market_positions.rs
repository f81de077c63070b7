//! #23: wallets' liquidity positions (`/wallets/{address}/liquidity_positions/{pool_address}`, the portfolio's
//! `liquidity_positions`), their fee earnings (`/wallets/{address}/earnings`) and `Pool.total_supply`, over the
//! bundled sample. Every value is recomputed here from the raw files alone: LP per wallet and the supply summed
//! from data/market.json's liquidity records (+ the 1,001 LP the creating join locks), the reserves now by
//! replaying the pool's trades with `tonroute::pool` from data/snapshot.json's reserves, the LP fee of each trade
//! from the snapshot's `lp_fee` (`floor(amount_in · lp_fee / 10000)`, the provider's `floor(fee · LP / supply)`),
//! prices from `/coin`. `tests/it/market_store_sqlite.rs` and `tests/it/market_store_postgres.rs` run this file
//! against the database stores.
#![cfg(feature = "serde")]

use std::collections::BTreeMap;
use std::sync::OnceLock;

use primitive_types::U256;
use serde_json::Value;
use tonroute::api::market::params::decode_query;
use tonroute::api::market::MarketApi;
use tonroute::api::ApiError;
use tonroute::asset::Asset;
use tonroute::graph::PoolGraph;
use tonroute::market::liquidity::LiquidityKind;
use tonroute::market::MarketFile;
use tonroute::pool::Direction;

const SNAPSHOT: &str = include_str!("../../data/snapshot.json");
const MARKET: &str = include_str!("../../data/market.json");
const LOCKED: u128 = 1_001;

// The store under test: the one of the module that mounts this file (the crate root's in-memory replay, or
// `market_store_sqlite` / `market_store_postgres`'s database store).
use super::market_store;

fn api() -> &'static MarketApi {
    static A: OnceLock<MarketApi> = OnceLock::new();
    A.get_or_init(|| MarketApi::new(market_store()))
}

fn file() -> &'static MarketFile {
    static F: OnceLock<MarketFile> = OnceLock::new();
    F.get_or_init(|| serde_json::from_str(MARKET).unwrap())
}

fn snapshot_pool(raw: &str) -> Value {
    static S: OnceLock<Value> = OnceLock::new();
    let s = S.get_or_init(|| serde_json::from_str(SNAPSHOT).unwrap());
    s["pools"].as_array().unwrap().iter().find(|p| p["address"] == raw).unwrap().clone()
}

fn q(s: &str) -> Vec<(String, String)> {
    decode_query(s).unwrap()
}

fn json<T: serde::Serialize>(t: &T) -> Value {
    serde_json::to_value(t).unwrap()
}

fn f(v: &Value) -> f64 {
    v.as_str().unwrap_or_else(|| panic!("not a decimal string: {v}")).parse().unwrap()
}

fn u(v: &Value) -> u128 {
    v.as_str().unwrap_or_else(|| panic!("not a decimal string: {v}")).parse().unwrap()
}

fn close(got: f64, want: f64, what: &str) {
    let tol = 1e-9 * want.abs().max(1e-9);
    assert!((got - want).abs() <= tol, "{what}: got {got}, want {want}");
}

fn code(r: Result<impl std::fmt::Debug, ApiError>) -> (u16, i32) {
    let e = r.expect_err("expected an error");
    (e.status(), e.code())
}

/// A LargeInteger / LargeFloat by docs/interface.md's patterns, checked by hand.
fn decimal(v: &Value, integer: bool) -> bool {
    let Some(text) = v.as_str() else { return false };
    let body = text.strip_prefix(['-', '+']).unwrap_or(text);
    if integer {
        return !body.is_empty() && body.bytes().all(|b| b.is_ascii_digit());
    }
    let (a, b) = body.split_once('.').unwrap_or(("", body));
    !b.is_empty() && a.bytes().all(|c| c.is_ascii_digit()) && b.bytes().all(|c| c.is_ascii_digit())
}

fn friendly_wallet(raw: &str) -> String {
    tonroute::market::replay::friendly_wallet(&tonroute::asset::parse_address(raw).unwrap())
}

/// (usd, ton, decimals) of a coin now, from `/coin`.
fn price(asset: &str) -> (f64, f64, u8) {
    let c = json(&api().get_coin(&q(&format!("asset={asset}"))).unwrap());
    (f(&c["price"]["usd_value"]), f(&c["price"]["ton_value"]), c["metadata"]["decimals"].as_u64().unwrap() as u8)
}

fn whole(tokens: u128, decimals: u8) -> f64 {
    tokens as f64 / 10f64.powi(i32::from(decimals))
}

fn mul_div(a: u128, b: u128, c: u128) -> u128 {
    u128::try_from(U256::from(a) * U256::from(b) / U256::from(c)).unwrap()
}

/// A pool's book from the raw records: LP per provider, the supply, the LP account of each provider's last join.
#[derive(Debug, Default, Clone)]
struct Book {
    held: BTreeMap<String, u128>,
    supply: u128,
    lp_account: BTreeMap<String, String>,
}

fn books() -> &'static BTreeMap<String, Book> {
    static B: OnceLock<BTreeMap<String, Book>> = OnceLock::new();
    B.get_or_init(|| {
        let mut books: BTreeMap<String, Book> = BTreeMap::new();
        for r in &file().liquidity {
            let b = books.entry(r.pool.clone()).or_default();
            let lp: u128 = r.lp.parse().unwrap();
            if b.supply == 0 {
                // Every pool's history starts with its creating join, which locks 1,001 LP.
                assert_eq!(r.kind, LiquidityKind::Join);
                b.supply = LOCKED;
            }
            match r.kind {
                LiquidityKind::Join => {
                    *b.held.entry(r.provider.clone()).or_default() += lp;
                    b.supply += lp;
                    if let Some(a) = &r.deposit_address {
                        b.lp_account.insert(r.provider.clone(), a.clone());
                    }
                }
                LiquidityKind::Exit => {
                    *b.held.get_mut(&r.provider).unwrap() -= lp;
                    b.supply -= lp;
                }
            }
        }
        books
    })
}

/// Every trade of `pool` (raw), replayed with `tonroute::pool` from the snapshot's reserves: the reserves now and
/// each trade as (input index, amount in).
fn replayed(pool: &str) -> ([u128; 2], Vec<(usize, u128)>) {
    let graph = PoolGraph::from_json(SNAPSHOT).unwrap();
    let id = graph.pool_id(&pool.parse().unwrap()).unwrap();
    let meta = graph.pool(id);
    let mut state = graph.pool_state(id);
    let mut trades = Vec::new();
    for t in file().trades.iter().filter(|t| t.pool == pool) {
        let input = usize::from(graph.asset(meta.assets[0]).asset != Asset::parse(&t.asset_in).unwrap());
        let dir = if input == 0 { Direction::ZeroToOne } else { Direction::OneToZero };
        let amount_in: u128 = t.amount_in.parse().unwrap();
        let r = state.swap(amount_in, dir).unwrap();
        assert_eq!(r.amount_out.to_string(), t.amount_out);
        state.apply(&r);
        trades.push((input, amount_in));
    }
    (state.reserves, trades)
}

/// The providers of the sample holding LP now: (wallet raw, pool raw), most events first.
fn holders() -> Vec<(String, String)> {
    let mut count: BTreeMap<String, usize> = BTreeMap::new();
    for r in &file().liquidity {
        *count.entry(r.provider.clone()).or_default() += 1;
    }
    let mut wallets: Vec<(usize, String)> = count.into_iter().map(|(w, c)| (c, w)).collect();
    wallets.sort_by(|a, b| b.cmp(a));
    let mut out = Vec::new();
    for (_, w) in wallets.iter().take(4) {
        for (pool, b) in books() {
            if b.held.get(w).is_some_and(|lp| *lp > 0) {
                out.push((w.clone(), pool.clone()));
            }
        }
    }
    out
}

#[test]
fn a_position_is_the_wallets_lp_share_of_the_reserves_now() {
    let pairs = holders();
    assert!(pairs.len() >= 4, "{pairs:?}");
    for (wallet, pool) in &pairs {
        let b = &books()[pool];
        let lp = b.held[wallet];
        let (reserves, _) = replayed(pool);
        let got = json(&api().get_liquidity_position(&friendly_wallet(wallet), pool, &[]).unwrap());
        let p = &got["position"];
        assert!(decimal(&p["liquidity"], true), "liquidity: {p}");
        for k in ["liquidity_percentage", "value_usd", "apr", "base_apr", "boost_apr", "rewards_total_usd"] {
            assert!(decimal(&p[k], false), "{k}: {p}");
        }
        assert!(p["position_address"].is_string() && p["pool_address"].is_string(), "{p}");
        assert_eq!(u(&p["liquidity"]), lp, "{wallet} in {pool}");
        close(f(&p["liquidity_percentage"]), lp as f64 / b.supply as f64 * 100.0, "liquidity_percentage");
        assert_eq!(
            p["position_address"].as_str().unwrap(),
            tonroute::market::replay::friendly(&b.lp_account[wallet].parse().unwrap())
        );
        let pool_assets = snapshot_pool(pool)["assets"].clone();
        let (mut usd, mut ton) = (0.0, 0.0);
        for k in 0..2 {
            let asset = pool_assets[k].as_str().unwrap();
            let amount = mul_div(lp, reserves[k], b.supply);
            let a = &p["assets"][asset];
            assert_eq!(u(&a["amount"]), amount, "{asset} of {wallet} in {pool}");
            let (pu, pt, dec) = price(asset);
            close(f(&a["amount_usd"]), whole(amount, dec) * pu, "amount_usd");
            usd += whole(amount, dec) * pu;
            ton += whole(amount, dec) * pt;
        }
        close(f(&p["value_usd"]), usd, "value_usd");
        close(f(&p["value_ton"]), ton, "value_ton");
        assert_eq!(p["rewards_total_usd"], "0");
        // The pool's rates, as /pools/{address} gives them.
        let pool_answer = json(&api().get_pool(pool, None).unwrap())["pool"].clone();
        assert_eq!(
            (&p["apr"], &p["base_apr"], &p["boost_apr"]),
            (&pool_answer["apr"], &pool_answer["apr_fees"], &pool_answer["apr_rewards"])
        );
        assert_eq!(got["assets_metadata"].as_object().unwrap().len(), 2);

        // The portfolio lists the same position, and values them beside (not inside) the balances' totals.
        let portfolio = json(&api().get_portfolio(&friendly_wallet(wallet), &[]).unwrap());
        let listed = portfolio["liquidity_positions"].as_array().unwrap();
        assert!(listed.iter().any(|x| x == p), "{wallet}: {pool} not in the portfolio");
        let expected: Vec<(String, u128)> = books()
            .iter()
            .filter_map(|(pool, b)| b.held.get(wallet).filter(|lp| **lp > 0).map(|lp| (pool.clone(), *lp)))
            .collect();
        assert_eq!(listed.len(), expected.len(), "{wallet}");
        let total: f64 = listed.iter().map(|x| f(&x["value_usd"])).sum();
        close(f(&portfolio["liquidity_value_usd"]), total, "liquidity_value_usd");
        let values: Vec<f64> = listed.iter().map(|x| f(&x["value_usd"])).collect();
        assert!(values.windows(2).all(|w| w[0] >= w[1]), "by value");
        let balances_usd: f64 =
            portfolio["jetton_balances"].as_array().unwrap().iter().map(|x| f(&x["value_usd"])).sum();
        close(f(&portfolio["total_value_usd"]), balances_usd, "total_value_usd is the balances'");
    }
}

#[test]
fn pool_total_supply_is_the_events_lp_supply() {
    for (pool, b) in books() {
        let got = json(&api().get_pool(pool, None).unwrap())["pool"].clone();
        assert_eq!(u(&got["total_supply"]), b.supply, "{pool}");
        assert_eq!(got["locked_liquidity"], "1001", "{pool}");
    }
    // A pool without liquidity events keeps the estimate isqrt(r0 · r1) of its reserves now.
    let quiet = file().trades.iter().map(|t| t.pool.clone()).find(|p| !books().contains_key(p)).unwrap();
    let got = json(&api().get_pool(&quiet, None).unwrap())["pool"].clone();
    let r: Vec<u128> = got["reserves"].as_array().unwrap().iter().map(u).collect();
    assert_eq!(u(&got["total_supply"]), u128::try_from((U256::from(r[0]) * U256::from(r[1])).integer_sqrt()).unwrap());
    assert!(got.get("locked_liquidity").is_none(), "{got}");
}

#[test]
fn fee_earnings_are_the_wallets_share_of_each_trades_lp_fee() {
    let mut checked = 0;
    for (wallet, _) in holders() {
        let got = json(&api().get_earnings(&friendly_wallet(&wallet), &[]).unwrap());
        for k in ["creator_earnings", "meme_creator_earnings", "boost_rewards"] {
            assert_eq!(got[k], Value::Array(vec![]), "{k}");
        }
        let rows = got["fee_earnings"].as_array().unwrap();
        // One entry per pool the wallet ever joined.
        let joined: Vec<&String> =
            books().iter().filter(|(_, b)| b.held.contains_key(&wallet)).map(|(p, _)| p).collect();
        assert_eq!(rows.len(), joined.len(), "{wallet}");
        for pool in joined {
            let b = &books()[pool];
            let lp = b.held[&wallet];
            let snap = snapshot_pool(pool);
            let lp_fee = snap["lp_fee"].as_u64().unwrap() as u128;
            // Every event of the sample is before the pool's first trade: LP and supply are those at each trade.
            let (_, trades) = replayed(pool);
            let mut earned = [0u128; 2];
            for (input, amount_in) in trades {
                earned[input] += mul_div(amount_in * lp_fee / 10_000, lp, b.supply);
            }
            let friendly_pool = tonroute::market::replay::friendly(&pool.parse().unwrap());
            let row = rows.iter().find(|r| r["pool_address"] == friendly_pool.as_str()).unwrap();
            assert_eq!(row["claimed_assets"], serde_json::json!({}));
            assert_eq!(
                row["position_address"].as_str().unwrap(),
                tonroute::market::replay::friendly(&b.lp_account[&wallet].parse().unwrap())
            );
            for k in 0..2 {
                let asset = snap["assets"][k].as_str().unwrap();
                let a = &row["assets"][asset];
                assert!(decimal(&a["amount"], true) && decimal(&a["amount_usd"], false), "{a}");
                assert_eq!(u(&a["amount"]), earned[k], "{asset} earned by {wallet} in {pool}");
                let (pu, _, dec) = price(asset);
                close(f(&a["amount_usd"]), whole(earned[k], dec) * pu, "amount_usd");
            }
            assert!(earned.iter().any(|e| *e > 0), "{wallet} earned something in {pool}");
            checked += 1;
        }
        let usd: Vec<f64> =
            rows.iter().map(|r| r["assets"].as_object().unwrap().values().map(|a| f(&a["amount_usd"])).sum()).collect();
        assert!(usd.windows(2).all(|w| w[0] >= w[1]), "by USD earned: {usd:?}");
    }
    assert!(checked >= 4, "{checked}");
}

#[test]
fn wallets_without_liquidity_and_bad_requests() {
    let nobody = format!("0:{}", "12".repeat(32));
    let (wallet, pool) = holders().remove(0);
    let w = friendly_wallet(&wallet);
    // No events: no positions, no earnings, an empty portfolio list, not errors.
    let e = json(&api().get_earnings(&nobody, &[]).unwrap());
    assert_eq!(e["fee_earnings"], Value::Array(vec![]));
    let p = json(&api().get_portfolio(&nobody, &[]).unwrap());
    assert_eq!(p["liquidity_positions"], Value::Array(vec![]));
    assert_eq!(p["liquidity_value_usd"], "0");
    assert_eq!(code(api().get_liquidity_position(&nobody, &pool, &[])), (404, 6404));
    // A pool the wallet never joined, and an unknown pool: 404 as well.
    let other = books().iter().find(|(_, b)| !b.held.contains_key(&wallet)).map(|(p, _)| p.clone()).unwrap();
    assert_eq!(code(api().get_liquidity_position(&w, &other, &[])), (404, 6404));
    assert_eq!(code(api().get_liquidity_position(&w, &format!("0:{}", "34".repeat(32)), &[])), (404, 6404));
    // Malformed addresses and parameters: 400.
    assert_eq!(code(api().get_liquidity_position("x", &pool, &[])), (400, 6009));
    assert_eq!(code(api().get_liquidity_position(&w, "pool?", &[])), (400, 6009));
    assert_eq!(code(api().get_liquidity_position(&w, &pool, &q("limit=1"))), (400, 6001));
    assert_eq!(code(api().get_earnings("x", &[])), (400, 6009));
    assert_eq!(code(api().get_earnings(&w, &q("a=1"))), (400, 6001));
    let e = api().get_liquidity_position(&nobody, &pool, &[]).unwrap_err();
    assert!(e.message().contains("no liquidity position"), "{}", e.message());
}

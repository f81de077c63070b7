//! `tonroute market ingest` as a user runs it (the built binary, its flags, JSON-lines files), on SQLite and on a
//! real PostgreSQL: trades are stored once however often a file is ingested, a bad line is refused with its line
//! number and reason and nothing of its file is stored, and a batch that fails or is killed mid-way leaves
//! nothing partial (re-running it stores every trade exactly once).
#![cfg(feature = "store")]

use crate::common;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tonroute::api::market::params::decode_query;
use tonroute::api::market::MarketApi;
use tonroute::graph::snapshot::Snapshot;
use tonroute::graph::PoolGraph;
use tonroute::market::store::sql::SqlMarketStore;
use tonroute::market::{MarketData, MarketStore, MarketView};

use common::bin::TONROUTE;
use common::market_db::{ingest, temp_db, MARKET, SNAPSHOT};

const NOT: &str = "jetton:0:2f956143c461769579baef2e32cc2d7bc18283f40d20bb03e432cd603ac33ffc";

/// `n` new trade lines: the replay's own /coin_transactions answers for NOT (so every field is consistent with
/// the snapshot), each moved `shift` seconds later with a fresh tx_hash (`salt` keeps sets apart).
fn lines(n: usize, salt: u64, shift: i64) -> Vec<Value> {
    let data = Arc::new(MarketData::from_json(PoolGraph::from_json(SNAPSHOT).unwrap(), MARKET).unwrap());
    let api = MarketApi::new(Arc::new(MarketView::new(data.clone(), data.as_of)));
    let mut base: Vec<Value> = Vec::new();
    let mut offset = 0;
    while base.len() < 400 {
        let q = decode_query(&format!("asset={NOT}&limit=100&offset={offset}")).unwrap();
        let page = serde_json::to_value(api.get_coin_transactions(&q).unwrap()).unwrap();
        let items = page["items"].as_array().unwrap().clone();
        if items.is_empty() {
            break;
        }
        offset += items.len();
        base.extend(items);
    }
    (0..n)
        .map(|i| {
            let mut v = base[i % base.len()].clone();
            let date = tonroute::market::types::DateTime::parse(v["trade_date"].as_str().unwrap()).unwrap().unix();
            let moved = tonroute::market::types::DateTime::from_unix(date + shift + (i / base.len()) as i64).unwrap();
            v["trade_date"] = Value::String(moved.to_string());
            v["tx_hash"] = Value::String(format!("{salt:016x}{i:048x}"));
            v
        })
        .collect()
}

fn write_lines(name: &str, lines: &[Value]) -> PathBuf {
    let path = temp_db(name).with_extension("jsonl");
    let text: String = lines.iter().map(|l| format!("{}\n", serde_json::to_string(l).unwrap())).collect();
    std::fs::write(&path, text).unwrap();
    path
}

fn count(url: &str) -> i64 {
    let url = url.to_string();
    std::thread::spawn(move || {
        SqlMarketStore::open(&url, Snapshot::from_json(SNAPSHOT).unwrap()).unwrap().trade_count().unwrap()
    })
    .join()
    .unwrap()
}

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The bundled sample's trade count (the database is filled with it on first use).
fn sample_trades() -> i64 {
    serde_json::from_str::<Value>(MARKET).unwrap()["trades"].as_array().unwrap().len() as i64
}

fn idempotent_and_visible(url: &str) {
    let new = lines(250, 1, 86_400);
    let file = write_lines("ingest", &new);
    let first = ingest(url, &[&file]);
    assert!(first.status.success(), "{}", stderr(&first));
    assert!(stdout(&first).contains("250 trades stored, 0 already stored"), "{}", stdout(&first));
    assert_eq!(count(url), sample_trades() + 250);
    // The same file again, and a file overlapping it: each trade is stored once.
    let again = ingest(url, &[&file]);
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(stdout(&again).contains("0 trades stored, 250 already stored"), "{}", stdout(&again));
    let overlap = write_lines("overlap", &lines(300, 1, 86_400));
    let o = ingest(url, &[&overlap]);
    assert!(stdout(&o).contains("50 trades stored, 250 already stored"), "{}", stdout(&o));
    assert_eq!(count(url), sample_trades() + 300);

    // The newest trades of NOT are now the ingested ones, with the amounts and prices of their lines.
    let u = url.to_string();
    let store: Arc<dyn MarketStore> = std::thread::spawn(move || {
        Arc::new(SqlMarketStore::open(&u, Snapshot::from_json(SNAPSHOT).unwrap()).unwrap()) as Arc<dyn MarketStore>
    })
    .join()
    .unwrap();
    let api = MarketApi::new(store);
    let got = serde_json::to_value(
        api.get_coin_transactions(&decode_query(&format!("asset={NOT}&limit=100")).unwrap()).unwrap(),
    )
    .unwrap();
    let mut want = lines(300, 1, 86_400);
    want.sort_by_key(|v| {
        std::cmp::Reverse(tonroute::market::types::DateTime::parse(v["trade_date"].as_str().unwrap()).unwrap().unix())
    });
    for g in got["items"].as_array().unwrap() {
        let w =
            want.iter().find(|w| w["tx_hash"] == g["tx_hash"]).unwrap_or_else(|| panic!("not an ingested trade: {g}"));
        for k in [
            "trade_date",
            "pool_address",
            "trade_asset_in",
            "trade_asset_out",
            "trade_asset_in_amount",
            "trade_asset_out_amount",
            "type",
            "price_usd",
            "volume_usd",
            "trader_address",
        ] {
            assert_eq!(g[k], w[k], "{k}");
        }
        let (gp, wp) = (
            g["price_ton"].as_str().unwrap().parse::<f64>().unwrap(),
            w["price_ton"].as_str().unwrap().parse::<f64>().unwrap(),
        );
        assert!((gp - wp).abs() <= 1e-12 * wp.abs(), "price_ton {gp} vs {wp}");
    }
}

fn bad_lines_refuse_the_whole_file(url: &str) {
    let before = count(url);
    let good = lines(3, 2, 2 * 86_400);
    let mut cases: Vec<(String, &str)> = Vec::new();
    cases.push(("{\"trade_date\": ".to_string(), "not a CoinTransaction object"));
    let mut v = good[0].clone();
    v["pool_address"] = Value::String(format!("0:{}", "12".repeat(32)));
    cases.push((v.to_string(), "unknown pool"));
    let mut v = good[0].clone();
    v["trade_asset_in"] = Value::String(format!("jetton:0:{}", "ab".repeat(32)));
    cases.push((v.to_string(), "does not trade"));
    let mut v = good[0].clone();
    v["trade_asset_in_amount"] = Value::String("-5".into());
    cases.push((v.to_string(), "`trade_asset_in_amount` is negative"));
    let mut v = good[0].clone();
    v["trade_date"] = Value::String("2015-01-01T00:00:00Z".into());
    cases.push((v.to_string(), "out of range"));
    let mut v = good[0].clone();
    v["trade_date"] = Value::String("2999-01-01T00:00:00Z".into());
    cases.push((v.to_string(), "out of range"));
    for (bad, reason) in cases {
        // Two good lines, then the bad one on line 3: nothing of the file is stored.
        let text = format!("{}\n{}\n{bad}\n", good[1], good[2]);
        let path = temp_db("bad").with_extension("jsonl");
        std::fs::write(&path, text).unwrap();
        let o = ingest(url, &[&path]);
        common::market_db::assert_file_refused(&o, &stderr(&o), &path, 3, "trade", reason);
        assert_eq!(count(url), before, "{reason}");
    }
}

/// A failure inside the database on the 150th row of a 300-trade batch (a trigger refusing one tx_hash): the
/// batch is rolled back; without the trigger the same file stores all 300 once.
fn injected_failure_rolls_back(url: &str, add_trigger: &str, drop_trigger: &str) {
    let batch = lines(300, 3, 3 * 86_400);
    let file = write_lines("inject", &batch);
    let poisoned = batch[150]["tx_hash"].as_str().unwrap().to_string();
    let before = count(url);
    exec(url, &add_trigger.replace("POISON", &poisoned));
    let o = ingest(url, &[&file]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert_eq!(count(url), before, "a failed batch left rows behind");
    exec(url, drop_trigger);
    let o = ingest(url, &[&file]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(count(url), before + 300);
}

fn exec(url: &str, sql: &str) {
    let (url, sql) = (url.to_string(), sql.to_string());
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            sqlx::any::install_default_drivers();
            let mut c = <sqlx::AnyConnection as sqlx::Connection>::connect(&url).await.unwrap();
            sqlx::raw_sql(&sql).execute(&mut c).await.unwrap();
        })
    })
    .join()
    .unwrap()
}

/// `tonroute market ingest` killed (SIGKILL) while it writes a large batch: the store holds either none or all of
/// the batch, and running it again stores every trade exactly once.
fn killed_mid_batch(url: &str) {
    let n = 20_000;
    let file = write_lines("kill", &lines(n, 4, 4 * 86_400));
    let before = count(url);
    let mut child = Command::new(TONROUTE)
        .args(["market", "ingest", "--db", url])
        .arg(&file)
        .current_dir(common::bin::repo())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(700));
    let _ = child.kill();
    let _ = child.wait();
    let after_kill = count(url);
    assert!(after_kill == before || after_kill == before + n as i64, "partial batch: {before} → {after_kill}");
    let o = ingest(url, &[&file]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(count(url), before + n as i64);
}

const SQLITE_TRIGGER: &str = "CREATE TRIGGER poison BEFORE INSERT ON trades WHEN NEW.tx_hash = 'POISON' \
     BEGIN SELECT RAISE(ABORT, 'injected failure'); END;";
const PG_TRIGGER: &str = "CREATE FUNCTION poison() RETURNS trigger AS $$ BEGIN \
     IF NEW.tx_hash = 'POISON' THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql; \
     CREATE TRIGGER poison BEFORE INSERT ON trades FOR EACH ROW EXECUTE FUNCTION poison();";

#[test]
fn ingest_on_sqlite() {
    let url = format!("sqlite://{}", temp_db("ingest").display());
    idempotent_and_visible(&url);
    bad_lines_refuse_the_whole_file(&url);
    injected_failure_rolls_back(&url, SQLITE_TRIGGER, "DROP TRIGGER poison");
    killed_mid_batch(&url);
}

#[test]
fn ingest_on_postgres() {
    let url = common::pg::server().fresh_database_url();
    idempotent_and_visible(&url);
    bad_lines_refuse_the_whole_file(&url);
    injected_failure_rolls_back(&url, PG_TRIGGER, "DROP TRIGGER poison ON trades; DROP FUNCTION poison();");
    killed_mid_batch(&url);
}

/// Issue #35 item 6: every input file is read and every line checked before any database is created or filled.
/// A missing file (named by its absolute path) or a bad line in the last file stops the command with nothing
/// written: the database file the command names is not even created (nor its lock file).
#[test]
fn every_file_is_checked_before_any_database_is_created() {
    let repo = common::bin::repo();
    let examples = repo.join("data/examples/trades.jsonl");
    let db = temp_db("never-created");
    let url = format!("sqlite://{}", db.display());
    let missing = temp_db("missing").with_extension("jsonl");
    let o = ingest(&url, &[&examples, &missing]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains(&format!("reading {}", missing.display())), "{}", stderr(&o));
    let mut bad: Value =
        serde_json::from_str(std::fs::read_to_string(&examples).unwrap().lines().next().unwrap()).unwrap();
    bad["trade_asset_in_decimals"] = 8.into();
    let bad_file = write_lines("bad-last", &[bad]);
    let o = ingest(&url, &[&examples, &bad_file]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains(":1: trade refused") && stderr(&o).contains("has 9 decimals"), "{}", stderr(&o));
    for file in [db.clone(), PathBuf::from(format!("{}-lock", db.display()))] {
        assert!(!file.exists(), "{} was created before the input was checked", file.display());
    }
    // The same files without the bad one: the database is created, filled, and the examples stored.
    let o = ingest(&url, &[&examples]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("4 trades stored, 0 already stored"), "{}", stdout(&o));
    assert!(stderr(&o).contains(&format!("market database {url} ")), "the absolute path: {}", stderr(&o));
    assert_eq!(count(&url), sample_trades() + 4);
}

/// A file with no line (empty, or blank lines only) is refused before any database is created: an ingest of
/// nothing does not report itself as done, even beside a good file.
#[test]
fn a_file_without_lines_is_refused_and_nothing_is_created() {
    let examples = common::bin::repo().join("data/examples/trades.jsonl");
    let db = temp_db("nothing-to-ingest");
    let url = format!("sqlite://{}", db.display());
    let empty = temp_db("empty").with_extension("jsonl");
    let blank = temp_db("blank").with_extension("jsonl");
    std::fs::write(&empty, "").unwrap();
    std::fs::write(&blank, "\n  \n\n").unwrap();
    for files in [vec![empty.as_path()], vec![blank.as_path()], vec![examples.as_path(), blank.as_path()]] {
        let o = ingest(&url, &files);
        let last = files.last().unwrap();
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        let said = format!("{}: no trade, liquidity event or balance line in it; nothing was stored", last.display());
        assert!(stderr(&o).contains(&said), "{}", stderr(&o));
        assert!(stdout(&o).is_empty(), "nothing reported as stored: {}", stdout(&o));
        for file in [db.clone(), PathBuf::from(format!("{}-lock", db.display()))] {
            assert!(!file.exists(), "{} was created for an ingest of nothing", file.display());
        }
    }
}

/// The example files the README's commands ingest are the generator's output (`tonroute_synth::ingest`), and every
/// example trade is the exact pool math on the state the sample left: re-simulated here with `tonroute::pool`,
/// independently of the replay the generator used, after the sample's own trades.
#[test]
fn the_example_files_regenerate_and_replay_with_the_pool_math() {
    let repo = common::bin::repo();
    let snapshot = Snapshot::from_json(SNAPSHOT).unwrap();
    let sample: tonroute::market::MarketFile = serde_json::from_str(MARKET).unwrap();
    let files = tonroute_synth::ingest::ingest_examples(&snapshot, &sample).unwrap();
    let read = |name: &str| std::fs::read_to_string(repo.join("data/examples").join(name)).unwrap();
    assert!(files.trades == read("trades.jsonl"), "data/examples/trades.jsonl differs from the generator's output");
    assert!(files.more == read("more.jsonl"), "data/examples/more.jsonl differs from the generator's output");
    // An independent replay: every pool from the snapshot, the sample's trades then the examples, each re-simulated.
    let graph = PoolGraph::from_json(SNAPSHOT).unwrap();
    let mut pools: std::collections::BTreeMap<String, tonroute::pool::Pool> = std::collections::BTreeMap::new();
    let mut step = |pool: &str, asset_in: &str, amount_in: u128| -> u128 {
        let address: tonlib_core::TonAddress = pool.parse().unwrap();
        let id = graph.pool_id(&address).unwrap();
        let meta = graph.pool(id);
        let state = pools.entry(address.to_hex()).or_insert_with(|| graph.pool_state(id));
        let zero_to_one = graph.asset(meta.assets[0]).asset.to_string() == asset_in;
        let direction =
            if zero_to_one { tonroute::pool::Direction::ZeroToOne } else { tonroute::pool::Direction::OneToZero };
        let r = state.swap(amount_in, direction).unwrap();
        state.apply(&r);
        // A concentrated pool swaps from its own state: the next trade starts where this one left it.
        if let tonroute::pool::Curve::Concentrated(c) = &state.curve {
            let (_, after) = c.swap_exact_in(c.state(), amount_in, direction).unwrap();
            state.curve = tonroute::pool::Curve::Concentrated(c.with_state(after).unwrap());
        }
        r.amount_out
    };
    for t in &sample.trades {
        step(&t.pool, &t.asset_in, t.amount_in.parse().unwrap());
    }
    let mut not_net: i128 = 0;
    let lines: Vec<Value> =
        format!("{}{}", files.trades, files.more).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 7);
    for l in lines.iter().filter(|l| l.get("owner").is_none()) {
        let amount_in: u128 = l["trade_asset_in_amount"].as_str().unwrap().parse().unwrap();
        let out = step(l["pool_address"].as_str().unwrap(), l["trade_asset_in"].as_str().unwrap(), amount_in);
        assert_eq!(l["trade_asset_out_amount"].as_str().unwrap(), out.to_string(), "{l}");
        assert!(l["trade_date"].as_str().unwrap() > "2024-11-21T12:00:00Z", "after the sample: {l}");
        if l["trade_asset_out"] == NOT {
            not_net += i128::try_from(out).unwrap();
        }
        if l["trade_asset_in"] == NOT {
            not_net -= i128::try_from(amount_in).unwrap();
        }
    }
    let balance = lines.last().unwrap();
    assert_eq!(balance["asset"], NOT);
    assert_eq!(balance["balance"].as_str().unwrap(), not_net.to_string(), "the balance line is the trades' net NOT");
}

/// The examples of docs/market-lines.md (the format's reference) are lines ingest accepts.
#[test]
fn the_documented_line_examples_are_accepted() {
    let doc = std::fs::read_to_string(common::bin::repo().join("docs/market-lines.md")).unwrap();
    let graph = PoolGraph::from_json(SNAPSHOT).unwrap();
    let latest = i64::MAX / 2;
    let mut kinds = Vec::new();
    for block in doc.split("```json\n").skip(1) {
        let line = block.split("\n```").next().unwrap();
        let kind = match tonroute::market::lines::parse_ingest_line(line, &graph, latest) {
            Ok(tonroute::market::lines::IngestLine::Trade(_)) => "trade",
            Ok(tonroute::market::lines::IngestLine::Liquidity(_)) => "liquidity",
            Ok(tonroute::market::lines::IngestLine::Balance(_)) => "balance",
            Err(e) => panic!("{e}: {line}"),
        };
        kinds.push(kind);
    }
    kinds.sort_unstable();
    assert_eq!(kinds, ["balance", "liquidity", "trade"], "a trade, a liquidity event and a balance");
}

/// The lines of a bundled example file, as JSON.
fn example(name: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(common::bin::repo().join("data/examples").join(name)).unwrap();
    text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// (trades, liquidity events, the example owner's NOT balance) as the store at `url` holds them.
fn held(url: &str) -> (i64, i64, Vec<(String, u128)>) {
    let url = url.to_string();
    std::thread::spawn(move || {
        let store = SqlMarketStore::open(&url, Snapshot::from_json(SNAPSHOT).unwrap()).unwrap();
        let owner = tonroute::asset::parse_address(OWNER).unwrap();
        let balances = store.balances(&owner).unwrap().iter().map(|b| (b.as_of.to_string(), b.balance)).collect();
        (store.trade_count().unwrap(), store.liquidity_count().unwrap(), balances)
    })
    .join()
    .unwrap()
}

/// The liquidity line docs/market-lines.md shows (a join).
fn documented_join() -> Value {
    let doc = std::fs::read_to_string(common::bin::repo().join("docs/market-lines.md")).unwrap();
    doc.split("```json\n")
        .filter_map(|b| serde_json::from_str::<Value>(b.split("\n```").next()?).ok())
        .find(|v| v.get("event").is_some())
        .unwrap()
}

/// The owner of data/examples/more.jsonl's balance line.
const OWNER: &str = "0:612908ba04b0e8bfe59c5cd272cf1331d40162ecee088b4a91474897bffbb2c1";

/// The new-user audit of `market ingest`, item 1: a zero amount in or out is refused like any bad line; a line giving another version
/// of a trade, liquidity event or balance the store (or an earlier line) holds under the same key is a conflict
/// that refuses its file, naming both versions, instead of "already stored" (which kept the first version for
/// ever); the same record again stays "already stored".
fn zero_amounts_and_conflicting_versions(url: &str) {
    let trades = example("trades.jsonl");
    let tx = trades[0]["tx_hash"].as_str().unwrap().to_string();
    // Zero amounts, in and out, on line 2 after a good line: refused, nothing stored (not even the database).
    for field in ["trade_asset_in_amount", "trade_asset_out_amount"] {
        let mut zero = trades[0].clone();
        zero[field] = Value::String("0".into());
        let file = write_lines("zero", &[trades[1].clone(), zero]);
        let o = ingest(url, &[&file]);
        common::market_db::assert_file_refused(&o, &stderr(&o), &file, 2, "trade", &format!("`{field}` is zero"));
    }
    let o = ingest(url, &[&common::bin::repo().join("data/examples/trades.jsonl")]);
    assert!(stdout(&o).contains("4 trades stored, 0 already stored"), "{}{}", stdout(&o), stderr(&o));
    let before = held(url);
    assert_eq!(before.0, sample_trades() + 4);

    // The first trade again with other amounts, after a line that is the same as a stored one.
    let mut other = trades[0].clone();
    other["trade_asset_in_amount"] = Value::String("1".into());
    let file = write_lines("conflict", &[trades[1].clone(), other]);
    let o = ingest(url, &[&file]);
    let pool = tonroute::asset::parse_address(trades[0]["pool_address"].as_str().unwrap()).unwrap().to_hex();
    let said = format!(
        "trade tx {tx} on pool {pool} is already stored with trade_asset_in_amount 250000000000; this line gives \
         trade_asset_in_amount 1"
    );
    common::market_db::assert_file_refused(&o, &stderr(&o), &file, 2, "trade", &said);
    assert_eq!(held(url), before, "a conflicting file stored something");
    // Two versions of a new trade within one file (the second on line 3): refused before the database is written.
    let mut fresh = trades[0].clone();
    fresh["tx_hash"] = Value::String("ab".repeat(32));
    let mut fresh_other = fresh.clone();
    fresh_other["trade_asset_out_amount"] = Value::String("351672684".into());
    let file = write_lines("conflict-in-file", &[fresh.clone(), trades[2].clone(), fresh_other]);
    let o = ingest(url, &[&file]);
    let said = format!("is given by {}:1 with trade_asset_out_amount 351672683", file.display());
    common::market_db::assert_file_refused(&o, &stderr(&o), &file, 3, "trade", &said);
    assert_eq!(held(url), before);
    // The same lines again, and the same line twice in a file: already stored, not conflicts.
    let again = write_lines("same-again", &[trades[0].clone(), trades[0].clone(), fresh.clone(), fresh]);
    let o = ingest(url, &[&again]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("1 trades stored, 3 already stored"), "{}", stdout(&o));

    // A liquidity event with a hash, and a balance: stored, then another version of each is refused.
    let mut join = documented_join();
    join["tx_hash"] = Value::String("cd".repeat(32));
    let balance = example("more.jsonl").last().unwrap().clone();
    let file = write_lines("liquidity-and-balance", &[join.clone(), balance.clone()]);
    let o = ingest(url, &[&file]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("1 liquidity events stored") && stdout(&o).contains("1 balances stored"));
    let before = held(url);
    let mut join_other = join.clone();
    join_other["lp_amount"] = Value::String("1174999".into());
    join_other["min_lp_out"] = Value::String("1000".into());
    let mut balance_other = balance.clone();
    balance_other["balance"] = Value::String("1".into());
    for (lines, what, said) in [
        (
            [balance.clone(), join_other],
            "liquidity event",
            "already stored with lp_amount 1175000; this line gives lp_amount 1174999",
        ),
        (
            [join.clone(), balance_other],
            "balance",
            "already stored with balance 47823519689748; this line gives balance 1",
        ),
    ] {
        let file = write_lines("other-version", &lines);
        let o = ingest(url, &[&file]);
        common::market_db::assert_file_refused(&o, &stderr(&o), &file, 2, what, said);
    }
    assert_eq!(held(url), before, "a conflicting file stored something");
    // A balance read later replaces it, one read earlier is stale: neither is a conflict.
    let mut later = balance.clone();
    later["as_of"] = Value::String("2024-11-21T13:00:00Z".into());
    later["balance"] = Value::String("5".into());
    let mut earlier = balance;
    earlier["as_of"] = Value::String("2024-11-21T12:00:00Z".into());
    earlier["balance"] = Value::String("6".into());
    let file = write_lines("balances-in-time", &[later, earlier]);
    let o = ingest(url, &[&file]);
    assert!(stdout(&o).contains("1 balances stored, 1 not newer than stored"), "{}{}", stdout(&o), stderr(&o));
    assert_eq!(held(url).2, vec![("2024-11-21T13:00:00Z".to_string(), 5)]);
}

on_sqlite_and_postgres!(
    zero_amounts_and_conflicting_versions,
    "conflicts",
    zero_amounts_and_conflicting_versions_on_sqlite,
    zero_amounts_and_conflicting_versions_on_postgres
);

/// The new-user audit of `market ingest`, item 4: a date out of range is said in RFC 3339, the format the lines
/// write dates in (it was Unix seconds), the value and both ends of the range, for each kind's date field.
#[test]
fn dates_out_of_range_are_said_in_rfc_3339() {
    let db = temp_db("dates");
    let url = format!("sqlite://{}", db.display());
    let mut trade = example("trades.jsonl")[0].clone();
    trade["trade_date"] = Value::String("2099-01-01T00:00:00Z".into());
    let mut balance = example("more.jsonl").last().unwrap().clone();
    balance["as_of"] = Value::String("2019-01-01T00:00:00+02:00".into());
    let mut join = documented_join();
    join["event_date"] = Value::String("2099-01-01T00:00:00Z".into());
    for (line, what, said) in [
        (trade, "trade", "trade_date 2099-01-01T00:00:00Z is out of range (2019-11-15T00:00:00Z to "),
        (join, "liquidity event", "event_date 2099-01-01T00:00:00Z is out of range (2019-11-15T00:00:00Z to "),
        (balance, "balance", "as_of 2018-12-31T22:00:00Z is out of range (2019-11-15T00:00:00Z to "),
    ] {
        let file = write_lines("date", &[line]);
        let o = ingest(&url, &[&file]);
        let err = stderr(&o);
        common::market_db::assert_file_refused(&o, &err, &file, 1, what, said);
        // The latest accepted date: a day after the command's clock, in the same format.
        let latest = err.split(said).nth(1).and_then(|rest| rest.split(')').next()).unwrap();
        let latest = tonroute::market::types::DateTime::parse(latest).unwrap_or_else(|e| panic!("{latest}: {e:?}"));
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
        assert!((latest.unix() - (now + 86_400)).abs() < 600, "{err}");
        assert!(!db.exists());
    }
}

/// The new-user audit of `market ingest`, item 5: a URL that names no market database (another scheme, or no
/// scheme at all) is refused before anything is said about it (it was announced as the database `serve` would
/// read) or created; a `sqlite://` URL naming a directory fails without leaving the `-lock` file it created.
#[test]
fn a_bad_url_is_refused_before_anything_is_said_or_created() {
    let dir = temp_db("bad-url").with_extension("d");
    std::fs::create_dir_all(&dir).unwrap();
    let examples = common::bin::repo().join("data/examples/trades.jsonl");
    let examples = examples.display().to_string();
    for db in ["mysql://x", "m2.db"] {
        let o = common::bin::run_tonroute(&dir, &["market", "ingest", "--db", db, &examples], None);
        assert_eq!(o.status.code(), Some(2), "{db}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("is not a market database URL (expected sqlite://PATH or postgres://…)"),
            "{db}: {}",
            stderr(&o)
        );
        assert!(!stderr(&o).contains("tonroute serve"), "{db}: announced before it was checked: {}", stderr(&o));
        assert!(stdout(&o).is_empty(), "{}", stdout(&o));
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert!(left.is_empty(), "{db}: created {left:?}");
    }
    let outdir = dir.join("outdir");
    std::fs::create_dir(&outdir).unwrap();
    let url = format!("sqlite://{}", outdir.display());
    let o = common::bin::run_tonroute(&dir, &["market", "ingest", "--db", &url, &examples], None);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains(&format!("error: market database {url}")), "{}", stderr(&o));
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left, vec![std::ffi::OsString::from("outdir")], "a failed open left files behind");
    assert_eq!(std::fs::read_dir(&outdir).unwrap().count(), 0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The new-user audit of `market ingest`, item 2: `--market-seed` is read and checked before any database is
/// opened or created (a missing or bad seed left a migrated empty database and its -wal, -shm and -lock files),
/// and the error names the flag.
#[test]
fn a_bad_market_seed_is_refused_before_any_database_is_created() {
    let dir = temp_db("bad-seed").with_extension("d");
    std::fs::create_dir_all(&dir).unwrap();
    let repo = common::bin::repo();
    let examples = repo.join("data/examples/trades.jsonl").display().to_string();
    let not_a_market = repo.join("data/snapshot.json").display().to_string();
    for (seed, said) in [
        ("nope.json", "error: --market-seed: reading nope.json: No such file or directory".to_string()),
        (not_a_market.as_str(), format!("error: --market-seed: market data {not_a_market}")),
    ] {
        let args = ["market", "ingest", "--db", "sqlite://m5.db", "--market-seed", seed, &examples];
        let o = common::bin::run_tonroute(&dir, &args, None);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains(&said), "{said}: {}", stderr(&o));
        assert!(stdout(&o).is_empty(), "{}", stdout(&o));
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert!(left.is_empty(), "{seed}: created {left:?}");
    }
    // A good seed: the database is created and filled from it.
    let seed = repo.join("data/market.json").display().to_string();
    let o = common::bin::run_tonroute(
        &dir,
        &["market", "ingest", "--db", "sqlite://m5.db", "--market-seed", &seed, &examples],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains(&format!("filled from {seed}")), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The new-user audit of `market ingest`, item 3: a PostgreSQL server nothing listens for is reported at once
/// with the cause (connection refused) and the URL without its password, by `market ingest` and by `serve
/// --market-db` (the store's shared opening; `sync --market-db` opens through it too). It took 30 s and said
/// only `pool timed out while waiting for an open connection`.
#[test]
fn an_unreachable_postgres_fails_at_once_with_the_cause() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("postgres://tonroute:secret@127.0.0.1:{port}/market");
    let shown = format!("market database postgres://tonroute@127.0.0.1:{port}/market: ");
    let check = |what: &str, err: &str, took: Duration| {
        assert!(err.contains(&shown), "{what}: {err}");
        assert!(err.contains("Connection refused"), "{what}: the cause: {err}");
        assert!(!err.contains("secret"), "{what}: the password was shown: {err}");
        // Generous (a noisy machine): the refusal itself takes milliseconds, the old pool's wait 30 s.
        assert!(took < Duration::from_secs(15), "{what}: took {took:?}");
    };
    let examples = common::bin::repo().join("data/examples/trades.jsonl");
    let start = std::time::Instant::now();
    let o = ingest(&url, &[&examples]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    check("market ingest", &stderr(&o), start.elapsed());
    let start = std::time::Instant::now();
    let serve = common::bin::start_serve_env(&common::bin::repo(), &["--market-db", &url], &[]);
    let err = match serve.ready_or_exit() {
        Ok(_) => panic!("serve came up on an unreachable database"),
        // The harness's text starts with the command line (the URL as given); the server's stderr follows.
        Err(err) => err.split_once("at startup:").map_or(err.clone(), |(_, log)| log.to_string()),
    };
    check("serve", &err, start.elapsed());
}

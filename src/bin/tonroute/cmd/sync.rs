//! `tonroute sync --out FILE [--watch]` (feature `sync`): a snapshot built from the exchanges' APIs and
//! toncenter, written atomically, then with `--watch` kept fresh block by block ([`tonroute::sync`] does the
//! reading; this prints, counts and writes).
//!
//! Nothing partial is ever written: a build that fails writes nothing (the old file stays), a pool whose read
//! fails keeps its last good state (from the file being replaced), a round that fails leaves the file and
//! the cursor as they were and is counted, and a tracked wallet (`--wallet`, `--wallets`) whose holdings cannot
//! be read whole writes none of its balances that round (its stored ones stay).

use std::collections::BTreeMap;
use std::time::Duration;

use tonroute::sync::config::{ApiKey, Endpoints, Limits, Sources, SyncConfig};
use tonroute::sync::http::{Endpoint, EndpointCount};
use tonroute::sync::watch::Watcher;
use tonroute::sync::{BuildReport, Syncer};

use super::files::{check_writable, read_snapshot_if_any, write_snapshot};
use crate::args::{SyncArgs, SyncSource};
#[cfg(feature = "nats")]
use crate::error::chain;
use crate::error::CliError;
use crate::logs::{self, LogFormat};
use crate::print::out;

/// The library's configuration from the command line and the environment (the API key from
/// TONCENTER_API_KEY only, never a flag, so that it stays out of shell histories and process lists).
fn config(args: &SyncArgs) -> Result<SyncConfig, CliError> {
    let api_key = std::env::var("TONCENTER_API_KEY").ok().and_then(|k| ApiKey::new(&k));
    let mut limits = if api_key.is_some() { Limits::with_api_key() } else { Limits::default() };
    if let Some(rate) = args.rate {
        if !(rate.is_finite() && rate > 0.0) {
            return Err(CliError::BadRate { rate });
        }
        limits.rate = rate;
        limits.burst = limits.burst.max(rate.ceil().min(100.0) as u32);
    }
    limits.timeout = Duration::from_millis(args.timeout_ms.max(1));
    limits.attempts = args.attempts.max(1);
    let mut endpoints = args.api_base.as_deref().map_or_else(Endpoints::default, Endpoints::all_at);
    for (url, field) in [
        (&args.stonfi_url, &mut endpoints.stonfi),
        (&args.dedust_url, &mut endpoints.dedust),
        (&args.tonco_url, &mut endpoints.tonco),
        (&args.toncenter_url, &mut endpoints.toncenter),
    ] {
        if let Some(url) = url {
            field.clone_from(url);
        }
    }
    let sources = Sources {
        stonfi: args.sources.contains(&SyncSource::Stonfi),
        dedust: args.sources.contains(&SyncSource::Dedust),
        tonco: args.sources.contains(&SyncSource::Tonco),
    };
    Ok(SyncConfig { endpoints, api_key, limits, sources, ..SyncConfig::default() })
}

fn requests_line(requests: &BTreeMap<Endpoint, EndpointCount>) -> String {
    let total: u64 = requests.values().map(|c| c.sent).sum();
    let retries: u64 = requests.values().map(|c| c.retries).sum();
    let failed: u64 = requests.values().map(|c| c.failed).sum();
    let each: Vec<String> = requests.iter().map(|(e, c)| format!("{} {}", e.name(), c.sent)).collect();
    format!("{total} requests ({retries} retries, {failed} failed calls): {}", each.join(", "))
}

fn print_build(r: &BuildReport) {
    out!("masterchain block {}", r.seqno);
    for l in &r.lists {
        match &l.result {
            Ok(n) => out!("{}: {n} records", l.endpoint.name()),
            Err(e) => out!("{}: FAILED ({e}); its pools kept from the previous snapshot", l.endpoint.name()),
        }
    }
    let kinds: Vec<String> = r.listed.iter().map(|(k, n)| format!("{k} {n}")).collect();
    out!("listed pools: {}", if kinds.is_empty() { "none".into() } else { kinds.join(", ") });
    let skipped: usize = r.skipped.values().sum();
    let reasons: Vec<String> = r.skipped.iter().map(|(k, n)| format!("{} {n}", k.name())).collect();
    out!(
        "skipped {skipped} records{}",
        if reasons.is_empty() { String::new() } else { format!(": {}", reasons.join(", ")) }
    );
    out!(
        "chain state read for {} pools; {} failed ({} kept at their last good state, {} left out)",
        r.refreshed,
        r.failed.len(),
        r.kept,
        r.dropped
    );
    for f in r.failed.iter().take(10) {
        out!("  {}: {}", f.address, f.error);
    }
    out!("{}", requests_line(&r.requests));
}

/// Where the sync's changes go besides the file: the reserve stream (`--nats`). A publish that fails is logged
/// and counted, and the next round republishes every pool (idempotent writes), so that no change is lost and
/// no replica is left with a reserves-only value for a pool it never got.
#[cfg(feature = "nats")]
struct Stream {
    publisher: tonroute::feed::Publisher,
    url: String,
    resync: bool,
    failures: u64,
}

#[cfg(feature = "nats")]
impl Stream {
    async fn connect(args: &SyncArgs) -> Result<Option<Stream>, CliError> {
        let Some(url) = &args.nats else { return Ok(None) };
        let publisher = tonroute::feed::Publisher::connect(url, &args.bucket).await.map_err(CliError::Publish)?;
        Ok(Some(Stream { publisher, url: url.clone(), resync: true, failures: 0 }))
    }

    /// Publishes what `changes` did to `live` at block `seqno` (every pool when a resync is due).
    async fn publish(
        &mut self,
        live: &tonroute::sync::LiveSnapshot,
        changes: &[tonroute::sync::publish::PoolChange],
        seqno: u32,
    ) -> Result<(), CliError> {
        let stamp = tonroute::feed::Stamp { seqno: Some(seqno), time: None };
        let result = if self.resync {
            self.publisher.publish_snapshot(live.snapshot(), stamp).await
        } else if changes.is_empty() {
            return Ok(());
        } else {
            let stream = tonroute::sync::publish::stream_changes(changes, live.snapshot(), seqno)
                .map_err(CliError::StreamChange)?;
            self.publisher.publish_changes(&stream).await
        };
        match result {
            Ok(r) => {
                let what = if self.resync { "every pool" } else { "changes" };
                tracing::info!(
                    bucket = self.publisher.bucket(),
                    seqno,
                    written = r.written,
                    deleted = r.deleted,
                    revision = r.last_revision,
                    "sync: published {what}"
                );
                out!(
                    "published {} pools to bucket {} at {} (block {seqno}, last revision {})",
                    r.written + r.deleted,
                    self.publisher.bucket(),
                    self.url,
                    r.last_revision
                );
                self.resync = false;
            }
            Err(e) => {
                self.failures += 1;
                self.resync = true;
                tracing::warn!(bucket = self.publisher.bucket(), seqno, error = %chain(&e), "sync: publishing failed; every pool is published again next round");
                out!("publishing to {} FAILED ({}); every pool is published again next round", self.url, chain(&e));
            }
        }
        Ok(())
    }
}

/// Where `--market-db` puts what each watch round's state changes were ([`tonroute::market::derive`]): a swap
/// becomes a trade, written through the market store's ingest (one transaction per round, idempotent: the same
/// swap derived again is stored once); a liquidity event goes into the store's liquidity events in the same
/// transaction; a concentrated pool is excluded (its reserves are virtual: see the module documentation of derive).
#[cfg(feature = "store")]
struct Market {
    store: tonroute::market::store::sql::SqlMarketStore,
    url: String,
    /// Tracked wallets (`--wallet`, `--wallets`): their balances are read and stored after the build and each
    /// round.
    wallets: Vec<tonlib_core::TonAddress>,
    balances_written: usize,
    wallet_failures: usize,
    /// Each plain-reserve pool's last observed reserves.
    last: std::collections::HashMap<String, [u128; 2]>,
    stored: usize,
    duplicates: usize,
    liquidity: usize,
    liquidity_stored: usize,
    excluded: usize,
    untimed: usize,
}

#[cfg(feature = "store")]
impl Market {
    /// Opens (creating, migrating) the database over the synced snapshot and stores its pools (idempotent).
    fn open(url: &str, snapshot: &tonroute::graph::snapshot::Snapshot) -> Result<Market, CliError> {
        use tonroute::market::store::sql::SqlMarketStore;
        use tonroute::market::types::DateTime;
        use tonroute::market::{MarketData, MarketFile};
        let store_error = |source| CliError::Store { url: super::market::redact(url), source: Box::new(source) };
        let store = SqlMarketStore::open(url, snapshot.clone()).map_err(store_error)?;
        // The trades' pools must be rows of the store: an empty market over the synced snapshot writes them (a
        // pool, a header already stored is kept).
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let file = MarketFile {
            source: "tonroute sync: trades derived from pool state changes".into(),
            snapshot_source: None,
            as_of: DateTime::from_unix(i64::try_from(now).unwrap_or(0))
                .unwrap_or(DateTime(time::OffsetDateTime::UNIX_EPOCH)),
            program_address: tonlib_core::TonAddress::NULL.to_hex(),
            coins: Vec::new(),
            trades: Vec::new(),
            liquidity: Vec::new(),
            rewards: Vec::new(),
            affiliates: Vec::new(),
            balances: Vec::new(),
        };
        let graph = snapshot.clone().into_graph().map_err(|e| CliError::Sync(tonroute::sync::SyncError::Graph(e)))?;
        let data = MarketData::load(graph, &file).map_err(CliError::SyncMarket)?;
        store.load_market(&data, &file).map_err(store_error)?;
        let last = snapshot
            .pools
            .iter()
            .filter(|p| p.curve != "concentrated")
            .filter_map(|p| Some((p.address.clone(), [p.reserves[0].parse().ok()?, p.reserves[1].parse().ok()?])))
            .collect();
        Ok(Market {
            store,
            url: url.to_string(),
            wallets: Vec::new(),
            balances_written: 0,
            wallet_failures: 0,
            last,
            stored: 0,
            duplicates: 0,
            liquidity: 0,
            liquidity_stored: 0,
            excluded: 0,
            untimed: 0,
        })
    }

    fn store_error(&self) -> impl Fn(tonroute::market::store::sql::StoreError) -> CliError + '_ {
        move |source| CliError::Store { url: super::market::redact(&self.url), source: Box::new(source) }
    }

    /// Reads the tracked wallets' holdings (each whole or not at all, [`tonroute::sync::holdings`]) as of masterchain
    /// block `block` (generated at `time`; the read's own time when toncenter did not give it) and makes them the
    /// balances to store; `label` names the round in what is printed. Wallets that failed are printed and counted.
    async fn read_balances(
        &mut self,
        toncenter: &tonroute::sync::toncenter::Toncenter,
        label: &str,
        block: u32,
        time: Option<u64>,
    ) -> Result<Vec<tonroute::market::wallets::Balance>, CliError> {
        use tonroute::market::types::DateTime;
        use tonroute::market::wallets::from_holdings;
        if self.wallets.is_empty() {
            return Ok(Vec::new());
        }
        let read = tonroute::sync::holdings::read(toncenter, &self.wallets).await;
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let unix = i64::try_from(time.unwrap_or(now)).unwrap_or(i64::MAX);
        let as_of = DateTime::from_unix(unix).unwrap_or(DateTime(time::OffsetDateTime::UNIX_EPOCH));
        let mut balances = Vec::new();
        let mut unknown = 0;
        for w in &read.read {
            let stored = tokio::task::block_in_place(|| self.store.balances(&w.owner)).map_err(self.store_error())?;
            let assets: Vec<tonroute::asset::Asset> = stored.iter().map(|b| b.asset).collect();
            let made = from_holdings(self.store.graph(), &w.owner, w.ton, &w.jettons, &assets, as_of, Some(block));
            unknown += made.unknown;
            balances.extend(made.balances);
        }
        self.wallet_failures += read.failed.len();
        for (owner, e) in &read.failed {
            tracing::warn!(owner = %owner.to_hex(), error = %e, "sync: wallet holdings not read; none of its balances written");
            out!("  wallet {}: {e} (none of its balances written; read again next round)", owner.to_hex());
        }
        out!(
            "{label}: holdings of {} wallets read at block {block}, {} failed; {} balances to store{}",
            read.read.len(),
            read.failed.len(),
            balances.len(),
            if unknown > 0 { format!(", {unknown} jettons not in the snapshot left out") } else { String::new() }
        );
        Ok(balances)
    }

    /// Stores the balances read after the build (one transaction).
    fn store_balances(&mut self, balances: &[tonroute::market::wallets::Balance]) -> Result<(), CliError> {
        if self.wallets.is_empty() {
            return Ok(());
        }
        let report =
            tokio::task::block_in_place(|| self.store.ingest_balances(balances)).map_err(self.store_error())?;
        self.balances_written += report.applied;
        out!("build: {} balances stored, {} not newer than the stored ones", report.applied, report.stale);
        Ok(())
    }

    /// Derives and stores what `round` changed in `live`, with the tracked wallets' `balances` read after it, all in
    /// one transaction.
    fn record(
        &mut self,
        round: u64,
        r: &tonroute::sync::watch::Round,
        live: &tonroute::sync::LiveSnapshot,
        balances: &[tonroute::market::wallets::Balance],
    ) -> Result<(), CliError> {
        use tonroute::asset::Asset;
        use tonroute::market::derive::{derive, ton_usd, Derived, Observation};
        let snapshot = live.snapshot();
        let ton = ton_usd(snapshot);
        let usdt = Asset::parse(tonroute::asset::known::USDT).ok();
        let decimals =
            |a: Asset| snapshot.assets.iter().find(|e| Asset::parse(&e.asset).ok() == Some(a)).map(|e| e.decimals);
        let usd = |a: Asset| {
            if Some(a) == usdt {
                Some(1.0)
            } else if a == Asset::Native {
                ton
            } else {
                None
            }
        };
        let mut lines = Vec::new();
        let mut events = Vec::new();
        let (mut liquidity, mut excluded, mut untimed) = (0, 0, 0);
        for change in &r.changes {
            let Some(pool) = live.pool(change.address()) else { continue };
            if pool.curve == "concentrated" {
                excluded += 1;
                continue;
            }
            let (Ok(a0), Ok(a1), Ok(r0), Ok(r1)) = (
                Asset::parse(&pool.assets[0]),
                Asset::parse(&pool.assets[1]),
                pool.reserves[0].parse::<u128>(),
                pool.reserves[1].parse::<u128>(),
            ) else {
                continue;
            };
            let now = [r0, r1];
            // A pool first seen now has no earlier state to compare with.
            let Some(before) = self.last.insert(pool.address.clone(), now) else { continue };
            let Some(time) = r.time.and_then(|t| i64::try_from(t).ok()) else {
                untimed += 1;
                continue;
            };
            let Ok(address) = tonroute::asset::parse_address(&pool.address) else { continue };
            let before = Observation { reserves: before, seqno: r.from, time };
            let after = Observation { reserves: now, seqno: r.to, time };
            match derive(&address, [a0, a1], &before, &after) {
                Ok(Derived::Swap(s)) => {
                    let (Some(d0), Some(d1)) = (decimals(a0), decimals(a1)) else { continue };
                    lines.push(s.trade_line([d0, d1], [usd(a0), usd(a1)], ton.unwrap_or(0.0)));
                }
                Ok(Derived::Liquidity(e)) => {
                    liquidity += 1;
                    tracing::info!(round, pool = %pool.address, kind = e.kind.as_str(), amount0 = %e.amounts[0], amount1 = %e.amounts[1], seqno = e.seqno, "sync: liquidity event");
                    events.push(e.store_event());
                }
                Ok(Derived::Unchanged) => {}
                Err(e) => tracing::warn!(round, error = %e, "sync: state change not derived"),
            }
        }
        let (batch, written) =
            tokio::task::block_in_place(|| self.store.ingest_with_balances(&lines, &events, balances))
                .map_err(self.store_error())?;
        let report = batch.trades;
        self.balances_written += written.applied;
        if !self.wallets.is_empty() {
            out!(
                "round {round}: {} balances stored, {} not newer than the stored ones",
                written.applied,
                written.stale
            );
        }
        self.stored += report.new;
        self.duplicates += report.duplicates;
        self.liquidity_stored += batch.liquidity.new;
        self.liquidity += liquidity;
        self.excluded += excluded;
        self.untimed += untimed;
        tracing::info!(
            round,
            trades = report.new,
            duplicates = report.duplicates,
            liquidity,
            excluded,
            untimed,
            "sync: derived trades and liquidity events stored"
        );
        out!(
            "round {round}: derived {} trades ({} stored, {} already stored), {liquidity} liquidity events ({} stored, {} already stored), {excluded} concentrated pools excluded{}",
            lines.len(),
            report.new,
            report.duplicates,
            batch.liquidity.new,
            batch.liquidity.duplicates,
            if untimed > 0 { format!(", {untimed} changes without a block time (not derived)") } else { String::new() }
        );
        Ok(())
    }
}

/// The tracked wallets of `--wallet` and `--wallets FILE`, in order, each once.
#[cfg(feature = "store")]
fn tracked_wallets(args: &SyncArgs) -> Result<Vec<tonlib_core::TonAddress>, CliError> {
    let mut given: Vec<(String, String)> = args.wallet.iter().map(|w| ("--wallet".to_string(), w.clone())).collect();
    if let Some(path) = &args.wallets {
        let text =
            std::fs::read_to_string(path).map_err(|source| CliError::ReadWallets { path: path.clone(), source })?;
        for (i, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or_default().trim();
            if !line.is_empty() {
                given.push((format!("{}:{}", path.display(), i + 1), line.to_string()));
            }
        }
    }
    let mut out: Vec<tonlib_core::TonAddress> = Vec::new();
    for (origin, text) in given {
        let a = tonroute::asset::parse_address(&text).map_err(|source| CliError::BadWallet { origin, text, source })?;
        if !out.contains(&a) {
            out.push(a);
        }
    }
    Ok(out)
}

/// Runs the command.
pub(super) fn run(args: SyncArgs) -> Result<(), CliError> {
    logs::init(if args.log_json { LogFormat::Json } else { LogFormat::Text }).map_err(CliError::Logs)?;
    let config = config(&args)?;
    #[cfg(feature = "store")]
    let wallets = tracked_wallets(&args)?;
    check_writable(&args.out)?;
    let previous = read_snapshot_if_any(&args.out)?;
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(CliError::Runtime)?;
    rt.block_on(async {
        // NATS first: an unreachable server fails the command before anything is read or written.
        #[cfg(feature = "nats")]
        let mut stream = Stream::connect(&args).await?;
        let syncer = Syncer::new(config)?;
        let (live, report) = syncer
            .build(previous.as_ref())
            .await
            .map_err(|source| CliError::SyncBuild { out: args.out.clone(), source: Box::new(source) })?;
        print_build(&report);
        tracing::info!(
            seqno = report.seqno,
            pools = live.snapshot().pools.len(),
            failed = report.failed.len(),
            requests = report.requests.values().map(|c| c.sent).sum::<u64>(),
            "sync: built"
        );
        for f in &report.failed {
            tracing::warn!(pool = %f.address, error = %f.error, "sync: pool read failed");
        }
        write_snapshot(&args.out, live.snapshot())?;
        out!("wrote {}: {} pools, {} assets", args.out.display(), live.snapshot().pools.len(), live.snapshot().assets.len());
        #[cfg(feature = "store")]
        let toncenter = syncer.toncenter().clone();
        #[cfg(feature = "store")]
        let mut market = match &args.market_db {
            Some(url) => {
                let url = super::market::absolute_url(url);
                let mut m = tokio::task::block_in_place(|| Market::open(&url, live.snapshot()))?;
                m.wallets = wallets;
                let balances = m.read_balances(&toncenter, "build", report.seqno, report.time).await?;
                m.store_balances(&balances)?;
                Some(m)
            }
            None => None,
        };
        #[cfg(feature = "nats")]
        if let Some(stream) = &mut stream {
            stream.publish(&live, &[], report.seqno).await?;
            if !args.watch && stream.resync {
                // A one-shot sync whose only publish failed: say so by the exit code (the file is written).
                return Err(CliError::PublishIncomplete { url: stream.url.clone() });
            }
        }
        if !args.watch {
            return Ok(());
        }
        let mut watcher = Watcher::new(syncer, live, report.seqno, Duration::from_millis(args.poll_ms.max(1)));
        let (mut rounds, mut failed_rounds, mut failed_reads, mut changed) = (0u64, 0u64, 0usize, 0usize);
        while args.rounds.is_none_or(|n| rounds < n) {
            let round = tokio::select! {
                round = watcher.next_round() => round,
                _ = tokio::signal::ctrl_c() => break,
            };
            rounds += 1;
            match round {
                Ok(r) => {
                    failed_reads += r.failed.len();
                    changed += r.changes.len();
                    let blocks = if r.full { "all pools (too far behind)".to_string() } else { format!("blocks {}..={}", r.from + 1, r.to) };
                    tracing::info!(
                        round = rounds,
                        from = r.from + 1,
                        to = r.to,
                        full = r.full,
                        touched = r.touched,
                        changed = r.changes.len(),
                        failed = r.failed.len(),
                        requests = r.requests.values().map(|c| c.sent).sum::<u64>(),
                        "sync: round"
                    );
                    out!(
                        "round {rounds}: {blocks}: {} pools touched, {} changed, {} failed; {}",
                        r.touched,
                        r.changes.len(),
                        r.failed.len(),
                        requests_line(&r.requests)
                    );
                    for f in &r.failed {
                        tracing::warn!(round = rounds, pool = %f.address, error = %f.error, "sync: pool read failed; kept, retried next round");
                    }
                    for f in r.failed.iter().take(10) {
                        out!("  {}: {} (kept; retried next round)", f.address, f.error);
                    }
                    if !r.changes.is_empty() {
                        write_snapshot(&args.out, watcher.live().snapshot())?;
                        out!("wrote {}", args.out.display());
                    }
                    #[cfg(feature = "nats")]
                    if let Some(stream) = &mut stream {
                        stream.publish(watcher.live(), &r.changes, r.to).await?;
                    }
                    #[cfg(feature = "store")]
                    if let Some(market) = &mut market {
                        let label = format!("round {rounds}");
                        let balances = market.read_balances(&toncenter, &label, r.to, r.time).await?;
                        market.record(rounds, &r, watcher.live(), &balances)?;
                    }
                }
                Err(e) => {
                    failed_rounds += 1;
                    tracing::warn!(round = rounds, cursor = e.cursor, error = %e, "sync: round failed; the same blocks are read again");
                    out!("round {rounds}: FAILED ({e}); {} unchanged, the same blocks are read again", args.out.display());
                }
            }
        }
        #[cfg(feature = "nats")]
        let publish_failures = stream.as_ref().map_or(0, |s| s.failures);
        #[cfg(not(feature = "nats"))]
        let publish_failures = 0u64;
        let tally = if publish_failures > 0 { format!(", {publish_failures} failed publishes") } else { String::new() };
        tracing::info!(rounds, cursor = watcher.cursor(), changed, failed_rounds, failed_reads, "sync: watch ended");
        #[cfg(feature = "store")]
        if let Some(m) = market.as_ref().filter(|m| !m.wallets.is_empty()) {
            out!(
                "tracked wallets: {} balances stored, {} wallet reads failed",
                m.balances_written,
                m.wallet_failures
            );
        }
        #[cfg(feature = "store")]
        if let Some(m) = &market {
            out!(
                "market database {}: {} derived trades stored, {} already stored; {} liquidity events derived, {} stored; {} concentrated pool changes excluded; {} changes without a block time",
                super::market::redact(&m.url),
                m.stored,
                m.duplicates,
                m.liquidity,
                m.liquidity_stored,
                m.excluded,
                m.untimed
            );
        }
        out!(
            "watched {rounds} rounds up to block {}: {changed} pool changes, {failed_rounds} failed rounds, {failed_reads} failed pool reads{tally}",
            watcher.cursor()
        );
        Ok(())
    })
}

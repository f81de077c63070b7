//! `tonroute sync --out FILE [--watch]` (feature `sync`): a snapshot built from the exchanges' APIs and
//! toncenter, written atomically, then with `--watch` kept fresh block by block ([`tonroute::sync`] does the
//! reading; this prints, counts and writes).
//!
//! Nothing partial is ever written: a build that fails writes nothing (the old file stays), a pool whose read
//! fails keeps its last good state (from the file being replaced), and a round that fails leaves the file and
//! the cursor as they were and is counted.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use tonroute::sync::config::{ApiKey, Endpoints, Limits, Sources, SyncConfig};
use tonroute::sync::http::{Endpoint, EndpointCount};
use tonroute::sync::watch::Watcher;
use tonroute::sync::{BuildReport, Syncer};

use super::files::{read_snapshot_if_any, write_snapshot};

/// Where and how `sync` reads, from the command line and the environment.
#[derive(clap::Args, Debug)]
pub struct SyncArgs {
    /// Snapshot file to write, replaced atomically. When it exists, its pools are the last good state of pools
    /// whose read fails, and of an exchange whose list cannot be fetched.
    #[arg(long)]
    pub out: PathBuf,
    /// After the build, follow the chain: each round reads the masterchain blocks since the last one, re-reads
    /// only the pools they touched, and rewrites OUT when a pool changed.
    #[arg(long)]
    pub watch: bool,
    /// With --watch, stop after this many rounds (default: until Ctrl-C).
    #[arg(long)]
    pub rounds: Option<u64>,
    /// With --watch, how often to poll for a new masterchain block, milliseconds.
    #[arg(long, default_value_t = 2000)]
    pub poll_ms: u64,
    /// Exchanges to read, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "stonfi,dedust,tonco")]
    pub sources: Vec<Source>,
    /// One base URL for all four APIs (a proxy or a local replay: `/v1/pools`, `/v2/pools`, `/tonco/graphql`,
    /// `/api/v3/…` below it). The per-API URLs override it.
    #[arg(long, env = "TONROUTE_API_BASE")]
    pub api_base: Option<String>,
    /// STON.fi API base URL [default: https://api.ston.fi].
    #[arg(long, env = "TONROUTE_STONFI_URL")]
    pub stonfi_url: Option<String>,
    /// DeDust API base URL [default: https://api.dedust.io].
    #[arg(long, env = "TONROUTE_DEDUST_URL")]
    pub dedust_url: Option<String>,
    /// TONCO indexer GraphQL URL [default: https://indexer.tonco.io].
    #[arg(long, env = "TONROUTE_TONCO_URL")]
    pub tonco_url: Option<String>,
    /// toncenter base URL [default: https://toncenter.com]. The API key is read from TONCENTER_API_KEY only.
    #[arg(long, env = "TONROUTE_TONCENTER_URL")]
    pub toncenter_url: Option<String>,
    /// Requests per second over all endpoints [default: toncenter's limit, 1 without TONCENTER_API_KEY, 10
    /// with it].
    #[arg(long, env = "TONROUTE_SYNC_RATE")]
    pub rate: Option<f64>,
    /// Timeout of one request attempt, milliseconds.
    #[arg(long, default_value_t = 20_000)]
    pub timeout_ms: u64,
    /// Attempts per request (retries back off exponentially with jitter; 429 waits out Retry-After).
    #[arg(long, default_value_t = 5)]
    pub attempts: u32,
}

/// An exchange `sync` can read.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// STON.fi v1 and v2.
    Stonfi,
    /// DeDust.
    Dedust,
    /// TONCO.
    Tonco,
}

impl SyncArgs {
    fn config(&self) -> Result<SyncConfig, String> {
        let api_key = std::env::var("TONCENTER_API_KEY").ok().and_then(|k| ApiKey::new(&k));
        let mut limits = if api_key.is_some() { Limits::with_api_key() } else { Limits::default() };
        if let Some(rate) = self.rate {
            if !(rate.is_finite() && rate > 0.0) {
                return Err(format!("--rate must be a positive number of requests per second, not {rate}"));
            }
            limits.rate = rate;
            limits.burst = limits.burst.max(rate.ceil().min(100.0) as u32);
        }
        limits.timeout = Duration::from_millis(self.timeout_ms.max(1));
        limits.attempts = self.attempts.max(1);
        let mut endpoints = self.api_base.as_deref().map_or_else(Endpoints::default, Endpoints::all_at);
        for (url, field) in [
            (&self.stonfi_url, &mut endpoints.stonfi),
            (&self.dedust_url, &mut endpoints.dedust),
            (&self.tonco_url, &mut endpoints.tonco),
            (&self.toncenter_url, &mut endpoints.toncenter),
        ] {
            if let Some(url) = url {
                field.clone_from(url);
            }
        }
        let sources = Sources {
            stonfi: self.sources.contains(&Source::Stonfi),
            dedust: self.sources.contains(&Source::Dedust),
            tonco: self.sources.contains(&Source::Tonco),
        };
        Ok(SyncConfig { endpoints, api_key, limits, sources, ..SyncConfig::default() })
    }
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

/// Runs the command.
pub fn run(args: &SyncArgs) -> Result<(), String> {
    let config = args.config()?;
    let previous = read_snapshot_if_any(&args.out)?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("starting the runtime: {e}"))?;
    rt.block_on(async {
        let syncer = Syncer::new(config).map_err(|e| e.to_string())?;
        let (live, report) = syncer.build(previous.as_ref()).await.map_err(|e| format!("sync: {e}; nothing written"))?;
        print_build(&report);
        write_snapshot(&args.out, live.snapshot())?;
        out!("wrote {}: {} pools, {} assets", args.out.display(), live.snapshot().pools.len(), live.snapshot().assets.len());
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
                    out!(
                        "round {rounds}: {blocks}: {} pools touched, {} changed, {} failed; {}",
                        r.touched,
                        r.changes.len(),
                        r.failed.len(),
                        requests_line(&r.requests)
                    );
                    for f in r.failed.iter().take(10) {
                        out!("  {}: {} (kept; retried next round)", f.address, f.error);
                    }
                    if !r.changes.is_empty() {
                        write_snapshot(&args.out, watcher.live().snapshot())?;
                        out!("wrote {}", args.out.display());
                    }
                }
                Err(e) => {
                    failed_rounds += 1;
                    out!("round {rounds}: FAILED ({e}); {} unchanged, the same blocks are read again", args.out.display());
                }
            }
        }
        out!(
            "watched {rounds} rounds up to block {}: {changed} pool changes, {failed_rounds} failed rounds, {failed_reads} failed pool reads",
            watcher.cursor()
        );
        Ok(())
    })
}

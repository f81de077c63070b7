//! `tonroute sync --out FILE [--watch]` (feature `sync`): a snapshot built from the exchanges' APIs and
//! toncenter, written atomically, then with `--watch` kept fresh block by block ([`tonroute::sync`] does the
//! reading; this prints, counts and writes).
//!
//! Nothing partial is ever written: a build that fails writes nothing (the old file stays), a pool whose read
//! fails keeps its last good state (from the file being replaced), and a round that fails leaves the file and
//! the cursor as they were and is counted.

use std::collections::BTreeMap;
use std::time::Duration;

use tonroute::sync::config::{ApiKey, Endpoints, Limits, Sources, SyncConfig};
use tonroute::sync::http::{Endpoint, EndpointCount};
use tonroute::sync::watch::Watcher;
use tonroute::sync::{BuildReport, Syncer};

use super::files::{read_snapshot_if_any, write_snapshot};
use crate::args::{SyncArgs, SyncSource};
use crate::error::CliError;
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

/// Runs the command.
pub(super) fn run(args: SyncArgs) -> Result<(), CliError> {
    let config = config(&args)?;
    let previous = read_snapshot_if_any(&args.out)?;
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(CliError::Runtime)?;
    rt.block_on(async {
        let syncer = Syncer::new(config)?;
        let (live, report) = syncer.build(previous.as_ref()).await?;
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

//! `tonroute import FILE... [--base SNAPSHOT] --out FILE`: saved exchange API responses into a snapshot
//! (the pure [`tonroute::import`] does the mapping; this reads the files and writes the result).

use std::path::{Path, PathBuf};

use tonroute::graph::snapshot::Snapshot;
use tonroute::import::{import_onto, ImportReport, Payload};

use super::files::{read_snapshot_if_any, write_snapshot};

/// Runs the command. Any unreadable file, unknown payload or failed import writes nothing.
pub fn run(files: &[PathBuf], base: Option<&Path>, out: &Path) -> Result<(), String> {
    let mut payloads = Vec::with_capacity(files.len());
    for path in files {
        let text = std::fs::read_to_string(path).map_err(|e| format!("reading {}: {e}", path.display()))?;
        payloads.push(Payload { name: path.display().to_string(), text });
    }
    let base: Option<Snapshot> = match base {
        Some(path) => {
            Some(read_snapshot_if_any(path)?.ok_or_else(|| format!("--base {}: no such file", path.display()))?)
        }
        None => None,
    };
    let report = import_onto(base.as_ref(), &payloads).map_err(|e| e.to_string())?;
    print_report(&report);
    write_snapshot(out, &report.snapshot)?;
    out!("wrote {}: {} pools, {} assets", out.display(), report.snapshot.pools.len(), report.snapshot.assets.len());
    Ok(())
}

fn print_report(r: &ImportReport) {
    for f in &r.files {
        out!("{}: {} ({} records)", f.name, f.kind.describe(), f.records);
    }
    let kinds: Vec<String> = r.imported.iter().map(|(k, n)| format!("{k} {n}")).collect();
    out!("imported {} pools: {}", r.imported_total(), if kinds.is_empty() { "none".into() } else { kinds.join(", ") });
    if r.replaced > 0 {
        out!("replaced {} pools of the base", r.replaced);
    }
    let reasons: Vec<String> = r.skipped.iter().map(|(k, n)| format!("{} {n}", k.name())).collect();
    out!(
        "skipped {} records{}",
        r.skipped_total(),
        if reasons.is_empty() { String::new() } else { format!(": {}", reasons.join(", ")) }
    );
    for s in &r.examples {
        out!("  {} {}[{}] {}: {}", s.reason.name(), s.file, s.record, s.pool.as_deref().unwrap_or("-"), s.detail);
    }
    if r.assets_without_metadata > 0 {
        out!(
            "{} jettons without metadata (symbol from the address, 9 decimals): give /v1/assets for theirs",
            r.assets_without_metadata
        );
    }
}

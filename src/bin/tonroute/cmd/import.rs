//! `tonroute import FILE... [--base SNAPSHOT] --out FILE`: saved exchange API responses into a snapshot
//! (the pure [`tonroute::import`] does the mapping; this reads the files and writes the result).

use tonroute::graph::snapshot::Snapshot;
use tonroute::import::{import_onto, ImportReport, Payload};

use super::files::{read_snapshot_if_any, write_snapshot};
use crate::args::ImportArgs;
use crate::error::CliError;
use crate::print::out;

/// Runs the command. Any unreadable file, unknown payload or failed import writes nothing.
pub(super) fn run(args: ImportArgs) -> Result<(), CliError> {
    let ImportArgs { files, base, out } = args;
    let mut payloads = Vec::with_capacity(files.len());
    for path in files {
        match std::fs::read_to_string(&path) {
            Ok(text) => payloads.push(Payload { name: path.display().to_string(), text }),
            Err(source) => return Err(CliError::ReadInput { path, source }),
        }
    }
    let base: Option<Snapshot> = match base {
        Some(path) => match read_snapshot_if_any(&path)? {
            Some(snapshot) => Some(snapshot),
            None => return Err(CliError::NoBase { path }),
        },
        None => None,
    };
    let report = import_onto(base.as_ref(), &payloads)?;
    print_report(&report);
    write_snapshot(&out, &report.snapshot)?;
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

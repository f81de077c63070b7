//! `tonroute import FILE... [--base SNAPSHOT] --out FILE`: saved exchange API responses into a snapshot
//! (the pure [`tonroute::import`] does the mapping and derives what swaps need; this reads the files and writes
//! the result).
//!
//! Nothing is written unless the import is worth writing ([`ImportReport::check`]: at least one pool, no pool
//! payload empty or mostly unreadable), and `--out` is never one of the inputs (the same file by device and
//! inode, whatever the path says), checked before anything is read.

use std::path::{Path, PathBuf};

use tonroute::graph::snapshot::Snapshot;
use tonroute::import::{import_onto, ImportReport, Payload};

use super::files::{read_snapshot_if_any, write_snapshot};
use crate::args::ImportArgs;
use crate::error::CliError;
use crate::print::out;

/// Quote-only pools the report names one by one; the rest are counted.
const QUOTE_ONLY_LISTED: usize = 10;

/// Runs the command. Any unreadable file, unknown payload, failed or empty import writes nothing.
pub(super) fn run(args: ImportArgs) -> Result<(), CliError> {
    let ImportArgs { files, base, out } = args;
    if let Some(input) = files.iter().chain(base.iter()).find(|input| same_file(&out, input)) {
        return Err(CliError::OutIsInput { out, input: input.clone() });
    }
    if out.is_dir() {
        return Err(CliError::OutIsDirectory { out });
    }
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
    report.check()?;
    write_snapshot(&out, &report.snapshot)?;
    out!("wrote {}: {} pools, {} assets", out.display(), report.snapshot.pools.len(), report.snapshot.assets.len());
    Ok(())
}

/// Whether `a` and `b` are the same existing file: the same device and inode (a hard link, a symbolic link
/// or another spelling of the path is the same file), else the same canonical path.
fn same_file(a: &Path, b: &Path) -> bool {
    let (Ok(ma), Ok(mb)) = (std::fs::metadata(a), std::fs::metadata(b)) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if (ma.dev(), ma.ino()) == (mb.dev(), mb.ino()) {
            return true;
        }
    }
    let _ = (ma, mb);
    let canonical = |p: &Path| -> Option<PathBuf> { std::fs::canonicalize(p).ok() };
    canonical(a).is_some_and(|c| Some(c) == canonical(b))
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
    if r.quote_only.is_empty() {
        if r.imported_total() > 0 {
            out!("every imported pool is swappable (router wallets and vaults derived offline)");
        }
    } else {
        out!(
            "{} of {} imported pools are quote-only: quotes use and mark them, swaps through them are refused",
            r.quote_only.len(),
            r.imported_total()
        );
        for q in r.quote_only.iter().take(QUOTE_ONLY_LISTED) {
            out!("  quote-only {} {} {} / {}: {}", q.protocol, q.pool, q.assets[0], q.assets[1], q.reason);
        }
        if r.quote_only.len() > QUOTE_ONLY_LISTED {
            out!("  … and {} more", r.quote_only.len() - QUOTE_ONLY_LISTED);
        }
    }
    if r.assets_without_metadata > 0 {
        out!(
            "{} jettons without metadata (symbol from the address, 9 decimals): give /v1/assets for theirs",
            r.assets_without_metadata
        );
    }
}

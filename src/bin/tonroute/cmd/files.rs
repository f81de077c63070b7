//! Snapshot files as the import and sync commands write them: replaced atomically, never left partial.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use tonroute::graph::snapshot::Snapshot;

/// Writes `snapshot` to `path` atomically: the whole text goes to a temporary file beside it, is flushed to
/// disk, and is then renamed over `path`. A reader sees the old file or the new one, never a part; on any
/// error the old file is untouched and the temporary one removed.
pub fn write_snapshot(path: &Path, snapshot: &Snapshot) -> Result<(), String> {
    let mut text = serde_json::to_string_pretty(snapshot).map_err(|e| format!("encoding the snapshot: {e}"))?;
    text.push('\n');
    let tmp = temporary_beside(path);
    let written = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    written.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("writing {}: {e}", path.display())
    })
}

/// `dir/.name.tmp-<pid>` beside `path` (same directory, so the rename stays on one file system).
fn temporary_beside(path: &Path) -> PathBuf {
    let name = path.file_name().map_or_else(|| "snapshot".into(), |n| n.to_string_lossy().into_owned());
    path.with_file_name(format!(".{name}.tmp-{}", std::process::id()))
}

/// The snapshot at `path`, `None` when there is no file. A file that exists but does not load is an error:
/// it is not overwritten by accident.
pub fn read_snapshot_if_any(path: &Path) -> Result<Option<Snapshot>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("reading {}: {e}", path.display())),
    };
    let snapshot = Snapshot::from_json(&text).map_err(|e| format!("{} is not a snapshot: {e}", path.display()))?;
    snapshot.into_graph().map_err(|e| format!("{} does not load: {e}", path.display()))?;
    Ok(Some(snapshot))
}

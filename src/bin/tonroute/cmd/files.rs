//! Snapshot files as the import and sync commands write them: replaced atomically, never left partial.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use tonroute::graph::snapshot::Snapshot;

use crate::error::CliError;

/// Writes `snapshot` to `path` atomically: the whole text goes to a temporary file beside it, is flushed to
/// disk, and is then renamed over `path`. A reader sees the old file or the new one, never a part; on any
/// error the old file is untouched and the temporary one removed.
pub(super) fn write_snapshot(path: &Path, snapshot: &Snapshot) -> Result<(), CliError> {
    let mut text = serde_json::to_string_pretty(snapshot).map_err(CliError::EncodeSnapshot)?;
    text.push('\n');
    let tmp = temporary_beside(path);
    let written = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    written.map_err(|source| {
        // Best effort: the write already failed, and that is the error reported.
        let _ = std::fs::remove_file(&tmp);
        CliError::WriteSnapshot { path: path.to_path_buf(), source }
    })
}

/// Checks before any work that `path` can be written the way [`write_snapshot`] writes it: not a directory, and a
/// temporary file can be created beside it (the folder exists and is writable). A command that would read or
/// build for a while then fail only at the end (`import` printed its report, then "writing …") says so first.
pub(super) fn check_writable(path: &Path) -> Result<(), CliError> {
    if path.is_dir() {
        return Err(CliError::OutIsDirectory { out: path.to_path_buf() });
    }
    let tmp = temporary_beside(path);
    std::fs::File::create(&tmp).map_err(|source| CliError::WriteSnapshot { path: path.to_path_buf(), source })?;
    // Best effort: the probe is empty and `write_snapshot` replaces it anyway (same name, same process).
    let _ = std::fs::remove_file(&tmp);
    Ok(())
}

/// `dir/.name.tmp-<pid>` beside `path` (same directory, so the rename stays on one file system).
fn temporary_beside(path: &Path) -> PathBuf {
    let name = path.file_name().map_or_else(|| "snapshot".into(), |n| n.to_string_lossy().into_owned());
    path.with_file_name(format!(".{name}.tmp-{}", std::process::id()))
}

/// The snapshot at `path`, `None` when there is no file. A file that exists but does not load is an error:
/// it is not overwritten by accident.
pub(super) fn read_snapshot_if_any(path: &Path) -> Result<Option<Snapshot>, CliError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(CliError::ReadSnapshot { path: path.to_path_buf(), source }),
    };
    let snapshot = super::parse_snapshot(path, &text)?;
    snapshot.into_graph().map_err(|source| CliError::Snapshot { path: path.to_path_buf(), source })?;
    Ok(Some(snapshot))
}

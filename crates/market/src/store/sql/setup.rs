//! Setting a database up once when several processes open it at once: creating a SQLite file, running the
//! schema's migrations on it, and filling it ([`SqlMarketStore::open_with`]; `tonroute serve` fills the default
//! `data/market.db` from the bundled sample on first start, and test suites start many servers together).
//!
//! Owns the setup lock of SQLite files. sqlx's migrator locks PostgreSQL (an advisory lock) but not SQLite (its
//! lock is a no-op there): two processes opening the same new file both found no migration applied, both ran the
//! first one, and the slower failed with `table market_meta already exists`. So a SQLite file is set up under an
//! exclusive lock ([`std::fs::File::lock`]: `flock` on Unix, `LockFileEx` on Windows) on a sibling file,
//! `PATH-lock` (named like SQLite's own `PATH-wal` and `PATH-shm`). The first process creates, migrates and
//! fills while the others wait; each of them then finds the schema current and the market stored, and only opens
//! the file, so all serve the same rows. The lock file is kept after a setup. An open that fails removes the
//! lock file it created ([`SetupLock::abandon`]; `sqlite://DIR` naming a directory must not leave `DIR-lock`):
//! that is safe because a process that gets the lock checks, on Unix, that the file it locked is still the one
//! at `PATH-lock` (the same inode) and starts over otherwise, so a waiter on a removed file never sets up
//! alongside a process that locked a new one (elsewhere the file is kept, as before). The operating system
//! releases the lock when its holder dies, so a process killed mid-setup never blocks the next one.
//!
//! What a killed setup leaves is never taken for a finished one: each migration is one transaction together
//! with its row in `_sqlx_migrations`, and a market is filled in one transaction whose rows include its header
//! (`market_meta`'s `as_of`, which [`SqlMarketStore::has_market`] reads). A kill before that commit leaves no
//! header, and the next opener (under the lock) fills the market from the start.
//!
//! An in-memory database (`sqlite::memory:`, `mode=memory`) is private to its process, and a read-only one
//! (`mode=ro`, `immutable=1`) is never written: neither takes the lock. PostgreSQL takes none either: its
//! migrations run under sqlx's advisory lock, a fill is idempotent (every row has a natural key) and its trades
//! are written under the trade writers' lock ([`super::load`]), so two processes filling at once store the market
//! once.
//!
//! [`SqlMarketStore::open_with`]: super::SqlMarketStore::open_with
//! [`SqlMarketStore::has_market`]: super::SqlMarketStore::has_market

use std::ffi::OsString;
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::str::FromStr;

use sqlx::sqlite::SqliteConnectOptions;

use super::StoreError;

/// Held while this process sets a SQLite file up; dropping it (closing the file) lets the next process in.
#[derive(Debug)]
pub(super) struct SetupLock {
    /// The open lock file: the lock lasts as long as it stays open.
    _file: File,
    /// Its path.
    path: PathBuf,
    /// Whether this process created it.
    created: bool,
}

impl SetupLock {
    /// Waits until no other process sets up the SQLite file `url` names, then holds the lock. `None` when `url`
    /// names no file that could be set up (PostgreSQL, an in-memory or read-only SQLite database) or the platform
    /// has no file locks.
    pub(super) fn acquire(url: &str) -> Result<Option<SetupLock>, StoreError> {
        let Some(database) = sqlite_file(url) else { return Ok(None) };
        let path = lock_path(&database);
        let failed = |source| StoreError::Lock { path: path.clone(), source };
        loop {
            let (file, created) = match OpenOptions::new().read(true).write(true).create_new(true).open(&path) {
                Ok(file) => (file, true),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    match OpenOptions::new().read(true).write(true).open(&path) {
                        Ok(file) => (file, false),
                        // Removed meanwhile by an open that failed: create it again.
                        Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                        Err(e) => return Err(failed(e)),
                    }
                }
                Err(e) => return Err(failed(e)),
            };
            match file.lock() {
                Ok(()) if still_at(&file, &path) => return Ok(Some(SetupLock { _file: file, path, created })),
                // The holder before us failed and removed the file: lock the one now at the path.
                Ok(()) => continue,
                // A platform without file locks sets up as before the lock existed (one process at a time is then
                // the operator's to ensure) rather than refusing a database it could open.
                Err(e) if e.kind() == std::io::ErrorKind::Unsupported => {
                    drop(file);
                    if created {
                        let _ = std::fs::remove_file(&path);
                    }
                    return Ok(None);
                }
                Err(e) => return Err(failed(e)),
            }
        }
    }

    /// Ends a turn whose open failed: the lock file is removed when this process created it (and the platform
    /// lets the next process tell a removed file from the current one, see [`still_at`]), then released.
    pub(super) fn abandon(self) {
        if self.created && cfg!(unix) {
            // Nothing to do when it cannot be removed: it is then kept, as after a setup.
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Whether the locked `file` is still the file at `path` (on Unix: the same device and inode); elsewhere lock
/// files are never removed, so it is.
fn still_at(file: &File, path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (file.metadata(), std::fs::metadata(path)) {
            (Ok(locked), Ok(now)) => locked.dev() == now.dev() && locked.ino() == now.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (file, path);
        true
    }
}

/// The database file a `sqlite:` URL names, as sqlx resolves it (percent-decoded, relative to the current
/// directory), when opening it may write it: `None` for another scheme, an in-memory database or a read-only one.
pub(super) fn sqlite_file(url: &str) -> Option<PathBuf> {
    let rest = url.strip_prefix("sqlite://").or_else(|| url.strip_prefix("sqlite:"))?;
    let (database, params) = rest.split_once('?').unwrap_or((rest, ""));
    if database.is_empty() || database == ":memory:" {
        return None;
    }
    let never_written = params.split('&').any(|pair| {
        matches!(pair.split_once('='), Some(("mode", "memory" | "ro")) | Some(("immutable", "1" | "true" | "yes")))
    });
    if never_written {
        return None;
    }
    // A URL sqlx refuses is reported by the connection itself; there is nothing to lock.
    let options = SqliteConnectOptions::from_str(url).ok()?;
    Some(options.get_filename().to_path_buf())
}

/// `PATH-lock` beside the database file `PATH`.
pub(super) fn lock_path(database: &Path) -> PathBuf {
    let mut name = OsString::from(database.as_os_str());
    name.push("-lock");
    PathBuf::from(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_a_url_names() {
        assert_eq!(sqlite_file("sqlite://data/market.db"), Some(PathBuf::from("data/market.db")));
        assert_eq!(sqlite_file("sqlite:///tmp/m.db?mode=rwc"), Some(PathBuf::from("/tmp/m.db")));
        assert_eq!(sqlite_file("sqlite:m.db"), Some(PathBuf::from("m.db")));
        assert_eq!(sqlite_file("sqlite:///tmp/a%3Fb.db"), Some(PathBuf::from("/tmp/a?b.db")));
        assert_eq!(sqlite_file("sqlite::memory:"), None);
        assert_eq!(sqlite_file("sqlite://:memory:"), None);
        assert_eq!(sqlite_file("sqlite://?mode=memory"), None);
        assert_eq!(sqlite_file("sqlite://m.db?mode=memory&cache=shared"), None);
        assert_eq!(sqlite_file("sqlite://m.db?mode=ro"), None);
        assert_eq!(sqlite_file("sqlite://m.db?immutable=1"), None);
        assert_eq!(sqlite_file("postgres://u@h:5432/db"), None);
        assert_eq!(lock_path(Path::new("data/market.db")), PathBuf::from("data/market.db-lock"));
    }

    #[test]
    fn a_second_holder_waits_for_the_first() {
        let dir = std::env::temp_dir().join(format!("tonroute-setup-lock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let url = format!("sqlite://{}", dir.join("m.db").display());
        let first = SetupLock::acquire(&url).unwrap().unwrap();
        let other = OpenOptions::new().read(true).write(true).open(dir.join("m.db-lock")).unwrap();
        assert!(matches!(other.try_lock(), Err(std::fs::TryLockError::WouldBlock)));
        drop(first);
        assert!(other.try_lock().is_ok());
        drop(other);
        // A failed open removes the lock file it created; a waiter that then locks the removed file starts over
        // on a new one.
        let _ = std::fs::remove_file(dir.join("m2.db-lock"));
        let url2 = format!("sqlite://{}", dir.join("m2.db").display());
        let first = SetupLock::acquire(&url2).unwrap().unwrap();
        assert!(first.created);
        let stale = OpenOptions::new().read(true).write(true).open(dir.join("m2.db-lock")).unwrap();
        first.abandon();
        assert!(!dir.join("m2.db-lock").exists());
        assert!(!still_at(&stale, &dir.join("m2.db-lock")));
        let again = SetupLock::acquire(&url2).unwrap().unwrap();
        assert!(again.created && still_at(&again._file, &dir.join("m2.db-lock")));
        drop(again);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

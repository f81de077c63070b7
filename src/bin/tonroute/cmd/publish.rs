//! `tonroute publish` (feature `nats`): every pool of a snapshot into the reserve stream's bucket, each as a
//! full entry (bootstraps an empty bucket; replicas following it pick the entries up at once). A snapshot
//! stamped older than what the bucket holds for any of its pools is refused whole by the [`Publisher`]
//! (`FeedError::Stale`, exit 2, nothing written): the same check `sync --nats` gets.

use tonroute::feed::{Publisher, Stamp};

use super::LoadedSnapshot;
use crate::args::PublishArgs;
use crate::error::CliError;
use crate::print::out;

pub(super) fn run(args: PublishArgs) -> Result<(), CliError> {
    let loaded = LoadedSnapshot::read(args.snapshot)?;
    // A snapshot that does not load would be refused pool by pool by every replica: refuse it whole, here.
    loaded.graph()?;
    if loaded.snapshot.pools.is_empty() {
        return Err(CliError::NothingToPublish { path: loaded.path.clone() });
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(CliError::Runtime)?;
    let stamp = Stamp { seqno: args.seqno, time: args.time };
    let report = runtime
        .block_on(async {
            let publisher = Publisher::connect(&args.nats, &args.bucket).await?;
            publisher.publish_snapshot(&loaded.snapshot, stamp).await
        })
        .map_err(CliError::Publish)?;
    out!(
        "published {} pools of {} to bucket {} at {} (last revision {})",
        report.written,
        loaded.path.display(),
        args.bucket,
        args.nats,
        report.last_revision
    );
    Ok(())
}

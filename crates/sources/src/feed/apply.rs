//! [`Applier`]: applies decoded stream entries to a [`LiveGraph`], in stream order, while quotes run. Pure
//! and synchronous; the watcher (`watch.rs`) feeds it and runs its rebuilds on a blocking thread.
//!
//! - Reserves and same-structure pool entries go into the current graph in place (lock-free cells).
//! - Pools added, replaced or removed are queued; [`Applier::take_rebuild`] hands the queued batch to a
//!   [`RebuildJob`] (one rebuild for a burst), and [`Applier::finish_rebuild`] publishes its graph.
//! - While a rebuild runs, entries keep being applied to the current graph and are also logged;
//!   `finish_rebuild` replays the log onto the new graph before publishing it, so nothing written during a
//!   rebuild is lost. A reserves-only value for a pool that is queued (or being built) updates the queued
//!   pool; one for a pool queued for removal is an unknown pool, as it would be after the removal.
//!
//! Only one `Applier` writes to a graph: it is the single writer that makes the log-and-replay sound.

use std::sync::Arc;

use ahash::{AHashMap, AHashSet};
use tonlib_core::TonAddress;

use super::stats::FeedStats;
use super::value::{decode, Change, SkipReason, Stamp, ValueError};
use tonroute_core::asset::Asset;
use tonroute_core::graph::{AssetSpec, GraphError, LiveGraph, PoolGraph, PoolSpec, TopologyChange};
use tonroute_core::pool::Curve;

/// Why an entry was not applied.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ApplyError {
    /// The entry does not decode.
    #[error(transparent)]
    Value(#[from] ValueError),
    /// Reserves for a pool the replica does not have (or has queued for removal).
    #[error(
        "pool {pool}: unknown pool (a reserves-only value updates a pool the replica has; add it with a full entry)"
    )]
    UnknownPool {
        /// The pool.
        pool: String,
    },
    /// Older than the last value applied to the pool.
    #[error("pool {pool}: stale value ({stamp} is older than the applied {last})")]
    Stale {
        /// The pool.
        pool: String,
        /// The value's stamp.
        stamp: Stamp,
        /// The last applied stamp.
        last: Stamp,
    },
    /// A pool naming an asset that neither the replica nor the value describes.
    #[error("pool {pool}: asset {asset} is unknown to the replica and the value has no asset_entries for it")]
    UnknownAsset {
        /// The pool.
        pool: String,
        /// The asset.
        asset: String,
    },
    /// The graph refused the update (e.g. reserves-only for a concentrated pool).
    #[error("pool {pool}: refused: {source}")]
    Refused {
        /// The pool.
        pool: String,
        /// The graph's reason.
        #[source]
        source: GraphError,
    },
}

impl ApplyError {
    /// The counter this entry is skipped under.
    pub fn reason(&self) -> SkipReason {
        match self {
            ApplyError::Value(e) => e.reason(),
            ApplyError::UnknownPool { .. } => SkipReason::UnknownPool,
            ApplyError::Stale { .. } => SkipReason::Stale,
            ApplyError::UnknownAsset { .. } | ApplyError::Refused { .. } => SkipReason::Refused,
        }
    }
}

/// What applying an entry did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applied {
    /// Written into the current graph: quotes see it now.
    InPlace,
    /// Queued for the next rebuild (or written into a queued pool): quotes see it after the rebuild.
    Queued,
    /// Nothing to do (a delete of a pool the replica does not have).
    Unchanged,
}

/// What a rebuild replays after it: writes made to the old graph (or to pools being built) meanwhile.
#[derive(Debug)]
enum Logged {
    Reserves([u128; 2]),
    Pool(Box<PoolSpec>),
}

#[derive(Debug, Default)]
struct Batch {
    upserts: AHashMap<TonAddress, PoolSpec>,
    removals: AHashSet<TonAddress>,
    assets: AHashMap<Asset, AssetSpec>,
}

impl Batch {
    fn len(&self) -> usize {
        self.upserts.len() + self.removals.len()
    }
}

#[derive(Debug)]
struct Inflight {
    /// Pools being added or replaced, and whether each is concentrated.
    upserts: AHashMap<TonAddress, bool>,
    removals: AHashSet<TonAddress>,
    assets: AHashSet<Asset>,
    log: Vec<(TonAddress, Logged)>,
}

/// A topology change to build off the applier's thread ([`RebuildJob::run`]).
#[derive(Debug)]
pub struct RebuildJob {
    base: Arc<PoolGraph>,
    change: TopologyChange,
}

impl RebuildJob {
    /// Builds the new graph (the expensive part; may run on any thread).
    pub fn run(self) -> Result<PoolGraph, GraphError> {
        self.base.rebuilt(&self.change)
    }

    /// Pools added or replaced, and removed, by this job.
    pub fn size(&self) -> (usize, usize) {
        (self.change.upserts.len(), self.change.removals.len())
    }
}

/// Applies stream entries to a [`LiveGraph`] (see the module documentation).
#[derive(Debug)]
pub struct Applier {
    live: Arc<LiveGraph>,
    stats: Arc<FeedStats>,
    stamps: AHashMap<TonAddress, Stamp>,
    pending: Batch,
    inflight: Option<Inflight>,
}

fn concentrated_refusal(pool: &TonAddress) -> ApplyError {
    ApplyError::Refused {
        pool: pool.to_hex(),
        source: GraphError::bad_field(
            pool.to_hex(),
            "reserves",
            "a concentrated pool is updated through its state (send a full entry)",
        ),
    }
}

impl Applier {
    /// An applier writing into `live` and counting into `stats`.
    pub fn new(live: Arc<LiveGraph>, stats: Arc<FeedStats>) -> Applier {
        Applier { live, stats, stamps: AHashMap::new(), pending: Batch::default(), inflight: None }
    }

    /// The graph it writes.
    pub fn live(&self) -> &Arc<LiveGraph> {
        &self.live
    }

    /// The counters it writes.
    pub fn stats(&self) -> &Arc<FeedStats> {
        &self.stats
    }

    /// Topology changes queued and not yet handed to a rebuild.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// Whether a rebuild is running.
    pub fn rebuilding(&self) -> bool {
        self.inflight.is_some()
    }

    /// Decodes and applies one entry (`value` `None` for a delete or purge). A refused entry changes nothing
    /// and is counted under its [`SkipReason`].
    pub fn apply(&mut self, key: &str, value: Option<&[u8]>) -> Result<Applied, ApplyError> {
        let result = decode(key, value).map_err(ApplyError::from).and_then(|change| self.apply_change(change));
        if let Err(e) = &result {
            self.stats.count_skip(e.reason());
        }
        self.stats.set_pending(self.pending.len());
        result
    }

    /// Applies a decoded change (not counted as skipped on error; [`Self::apply`] does that).
    pub fn apply_change(&mut self, change: Change) -> Result<Applied, ApplyError> {
        let pool = change.pool().clone();
        let stamp = match &change {
            Change::Reserves { stamp, .. } | Change::Pool { stamp, .. } => Some(*stamp),
            Change::Remove { .. } => None,
        };
        if let (Some(stamp), Some(last)) = (stamp, self.stamps.get(&pool)) {
            if stamp.is_older_than(last) {
                return Err(ApplyError::Stale { pool: pool.to_hex(), stamp, last: *last });
            }
        }
        let applied = match change {
            Change::Reserves { pool, reserves, .. } => {
                let a = self.reserves(&pool, reserves)?;
                self.stats.count_reserves();
                a
            }
            Change::Pool { spec, assets, .. } => {
                let a = self.upsert(*spec, assets)?;
                self.stats.count_pool();
                a
            }
            Change::Remove { pool } => {
                self.stamps.remove(&pool);
                return Ok(self.remove(pool));
            }
        };
        if let Some(stamp) = stamp {
            self.stamps.insert(pool, stamp);
            self.stats.note_stamp(stamp);
        }
        Ok(applied)
    }

    fn reserves(&mut self, pool: &TonAddress, reserves: [u128; 2]) -> Result<Applied, ApplyError> {
        let unknown = || ApplyError::UnknownPool { pool: pool.to_hex() };
        if self.pending.removals.contains(pool) {
            return Err(unknown());
        }
        if let Some(spec) = self.pending.upserts.get_mut(pool) {
            if matches!(spec.curve, Curve::Concentrated(_)) {
                return Err(concentrated_refusal(pool));
            }
            spec.reserves = reserves;
            return Ok(Applied::Queued);
        }
        if let Some(inflight) = &mut self.inflight {
            if inflight.removals.contains(pool) {
                return Err(unknown());
            }
            if let Some(concentrated) = inflight.upserts.get(pool) {
                if *concentrated {
                    return Err(concentrated_refusal(pool));
                }
                inflight.log.push((pool.clone(), Logged::Reserves(reserves)));
                return Ok(Applied::Queued);
            }
        }
        let graph = self.live.load();
        let id = graph.pool_id(pool).ok_or_else(unknown)?;
        graph.update_reserves(id, reserves).map_err(|source| ApplyError::Refused { pool: pool.to_hex(), source })?;
        if let Some(inflight) = &mut self.inflight {
            inflight.log.push((pool.clone(), Logged::Reserves(reserves)));
        }
        Ok(Applied::InPlace)
    }

    fn upsert(&mut self, spec: PoolSpec, assets: Vec<AssetSpec>) -> Result<Applied, ApplyError> {
        let graph = self.live.load();
        let known = |a: &Asset| {
            graph.asset_id(a).is_some()
                || self.pending.assets.contains_key(a)
                || self.inflight.as_ref().is_some_and(|i| i.assets.contains(a))
        };
        for a in &spec.assets {
            if !known(a) && !assets.iter().any(|s| s.meta.asset == *a) {
                return Err(ApplyError::UnknownAsset { pool: spec.address.to_hex(), asset: a.to_string() });
            }
        }
        let new_assets: Vec<AssetSpec> = assets.into_iter().filter(|s| !known(&s.meta.asset)).collect();
        let address = spec.address.clone();
        let touched = self.pending.upserts.contains_key(&address)
            || self.pending.removals.contains(&address)
            || self
                .inflight
                .as_ref()
                .is_some_and(|i| i.upserts.contains_key(&address) || i.removals.contains(&address));
        if !touched {
            let in_place = graph
                .update_pool_in_place(&spec)
                .map_err(|source| ApplyError::Refused { pool: address.to_hex(), source })?;
            if in_place {
                if let Some(inflight) = &mut self.inflight {
                    inflight.log.push((address, Logged::Pool(Box::new(spec))));
                }
                return Ok(Applied::InPlace);
            }
        }
        for a in new_assets {
            self.pending.assets.insert(a.meta.asset, a);
        }
        self.pending.removals.remove(&address);
        self.pending.upserts.insert(address, spec);
        Ok(Applied::Queued)
    }

    fn remove(&mut self, pool: TonAddress) -> Applied {
        let was_pending = self.pending.upserts.remove(&pool).is_some();
        let in_graph = match &self.inflight {
            Some(i) if i.removals.contains(&pool) => false,
            Some(i) if i.upserts.contains_key(&pool) => true,
            _ => self.live.load().pool_id(&pool).is_some(),
        };
        if in_graph {
            self.pending.removals.insert(pool);
        }
        if in_graph || was_pending {
            self.stats.count_removed();
            Applied::Queued
        } else {
            Applied::Unchanged
        }
    }

    /// Hands the queued topology changes to a rebuild, unless one is running or nothing is queued. Until
    /// [`Self::finish_rebuild`], entries keep applying and are logged for the new graph.
    pub fn take_rebuild(&mut self) -> Option<RebuildJob> {
        if self.inflight.is_some() || self.pending.len() == 0 {
            return None;
        }
        let batch = std::mem::take(&mut self.pending);
        let mut upserts: Vec<PoolSpec> = batch.upserts.into_values().collect();
        // A deterministic pool order: the same changes give the same graph on every replica.
        upserts.sort_by(|a, b| a.address.hash_part.as_slice().cmp(b.address.hash_part.as_slice()));
        let mut removals: Vec<TonAddress> = batch.removals.iter().cloned().collect();
        removals.sort_by(|a, b| a.hash_part.as_slice().cmp(b.hash_part.as_slice()));
        let mut assets: Vec<AssetSpec> = batch.assets.into_values().collect();
        assets.sort_by_key(|a| a.meta.asset);
        self.inflight = Some(Inflight {
            upserts: upserts.iter().map(|s| (s.address.clone(), matches!(s.curve, Curve::Concentrated(_)))).collect(),
            removals: batch.removals,
            assets: assets.iter().map(|a| a.meta.asset).collect(),
            log: Vec::new(),
        });
        self.stats.set_pending(0);
        Some(RebuildJob { base: self.live.load(), change: TopologyChange { assets, upserts, removals } })
    }

    /// Publishes a finished rebuild: replays what was written meanwhile onto it, then swaps it in. On a
    /// failed rebuild the current graph stays and the batch's changes are dropped (counted as refused).
    pub fn finish_rebuild(&mut self, result: Result<PoolGraph, GraphError>) -> Result<(), GraphError> {
        let Some(inflight) = self.inflight.take() else {
            return Ok(());
        };
        match result {
            Ok(graph) => {
                for (pool, logged) in inflight.log {
                    // Each logged write passed the same checks against this pool's structure before, and the
                    // rebuild kept that structure, so these cannot fail; a failure would leave the built value.
                    let _ = match logged {
                        Logged::Reserves(r) => graph.update_reserves_by_address(&pool, r),
                        Logged::Pool(spec) => graph.update_pool_in_place(&spec).map(|_| ()),
                    };
                }
                self.live.store(Arc::new(graph));
                Ok(())
            }
            Err(e) => {
                self.drop_inflight(inflight);
                Err(e)
            }
        }
    }

    /// Gives up a rebuild that never finished (its task died): its changes are dropped, counted as refused.
    pub fn abandon_rebuild(&mut self) {
        if let Some(inflight) = self.inflight.take() {
            self.drop_inflight(inflight);
        }
    }

    fn drop_inflight(&self, inflight: Inflight) {
        for _ in 0..inflight.upserts.len() + inflight.removals.len() {
            self.stats.count_skip(SkipReason::Refused);
        }
    }

    /// Runs every queued rebuild now, on this thread (for tests, tools and a bootstrap that wants the graph
    /// complete before serving).
    pub fn flush(&mut self) -> Result<(), GraphError> {
        while let Some(job) = self.take_rebuild() {
            let result = job.run();
            self.finish_rebuild(result)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tonroute_core::graph::snapshot::Snapshot;

    const USDT: &str = "jetton:0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe";
    const P1: &str = "1111111111111111111111111111111111111111111111111111111111111111";
    const P2: &str = "2222222222222222222222222222222222222222222222222222222222222222";
    const P3: &str = "3333333333333333333333333333333333333333333333333333333333333333";
    const NEW: &str = "jetton:0:4444444444444444444444444444444444444444444444444444444444444444";

    fn pool(key: &str, a: &str, b: &str, r: [&str; 2], extra: &str) -> String {
        format!(
            r#"{{"address": "0:{key}", "protocol": "dex_b_v2", "curve": "constant_product", "assets": ["{a}", "{b}"],
                 "reserves": ["{}", "{}"], "lp_fee": 20, "protocol_fee": 10 {extra}}}"#,
            r[0], r[1]
        )
    }

    fn applier() -> Applier {
        let snapshot = format!(
            r#"{{"assets": [{{"asset": "native", "symbol": "TON", "decimals": 9}},
                           {{"asset": "{USDT}", "symbol": "USDT", "decimals": 6}}],
                 "pools": [{}, {}]}}"#,
            pool(P1, "native", USDT, ["1000000", "2000000"], ""),
            pool(P2, USDT, "native", ["3000000", "4000000"], "")
        );
        let graph = Snapshot::from_json(&snapshot).unwrap().into_graph().unwrap();
        Applier::new(Arc::new(LiveGraph::from(graph)), Arc::new(FeedStats::new(0)))
    }

    fn reserves_of(a: &Applier, key: &str) -> Option<[u128; 2]> {
        let g = a.live.load();
        g.pool_id(&crate::feed::value::parse_key(key).unwrap()).map(|id| g.reserves(id))
    }

    #[test]
    fn reserves_apply_in_place_and_bad_ones_change_nothing() {
        let mut a = applier();
        assert_eq!(a.apply(P1, Some(br#"{"reserves": ["5", "6"]}"#)).unwrap(), Applied::InPlace);
        assert_eq!(reserves_of(&a, P1), Some([5, 6]));
        for bad in [
            &br#"{"reserves": ["0", "6"]}"#[..],
            br#"{"reserves": ["7"]}"#,
            b"not json",
            br#"{"reserves": ["-1", "2"]}"#,
        ] {
            assert!(a.apply(P1, Some(bad)).is_err());
        }
        assert!(matches!(a.apply(P3, Some(br#"{"reserves": ["5", "6"]}"#)), Err(ApplyError::UnknownPool { .. })));
        assert!(matches!(a.apply("zz", Some(br#"{"reserves": ["5", "6"]}"#)), Err(ApplyError::Value(_))));
        assert_eq!(reserves_of(&a, P1), Some([5, 6]));
        let r = a.stats.report(0);
        assert_eq!(r.applied.reserves, 1);
        assert_eq!(
            (r.skipped["reserves"], r.skipped["json"], r.skipped["unknown_pool"], r.skipped["key"]),
            (3, 1, 1, 1)
        );
    }

    #[test]
    fn stale_values_are_refused_per_pool() {
        let mut a = applier();
        a.apply(P1, Some(br#"{"reserves": ["5", "6"], "seqno": 10}"#)).unwrap();
        let stale = a.apply(P1, Some(br#"{"reserves": ["7", "8"], "seqno": 9}"#));
        assert!(matches!(stale, Err(ApplyError::Stale { .. })), "{stale:?}");
        assert_eq!(
            stale.unwrap_err().to_string(),
            format!("pool 0:{P1}: stale value (block 9 is older than the applied block 10)")
        );
        assert_eq!(reserves_of(&a, P1), Some([5, 6]));
        // Another pool has its own history.
        a.apply(P2, Some(br#"{"reserves": ["7", "8"], "seqno": 9}"#)).unwrap();
        a.apply(P1, Some(br#"{"reserves": ["9", "9"], "seqno": 10}"#)).unwrap();
        assert_eq!(reserves_of(&a, P1), Some([9, 9]));
        assert_eq!(a.stats.report(0).skipped["stale"], 1);
        assert_eq!(a.stats.report(0).newest_seqno, Some(10));
    }

    #[test]
    fn a_new_pool_with_a_new_asset_appears_after_one_rebuild() {
        let mut a = applier();
        let assets = format!(r#", "asset_entries": [{{"asset": "{NEW}", "symbol": "NEW", "decimals": 9}}]"#);
        let v = pool(P3, USDT, NEW, ["10", "20"], &assets);
        // Without its asset described, refused.
        let bare = pool(P3, USDT, NEW, ["10", "20"], "");
        assert!(matches!(a.apply(P3, Some(bare.as_bytes())), Err(ApplyError::UnknownAsset { .. })));
        assert_eq!(a.apply(P3, Some(v.as_bytes())).unwrap(), Applied::Queued);
        // Reserves for the queued pool land in it.
        assert_eq!(a.apply(P3, Some(br#"{"reserves": ["11", "21"]}"#)).unwrap(), Applied::Queued);
        assert_eq!(reserves_of(&a, P3), None, "not routable before the rebuild");
        let job = a.take_rebuild().unwrap();
        assert!(a.take_rebuild().is_none(), "one rebuild at a time");
        // Written while the rebuild runs: lands on the old graph now and on the new one after.
        a.apply(P1, Some(br#"{"reserves": ["77", "88"]}"#)).unwrap();
        a.apply(P3, Some(br#"{"reserves": ["12", "22"]}"#)).unwrap();
        let built = job.run();
        a.finish_rebuild(built).unwrap();
        assert_eq!(reserves_of(&a, P3), Some([12, 22]));
        assert_eq!(reserves_of(&a, P1), Some([77, 88]));
        let g = a.live.load();
        assert_eq!(g.asset(g.asset_id(&Asset::parse(NEW).unwrap()).unwrap()).symbol, "NEW");
    }

    #[test]
    fn deletes_remove_and_later_reserves_are_unknown() {
        let mut a = applier();
        assert_eq!(a.apply(P1, None).unwrap(), Applied::Queued);
        assert!(matches!(a.apply(P1, Some(br#"{"reserves": ["5", "6"]}"#)), Err(ApplyError::UnknownPool { .. })));
        assert_eq!(a.apply(P3, None).unwrap(), Applied::Unchanged);
        a.flush().unwrap();
        assert_eq!(reserves_of(&a, P1), None);
        assert_eq!(a.live.load().pool_count(), 1);
        // Re-added after the delete.
        a.apply(P1, Some(pool(P1, "native", USDT, ["1", "2"], "").as_bytes())).unwrap();
        a.flush().unwrap();
        assert_eq!(reserves_of(&a, P1), Some([1, 2]));
    }

    #[test]
    fn same_structure_entries_apply_in_place_other_ones_rebuild() {
        let mut a = applier();
        let same = pool(P1, "native", USDT, ["8", "9"], "");
        assert_eq!(a.apply(P1, Some(same.as_bytes())).unwrap(), Applied::InPlace);
        assert_eq!(reserves_of(&a, P1), Some([8, 9]));
        let refee = pool(P1, "native", USDT, ["8", "9"], "").replace(r#""lp_fee": 20"#, r#""lp_fee": 25"#);
        assert_eq!(a.apply(P1, Some(refee.as_bytes())).unwrap(), Applied::Queued);
        a.flush().unwrap();
        let g = a.live.load();
        let id = g.pool_id(&crate::feed::value::parse_key(P1).unwrap()).unwrap();
        assert_eq!(
            g.pool(id).curve,
            Curve::ConstantProduct(tonroute_core::pool::ConstantProduct::new(
                tonroute_core::pool::FeeModel::V2,
                25,
                10,
                0
            ))
        );
    }
}

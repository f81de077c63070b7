//! The kept set: the best paths found so far, capped per first and per last pool, with the floors and bars
//! the search prunes against. Must not walk the graph (the split of the bounds by last pool aside).

use ahash::AHashMap;
use smallvec::SmallVec;

use super::*;
use crate::graph::hubs::HubTables;
use crate::graph::{AssetId, PoolId};
use crate::pool::estimate::Mobius;

impl<'a> Search<'a> {
    /// Makes sure `last_split[index]` holds the bounds of side `index` split by last pool; false when the
    /// split says nothing (no last pool is full, or the output is a hub).
    pub(super) fn ensure_split(&mut self, index: usize, side: &Side) -> bool {
        if self.last_floor.is_empty() || side.dst_slot.is_some() {
            return false;
        }
        if self.last_split.len() != self.bounds.sides.len() || self.last_dirty {
            self.last_split = self.bounds.sides.iter().map(|_| None).collect();
            self.last_dirty = false;
        }
        let bounds = self.bounds;
        let avoid = bounds.sides[index].avoid;
        if let Some(hub) = avoid.filter(|a| index > 0 && bounds.tables.slot(*a).is_some()) {
            // Avoiding a hub: the plain side's split without the hub (see `Side::avoiding`).
            if self.last_split[index].is_none() && self.ensure_split(0, &bounds.sides[0]) {
                let tables = &bounds.tables;
                let plain = self.last_split[0].as_ref().expect("ensure_split(0) returned true: it is there");
                let derived = LastSplit {
                    open: (plain.open.0.avoiding(tables, hub), plain.open.1),
                    full: plain.full.iter().map(|(pool, k, s)| (*pool, *k, s.avoiding(tables, hub))).collect(),
                };
                self.last_split[index] = Some(derived);
            }
            return true;
        }
        if self.last_split[index].is_none() {
            let compute = |last: &dyn Fn(PoolId) -> bool| {
                Side::compute(self.graph, &bounds.tables, self.dst, bounds.max_level, avoid, last)
            };
            // Capacity of the last hop into the output through each pool.
            let capacity = |pool: PoolId| {
                self.graph
                    .edges(self.dst)
                    .iter()
                    .filter(|e| e.pool == pool)
                    .filter_map(|e| hop_form(self.graph, e.pool, e.direction.reverse()))
                    .map(|h| if h.c > 0.0 { h.s / h.c } else { f64::INFINITY })
                    .fold(0.0, f64::max)
            };
            let open_capacity = self
                .graph
                .edges(self.dst)
                .iter()
                .filter(|e| !self.last_floor.contains_key(&e.pool))
                .map(|e| capacity(e.pool))
                .fold(0.0, f64::max);
            let open = (compute(&|p| !self.last_floor.contains_key(&p)), open_capacity);
            let full =
                self.last_floor.iter().map(|(&pool, _)| (pool, capacity(pool), compute(&|p| p == pool))).collect();
            self.last_split[index] = Some(LastSplit { open, full });
        }
        true
    }

    /// Whether a path with summary `form` at `v`, `rest` hops from the output, can still be kept: it ends in
    /// an open last pool and beats the threshold, or in a full one and beats that pool's floor too. Last
    /// floors only apply to paths whose first pool is not full (`first_full`; see [`Self::offer`]).
    pub(super) fn can_pass(&mut self, form: Mobius, v: AssetId, rest: usize, first_full: bool) -> bool {
        // At the output, the last pool is known: `offer` decides.
        if first_full || v == self.dst || self.last_floor.is_empty() {
            return true;
        }
        let (side, index) = self.side_index(v);
        let bar = self.bar();
        let objective = self.objective;
        let bounds: &'a Bounds = self.bounds;
        let tables: &'a HubTables = &bounds.tables;
        let rest = rest.min(bounds.max_level);
        if !self.ensure_split(index, side) {
            return true;
        }
        let Some(split) = self.last_split[index].as_ref() else { return true };
        // With the last hop's capacity k, the path's c is at least the prefix's plus s/k.
        let value = |r: f64, k: f64| {
            let s = form.s * r;
            objective.value(Mobius { s, c: form.c + s / k })
        };
        let floors = &self.last_floor;
        // Each part of the split bounds paths through fewer last pools than `side` itself, with the same
        // relaxations over a subset of edges: its rate is at most the side's (checked in debug builds). With
        // several full pools, one read of the side's rate rules out, unread, every part whose capacity and
        // floor it already fails (most full pools' floors are far above the threshold).
        let whole = (split.full.len() >= 2).then(|| side.rate(tables, rest, v));
        let passes = |part: &Side, k: f64, need: f64| {
            if whole.is_some_and(|w| value(w, k) <= need) {
                debug_assert!(part.rate(tables, rest, v) <= whole.unwrap_or(f64::INFINITY));
                return false;
            }
            value(part.rate(tables, rest, v), k) > need
        };
        passes(&split.open.0, split.open.1, bar)
            || split.full.iter().any(|(pool, k, s)| passes(s, *k, bar.max(floors.get(pool).copied().unwrap_or(0.0))))
    }

    /// The value a path must beat to be kept: the threshold, or more where its first pool is full.
    #[inline]
    pub(super) fn bar(&self) -> f64 {
        self.threshold.max(self.first_bar)
    }

    /// The least value of the kept paths through first pool `pool` when they fill its cap, else 0.
    #[inline]
    pub(super) fn floor_of(&self, pool: PoolId) -> f64 {
        self.first_floor.get(&pool).copied().unwrap_or(0.0)
    }

    /// After a kept path of value `gone` through `first` … `last` was replaced: the best per first and per
    /// last pool again, rescanning a pool only where the path gone may have been its best (its value is the
    /// best recorded), and dropping a pool no kept path passes any more.
    pub(super) fn keep_champions(&mut self, first: PoolId, last: PoolId, gone: f64) {
        let found = &self.found;
        // Which end of a path a map is about: its first pool (index 0) or its last.
        let end = |c: &Candidate, last: bool| if last { c.hops[c.hops.len() - 1].0 } else { c.hops[0].0 };
        for (map, pool, last) in [(&mut self.best_first, first, false), (&mut self.best_last, last, true)] {
            if map.get(&pool).is_some_and(|best| *best <= gone) {
                let rest = found.iter().filter(|(_, c)| end(c, last) == pool).map(|(v, _)| *v).reduce(f64::max);
                match rest {
                    Some(best) => {
                        map.insert(pool, best);
                    }
                    None => {
                        map.remove(&pool);
                    }
                }
            }
        }
    }

    /// Paths that share their first or last pool compete for one bottleneck: at most `cap` of them are kept,
    /// so one deep pool's many variants cannot crowd out every other pool. A path whose first pool is full
    /// must beat the least of that pool's paths and replaces it; one whose last pool is full, the least of
    /// that pool's. The path a full group gives up is never the best path of its *other* pool (the best
    /// through its last pool when the first is full, and the reverse) unless the newcomer shares that pool
    /// too: otherwise 24 near-copies through one first and one last pool push out the only path through a
    /// second last pool, and the result depends on the order the paths are met in. The first rule is known
    /// as soon as a path has taken its first hop, so the search prunes with it ([`Self::bar`]).
    pub(super) fn offer(&mut self, value: f64, form: Mobius) {
        if value <= self.bar() || !value.is_finite() {
            return;
        }
        let first = self.path_hops[0].0;
        let last = self.path_hops[self.path_hops.len() - 1].0;
        let cap = match self.objective {
            Objective::Surplus { .. } if self.capped => (self.keep / 8).max(3),
            _ => usize::MAX,
        };
        let count = |m: &ahash::AHashMap<PoolId, usize>, p: PoolId| m.get(&p).copied().unwrap_or(0);
        let first_full = count(&self.first_count, first) >= cap;
        let last_full = count(&self.last_count, last) >= cap;
        if !first_full && last_full && value <= self.last_floor.get(&last).copied().unwrap_or(0.0) {
            return;
        }
        let slot = if first_full || last_full {
            // The group is the full first pool's paths (else the full last pool's); each member's other pool
            // is its last (else its first).
            let (group, mine) = if first_full { (first, last) } else { (last, first) };
            let ends = |c: &Candidate| {
                let (f, l) = (c.hops[0].0, c.hops[c.hops.len() - 1].0);
                if first_full {
                    (f, l)
                } else {
                    (l, f)
                }
            };
            let champions = if first_full { &self.best_last } else { &self.best_first };
            debug_assert_eq!(*champions, best_by(&self.found, |c| ends(c).1));
            match least_unprotected(
                &self.found,
                champions,
                |c| ends(c).0 == group,
                |c| ends(c).1,
                |c| ends(c).1 == mine,
            ) {
                Some((i, w)) if w < value => Some(i),
                _ => return,
            }
        } else if self.found.len() < self.keep {
            None
        } else {
            Some(self.min_index)
        };
        let candidate = Candidate { hops: self.path_hops.clone(), form };
        let mut replaced = None;
        match slot {
            Some(i) => {
                let old = std::mem::replace(&mut self.found[i], (value, candidate));
                let (old_first, old_last) = (old.1.hops[0].0, old.1.hops[old.1.hops.len() - 1].0);
                *self.first_count.entry(old_first).or_insert(1) -= 1;
                *self.last_count.entry(old_last).or_insert(1) -= 1;
                replaced = Some((old_first, old_last));
                self.keep_champions(old_first, old_last, old.0);
            }
            None => self.found.push((value, candidate)),
        }
        *self.first_count.entry(first).or_insert(0) += 1;
        *self.last_count.entry(last).or_insert(0) += 1;
        for (map, pool) in [(&mut self.best_first, first), (&mut self.best_last, last)] {
            let best = map.entry(pool).or_insert(f64::NEG_INFINITY);
            *best = best.max(value);
        }
        if cap != usize::MAX {
            // Floors: what a newcomer to a full group must beat, the least of its paths that the group may
            // give up (see above).
            let first_of = |c: &Candidate| c.hops[0].0;
            let last_of = |c: &Candidate| c.hops[c.hops.len() - 1].0;
            debug_assert_eq!(self.best_first, best_by(&self.found, first_of));
            debug_assert_eq!(self.best_last, best_by(&self.found, last_of));
            for pool in std::iter::once(first).chain(replaced.map(|r| r.0).filter(|p| *p != first)) {
                let full = count(&self.first_count, pool) >= cap;
                set_floor(&mut self.first_floor, full, pool, &self.found, &self.best_last, first_of, last_of);
            }
            for pool in std::iter::once(last).chain(replaced.map(|r| r.1).filter(|p| *p != last)) {
                let was_full = self.last_floor.contains_key(&pool);
                let full = count(&self.last_count, pool) >= cap;
                if was_full != full {
                    self.last_dirty = true;
                    self.last_epoch = self.last_epoch.wrapping_add(1);
                }
                set_floor(&mut self.last_floor, full, pool, &self.found, &self.best_first, last_of, first_of);
            }
            self.first_bar = self.floor_of(first);
        }
        self.best = self.best.max(value);
        // A path worth less than a fixed share of the best one found is never worth keeping, even while
        // the list is not full (caps can keep it from ever filling).
        let floor = self.best
            * self.floor.unwrap_or(match self.objective {
                Objective::Output { .. } => 0.5,
                Objective::Surplus { .. } => 1e-3,
            });
        let full = if self.found.len() == self.keep {
            let (i, min) = self.found.iter().enumerate().map(|(i, f)| (i, f.0)).fold((0, f64::INFINITY), |acc, x| {
                if x.1 < acc.1 {
                    x
                } else {
                    acc
                }
            });
            self.min_index = i;
            min
        } else {
            0.0
        };
        self.threshold = full.max(floor);
    }
}

/// The bounds of one side split by the last pool of a path: open pools together, and each full one with
/// its floor.
/// Each part carries the largest capacity (`s / c`, output units) of its last pools: no path through them
/// pays out more.
pub(super) struct LastSplit {
    pub(super) open: (Side, f64),
    /// `(pool, capacity, bounds)` per full last pool (its floor is read live: it only rises while full).
    pub(super) full: SmallVec<[(PoolId, f64, Side); 8]>,
}

/// The best value among `found` per pool picked by `pool_of`: what [`Search`] keeps as paths come and go
/// (`best_first`, `best_last`), rebuilt here for debug builds to check it.
pub(super) fn best_by(found: &[(f64, Candidate)], pool_of: impl Fn(&Candidate) -> PoolId) -> AHashMap<PoolId, f64> {
    let mut best: AHashMap<PoolId, f64> = AHashMap::with_capacity(found.len());
    for (v, c) in found {
        let b = best.entry(pool_of(c)).or_insert(f64::NEG_INFINITY);
        *b = b.max(*v);
    }
    best
}

/// Sets the floor of the group of kept paths with `pool` at one end (`end_of`) when the group is `full`: the
/// least of its paths it may give up, those not the champion of their other end (`champions`, `other_of`); a
/// group that is not full has no floor.
#[inline]
fn set_floor(
    floors: &mut AHashMap<PoolId, f64>,
    full: bool,
    pool: PoolId,
    found: &[(f64, Candidate)],
    champions: &AHashMap<PoolId, f64>,
    end_of: impl Fn(&Candidate) -> PoolId,
    other_of: impl Fn(&Candidate) -> PoolId,
) {
    if full {
        let least = least_unprotected(found, champions, |c| end_of(c) == pool, other_of, |_| false)
            .map_or(f64::INFINITY, |(_, v)| v);
        floors.insert(pool, least);
    } else {
        floors.remove(&pool);
    }
}

/// The least path of a group (`member`) that the group may give up: not the best path through its other
/// pool (`other_of`; `champions` holds the best value per such pool) unless `shares` says the newcomer
/// passes that pool too; the least member when every one is protected.
pub(super) fn least_unprotected(
    found: &[(f64, Candidate)],
    champions: &AHashMap<PoolId, f64>,
    member: impl Fn(&Candidate) -> bool,
    other_of: impl Fn(&Candidate) -> PoolId,
    shares: impl Fn(&Candidate) -> bool,
) -> Option<(usize, f64)> {
    let mut least: Option<(usize, f64)> = None;
    let mut least_any: Option<(usize, f64)> = None;
    for (i, (v, c)) in found.iter().enumerate() {
        if !member(c) {
            continue;
        }
        if least_any.is_none_or(|(_, w)| *v < w) {
            least_any = Some((i, *v));
        }
        let protected = champions.get(&other_of(c)).is_some_and(|best| *v >= *best);
        if least.is_none_or(|(_, w)| *v < w) && (shares(c) || !protected) {
            least = Some((i, *v));
        }
    }
    least.or(least_any)
}

//! Network fees: what the chain charges, in nanotons, for each route and each hop of a route.
//!
//! These are what a route costs the user in TON beyond the swap itself: the fees burnt by the transaction chain
//! (compute, storage and forward fees, the user's wallet included) and the TON contracts keep, not the TON
//! attached to a message (the rest comes back as excess). No SDK publishes them; the defaults are measured by
//! running every route kind on the exchanges' own contract code in a TVM emulator (`tests/e2e`, README
//! "Proven on the exchanges' own code", BENCHMARKS.md "TON per route kind"): a route costs its segments'
//! parts (below), plus [`NetworkFees::jetton_in`] when it is offered a jetton and [`NetworkFees::jetton_out`]
//! when it pays one (the TEP-74 wallets' legs cost more than TON's through a pTON wallet). Override them
//! through [`NetworkFees`] in [`crate::route::RouterConfig`]. A split or a longer route is only taken when its
//! extra output, valued in the output asset at the graph's spot prices, pays for its extra fee.
//!
//! A route that crosses exchanges pays per **segment** (see [`crate::graph::handoff`]): each segment's
//! protocol charges its per-route part (the entry, the payout) and its per-hop parts, and a hand-off adds the
//! TON it does not return to the user ([`crate::graph::HandOff::lost`]). So a cross-exchange route wins only
//! when its extra output pays for a second entry and payout.

use smallvec::SmallVec;

use crate::graph::handoff::{lost_ton, segments, PathHop};
use crate::graph::{HandOffPolicy, PoolGraph, Protocol};

/// Fee of one route through one protocol: a fixed part for the route plus one part per hop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProtocolFee {
    /// Charged once per route (the user's message, the first vault/router hop, the payout).
    pub per_route: u128,
    /// Charged for every hop (pool call and the transfer between hops).
    pub per_hop: u128,
}

impl ProtocolFee {
    /// Nothing charged.
    pub const ZERO: ProtocolFee = ProtocolFee { per_route: 0, per_hop: 0 };
}

/// Network fees per protocol, in nanotons.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NetworkFees {
    /// `dex_a`.
    pub dex_a: ProtocolFee,
    /// `dex_b_v1`.
    pub dex_b_v1: ProtocolFee,
    /// `dex_b_v2`.
    pub dex_b_v2: ProtocolFee,
    /// `dex_c`.
    pub dex_c: ProtocolFee,
    /// Charged once per route offered a jetton: the user's jetton wallet's transfer and the receiving wallet's
    /// notification, over what a TON offer through pTON costs.
    pub jetton_in: u128,
    /// Charged once per route that pays a jetton: the payout's transfer into the user's jetton wallet and its
    /// excess, over what a pTON payout costs.
    pub jetton_out: u128,
}

impl Default for NetworkFees {
    /// Measured on the exchanges' own code (`tests/e2e`): the least-squares fit of every single-route run's
    /// TON cost over its segments, hops and ends (BENCHMARKS.md "TON per route kind"). A `dex_b_v2` swap of one
    /// hop between two jettons costs 0.018 + 0.026 + 0.022 + 0.012 = 0.078 TON; `dex_a` (closed source, not
    /// run) keeps the earlier estimate.
    fn default() -> NetworkFees {
        NetworkFees {
            dex_a: ProtocolFee { per_route: 25_000_000, per_hop: 30_000_000 },
            dex_b_v1: ProtocolFee { per_route: 36_600_000, per_hop: 0 },
            dex_b_v2: ProtocolFee { per_route: 26_200_000, per_hop: 21_600_000 },
            dex_c: ProtocolFee { per_route: 30_000_000, per_hop: 29_100_000 },
            jetton_in: 18_300_000,
            jetton_out: 12_100_000,
        }
    }
}

impl NetworkFees {
    /// No fees: the router then maximises gross output.
    pub const ZERO: NetworkFees = NetworkFees {
        dex_a: ProtocolFee::ZERO,
        dex_b_v1: ProtocolFee::ZERO,
        dex_b_v2: ProtocolFee::ZERO,
        dex_c: ProtocolFee::ZERO,
        jetton_in: 0,
        jetton_out: 0,
    };

    /// The fee table of a protocol.
    pub fn of(&self, protocol: Protocol) -> ProtocolFee {
        match protocol {
            Protocol::DexA => self.dex_a,
            Protocol::DexBV1 => self.dex_b_v1,
            Protocol::DexBV2 => self.dex_b_v2,
            Protocol::DexC => self.dex_c,
        }
    }

    /// Fee of a route of `hops` hops through `protocol`, its ends aside ([`Self::jetton_in`], [`Self::jetton_out`]).
    pub fn route_fee(&self, protocol: Protocol, hops: usize) -> u128 {
        let f = self.of(protocol);
        f.per_route.saturating_add(f.per_hop.saturating_mul(hops as u128))
    }

    /// Fee of each hop of `path`: the first hop of every segment carries its protocol's per-route part and the
    /// TON the hand-off into it does not return; every hop its protocol's per-hop part; the first hop
    /// [`Self::jetton_in`] when the route is offered a jetton, the last [`Self::jetton_out`] when it pays one. A
    /// path the rule refuses (never one the router returns) is charged as if every hop were its own route.
    pub fn step_fees(&self, graph: &PoolGraph, path: &[PathHop]) -> SmallVec<[u128; 5]> {
        let mut fees: SmallVec<[u128; 5]> =
            path.iter().map(|&(pool, _)| self.of(graph.protocol(pool)).per_hop).collect();
        let native = graph.native();
        if let (Some(&(first, d)), Some(fee)) = (path.first(), fees.first_mut()) {
            if native != Some(graph.pool(first).assets[d.in_index()]) {
                *fee = fee.saturating_add(self.jetton_in);
            }
        }
        if let (Some(&(last, d)), Some(fee)) = (path.last(), fees.last_mut()) {
            if native != Some(graph.pool(last).assets[1 - d.in_index()]) {
                *fee = fee.saturating_add(self.jetton_out);
            }
        }
        match segments(graph, HandOffPolicy::SAFE, path) {
            Ok(segs) => {
                for seg in segs {
                    let first = &mut fees[seg.start];
                    *first = first
                        .saturating_add(self.of(seg.protocol).per_route)
                        .saturating_add(seg.handoff_in.map_or(0, lost_ton));
                }
            }
            Err(_) => {
                for (fee, &(pool, _)) in fees.iter_mut().zip(path) {
                    *fee = fee.saturating_add(self.of(graph.protocol(pool)).per_route);
                }
            }
        }
        fees
    }

    /// Fee of a route along `path` (the sum of [`Self::step_fees`]).
    pub fn path_fee(&self, graph: &PoolGraph, path: &[PathHop]) -> u128 {
        self.step_fees(graph, path).iter().fold(0u128, |a, f| a.saturating_add(*f))
    }

    /// Fee attributed to hop `index` (0-based) of a route: the first hop carries the per-route part (ends
    /// aside).
    pub fn step_fee(&self, protocol: Protocol, index: usize) -> u128 {
        let f = self.of(protocol);
        if index == 0 {
            f.per_route.saturating_add(f.per_hop)
        } else {
            f.per_hop
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::asset::{Asset, JettonMaster};
    use crate::graph::{AssetMeta, GraphBuilder, PoolContext, PoolId};
    use crate::pool::{ConstantProduct, Curve, Direction, FeeModel};
    use tonlib_core::TonAddress;

    /// Pools 0, 1 on v2 router A (TON/X, X/Y), 2 on router B (Y/Z), 3 on dex_c (Z/W), 4 on dex_c (W/V).
    fn graph() -> PoolGraph {
        let mut b = GraphBuilder::new();
        let a: Vec<_> = (0..6u8)
            .map(|i| {
                let asset = if i == 0 { Asset::Native } else { Asset::Jetton(JettonMaster([i; 32])) };
                b.add_asset(AssetMeta::new(asset, "A", 9)).unwrap()
            })
            .collect();
        let cp = || Curve::ConstantProduct(ConstantProduct::new(FeeModel::V2, 20, 10, 0));
        let ctx = |r: u8| PoolContext { router: Some(TonAddress::new(0, [r; 32].into())), router_wallets: None };
        let pools = [
            (Protocol::DexBV2, 1),
            (Protocol::DexBV2, 1),
            (Protocol::DexBV2, 2),
            (Protocol::DexC, 3),
            (Protocol::DexC, 3),
        ];
        for (i, (p, r)) in pools.into_iter().enumerate() {
            let addr = TonAddress::new(0, [0x70 + i as u8; 32].into());
            b.add_pool(addr, p, [a[i], a[i + 1]], cp(), [1 << 60, 1 << 60], ctx(r), None).unwrap();
        }
        b.build()
    }

    fn path(pools: &[u32]) -> Vec<PathHop> {
        pools.iter().map(|&p| (PoolId(p), Direction::ZeroToOne)).collect()
    }

    #[test]
    fn one_segment_costs_what_a_route_of_its_protocol_costs() {
        let g = graph();
        let fees = NetworkFees::default();
        // TON → X → Y: a TON offer, a jetton paid.
        assert_eq!(fees.path_fee(&g, &path(&[0, 1])), fees.route_fee(Protocol::DexBV2, 2) + fees.jetton_out);
        assert_eq!(
            fees.step_fees(&g, &path(&[0, 1])).as_slice(),
            &[fees.step_fee(Protocol::DexBV2, 0), fees.step_fee(Protocol::DexBV2, 1) + fees.jetton_out]
        );
        // Y → X → TON: a jetton offer, TON paid.
        let back = [(PoolId(1), Direction::OneToZero), (PoolId(0), Direction::OneToZero)];
        assert_eq!(fees.path_fee(&g, &back), fees.route_fee(Protocol::DexBV2, 2) + fees.jetton_in);
        // X → Y: jettons both ends, one hop.
        assert_eq!(
            fees.path_fee(&g, &path(&[1])),
            fees.route_fee(Protocol::DexBV2, 1) + fees.jetton_in + fees.jetton_out
        );
    }

    #[test]
    fn every_segment_pays_its_entry_and_lost_ton_is_charged() {
        let g = graph();
        let fees = NetworkFees::default();
        let v2 = fees.dex_b_v2;
        let c = fees.dex_c;
        // Router A (2 hops) → router B (jetton) → dex_c (jetton) → dex_c (jetton): four segments; the
        // TONCO → TONCO jetton hand-off loses TONCO's hop budget.
        let got = fees.step_fees(&g, &path(&[0, 1, 2, 3, 4]));
        let lost = crate::graph::handoff::DEX_C_HOP - crate::graph::handoff::DEX_C_HOP_BURN;
        let want = [
            v2.per_route + v2.per_hop,
            v2.per_hop,
            v2.per_route + v2.per_hop,
            c.per_route + c.per_hop,
            c.per_route + c.per_hop + lost + fees.jetton_out,
        ];
        assert_eq!(got.as_slice(), &want);
        assert_eq!(fees.path_fee(&g, &path(&[0, 1, 2, 3, 4])), want.iter().sum::<u128>());
    }
}

//! Network fees: what the chain charges, in nanotons, for each route and each hop of a route.
//!
//! These are the fees burnt by the transaction chain (compute + forward fees), not the TON attached to a
//! message (most of which comes back as excess). No SDK publishes them, so the defaults are our estimates
//! from typical mainnet swap traces, per protocol; override them through [`NetworkFees`] in
//! [`crate::route::RouterConfig`]. A split or a longer route is only taken when its extra output, valued in
//! the output asset at the graph's spot prices, pays for its extra fee.

use crate::graph::Protocol;

/// Fee of one route through one protocol: a fixed part for the route plus one part per hop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProtocolFee {
    /// Charged once per route (the user's message, the first vault/router hop, the payout).
    pub per_route: u128,
    /// Charged for every hop (pool call and the transfer between hops).
    pub per_hop: u128,
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
}

impl Default for NetworkFees {
    /// Estimates: a one-hop swap burns about 0.05–0.08 TON on each exchange; every further hop about 0.03.
    fn default() -> NetworkFees {
        NetworkFees {
            dex_a: ProtocolFee { per_route: 25_000_000, per_hop: 30_000_000 },
            dex_b_v1: ProtocolFee { per_route: 30_000_000, per_hop: 30_000_000 },
            dex_b_v2: ProtocolFee { per_route: 25_000_000, per_hop: 30_000_000 },
            dex_c: ProtocolFee { per_route: 30_000_000, per_hop: 40_000_000 },
        }
    }
}

impl NetworkFees {
    /// No fees: the router then maximises gross output.
    pub const ZERO: NetworkFees = NetworkFees {
        dex_a: ProtocolFee { per_route: 0, per_hop: 0 },
        dex_b_v1: ProtocolFee { per_route: 0, per_hop: 0 },
        dex_b_v2: ProtocolFee { per_route: 0, per_hop: 0 },
        dex_c: ProtocolFee { per_route: 0, per_hop: 0 },
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

    /// Fee of a route of `hops` hops through `protocol`.
    pub fn route_fee(&self, protocol: Protocol, hops: usize) -> u128 {
        let f = self.of(protocol);
        f.per_route.saturating_add(f.per_hop.saturating_mul(hops as u128))
    }

    /// Fee attributed to hop `index` (0-based) of a route: the first hop carries the per-route part.
    pub fn step_fee(&self, protocol: Protocol, index: usize) -> u128 {
        let f = self.of(protocol);
        if index == 0 {
            f.per_route.saturating_add(f.per_hop)
        } else {
            f.per_hop
        }
    }
}

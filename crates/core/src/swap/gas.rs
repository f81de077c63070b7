//! The TON a swap message carries: [`GasTable`] (attached TON per protocol, direction and hop count, with the
//! SDKs' defaults) and the message value it gives.
//!
//! Owns the table and its lookups. Must not build cells or know a layout.

use super::{Direction, SwapError};
use crate::graph::Protocol;

/// TON attached to one message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gas {
    /// Native input: nanotons attached **on top of** the offer. Jetton input: the message's whole value.
    pub attached: u128,
    /// The `forward_ton_amount` of the jetton (or proxy-TON v1) transfer, where the layout has one; layouts
    /// without such a field (proxy-TON v2 `ton_transfer`, the `dex_a` native vault) ignore it.
    pub forward: u128,
}

impl Gas {
    /// Gas from TON amounts in nanotons.
    pub const fn new(attached: u128, forward: u128) -> Gas {
        Gas { attached, forward }
    }
}

/// Gas for one protocol: per direction, indexed by hop count − 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtocolGas {
    /// TON → jetton, `[1 hop, 2 hops, …]`.
    pub native_to_jetton: Vec<Gas>,
    /// Jetton → TON, `[1 hop, 2 hops, …]`.
    pub jetton_to_native: Vec<Gas>,
    /// Jetton → jetton, `[1 hop, 2 hops, …]`.
    pub jetton_to_jetton: Vec<Gas>,
}

impl ProtocolGas {
    fn per_direction(&self, direction: Direction) -> &Vec<Gas> {
        match direction {
            Direction::NativeToJetton => &self.native_to_jetton,
            Direction::JettonToNative => &self.jetton_to_native,
            Direction::JettonToJetton => &self.jetton_to_jetton,
        }
    }

    /// The entry for `hops` hops, if any.
    pub fn get(&self, direction: Direction, hops: usize) -> Option<Gas> {
        hops.checked_sub(1).and_then(|i| self.per_direction(direction).get(i).copied())
    }

    /// Overrides the entry for `hops` hops (`hops` ≥ 1; 0 is ignored). Missing entries below `hops` are
    /// filled with the same `gas`.
    pub fn set(&mut self, direction: Direction, hops: usize, gas: Gas) {
        let Some(i) = hops.checked_sub(1) else { return };
        let v = match direction {
            Direction::NativeToJetton => &mut self.native_to_jetton,
            Direction::JettonToNative => &mut self.jetton_to_native,
            Direction::JettonToJetton => &mut self.jetton_to_jetton,
        };
        if v.len() <= i {
            v.resize(i + 1, gas);
        }
        v[i] = gas;
    }
}

/// Attached TON per protocol, direction and hop count. Every field is public so a deployment can override it.
///
/// Defaults (TON; `attached / forward`):
///
/// | protocol | direction | 1 hop | 2 hops | 3 hops | 4 hops | source |
/// |---|---|---|---|---|---|---|
/// | `dex_b_v1` | TON→jetton | 0.185 / 0.185 | – | – | – | `@ston-fi/sdk` 2.7 v1 `swapTonToJetton` |
/// | `dex_b_v1` | jetton→TON | 0.17 / 0.125 | – | – | – | SDK v1 `swapJettonToTon` |
/// | `dex_b_v1` | jetton→jetton | 0.22 / 0.175 | – | – | – | SDK v1 `swapJettonToJetton` |
/// | `dex_b_v2` | TON→jetton | 0.31 / – | 0.51 | 0.71 | 0.91 | SDK v2 fwd 0.3 + pTON `tonTransfer` 0.01; extra hops: estimate |
/// | `dex_b_v2` | jetton→* | 0.3 / 0.24 | 0.5 / 0.44 | 0.7 / 0.64 | 0.9 / 0.84 | SDK v2 `swapJettonTo*`; extra hops: estimate |
/// | `dex_a` | TON→jetton | 0.2 / – | 0.3 | 0.4 | 0.5 | `@dedust/sdk` 0.8.7 `gasAmount`; extra hops: estimate |
/// | `dex_a` | jetton→* | 0.3 / 0.25 | 0.4 / 0.35 | 0.5 / 0.45 | 0.6 / 0.55 | no SDK default: public integrations; estimate |
/// | `dex_c` | TON→jetton | 0.6 / – | – | – | – | `@toncodex/sdk` 1.0.26 SWAP_GAS 0.4 + 4×TRANSFER_GAS |
/// | `dex_c` | jetton→* | 0.6 / 0.5 | – | – | – | same; forward = SWAP_GAS + SWAP_GAS_SLIPPAGE 0.1 |
///
/// "Estimate" means: no SDK gives a multi-hop value; each extra hop adds 0.2 TON (`dex_b_v2`, whose router
/// re-forwards all remaining value to the next hop and checks a per-hop minimum) or 0.1 TON (`dex_a`).
/// These were not measured on chain; surplus TON is returned to the user as excess by every protocol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GasTable {
    /// STON.fi-style v1 router.
    pub dex_b_v1: ProtocolGas,
    /// STON.fi-style v2 router (v2.1 and v2.2 build the same bytes).
    pub dex_b_v2: ProtocolGas,
    /// DeDust-style vaults.
    pub dex_a: ProtocolGas,
    /// TONCO-style CLMM router.
    pub dex_c: ProtocolGas,
}

const fn ton_milli(m: u128) -> u128 {
    m * 1_000_000
}

fn ladder(first: Gas, step: u128, count: u128) -> Vec<Gas> {
    (0..count)
        .map(|i| {
            let fwd = if first.forward == 0 { 0 } else { first.forward + i * step };
            Gas::new(first.attached + i * step, fwd)
        })
        .collect()
}

impl Default for GasTable {
    fn default() -> Self {
        let g = |a: u128, f: u128| Gas::new(ton_milli(a), ton_milli(f));
        GasTable {
            dex_b_v1: ProtocolGas {
                native_to_jetton: vec![g(185, 185)],
                jetton_to_native: vec![g(170, 125)],
                jetton_to_jetton: vec![g(220, 175)],
            },
            dex_b_v2: ProtocolGas {
                native_to_jetton: ladder(g(310, 0), ton_milli(200), 4),
                jetton_to_native: ladder(g(300, 240), ton_milli(200), 4),
                jetton_to_jetton: ladder(g(300, 240), ton_milli(200), 4),
            },
            dex_a: ProtocolGas {
                native_to_jetton: ladder(g(200, 0), ton_milli(100), 4),
                jetton_to_native: ladder(g(300, 250), ton_milli(100), 4),
                jetton_to_jetton: ladder(g(300, 250), ton_milli(100), 4),
            },
            dex_c: ProtocolGas {
                native_to_jetton: vec![g(600, 0)],
                jetton_to_native: vec![g(600, 500)],
                jetton_to_jetton: vec![g(600, 500)],
            },
        }
    }
}

impl GasTable {
    /// The table of one protocol.
    pub fn of(&self, protocol: Protocol) -> &ProtocolGas {
        match protocol {
            Protocol::DexA => &self.dex_a,
            Protocol::DexBV1 => &self.dex_b_v1,
            Protocol::DexBV2 => &self.dex_b_v2,
            Protocol::DexC => &self.dex_c,
        }
    }
}

pub(crate) fn lookup_gas(
    table: &ProtocolGas,
    protocol: &'static str,
    direction: Direction,
    hops: usize,
) -> Result<Gas, SwapError> {
    table.get(direction, hops).ok_or(SwapError::NoGasEntry { protocol, direction, hops })
}

/// Value of a message: offer + gas for native input, gas alone for jetton input.
pub(crate) fn message_value(direction: Direction, offer: u128, gas: Gas) -> Result<u128, SwapError> {
    if direction.offer_is_native() {
        offer.checked_add(gas.attached).ok_or(SwapError::ValueOverflow { offer, gas: gas.attached })
    } else {
        Ok(gas.attached)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gas_table_lookup_and_override() {
        let mut t = GasTable::default();
        assert_eq!(t.dex_b_v1.get(Direction::JettonToJetton, 1), Some(Gas::new(220_000_000, 175_000_000)));
        assert_eq!(t.dex_b_v1.get(Direction::JettonToJetton, 2), None);
        assert_eq!(t.dex_b_v1.get(Direction::JettonToJetton, 0), None);
        assert_eq!(t.dex_b_v2.get(Direction::JettonToNative, 2), Some(Gas::new(500_000_000, 440_000_000)));
        assert_eq!(t.dex_a.get(Direction::NativeToJetton, 3), Some(Gas::new(400_000_000, 0)));
        t.dex_c.set(Direction::JettonToNative, 3, Gas::new(1, 2));
        assert_eq!(t.dex_c.get(Direction::JettonToNative, 2), Some(Gas::new(1, 2)));
        assert_eq!(t.dex_c.get(Direction::JettonToNative, 1), Some(Gas::new(600_000_000, 500_000_000)));
    }
}

//! `dex_b_v1` and `dex_b_v2` (STON.fi v1 and v2) pool state: v1 `get_pool_data`; v2 `get_pool_data`,
//! `get_pool_type` and the pool's storage cell, for the four v2 pool types.
//!
//! Layouts, checked against the contracts and SDKs:
//! - **v1 `get_pool_data`** (ston-fi/sdk `dex/v1/PoolV1.ts`), 10 entries: `reserve0, reserve1, token0_address,
//!   token1_address, lp_fee, protocol_fee, ref_fee, protocol_fee_address, collected_token0_protocol_fee,
//!   collected_token1_protocol_fee`. The token addresses are **the router's jetton wallets**, not masters.
//! - **v2 `get_pool_data`** (ston-fi/dex-core-v2 `contracts/pool/pools/<type>/get.fc`), 12 common entries
//!   `is_locked, router_address, total_supply_lp, reserve0, reserve1, token0_address, token1_address, lp_fee,
//!   protocol_fee, protocol_fee_address (may be addr_none), collected_token0_protocol_fee,
//!   collected_token1_protocol_fee`, then `amp` (stableswap), `w0` (weighted_const_product) or
//!   `amp, rate, w0, rate_setter_address` (weighted_stableswap).
//! - **v2 storage** (`pools/<type>/storage.fc`): `is_locked:Bool reserve0:Coins reserve1:Coins
//!   total_supply_lp:Coins collected0:Coins collected1:Coins protocol_fee_address:MsgAddress lp_fee:uint16
//!   protocol_fee:uint16`, then `amp:uint32` (stableswap) or `w0:uint64` (weighted_const_product) or a reference
//!   `^[amp:uint128 rate:uint128 w0:uint128 rate_setter:MsgAddress]` (weighted_stableswap), and last the
//!   reference `^[router:MsgAddress token0_wallet:MsgAddress token1_wallet:MsgAddress ^lp_wallet_code
//!   ^lp_account_code]`. The contract ends its parse with `end_parse`, so leftover data means another layout.
//!
//! The pool type is not in the state: a constant-sum pool stores exactly the constant-product layout. It
//! comes from `get_pool_type`, the router (`/v1/routers` `router_type`) or the code, and is an argument here.

use tonlib_core::cell::Cell;
use tonlib_core::TonAddress;

use super::cell::{at, end, read_address, read_coins, read_u256, FieldError};
use super::stack::{StackEntry, StackReader};
use super::ChainError;

/// The four STON.fi v2 pool types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PoolType {
    /// `constant_product` (router type `ConstantProduct`).
    ConstantProduct,
    /// `stableswap` (router type `StableSwap`).
    StableSwap,
    /// `weighted_const_product` (router type `WeightedConstProduct`).
    WeightedConstProduct,
    /// `weighted_stableswap` (router type `WeightedStableSwap`).
    WeightedStableSwap,
}

impl PoolType {
    /// All four.
    pub const ALL: [PoolType; 4] =
        [PoolType::ConstantProduct, PoolType::StableSwap, PoolType::WeightedConstProduct, PoolType::WeightedStableSwap];

    /// The contract's own name (`get_pool_type`, `get_router_data`'s dex type; ston-fi/sdk `DEX_TYPE`).
    pub fn contract_name(self) -> &'static str {
        match self {
            PoolType::ConstantProduct => "constant_product",
            PoolType::StableSwap => "stableswap",
            PoolType::WeightedConstProduct => "weighted_const_product",
            PoolType::WeightedStableSwap => "weighted_stableswap",
        }
    }

    /// The `router_type` of the `/v1/routers` API (ston-fi/sdk `helpers.ts`).
    pub fn router_type(self) -> &'static str {
        match self {
            PoolType::ConstantProduct => "ConstantProduct",
            PoolType::StableSwap => "StableSwap",
            PoolType::WeightedConstProduct => "WeightedConstProduct",
            PoolType::WeightedStableSwap => "WeightedStableSwap",
        }
    }

    /// The snapshot's `curve` for a `dex_b_v2` pool of this type.
    pub fn snapshot_curve(self) -> &'static str {
        match self {
            PoolType::ConstantProduct => "constant_product",
            PoolType::StableSwap => "stable_swap",
            PoolType::WeightedConstProduct => "weighted_constant_product",
            PoolType::WeightedStableSwap => "weighted_stable_swap",
        }
    }

    /// From the contract's name.
    pub fn from_contract_name(name: &str) -> Result<PoolType, ChainError> {
        PoolType::ALL
            .into_iter()
            .find(|t| t.contract_name() == name)
            .ok_or_else(|| ChainError::UnknownPoolType { found: name.to_string() })
    }

    /// From the API's `router_type`, `None` when unknown.
    pub fn from_router_type(name: &str) -> Option<PoolType> {
        PoolType::ALL.into_iter().find(|t| t.router_type() == name)
    }

    fn what(self) -> &'static str {
        match self {
            PoolType::ConstantProduct => "STON.fi v2 constant_product pool data",
            PoolType::StableSwap => "STON.fi v2 stableswap pool data",
            PoolType::WeightedConstProduct => "STON.fi v2 weighted_const_product pool data",
            PoolType::WeightedStableSwap => "STON.fi v2 weighted_stableswap pool data",
        }
    }
}

/// A STON.fi v1 pool's `get_pool_data`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct V1PoolData {
    /// Reserve of token0.
    pub reserve0: u128,
    /// Reserve of token1.
    pub reserve1: u128,
    /// The router's jetton wallet of token0.
    pub token0_wallet: TonAddress,
    /// The router's jetton wallet of token1.
    pub token1_wallet: TonAddress,
    /// LP fee, 1/10000.
    pub lp_fee: u16,
    /// Protocol fee, 1/10000.
    pub protocol_fee: u16,
    /// Referral fee, 1/10000.
    pub ref_fee: u16,
    /// Where protocol fees go (`None` for addr_none; v1 pools store the zero address instead).
    pub protocol_fee_address: Option<TonAddress>,
    /// Protocol fees collected in token0.
    pub collected_token0_protocol_fee: u128,
    /// Protocol fees collected in token1.
    pub collected_token1_protocol_fee: u128,
}

/// Decodes a v1 pool's `get_pool_data` stack.
pub fn v1_pool_data(stack: &[StackEntry]) -> Result<V1PoolData, ChainError> {
    StackReader::read_all("STON.fi v1 get_pool_data", stack, (10, 10), |r| {
        Ok(V1PoolData {
            reserve0: r.coins("reserve0")?,
            reserve1: r.coins("reserve1")?,
            token0_wallet: r.address("token0_address")?,
            token1_wallet: r.address("token1_address")?,
            lp_fee: r.int_as("lp_fee", "a fee in 0..=65535")?,
            protocol_fee: r.int_as("protocol_fee", "a fee in 0..=65535")?,
            ref_fee: r.int_as("ref_fee", "a fee in 0..=65535")?,
            protocol_fee_address: r.address_or_none("protocol_fee_address")?,
            collected_token0_protocol_fee: r.coins("collected_token0_protocol_fee")?,
            collected_token1_protocol_fee: r.coins("collected_token1_protocol_fee")?,
        })
    })
}

/// The parameters only some v2 pool types have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum V2Params {
    /// Constant product: none.
    ConstantProduct,
    /// Stable swap: amplification (uint32).
    StableSwap {
        /// Amplification.
        amp: u32,
    },
    /// Weighted constant product: weight of token0 in 1e18 fixed point (uint64).
    WeightedConstProduct {
        /// Weight of token0.
        w0: u64,
    },
    /// Weighted stable swap (all uint128, 1e18 fixed point).
    WeightedStableSwap {
        /// Amplification.
        amp: u128,
        /// Price of token1 in token0.
        rate: u128,
        /// Weight of token0.
        w0: u128,
        /// Who may set the rate (`None` for addr_none).
        rate_setter: Option<TonAddress>,
    },
}

impl V2Params {
    /// The pool type these parameters belong to.
    pub fn pool_type(&self) -> PoolType {
        match self {
            V2Params::ConstantProduct => PoolType::ConstantProduct,
            V2Params::StableSwap { .. } => PoolType::StableSwap,
            V2Params::WeightedConstProduct { .. } => PoolType::WeightedConstProduct,
            V2Params::WeightedStableSwap { .. } => PoolType::WeightedStableSwap,
        }
    }
}

/// A STON.fi v2 pool's state (from `get_pool_data` or its storage).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct V2PoolData {
    /// Whether the pool refuses swaps.
    pub is_locked: bool,
    /// The router.
    pub router: TonAddress,
    /// LP tokens in circulation.
    pub total_supply_lp: u128,
    /// Reserve of token0.
    pub reserve0: u128,
    /// Reserve of token1.
    pub reserve1: u128,
    /// The router's jetton wallet of token0.
    pub token0_wallet: TonAddress,
    /// The router's jetton wallet of token1.
    pub token1_wallet: TonAddress,
    /// LP fee, 1/10000.
    pub lp_fee: u16,
    /// Protocol fee, 1/10000.
    pub protocol_fee: u16,
    /// Where protocol fees go (`None` for addr_none).
    pub protocol_fee_address: Option<TonAddress>,
    /// Protocol fees collected in token0.
    pub collected_token0_protocol_fee: u128,
    /// Protocol fees collected in token1.
    pub collected_token1_protocol_fee: u128,
    /// Type-specific parameters.
    pub params: V2Params,
}

/// Decodes a v2 pool's `get_pool_data` stack for a pool of type `pool_type`.
pub fn v2_pool_data(stack: &[StackEntry], pool_type: PoolType) -> Result<V2PoolData, ChainError> {
    let (method, extra) = match pool_type {
        PoolType::ConstantProduct => ("STON.fi v2 constant_product get_pool_data", 0),
        PoolType::StableSwap => ("STON.fi v2 stableswap get_pool_data", 1),
        PoolType::WeightedConstProduct => ("STON.fi v2 weighted_const_product get_pool_data", 1),
        PoolType::WeightedStableSwap => ("STON.fi v2 weighted_stableswap get_pool_data", 4),
    };
    let mut r = StackReader::new(method, stack, 12 + extra, 12 + extra)?;
    const FEE: &str = "a fee in 0..=65535 (uint16)";
    const U128: &str = "an unsigned 128-bit integer";
    let is_locked = r.bool("is_locked")?;
    let router = r.address("router_address")?;
    let total_supply_lp = r.coins("total_supply_lp")?;
    let reserve0 = r.coins("reserve0")?;
    let reserve1 = r.coins("reserve1")?;
    let token0_wallet = r.address("token0_address")?;
    let token1_wallet = r.address("token1_address")?;
    let lp_fee = r.int_as("lp_fee", FEE)?;
    let protocol_fee = r.int_as("protocol_fee", FEE)?;
    let protocol_fee_address = r.address_or_none("protocol_fee_address")?;
    let collected_token0_protocol_fee = r.coins("collected_token0_protocol_fee")?;
    let collected_token1_protocol_fee = r.coins("collected_token1_protocol_fee")?;
    let params = match pool_type {
        PoolType::ConstantProduct => V2Params::ConstantProduct,
        PoolType::StableSwap => V2Params::StableSwap { amp: r.int_as("amp", "an unsigned 32-bit integer")? },
        PoolType::WeightedConstProduct => {
            V2Params::WeightedConstProduct { w0: r.int_as("w0", "an unsigned 64-bit integer")? }
        }
        PoolType::WeightedStableSwap => V2Params::WeightedStableSwap {
            amp: r.int_as("amp", U128)?,
            rate: r.int_as("rate", U128)?,
            w0: r.int_as("w0", U128)?,
            rate_setter: r.address_or_none("rate_setter_address")?,
        },
    };
    r.finish()?;
    Ok(V2PoolData {
        is_locked,
        router,
        total_supply_lp,
        reserve0,
        reserve1,
        token0_wallet,
        token1_wallet,
        lp_fee,
        protocol_fee,
        protocol_fee_address,
        collected_token0_protocol_fee,
        collected_token1_protocol_fee,
        params,
    })
}

/// Decodes a v2 pool's storage (its account data cell) for a pool of type `pool_type`.
pub fn v2_pool_storage(data: &Cell, pool_type: PoolType) -> Result<V2PoolData, ChainError> {
    let what = pool_type.what();
    let mut p = data.parser();
    let is_locked = at(what, "is_locked", p.load_bit())?;
    let reserve0 = at(what, "reserve0", read_coins(&mut p))?;
    let reserve1 = at(what, "reserve1", read_coins(&mut p))?;
    let total_supply_lp = at(what, "total_supply_lp", read_coins(&mut p))?;
    let collected0 = at(what, "collected_token0_protocol_fee", read_coins(&mut p))?;
    let collected1 = at(what, "collected_token1_protocol_fee", read_coins(&mut p))?;
    let protocol_fee_address = at(what, "protocol_fee_address", read_address(&mut p))?;
    let lp_fee = at(what, "lp_fee", p.load_u16(16))?;
    let protocol_fee = at(what, "protocol_fee", p.load_u16(16))?;
    let params = match pool_type {
        PoolType::ConstantProduct => V2Params::ConstantProduct,
        PoolType::StableSwap => V2Params::StableSwap { amp: at(what, "amp", p.load_u32(32))? },
        PoolType::WeightedConstProduct => V2Params::WeightedConstProduct { w0: at(what, "w0", p.load_u64(64))? },
        PoolType::WeightedStableSwap => {
            let cell = at(what, "weighted params", p.next_reference())?;
            let mut w = cell.parser();
            // 128 bits read, so each fits a u128.
            let amp = at(what, "amp", read_u256(&mut w, 128))?.low_u128();
            let rate = at(what, "rate", read_u256(&mut w, 128))?.low_u128();
            let w0 = at(what, "w0", read_u256(&mut w, 128))?.low_u128();
            let rate_setter = at(what, "rate_setter_address", read_address(&mut w))?;
            end(what, &mut w)?;
            V2Params::WeightedStableSwap { amp, rate, w0, rate_setter }
        }
    };
    let statics = at(what, "static data", p.next_reference())?;
    end(what, &mut p)?;
    let mut s = statics.parser();
    let router = at(what, "router_address", read_address(&mut s))?;
    let token0_wallet = at(what, "token0_address", read_address(&mut s))?;
    let token1_wallet = at(what, "token1_address", read_address(&mut s))?;
    at(what, "jetton_lp_wallet_code", s.next_reference())?;
    at(what, "lp_account_code", s.next_reference())?;
    end(what, &mut s)?;
    let required = |field: &'static str, a: Option<TonAddress>| {
        a.ok_or(ChainError::DataRange { what, field, value: "addr_none".into(), expected: "an address" })
    };
    Ok(V2PoolData {
        is_locked,
        router: required("router_address", router)?,
        total_supply_lp,
        reserve0,
        reserve1,
        token0_wallet: required("token0_address", token0_wallet)?,
        token1_wallet: required("token1_address", token1_wallet)?,
        lp_fee,
        protocol_fee,
        protocol_fee_address,
        collected_token0_protocol_fee: collected0,
        collected_token1_protocol_fee: collected1,
        params,
    })
}

/// [`v2_pool_storage`] on the account data as a bag of cells (bytes).
pub fn v2_pool_storage_boc(boc: &[u8], pool_type: PoolType) -> Result<V2PoolData, ChainError> {
    let cell = super::boc::parse_boc(boc)
        .map_err(|source| ChainError::Boc { what: format!("{} (account data)", pool_type.what()), source })?;
    v2_pool_storage(&cell, pool_type)
}

/// Decodes `get_pool_type` (and `get_router_data`'s dex type): one cell holding the type's name.
pub fn pool_type(stack: &[StackEntry]) -> Result<PoolType, ChainError> {
    let mut r = StackReader::new("STON.fi v2 get_pool_type", stack, 1, 1)?;
    let (index, cell) = r.cell("pool_type")?;
    let name = read_text(cell, 64).map_err(|source| ChainError::EntryLayout {
        method: "STON.fi v2 get_pool_type",
        index,
        field: "pool_type",
        source,
    })?;
    PoolType::from_contract_name(&name)
}

/// Text stored in a cell as whole bytes, following the first reference of each cell ("snake" strings), at
/// most `max` bytes.
pub fn read_text(cell: &Cell, max: usize) -> Result<String, FieldError> {
    let mut bytes = Vec::new();
    let mut current = cell;
    loop {
        if !current.bit_len().is_multiple_of(8) {
            return Err(FieldError::Text { problem: "not whole bytes" });
        }
        bytes.extend_from_slice(&current.data()[..current.bit_len() / 8]);
        if bytes.len() > max {
            return Err(FieldError::Text { problem: "longer than any name it could be" });
        }
        match current.references().first() {
            Some(next) => current = next,
            None => break,
        }
    }
    String::from_utf8(bytes).map_err(|_| FieldError::Text { problem: "not UTF-8" })
}

/// `get_expected_outputs(amount, token_wallet)` of a v1 pool: what a swap of `amount` would pay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct V1ExpectedOutputs {
    /// Output to the trader.
    pub jetton_to_receive: u128,
    /// Protocol fee taken from the output.
    pub protocol_fee_paid: u128,
    /// Referral fee taken from the output (the getter never applies one).
    pub ref_fee_paid: u128,
}

/// Decodes a v1 pool's `get_expected_outputs` stack.
pub fn v1_expected_outputs(stack: &[StackEntry]) -> Result<V1ExpectedOutputs, ChainError> {
    StackReader::read_all("STON.fi v1 get_expected_outputs", stack, (3, 3), |r| {
        Ok(V1ExpectedOutputs {
            jetton_to_receive: r.coins("jetton_to_receive")?,
            protocol_fee_paid: r.coins("protocol_fee_paid")?,
            ref_fee_paid: r.coins("ref_fee_paid")?,
        })
    })
}

/// A router's `get_router_data` (v1: 6 entries; v2: 9, starting with its id and dex type).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouterData {
    /// v2: the router id; v1: none.
    pub router_id: Option<u64>,
    /// v2: the pool type its pools have; v1: none (constant product).
    pub pool_type: Option<PoolType>,
    /// Whether the router refuses swaps.
    pub is_locked: bool,
    /// The admin.
    pub admin: Option<TonAddress>,
    /// Pending upgrade data.
    pub temp_upgrade: Cell,
    /// The pools' code (v2: a library cell), for computing pool addresses offline.
    pub pool_code: Cell,
    /// The LP jetton wallets' code.
    pub lp_wallet_code: Cell,
    /// The LP accounts' code.
    pub lp_account_code: Cell,
    /// v2: the vaults' code.
    pub vault_code: Option<Cell>,
}

/// Decodes a v1 (6 entries) or v2 (9 entries) router's `get_router_data`.
pub fn router_data(stack: &[StackEntry]) -> Result<RouterData, ChainError> {
    const METHOD: &str = "STON.fi get_router_data";
    let mut r = StackReader::new(METHOD, stack, 6, 9)?;
    let v2 = stack.len() == 9;
    if !v2 && stack.len() != 6 {
        return Err(ChainError::StackLength { method: METHOD, min: 6, max: 9, found: stack.len() });
    }
    let (router_id, pool_type) = if v2 {
        let id = r.int_as("router_id", "an unsigned 64-bit integer")?;
        let (index, cell) = r.cell("dex_type")?;
        let name = read_text(cell, 64).map_err(|source| ChainError::EntryLayout {
            method: METHOD,
            index,
            field: "dex_type",
            source,
        })?;
        (Some(id), Some(PoolType::from_contract_name(&name)?))
    } else {
        (None, None)
    };
    let is_locked = r.bool("is_locked")?;
    let admin = r.address_or_none("admin_address")?;
    let mut cell = |field: &'static str| r.cell(field).map(|(_, c)| (**c).clone());
    let data = RouterData {
        router_id,
        pool_type,
        is_locked,
        admin,
        temp_upgrade: cell("temp_upgrade")?,
        pool_code: cell("pool_code")?,
        lp_wallet_code: cell("jetton_lp_wallet_code")?,
        lp_account_code: cell("lp_account_code")?,
        vault_code: if v2 { Some(cell("vault_code")?) } else { None },
    };
    r.finish()?;
    Ok(data)
}

/// `get_router_version` of a v2 router: `(major, minor, development)`.
pub fn router_version(stack: &[StackEntry]) -> Result<(u32, u32, String), ChainError> {
    const METHOD: &str = "STON.fi get_router_version";
    let mut r = StackReader::new(METHOD, stack, 3, 3)?;
    let major = r.int_as("major", "an unsigned 32-bit integer")?;
    let minor = r.int_as("minor", "an unsigned 32-bit integer")?;
    let (index, cell) = r.cell("development")?;
    let dev = read_text(cell, 64).map_err(|source| ChainError::EntryLayout {
        method: METHOD,
        index,
        field: "development",
        source,
    })?;
    r.finish()?;
    Ok((major, minor, dev))
}

//! `dex_c` (TONCO, concentrated liquidity) pool state from its get-methods (cryptoalgebra/tonco-sdk
//! `src/contracts/PoolV3Contract.ts`; tonkeeper/tongo `abi/schemas/tonco.xml` agrees):
//!
//! - `getPoolStateAndConfiguration`, 25 entries: `router, admin, controller, jetton0_wallet, jetton1_wallet,
//!   jetton0_minter, jetton1_minter` (slices), `pool_active` (bool), `tick_spacing, lp_fee_base, protocol_fee,
//!   lp_fee_current, tick, price_sqrt, liquidity, feeGrowthGlobal0X128, feeGrowthGlobal1X128,
//!   collectedProtocolFee0, collectedProtocolFee1, nftv3item_counter, reserve0, reserve1, nftv3items_active,
//!   ticks_occupied, seqno`. The minters are sorted: jetton0 first.
//! - `getAllTickInfos`: one cell, the root of a `Hashmap 24` keyed by the signed tick, values
//!   `liquidityGross:uint256 liquidityNet:int128 outerFeeGrowth0Token:uint256 outerFeeGrowth1Token:uint256`;
//!   anything but a cell (null) means no initialized tick.
//! - `getTickInfosFrom(tick, count, back, full)`: at most 255 ticks per call, each a tuple
//!   `(tick, liquidityGross, liquidityNet[, feeGrowth0, feeGrowth1])`. The SDK reads them as a tuple of chunks,
//!   each chunk a tuple of tick tuples; a flat tuple of tick tuples is read as well. Null means none.
//!
//! No recorded TONCO payload exists; the tests build these stacks from the layouts above.

use num_bigint::BigInt;
use primitive_types::U256;
use tonlib_core::cell::CellParser;
use tonlib_core::TonAddress;

use super::cell::{read_u256, FieldError};
use super::dict::{read_hashmap, signed_key};
use super::stack::{StackEntry, StackReader};
use super::ChainError;

/// `getPoolStateAndConfiguration`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolState {
    /// The router.
    pub router: TonAddress,
    /// The admin (`None` for addr_none).
    pub admin: Option<TonAddress>,
    /// The controller (`None` for addr_none).
    pub controller: Option<TonAddress>,
    /// The router's jetton wallet of jetton0.
    pub jetton0_wallet: TonAddress,
    /// The router's jetton wallet of jetton1.
    pub jetton1_wallet: TonAddress,
    /// jetton0's master.
    pub jetton0_minter: TonAddress,
    /// jetton1's master.
    pub jetton1_minter: TonAddress,
    /// Whether the pool accepts swaps.
    pub pool_active: bool,
    /// Tick spacing (positive).
    pub tick_spacing: i32,
    /// Base LP fee, 1/10000.
    pub lp_fee_base: u16,
    /// Protocol fee (its share of the LP fee).
    pub protocol_fee: u16,
    /// LP fee charged now, 1/10000.
    pub lp_fee_current: u16,
    /// Current tick.
    pub tick: i32,
    /// √price · 2^96 (below 2^160).
    pub price_sqrt: U256,
    /// Active liquidity.
    pub liquidity: u128,
    /// Global fee growth of token0, Q128.
    pub fee_growth_global0_x128: U256,
    /// Global fee growth of token1, Q128.
    pub fee_growth_global1_x128: U256,
    /// Protocol fees collected in token0.
    pub collected_protocol_fee0: u128,
    /// Protocol fees collected in token1.
    pub collected_protocol_fee1: u128,
    /// Position NFTs minted so far.
    pub nft_counter: u64,
    /// Token0 balance.
    pub reserve0: u128,
    /// Token1 balance.
    pub reserve1: u128,
    /// Position NFTs alive.
    pub nft_active: u64,
    /// Initialized ticks.
    pub ticks_occupied: u32,
    /// Operations since deployment.
    pub seqno: u64,
}

/// Decodes `getPoolStateAndConfiguration`.
pub fn pool_state(stack: &[StackEntry]) -> Result<PoolState, ChainError> {
    const METHOD: &str = "TONCO getPoolStateAndConfiguration";
    let mut r = StackReader::new(METHOD, stack, 25, 25)?;
    let router = r.address("router_address")?;
    let admin = r.address_or_none("admin_address")?;
    let controller = r.address_or_none("controller_address")?;
    let jetton0_wallet = r.address("jetton0_wallet")?;
    let jetton1_wallet = r.address("jetton1_wallet")?;
    let jetton0_minter = r.address("jetton0_minter")?;
    let jetton1_minter = r.address("jetton1_minter")?;
    let pool_active = r.bool("pool_active")?;
    let (index, spacing) = r.int("tick_spacing")?;
    let tick_spacing =
        i32::try_from(spacing).ok().filter(|s| (1..1 << 24).contains(s)).ok_or_else(|| ChainError::EntryRange {
            method: METHOD,
            index,
            field: "tick_spacing",
            value: spacing.to_string(),
            expected: "a positive 24-bit integer",
        })?;
    const FEE: &str = "a fee in 0..=65535 (uint16)";
    let lp_fee_base = r.int_as("lp_fee_base", FEE)?;
    let protocol_fee = r.int_as("protocol_fee", FEE)?;
    let lp_fee_current = r.int_as("lp_fee_current", FEE)?;
    let (index, t) = r.int("tick")?;
    let tick = i32::try_from(t).ok().filter(|t| (-(1 << 23)..1 << 23).contains(t)).ok_or_else(|| {
        ChainError::EntryRange { method: METHOD, index, field: "tick", value: t.to_string(), expected: "a 24-bit tick" }
    })?;
    let price_sqrt = r.uint_bits("price_sqrt", 160, "an unsigned 160-bit integer")?;
    const U128: &str = "an unsigned 128-bit integer";
    const U64: &str = "an unsigned 64-bit integer";
    let state = PoolState {
        router,
        admin,
        controller,
        jetton0_wallet,
        jetton1_wallet,
        jetton0_minter,
        jetton1_minter,
        pool_active,
        tick_spacing,
        lp_fee_base,
        protocol_fee,
        lp_fee_current,
        tick,
        price_sqrt,
        liquidity: r.int_as("liquidity", U128)?,
        fee_growth_global0_x128: r.u256("feeGrowthGlobal0X128")?,
        fee_growth_global1_x128: r.u256("feeGrowthGlobal1X128")?,
        collected_protocol_fee0: r.int_as("collectedProtocolFee0", U128)?,
        collected_protocol_fee1: r.int_as("collectedProtocolFee1", U128)?,
        nft_counter: r.int_as("nftv3item_counter", U64)?,
        reserve0: r.coins("reserve0")?,
        reserve1: r.coins("reserve1")?,
        nft_active: r.int_as("nftv3items_active", U64)?,
        ticks_occupied: r.int_as("ticks_occupied", "an unsigned 32-bit integer")?,
        seqno: r.int_as("seqno", U64)?,
    };
    r.finish()?;
    Ok(state)
}

/// One initialized tick.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TickInfo {
    /// Tick index.
    pub tick: i32,
    /// Liquidity referencing the tick (the contract stores 256 bits; more than 128 is refused).
    pub liquidity_gross: u128,
    /// Liquidity added when the tick is crossed upwards.
    pub liquidity_net: i128,
    /// Fee growth of token0 outside the tick (absent from `getTickInfosFrom` pages asked without `full`).
    pub fee_growth_outside0: Option<U256>,
    /// Fee growth of token1 outside the tick.
    pub fee_growth_outside1: Option<U256>,
}

fn dict_value(p: &mut CellParser<'_>) -> Result<(u128, i128, U256, U256), FieldError> {
    let gross = read_u256(p, 256)?;
    let gross = u128::try_from(gross)
        .map_err(|_| FieldError::TooLarge { value: gross.to_string(), max: "2^128 - 1 (liquidity)" })?;
    let net: BigInt = p.load_int(128)?;
    // 128 bits read as signed, so it fits an i128.
    let net = i128::try_from(&net).map_err(|_| FieldError::TooLarge { value: net.to_string(), max: "int128" })?;
    Ok((gross, net, read_u256(p, 256)?, read_u256(p, 256)?))
}

/// Decodes `getAllTickInfos`: every initialized tick, sorted by tick.
pub fn all_ticks(stack: &[StackEntry]) -> Result<Vec<TickInfo>, ChainError> {
    let mut r = StackReader::new("TONCO getAllTickInfos", stack, 1, 1)?;
    let Some((_, root)) = r.cell_or_null("ticks_dict")? else {
        return Ok(Vec::new());
    };
    let entries = read_hashmap(root, 24, &mut dict_value)
        .map_err(|source| ChainError::Dict { what: "TONCO getAllTickInfos", source })?;
    let mut ticks: Vec<TickInfo> = entries
        .into_iter()
        .map(|(key, (gross, net, fg0, fg1))| TickInfo {
            // A 24-bit key always fits an i32.
            tick: signed_key(key, 24) as i32,
            liquidity_gross: gross,
            liquidity_net: net,
            fee_growth_outside0: Some(fg0),
            fee_growth_outside1: Some(fg1),
        })
        .collect();
    ticks.sort_by_key(|t| t.tick);
    Ok(ticks)
}

/// Decodes one `getTickInfosFrom` page (up to 255 ticks), in the order returned.
pub fn ticks_page(stack: &[StackEntry]) -> Result<Vec<TickInfo>, ChainError> {
    const METHOD: &str = "TONCO getTickInfosFrom";
    let mut r = StackReader::new(METHOD, stack, 1, 1)?;
    let (_, outer) = r.entry("ticks")?;
    let items = match outer {
        StackEntry::Null => return Ok(Vec::new()),
        StackEntry::Tuple(items) | StackEntry::List(items) => items,
        other => {
            return Err(ChainError::EntryType {
                method: METHOD,
                index: 0,
                field: "ticks",
                expected: "tuple, list or null",
                found: other.kind(),
            })
        }
    };
    fn tuple(e: &StackEntry) -> Result<&[StackEntry], ChainError> {
        match e {
            StackEntry::Tuple(v) | StackEntry::List(v) => Ok(v.as_slice()),
            other => Err(ChainError::EntryType {
                method: METHOD,
                index: 0,
                field: "ticks (element)",
                expected: "a tick tuple or a tuple of tick tuples",
                found: other.kind(),
            }),
        }
    }
    let mut ticks = Vec::new();
    for item in items {
        let inner = tuple(item)?;
        if matches!(inner.first(), Some(StackEntry::Int(_))) {
            ticks.push(tick_tuple(inner)?);
        } else {
            for t in inner {
                ticks.push(tick_tuple(tuple(t)?)?);
            }
        }
    }
    Ok(ticks)
}

fn tick_tuple(items: &[StackEntry]) -> Result<TickInfo, ChainError> {
    let mut r = StackReader::new("TONCO getTickInfosFrom tick", items, 3, 5)?;
    if items.len() == 4 {
        return Err(ChainError::StackLength { method: "TONCO getTickInfosFrom tick", min: 3, max: 5, found: 4 });
    }
    let (index, t) = r.int("tickNum")?;
    let tick =
        i32::try_from(t).ok().filter(|t| (-(1 << 23)..1 << 23).contains(t)).ok_or_else(|| ChainError::EntryRange {
            method: "TONCO getTickInfosFrom tick",
            index,
            field: "tickNum",
            value: t.to_string(),
            expected: "a 24-bit tick",
        })?;
    let liquidity_gross = r.int_as("liquidityGross", "an unsigned 128-bit integer")?;
    let liquidity_net = r.int_as("liquidityNet", "a signed 128-bit integer")?;
    let (fee_growth_outside0, fee_growth_outside1) = if items.len() == 5 {
        (Some(r.u256("outerFeeGrowth0Token")?), Some(r.u256("outerFeeGrowth1Token")?))
    } else {
        (None, None)
    };
    r.finish()?;
    Ok(TickInfo { tick, liquidity_gross, liquidity_net, fee_growth_outside0, fee_growth_outside1 })
}

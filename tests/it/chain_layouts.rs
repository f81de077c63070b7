//! Decoders for which no real recorded payload exists (STON.fi v2 stableswap / weighted pools, DeDust
//! get-methods, TONCO): the inputs are **built here** from the contracts' layouts with `tonlib-core`'s cell
//! builder (and its dictionary builder, an implementation independent of ours), then encoded as toncenter
//! v2 and v3 responses. Expected values are the ones written in, never our decoder's output.
//! Layout sources: ston-fi/dex-core-v2 `contracts/pool/pools/<type>/{storage,get}.fc`; dedust-io/sdk
//! `Pool.ts`/`Asset.ts`; cryptoalgebra/tonco-sdk `PoolV3Contract.ts` (and tongo's `tonco.xml`).
#![cfg(feature = "serde")]

use std::collections::HashMap;
use std::str::FromStr;
use std::sync::Arc;

use num_bigint::{BigInt, BigUint};
use primitive_types::U256;
use serde_json::{json, Value};
use tonlib_core::cell::{ArcCell, BagOfCells, Cell, CellBuilder, TonCellError};
use tonlib_core::TonAddress;
use tonroute::asset::Asset;
use tonroute::chain::dex_b::{self, PoolType, V2Params, V2PoolData};
use tonroute::chain::stack::{GetMethodResult, StackEntry};
use tonroute::chain::{dex_a, dex_c, ChainError};

fn addr(s: &str) -> TonAddress {
    TonAddress::from_str(s).unwrap()
}

fn store_addr(b: &mut CellBuilder, a: Option<&TonAddress>) {
    match a {
        None => {
            b.store_u8(2, 0).unwrap();
        }
        Some(a) => {
            b.store_u8(2, 0b10).unwrap().store_bit(false).unwrap().store_i8(8, a.workchain as i8).unwrap();
            b.store_slice(a.hash_part.as_slice()).unwrap();
        }
    }
}

fn boc64(cell: Cell) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(BagOfCells::from_root(cell).serialize(true).unwrap())
}

fn addr_cell(a: Option<&TonAddress>) -> Cell {
    let mut b = CellBuilder::new();
    store_addr(&mut b, a);
    b.build().unwrap()
}

/// A stack value written by a test: an integer or a cell.
enum V {
    N(BigInt),
    C(Cell),
}

fn n(v: impl Into<BigInt>) -> V {
    V::N(v.into())
}

fn a(x: Option<&TonAddress>) -> V {
    V::C(addr_cell(x))
}

/// The values as a toncenter v2 and a v3 response, both parsed; they must agree.
fn both(values: &[V]) -> Vec<StackEntry> {
    let hex =
        |v: &BigInt| if v.sign() == num_bigint::Sign::Minus { format!("-0x{:x}", -v) } else { format!("0x{v:x}") };
    let v2: Vec<Value> = values
        .iter()
        .map(|v| match v {
            V::N(x) => json!(["num", hex(x)]),
            V::C(c) => json!(["cell", {"bytes": boc64(c.clone())}]),
        })
        .collect();
    let v3: Vec<Value> = values
        .iter()
        .map(|v| match v {
            V::N(x) => json!({"type": "num", "value": hex(x)}),
            V::C(c) => json!({"type": "slice", "value": boc64(c.clone())}),
        })
        .collect();
    let a = GetMethodResult::from_json(&json!({"ok": true, "result": {"exit_code": 0, "stack": v2}}).to_string())
        .unwrap()
        .stack;
    let b = GetMethodResult::from_json(&json!({"exit_code": 0, "stack": v3}).to_string()).unwrap().stack;
    // v3 wrote slices, v2 cells: same content.
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(&b) {
        match (x, y) {
            (StackEntry::Cell(p), StackEntry::Slice(q)) => assert_eq!(p, q),
            _ => assert_eq!(x, y),
        }
    }
    a
}

fn empty_code(tag: u8) -> ArcCell {
    let mut b = CellBuilder::new();
    b.store_u8(8, tag).unwrap();
    Arc::new(b.build().unwrap())
}

/// A v2 pool's state and its storage cell, as `storage::save()` writes it.
fn v2_storage(d: &V2PoolData) -> Cell {
    let mut b = CellBuilder::new();
    b.store_bit(d.is_locked).unwrap();
    for v in
        [d.reserve0, d.reserve1, d.total_supply_lp, d.collected_token0_protocol_fee, d.collected_token1_protocol_fee]
    {
        b.store_coins(&BigUint::from(v)).unwrap();
    }
    store_addr(&mut b, d.protocol_fee_address.as_ref());
    b.store_u16(16, d.lp_fee).unwrap().store_u16(16, d.protocol_fee).unwrap();
    match &d.params {
        V2Params::ConstantProduct => {}
        V2Params::StableSwap { amp } => {
            b.store_u32(32, *amp).unwrap();
        }
        V2Params::WeightedConstProduct { w0 } => {
            b.store_u64(64, *w0).unwrap();
        }
        V2Params::WeightedStableSwap { amp, rate, w0, rate_setter } => {
            let mut w = CellBuilder::new();
            for v in [amp, rate, w0] {
                w.store_uint(128, &BigUint::from(*v)).unwrap();
            }
            store_addr(&mut w, rate_setter.as_ref());
            b.store_child(w.build().unwrap()).unwrap();
        }
    }
    let mut s = CellBuilder::new();
    store_addr(&mut s, Some(&d.router));
    store_addr(&mut s, Some(&d.token0_wallet));
    store_addr(&mut s, Some(&d.token1_wallet));
    s.store_reference(&empty_code(1)).unwrap().store_reference(&empty_code(2)).unwrap();
    b.store_child(s.build().unwrap()).unwrap();
    b.build().unwrap()
}

/// The same state as `get_pool_data` returns it.
fn v2_stack(d: &V2PoolData) -> Vec<V> {
    let mut v = vec![
        n(if d.is_locked { -1 } else { 0 }),
        a(Some(&d.router)),
        n(d.total_supply_lp),
        n(d.reserve0),
        n(d.reserve1),
        a(Some(&d.token0_wallet)),
        a(Some(&d.token1_wallet)),
        n(d.lp_fee),
        n(d.protocol_fee),
        a(d.protocol_fee_address.as_ref()),
        n(d.collected_token0_protocol_fee),
        n(d.collected_token1_protocol_fee),
    ];
    match &d.params {
        V2Params::ConstantProduct => {}
        V2Params::StableSwap { amp } => v.push(n(*amp)),
        V2Params::WeightedConstProduct { w0 } => v.push(n(*w0)),
        V2Params::WeightedStableSwap { amp, rate, w0, rate_setter } => {
            v.extend([n(*amp), n(*rate), n(*w0), a(rate_setter.as_ref())]);
        }
    }
    v
}

fn sample(params: V2Params) -> V2PoolData {
    V2PoolData {
        is_locked: false,
        router: addr("EQCS4UEa5UaJLzOyyKieqQOQ2P9M-7kXpkO5HnP3Bv250cN3"),
        total_supply_lp: 1_283_510_854_219,
        reserve0: (1u128 << 120) - 1,
        reserve1: 912_514_867_886,
        token0_wallet: addr("EQDZwYOajSRXMeg2YQKEXvcZT0lnnWkDDib0xCBZfbJWLBpD"),
        token1_wallet: addr("EQBw6tuHsnMXTz92pz820zdTZmRYUN-grIrGLWVMadGes4-9"),
        lp_fee: 3,
        protocol_fee: 1,
        protocol_fee_address: None,
        collected_token0_protocol_fee: 2_423_145,
        collected_token1_protocol_fee: 0,
        params,
    }
}

#[test]
fn stonfi_v2_every_pool_type_from_storage_and_stack() {
    let setter = addr("EQALh-JBBIKK7gr0o4AVf9JZnEsFndqO0qTCyT-D-yBsWval");
    let cases = [
        sample(V2Params::ConstantProduct),
        sample(V2Params::StableSwap { amp: 200 }),
        sample(V2Params::WeightedConstProduct { w0: 800_000_000_000_000_000 }),
        sample(V2Params::WeightedStableSwap {
            amp: 100_000_000_000_000_000_000,
            rate: 1_050_000_000_000_000_000,
            w0: 500_000_000_000_000_000,
            rate_setter: Some(setter),
        }),
    ];
    for want in cases {
        let t = want.params.pool_type();
        let cell = v2_storage(&want);
        assert_eq!(dex_b::v2_pool_storage(&cell, t).unwrap(), want, "{t:?} storage");
        let boc = BagOfCells::from_root(cell.clone()).serialize(true).unwrap();
        assert_eq!(dex_b::v2_pool_storage_boc(&boc, t).unwrap(), want, "{t:?} storage BOC");
        assert_eq!(dex_b::v2_pool_data(&both(&v2_stack(&want)), t).unwrap(), want, "{t:?} get_pool_data");
        // Read as any other type, the layout does not fit: an error, never wrong values.
        for other in PoolType::ALL.into_iter().filter(|o| *o != t) {
            assert!(dex_b::v2_pool_storage(&cell, other).is_err(), "{t:?} read as {other:?}");
            // stableswap and weighted_const_product stacks both have 13 integers-and-addresses entries: only the
            // pool type tells `amp` from `w0`, which is why it is an argument.
            let same_shape = matches!(
                (t, other),
                (PoolType::StableSwap, PoolType::WeightedConstProduct)
                    | (PoolType::WeightedConstProduct, PoolType::StableSwap)
            );
            if !same_shape {
                assert!(dex_b::v2_pool_data(&both(&v2_stack(&want)), other).is_err(), "{t:?} stack as {other:?}");
            }
        }
    }
}

#[test]
fn stonfi_stack_errors_name_entry_and_field() {
    let want = sample(V2Params::StableSwap { amp: 200 });
    let mut values = v2_stack(&want);
    values[3] = n(-5); // reserve0
    let err = dex_b::v2_pool_data(&both(&values), PoolType::StableSwap).unwrap_err();
    assert!(matches!(err, ChainError::EntryRange { index: 3, field: "reserve0", .. }), "{err}");
    let mut values = v2_stack(&want);
    values[12] = n(1u64 << 32); // amp is a uint32
    let err = dex_b::v2_pool_data(&both(&values), PoolType::StableSwap).unwrap_err();
    assert!(matches!(err, ChainError::EntryRange { index: 12, field: "amp", .. }), "{err}");
    let mut values = v2_stack(&want);
    values[1] = n(7); // router address
    let err = dex_b::v2_pool_data(&both(&values), PoolType::StableSwap).unwrap_err();
    assert!(matches!(err, ChainError::EntryType { index: 1, field: "router_address", expected: "cell or slice", .. }));
    let mut values = v2_stack(&want);
    values[5] = a(None); // token0 wallet cannot be addr_none
    let err = dex_b::v2_pool_data(&both(&values), PoolType::StableSwap).unwrap_err();
    assert!(matches!(err, ChainError::EntryType { index: 5, found: "addr_none", .. }), "{err}");
    // An address cell with more bits after it.
    let mut b = CellBuilder::new();
    store_addr(&mut b, Some(&want.router));
    b.store_u8(8, 1).unwrap();
    let mut values = v2_stack(&want);
    values[1] = V::C(b.build().unwrap());
    let err = dex_b::v2_pool_data(&both(&values), PoolType::StableSwap).unwrap_err();
    assert!(matches!(err, ChainError::EntryTrailing { index: 1, bits: 8, .. }), "{err}");
    // The storage cell cut short: the field that could not be read is named.
    let mut b = CellBuilder::new();
    b.store_bit(false).unwrap().store_coins(&BigUint::from(5u8)).unwrap();
    let err = dex_b::v2_pool_storage(&b.build().unwrap(), PoolType::ConstantProduct).unwrap_err();
    assert!(matches!(err, ChainError::DataField { field: "reserve1", .. }), "{err}");
}

/// The real pool of the DeDust routing-plan fixture (NOT/TON, `EQCUhnOl…`): its assets and reserves.
const NOT_HEX: &str = "2f956143c461769579baef2e32cc2d7bc18283f40d20bb03e432cd603ac33ffc";

fn dedust_asset(asset: &Asset) -> Cell {
    let mut b = CellBuilder::new();
    match asset {
        Asset::Native => {
            b.store_u8(4, 0).unwrap();
        }
        Asset::Jetton(m) => {
            b.store_u8(4, 1).unwrap().store_i8(8, 0).unwrap().store_slice(&m.0).unwrap();
        }
    }
    b.build().unwrap()
}

#[test]
fn dedust_get_methods() {
    let not = Asset::parse(&format!("jetton:0:{NOT_HEX}")).unwrap();
    let stack = both(&[n(33_749_455_557_299u64), n(25_579_879_280_265_794u64)]);
    assert_eq!(dex_a::reserves(&stack).unwrap(), [33_749_455_557_299, 25_579_879_280_265_794]);
    let fee = dex_a::trade_fee(&both(&[n(25), n(10_000)])).unwrap();
    assert_eq!(fee.bps(), Some(25));
    assert!(matches!(
        dex_a::trade_fee(&both(&[n(25), n(0)])),
        Err(ChainError::EntryRange { index: 1, field: "denominator", .. })
    ));
    let assets = dex_a::assets(&both(&[V::C(dedust_asset(&Asset::Native)), V::C(dedust_asset(&not))])).unwrap();
    assert_eq!(assets, [Asset::Native, not]);
    assert!(!dex_a::is_stable(&both(&[n(0)])).unwrap());
    assert!(dex_a::is_stable(&both(&[n(1)])).unwrap());
    assert!(dex_a::is_stable(&both(&[n(2)])).is_err());
    // extra_currency$0010 id:int32 and a masterchain jetton are refused with the entry named.
    let mut b = CellBuilder::new();
    b.store_u8(4, 0b0010).unwrap().store_i32(32, 7).unwrap();
    let err = dex_a::assets(&both(&[V::C(dedust_asset(&Asset::Native)), V::C(b.build().unwrap())])).unwrap_err();
    assert!(matches!(err, ChainError::EntryLayout { index: 1, field: "asset1", .. }), "{err}");
    let mut b = CellBuilder::new();
    b.store_u8(4, 1).unwrap().store_i8(8, -1).unwrap().store_slice(&[7u8; 32]).unwrap();
    assert!(dex_a::assets(&both(&[V::C(b.build().unwrap()), V::C(dedust_asset(&not))])).is_err());
    assert!(matches!(dex_a::reserves(&both(&[n(1)])), Err(ChainError::StackLength { found: 1, .. })));
}

/// A tick dictionary value, written as the SDK's `DictionaryTickInfo.serialize` does.
type TickValue = (BigUint, BigInt, BigUint, BigUint);

fn write_tick(b: &mut CellBuilder, v: TickValue) -> Result<(), TonCellError> {
    b.store_uint(256, &v.0)?.store_int(128, &v.1)?.store_uint(256, &v.2)?.store_uint(256, &v.3)?;
    Ok(())
}

fn tonco_ticks() -> Vec<dex_c::TickInfo> {
    let t = |tick: i32, gross: u128, net: i128, fg: u64| dex_c::TickInfo {
        tick,
        liquidity_gross: gross,
        liquidity_net: net,
        fee_growth_outside0: Some(U256::from(fg)),
        fee_growth_outside1: Some(U256::from(fg) << 130),
    };
    vec![
        t(-887_220, 5_000, 5_000, 1),
        t(-600, 1_000_000_000_000_000_000, 1_000_000_000_000_000_000, 2),
        t(-60, 7, -3, 0),
        t(0, 12, 12, 3),
        t(600, 1_000_000_000_000_000_000, -1_000_000_000_000_000_000, 4),
        t(887_220, 5_000, -5_005, 5),
    ]
}

#[test]
fn tonco_pool_state_and_ticks() {
    let router = addr("EQC_-t0nCnOFMdp7E7qPxAOCbCWGFz-e3pwxb6tTvFmshjt5");
    let w0 = addr("EQCHHakhWxSQIWbw6ioW21YnjVKBCDd_gVjF9Mz9_dIuFy23");
    let w1 = addr("EQDZwYOajSRXMeg2YQKEXvcZT0lnnWkDDib0xCBZfbJWLBpD");
    let m0 = addr("EQBnGWMCf3-FZZq1W4IWcWiGAc3PHuZ0_H-7sad2oY00o83S");
    let m1 = addr("EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs");
    let sqrt = BigInt::from_str("79228162514264337593543950336").unwrap(); // 2^96, price 1
    let fg0 = BigInt::from_str("340282366920938463463374607431768211455").unwrap();
    let values = vec![
        a(Some(&router)),
        a(None),
        a(None),
        a(Some(&w0)),
        a(Some(&w1)),
        a(Some(&m0)),
        a(Some(&m1)),
        n(-1),
        n(60),
        n(30),
        n(25),
        n(30),
        n(-887_000),
        V::N(sqrt),
        n(1_000_000_000_000_000_000u64),
        V::N(fg0),
        n(0),
        n(11),
        n(12),
        n(7),
        n(1_000_000_000_000u64),
        n(5_200_000_000u64),
        n(6),
        n(6),
        n(1234),
    ];
    let s = dex_c::pool_state(&both(&values)).unwrap();
    assert_eq!((s.router.clone(), s.admin.clone(), s.jetton0_minter.clone()), (router, None, m0));
    assert_eq!((s.jetton0_wallet.clone(), s.jetton1_wallet.clone(), s.jetton1_minter.clone()), (w0, w1, m1));
    assert!(s.pool_active);
    assert_eq!((s.tick_spacing, s.lp_fee_base, s.protocol_fee, s.lp_fee_current, s.tick), (60, 30, 25, 30, -887_000));
    assert_eq!(s.price_sqrt, U256::one() << 96);
    assert_eq!(s.liquidity, 1_000_000_000_000_000_000);
    assert_eq!(s.fee_growth_global0_x128, U256::from(u128::MAX));
    assert_eq!((s.collected_protocol_fee0, s.collected_protocol_fee1, s.nft_counter), (11, 12, 7));
    assert_eq!(
        (s.reserve0, s.reserve1, s.nft_active, s.ticks_occupied, s.seqno),
        (1_000_000_000_000, 5_200_000_000, 6, 6, 1234)
    );
    // A sqrt price of 2^160 is out of its 160-bit range; a tick spacing of 0 is refused.
    let mut bad = values;
    bad[13] = V::N(BigInt::from(1) << 160);
    assert!(matches!(
        dex_c::pool_state(&both(&bad)),
        Err(ChainError::EntryRange { index: 13, field: "price_sqrt", .. })
    ));
    bad[13] = n(1);
    bad[8] = n(0);
    assert!(matches!(dex_c::pool_state(&both(&bad)), Err(ChainError::EntryRange { index: 8, .. })));

    // getAllTickInfos: a Hashmap 24 built by tonlib-core's dictionary builder (keys are the ticks' 24-bit
    // two's complement).
    let want = tonco_ticks();
    let data: HashMap<u32, TickValue> = want
        .iter()
        .map(|t| {
            let key = (t.tick as u32) & 0x00ff_ffff;
            let fg = |x: &Option<U256>| BigUint::from_bytes_be(&x.unwrap().to_big_endian());
            (
                key,
                (
                    BigUint::from(t.liquidity_gross),
                    BigInt::from(t.liquidity_net),
                    fg(&t.fee_growth_outside0),
                    fg(&t.fee_growth_outside1),
                ),
            )
        })
        .collect();
    let mut root = CellBuilder::new();
    root.store_dict_data(24, write_tick, data).unwrap();
    let root = root.build().unwrap();
    assert_eq!(dex_c::all_ticks(&both(&[V::C(root)])).unwrap(), want);
    let null = GetMethodResult::from_json(r#"[["null"]]"#).unwrap().stack;
    assert_eq!(dex_c::all_ticks(&null).unwrap(), vec![]);

    // getTickInfosFrom pages: chunks of tick tuples (as the SDK reads them) and flat, with and without
    // the fee-growth fields.
    let tuple = |t: &dex_c::TickInfo, full: bool| {
        let mut items = vec![
            json!(["num", format!("{}", t.tick)]),
            json!(["num", t.liquidity_gross.to_string()]),
            json!(["num", t.liquidity_net.to_string()]),
        ];
        if full {
            items.push(json!(["num", t.fee_growth_outside0.unwrap().to_string()]));
            items.push(json!(["num", t.fee_growth_outside1.unwrap().to_string()]));
        }
        json!({"@type": "tvm.stackEntryTuple", "tuple": {"@type": "tvm.tuple", "elements": items}})
    };
    let chunked = json!([["tuple", {"elements": [
        {"@type": "tvm.stackEntryTuple", "tuple": {"elements": want[..3].iter().map(|t| tuple(t, true)).collect::<Vec<_>>()}},
        {"@type": "tvm.stackEntryTuple", "tuple": {"elements": want[3..].iter().map(|t| tuple(t, true)).collect::<Vec<_>>()}},
    ]}]]);
    let page = dex_c::ticks_page(&GetMethodResult::from_value(&chunked).unwrap().stack).unwrap();
    assert_eq!(page, want);
    let flat = json!([["tuple", {"elements": want.iter().map(|t| tuple(t, false)).collect::<Vec<_>>()}]]);
    let page = dex_c::ticks_page(&GetMethodResult::from_value(&flat).unwrap().stack).unwrap();
    assert_eq!(page.len(), want.len());
    for (got, w) in page.iter().zip(&want) {
        assert_eq!((got.tick, got.liquidity_gross, got.liquidity_net), (w.tick, w.liquidity_gross, w.liquidity_net));
        assert_eq!(got.fee_growth_outside0, None);
    }
    assert_eq!(dex_c::ticks_page(&null).unwrap(), vec![]);
}

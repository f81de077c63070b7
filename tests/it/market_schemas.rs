//! The market-data schemas (docs/interface.md area A, "Resources and their fields"): every type round-trips through
//! JSON with the spec's field names, required fields are required, and values that break a pattern or an
//! enumeration are refused.
#![cfg(feature = "serde")]

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};
use tonroute::api::market::wire::*;
use tonroute::market::types::*;

/// Parses `v` as `T`, serialises it back and requires the same JSON (so names and optionality match).
fn round_trip<T: Serialize + DeserializeOwned>(v: Value) -> T {
    let t: T = serde_json::from_value(v.clone()).unwrap_or_else(|e| panic!("{e}: {v}"));
    assert_eq!(serde_json::to_value(&t).unwrap(), v);
    t
}

fn refuses<T: DeserializeOwned + std::fmt::Debug>(v: Value) {
    assert!(serde_json::from_value::<T>(v.clone()).is_err(), "accepted {v}");
}

fn without(mut v: Value, field: &str) -> Value {
    v.as_object_mut().unwrap().remove(field);
    v
}

fn with(mut v: Value, field: &str, x: Value) -> Value {
    v.as_object_mut().unwrap().insert(field.into(), x);
    v
}

fn pd() -> Value {
    json!({"m15": 1.5, "h1": 2.0, "h6": -3.25, "h24": 0.0, "d7": 100.0})
}

fn pdl() -> Value {
    json!({"m15": "1.5", "h1": "2", "h6": "-3.25", "h24": "0", "d7": "100"})
}

fn metadata() -> Value {
    json!({"name": "Toncoin", "ticker": "TON", "decimals": 9, "description": "d", "image_url": "https://x/y.png",
           "social_links": {"x": "https://x"}, "usd_price": "5.1"})
}

fn coin() -> Value {
    json!({
        "asset": "native", "metadata": metadata(),
        "price": {"usd_value": "5.1", "ton_value": "1", "usd_change": pd(), "ton_change": pd()},
        "ath_date": "2024-11-21T12:00:00Z", "atl_date": "2024-01-01T00:00:00Z", "ath_usd": "8.2", "atl_usd": ".5",
        "ath_market_cap_usd": "1", "atl_market_cap_usd": "2", "buy_tax": 0, "sell_tax": 5,
        "circulating_supply": "100", "total_supply": "+200", "created_at": "2019-11-15T00:00:00Z",
        "extra_details": {"30d_high": "9", "30d_low": "1", "7d_high": "8", "7d_low": "2", "liquidity_pools": [
            {"pool_address": "EQx", "pool_type": "dex_a", "asset0": "native", "asset1": "jetton:0:ab", "weight": "0.5"}]},
        "memecoin_extra_details": {"curve_ton_collected": "10", "curve_ton_max": "1500", "author": "UQa",
            "memepad": "m", "contract_type": "dex_d", "migration_date": "2024-02-02T00:00:00Z"},
        "fully_diluted_market_cap": "3", "liquidity": "4", "market_cap": "5", "holders": 7, "tags": ["a"],
        "traders": {"total": pd(), "buy": pd(), "sell": pd()},
        "transactions": {"buy": pd(), "sell": pd()},
        "verification_level": 4,
        "volume": {"periods": pdl(), "buy_periods": pdl(), "sell_periods": pdl(), "change": pd(),
                   "total_volume": {"usd": "1.5", "ton": "15"}}
    })
}

fn trade() -> Value {
    json!({
        "trade_date": "2024-11-21T11:59:00Z", "pool_address": "EQp", "pool_type": "dex_b_v2",
        "trade_asset_in": "native", "trade_asset_out": "jetton:0:ab", "trade_asset_in_amount": "1000",
        "trade_asset_out_amount": "2000", "trade_asset_in_ticker": "TON", "trade_asset_out_ticker": "X",
        "trade_asset_in_decimals": 9, "trade_asset_out_decimals": 6, "type": "buy", "price_usd": "1.1",
        "price_ton": "0.2", "volume_usd": "3", "volume_ton": "4", "trader_address": "UQt", "platform": "dex_b",
        "tx_hash": "ab"
    })
}

fn candle() -> Value {
    json!({"time": 1732190400, "open": "1", "raw_open": "1.1", "high": "2", "low": "0.5", "close": "1.5", "volume": "10"})
}

fn pool() -> Value {
    json!({
        "address": "EQp", "type": "cpmm_v2", "dex": "dex_b_v2", "total_supply": "10", "trade_fee": "30",
        "lp_fee": "20", "creator_fee": "0", "protocol_fee": "10", "assets": ["native", "jetton:0:ab"],
        "reserves": ["1", "2"], "fees": ["0", "3"], "fee_in_assets": ["native", "jetton:0:ab"], "volume": ["5", "6"],
        "tvl_usd": "1", "volume_24h_usd": "2", "fees_24h_usd": "3", "apr_fees": "4", "apr_rewards": "5", "apr": "9",
        "verified": true, "last_activity_at": "2024-11-21T11:00:00Z", "locked_liquidity": "0",
        "reward_assets": ["native"],
        "rewards": [{"reward_index": 0, "asset": "native", "tokens_per_day": "100", "tokens_per_day_usd": "5",
                     "remaining_budget": "3000", "remaining_budget_usd": "150", "end_date": "2024-12-21T12:00:00Z"}],
        "rewards_total_usd": "0", "value_usd": "0"
    })
}

#[test]
fn common_types_and_coin_round_trip() {
    round_trip::<PeriodData>(pd());
    round_trip::<PeriodDataLarge>(pdl());
    round_trip::<Hlocv>(candle());
    round_trip::<CoinMetadata>(metadata());
    round_trip::<CoinMetadata>(json!({"name": "n", "ticker": "t", "decimals": 0}));
    let c: Coin = round_trip(coin());
    assert_eq!(c.extra_details.unwrap().high_30d.unwrap().as_str(), "9");
    // Only asset and metadata are required.
    round_trip::<Coin>(json!({"asset": "native", "metadata": metadata()}));
    round_trip::<CoinExtraDetails>(json!({}));
    round_trip::<TotalVolume>(json!({"usd": "1", "ton": "2"}));
}

#[test]
fn trades_envelopes_and_affiliates_round_trip() {
    round_trip::<CoinTransaction>(trade());
    round_trip::<CoinTransaction>(without(trade(), "tx_hash"));
    round_trip::<CoinsResponse>(json!({"items": [coin()], "total_count": 1}));
    // total_count is nullable and omitted with skip_total_count.
    round_trip::<CoinsResponse>(json!({"items": []}));
    let r: CoinsResponse = serde_json::from_value(json!({"items": [], "total_count": null})).unwrap();
    assert_eq!(r.total_count, None);
    round_trip::<CoinTransactionsResponse>(json!({"items": [trade()]}));
    round_trip::<ChartResponse>(json!({"ton_hlocv": [candle()], "usd_hlocv": [], "opposite_asset_hlocv": []}));
    round_trip::<ChartByPoolAddressResponse>(json!({"hlocv": [candle()], "opposite_asset_hlocv": [candle()]}));
    round_trip::<ResolverAddressResponse>(json!({"resolver_address": ""}));
    let account = json!({"address": "EQa", "initialized": true, "program_address": "EQp", "account_type": "standard",
        "account_id": "ref", "account_id_hash": "ab", "account_fee": 25, "controller_address": "UQc",
        "balance_for_claim": "1", "balance_claimed": "2"});
    round_trip::<AffiliateAccount>(account.clone());
    round_trip::<AffiliateAccountReferrer>(json!({"account_id": "ref", "account_fee": 25}));
    round_trip::<AffiliateReferralsResponse>(json!({"referrals": {"ref": ["UQa", "UQb"]}, "total_count": 2}));
    let b = json!({"volume_in_ton": "1", "volume_in_usd": "5.5"});
    round_trip::<AffiliateVolumeBreakdown>(b.clone());
    round_trip::<AffiliateAccountVolumeResponse>(json!({
        "accounts": [{"affiliate_account_address": "EQa", "account_id": "ref", "controller_address": "UQc",
                      "referrals_total_volume": b, "referral_volumes": [{"wallet_address": "UQa", "volume": b}]}],
        "wallet_volume": {"wallet_address": "UQa", "volume": b, "transactions": 3}
    }));
    round_trip::<AffiliateAccountVolumeResponse>(json!({"accounts": []}));
    refuses::<AffiliateAccount>(without(account, "account_fee"));
}

#[test]
fn pool_resources_and_requests_round_trip() {
    round_trip::<Pool>(pool());
    let minimal =
        ["last_activity_at", "locked_liquidity", "reward_assets", "rewards", "rewards_total_usd", "value_usd"]
            .iter()
            .fold(pool(), |v, f| without(v, f));
    round_trip::<Pool>(minimal);
    let row = json!({"assets": ["native", "jetton:0:ab"], "tvl_usd": "1", "volume_24h_usd": "2", "fees_24h_usd": "3",
        "apr_fees": "4", "apr_rewards": "5", "apr": "9", "pools": [pool()], "pools_offset": 0, "pools_limit": 3,
        "total_pools": 1});
    round_trip::<PoolsRow>(row.clone());
    let meta = json!({"native": metadata()});
    round_trip::<PoolsResponse>(json!({"pool_rows": [row], "assets_metadata": meta, "total_count": 1}));
    round_trip::<PairPoolsResponse>(json!({"pools": [pool()], "assets_metadata": meta, "total_count": 1}));
    round_trip::<PoolResponse>(json!({"pool": pool(), "assets_metadata": meta}));
    round_trip::<PoolSummaryResponse>(
        json!({"total_value_locked_usd": "1", "volume_24h_usd": "2", "fees_24h_usd": "3"}),
    );
    round_trip::<PoolProvidersResponse>(
        json!({"providers": [{"wallet_address": "UQa", "liquidity": "1", "share": "0.5",
        "assets": {"native": {"amount": "1", "amount_usd": "2"}}}], "assets_metadata": meta, "total_count": 1}),
    );
    round_trip::<DepositsResponse>(json!({"deposits": [{"deposit_address": "EQd", "pool_address": "EQp",
        "initiator_address": "UQi", "amount_x": "1", "amount_y": "2", "minimal_liquidity": "0",
        "added_at": "2024-11-21T12:00:00Z", "mc_seq_no": 7}], "total_count": 1}));
    round_trip::<GetPoolsRequest>(json!({"filter_by_assets": ["native"], "filter_by_type": ["STABLE"],
        "include_assets": ["native"], "limit": 5, "offset": 1,
        "pair_pools": [{"assets": ["native", "jetton:0:ab"], "limit": 2, "offset": 0}], "pool_addresses": ["EQp"],
        "sort_by": "boost_apr", "sort_direction": "asc", "tags": ["boosted"], "wallet_address": "UQa"}));
    round_trip::<GetPoolsRequest>(json!({}));
    round_trip::<GetPairPoolsRequest>(json!({"assets": ["native", "jetton:0:ab"], "sort_by": "tvl"}));
    round_trip::<PoolSummaryRequest>(json!({"include_assets": ["native"]}));
    round_trip::<PairPoolsRequest>(json!({"assets": ["a", "b"]}));
}

#[test]
fn decimal_patterns_are_enforced() {
    for ok in ["0", "-12", "+7", "340282366920938463463374607431768211455000"] {
        assert_eq!(LargeInteger::new(ok).unwrap().as_str(), ok);
    }
    for bad in ["", "-", "1.0", "1e3", " 1", "0x10", "١"] {
        assert!(LargeInteger::new(bad).is_err(), "{bad}");
        refuses::<LargeInteger>(json!(bad));
    }
    for ok in ["0", ".5", "-0.25", "+3", "12.000"] {
        assert_eq!(LargeFloat::new(ok).unwrap().as_str(), ok);
    }
    for bad in ["", "1.", ".", "-", "1e-9", "NaN", "inf", "1.2.3", "--1"] {
        assert!(LargeFloat::new(bad).is_err(), "{bad}");
        refuses::<LargeFloat>(json!(bad));
    }
    // Numbers are not decimal strings.
    refuses::<LargeFloat>(json!(1.5));
    refuses::<LargeInteger>(json!(15));
    // Display conversion never leaves the pattern.
    for v in [0.0, -0.0, 1e-20, 1e20, 123.456, -7.5, f64::NAN, f64::INFINITY] {
        let f = LargeFloat::from_f64(v);
        assert!(LargeFloat::new(f.as_str()).is_ok(), "{v} -> {f}");
    }
    assert_eq!(LargeFloat::from_f64(1.25).as_str(), "1.25");
    assert_eq!(LargeFloat::from_f64(3.0).as_str(), "3");
}

#[test]
fn dates_enums_and_required_fields_are_enforced() {
    for bad in ["2024-11-21", "2024-11-21 12:00:00", "yesterday", "2024-13-01T00:00:00Z", "1732190400"] {
        refuses::<DateTime>(json!(bad));
    }
    let d: DateTime = serde_json::from_value(json!("2024-11-21T14:00:00+02:00")).unwrap();
    assert_eq!(d.unix(), 1_732_190_400);
    refuses::<CoinTransaction>(with(trade(), "type", json!("swap")));
    refuses::<CoinTransaction>(with(trade(), "pool_type", json!("dex_g")));
    // dex_c: the platform list has it; the pool-type list is extended with it for dex_c trades (issue #15).
    let t: CoinTransaction =
        serde_json::from_value(with(with(trade(), "pool_type", json!("dex_c")), "platform", json!("dex_c"))).unwrap();
    assert_eq!((t.pool_type, t.platform), (PoolType::DexC, Platform::DexC));
    refuses::<CoinTransaction>(with(trade(), "platform", json!("dex_b_v2")));
    refuses::<CoinTransaction>(with(trade(), "price_usd", json!("1,5")));
    refuses::<CoinTransaction>(with(trade(), "trade_date", json!("today")));
    for field in ["trade_date", "pool_address", "type", "price_ton", "platform", "trader_address"] {
        refuses::<CoinTransaction>(without(trade(), field));
    }
    refuses::<Coin>(without(coin(), "metadata"));
    refuses::<Coin>(with(coin(), "total_supply", json!("1.5")));
    refuses::<Hlocv>(without(candle(), "raw_open"));
    refuses::<Pool>(without(pool(), "verified"));
    refuses::<GetPoolsRequest>(json!({"sort_by": "volume"}));
    refuses::<GetPoolsRequest>(json!({"sort_direction": "up"}));
    refuses::<GetPoolsRequest>(json!({"limt": 5}));
    refuses::<GetPairPoolsRequest>(json!({}));
    assert_eq!(PoolType::ALL.len(), 9);
    assert_eq!(Platform::ALL.len(), 7);
    assert_eq!(
        ChartPeriod::ALL.iter().map(|p| p.as_str()).collect::<Vec<_>>().join(","),
        "1s,1m,5m,15m,30m,1h,4h,6h,12h,1d,7d"
    );
    assert_eq!(CoinSortBy::ALL.len(), 9);
    assert_eq!(PoolSortBy::ALL.len(), 8);
    for p in StatPeriod::ALL {
        assert_eq!(serde_json::to_value(p).unwrap(), json!(p.as_str()));
        assert_eq!(StatPeriod::parse(p.as_str()), Some(*p));
    }
}

#[test]
fn portfolio_trader_trending_and_feed_round_trip() {
    use tonroute::market::portfolio::*;
    let price = json!({"usd_value": "5", "ton_value": "1"});
    let entry = json!({"asset": "native", "balance": "1000", "balance_formatted": "0.000001", "metadata": metadata(),
        "price": price, "price_usd": "5", "price_ton": "1", "value_usd": "0.000005", "value_ton": "0.000001",
        "verification_level": 4, "jetton_wallet": "EQw"});
    round_trip::<PortfolioResponse>(
        json!({"total_value_usd": "1", "total_value_ton": "2", "jetton_balances": [entry]}),
    );
    refuses::<PortfolioData>(without(entry, "verification_level"));
    let m = json!({"native": {"amount": "1", "amount_usd": "5"}});
    round_trip::<PortfolioEarningsResponse>(json!({
        "fee_earnings": [{"pool_address": "EQp", "position_address": "EQq", "assets": m, "claimed_assets": {}}],
        "creator_earnings": [{"pool_address": "EQp", "assets": m}],
        "meme_creator_earnings": [{"token_address": "EQt", "assets": m, "claimed_assets": m}],
        "boost_rewards": [{"pool_address": "EQp", "position_address": "EQq", "reward_index": 1, "reward_asset": "native",
                           "amount": "3", "amount_usd": "15"}]}));
    round_trip::<PortfolioLiquidityPositionResponse>(
        json!({"position": {"position_address": "EQq", "pool_address": "EQp",
        "liquidity": "7", "liquidity_percentage": "0.1", "assets": m, "value_usd": "1", "apr": "3", "base_apr": "2",
        "boost_apr": "1", "rewards_total_usd": "0", "locked_liquidity": "0"}, "assets_metadata": {"native": metadata()}}),
    );
    let h = json!({"asset_address": "ab", "bought_ton": "1", "sold_ton": "2", "current_position_value_ton": "3",
        "realized_cost_ton": "4", "realized_pnl_ton": "-1", "unrealized_pnl_ton": "0", "total_pnl_ton": "-1",
        "realized_pnl_percent": "-5", "unrealized_pnl_percent": "0", "realized_pnl_percent_of_total_cost": "1",
        "total_pnl_percent": "2", "bought_tokens": "10", "sold_tokens": "5", "remaining_tokens": "5"});
    round_trip::<HoldingsResponse>(json!({"holdings": [h]}));
    refuses::<Holding>(with(h, "bought_tokens", json!("1.5")));
    let t = json!({"rank": 1, "trader": "UQa", "bought_usd": "1", "bought_tokens": "2", "sold_usd": "3", "sold_tokens": "4",
        "remaining_tokens": "5", "remaining_value_usd": "6", "remaining_value_ton": "7", "realized_pnl_usd": "8",
        "realized_pnl_ton": "9", "unrealized_pnl_usd": "10", "unrealized_pnl_ton": "11", "total_pnl_usd": "12",
        "total_pnl_ton": "13", "buy_txns": 2, "sell_txns": 1, "remaining_percent_of_buys": 50.0});
    round_trip::<TopTradersResponse>(json!({"traders": [t]}));
    round_trip::<TraderInfoListResponse>(
        json!({"traders": [{"trader_address": "UQa", "transactions": 3, "volume": "1",
        "volume_ton": "2", "start_date": "2024-11-20T00:00:00Z", "end_date": "2024-11-21T00:00:00Z"}]}),
    );
    let tc = json!({"asset_address": "ab", "title": "X", "ticker": "X", "market_tier": "micro", "rank_in_tier": 2,
        "trend_score": "0.9", "burst_score": "1", "volume_usd_24h": "100", "traders_1h_count": 4});
    round_trip::<TrendingCoin>(tc.clone());
    refuses::<TrendingCoin>(with(tc.clone(), "market_tier", json!("huge")));
    refuses::<TrendingCoin>(with(tc, "vol_to_liq", json!("x")));
    round_trip::<FeedAssetResponse>(
        json!({"asset": {"id": "EQa", "name": "A", "symbol": "A", "circulatingSupply": "1",
        "totalSupply": "2", "metadata": {"k": "v"}, "extRefAId": "a", "extRefBId": "b"}}),
    );
    let block = json!({"blockNumber": 7, "blockTimestamp": 1732190400});
    round_trip::<FeedBlockResponse>(json!({"block": block}));
    round_trip::<FeedPairResponse>(
        json!({"pair": {"id": "EQp", "dexKey": "dex_a", "asset0Id": "native", "asset1Id": "EQa",
        "createdAtBlockNumber": 1, "createdAtBlockTimestamp": 2, "createdAtTxnId": "h", "feeBps": 30, "metadata": {},
        "creator": "UQc"}}),
    );
    let ev = json!({"block": block, "eventType": "swap", "txnId": "h", "txnIndex": 0, "eventIndex": 1, "maker": "UQm",
        "pairId": "EQp", "asset0In": "1", "asset1Out": "2", "priceNative": "0.5",
        "reserves": {"asset0": "10", "asset1": "20"}, "metadata": {"progress": 12.5}});
    round_trip::<FeedEventsResponse>(json!({"events": [ev.clone()]}));
    refuses::<FeedEvent>(with(ev.clone(), "eventType", json!("mint")));
    refuses::<FeedEvent>(without(ev, "pairId"));
}

//! Loading the market-data file ([`super::file`]) over the pools of a snapshot: coins, trades, reward programs,
//! affiliate accounts and balances, validated, and the trades replayed ([`MarketData`]).
//!
//! Trades are stored as what a chain shows (time, pool, asset in, amount in, amount out, trader) and are
//! **replayed** on load against the snapshot's pools with the exact pool math: every recorded output must be
//! what the contract pays on the reserves left by the previous trades, or the file is refused. Prices and
//! volumes are derived during the replay, never stored, so candles and statistics cannot disagree with the
//! pools. Each record is checked by one function ([`RecordError`] says why one is refused).
//!
//! Owns validation and replay; must not answer queries (see [`super::view`]) or touch I/O.

use ahash::AHashMap;
use tonlib_core::TonAddress;

use crate::error::{MarketDataError, RecordError};
use crate::liquidity::{LiquidityEvent, LiquidityRecord};
use crate::query::is_account_id;
use crate::stored::StoredTrade;
use crate::units::{in_ton, whole};
use crate::wallets::Balance;
use tonroute_core::asset::Asset;
use tonroute_core::graph::GraphError;
use tonroute_core::graph::{AssetId, PoolGraph, PoolId};
use tonroute_core::pool::concentrated::ClState;
use tonroute_core::pool::{Curve, Direction, Pool, SwapResult};

use super::file::{AffiliateRecord, CoinRecord, MarketFile, RewardRecord, TradeRecord};

/// A coin after validation.
#[derive(Debug, Clone)]
pub struct CoinEntry {
    /// The asset (an asset of the graph).
    pub asset: Asset,
    /// Its id in the graph.
    pub id: AssetId,
    /// The file's record.
    pub record: CoinRecord,
    /// Total supply.
    pub total_supply: u128,
    /// Circulating supply.
    pub circulating_supply: u128,
    /// Author.
    pub author: TonAddress,
    /// Curve progress in percent, launch-pad coins only.
    pub curve_progress: Option<f64>,
}

/// A replayed trade with its derived prices.
#[derive(Debug, Clone)]
pub struct Trade {
    /// Unix seconds.
    pub time: i64,
    /// Pool.
    pub pool: PoolId,
    /// Direction through the pool.
    pub direction: Direction,
    /// Asset in.
    pub asset_in: AssetId,
    /// Asset out.
    pub asset_out: AssetId,
    /// Amount in.
    pub amount_in: u128,
    /// Amount out.
    pub amount_out: u128,
    /// Protocol fee kept by the pool, output asset.
    pub protocol_fee_out: u128,
    /// Index into [`MarketData::traders`].
    pub trader: usize,
    /// Hash.
    pub tx_hash: String,
    /// Reserves after the trade (a concentrated pool's virtual reserves).
    pub reserves_after: [u128; 2],
    /// A concentrated pool's state after the trade (`None` for the other curves).
    pub state_after: Option<ClState>,
    /// Execution USD price of one whole `asset_in`.
    pub usd_in: f64,
    /// Execution USD price of one whole `asset_out`.
    pub usd_out: f64,
    /// TON's USD price at the time.
    pub ton_usd: f64,
    /// Trade value in USD.
    pub volume_usd: f64,
}

impl Trade {
    /// The trade's value in TON.
    pub fn volume_ton(&self) -> f64 {
        in_ton(self.volume_usd, self.ton_usd)
    }
}

/// A validated reward program.
#[derive(Debug, Clone)]
pub struct Reward {
    /// Pool.
    pub pool: PoolId,
    /// The record.
    pub record: RewardRecord,
    /// Asset.
    pub asset: AssetId,
    /// Per day.
    pub tokens_per_day: u128,
    /// Left.
    pub remaining_budget: u128,
}

/// A validated affiliate account.
#[derive(Debug, Clone)]
pub struct Affiliate {
    /// The record.
    pub record: AffiliateRecord,
    /// Account contract.
    pub address: TonAddress,
    /// Controller.
    pub controller: TonAddress,
    /// Referred wallets (indices into [`MarketData::traders`] when they traded, else appended there).
    pub referrals: Vec<usize>,
}

/// A loaded, replayed market file over its snapshot graph.
#[derive(Debug)]
pub struct MarketData {
    /// The snapshot graph at the start of the sample (reserves before the first trade).
    pub graph: PoolGraph,
    /// Generation source.
    pub source: String,
    /// End of the sample (Unix seconds).
    pub as_of: i64,
    /// Affiliate program contract.
    pub program_address: TonAddress,
    /// Coins by asset id order of the file.
    pub coins: Vec<CoinEntry>,
    /// Coin index by asset.
    pub coin_index: AHashMap<Asset, usize>,
    /// Trades in time order.
    pub trades: Vec<Trade>,
    /// Liquidity events in time order (ties in arrival order).
    pub liquidity: Vec<LiquidityEvent>,
    /// Wallets (traders and referred wallets), deduplicated.
    pub traders: Vec<TonAddress>,
    /// Wallet index by address.
    pub trader_index: AHashMap<TonAddress, usize>,
    /// Reward programs.
    pub rewards: Vec<Reward>,
    /// Affiliate accounts.
    pub affiliates: Vec<Affiliate>,
    /// The USD reference pool of TON (the deepest TON/USD₮ pool), if any.
    pub ton_usd_pool: Option<PoolId>,
    /// Wallet balances, the latest per (owner, asset), ordered by owner then asset.
    pub balances: Vec<Balance>,
}

// USD₮ is priced at exactly $1 (the peg) when it is a trade's reference side.
use tonroute_core::asset::known::USDT;

/// A non-negative decimal integer (digits only, below 2^128), else [`RecordError::NotDecimal`] naming `field`.
fn uint(field: &'static str, text: &str) -> Result<u128, RecordError> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(RecordError::NotDecimal { field });
    }
    text.parse().map_err(|_| RecordError::NotDecimal { field })
}

fn addr(text: &str) -> Result<TonAddress, RecordError> {
    Ok(tonroute_core::asset::parse_address(text)?)
}

/// Price references: per asset, the deepest pool pairing it with TON (else with USD₮).
struct Refs {
    usdt: Option<AssetId>,
    native: Option<AssetId>,
    ton_usd_pool: Option<PoolId>,
    per_asset: Vec<Option<PoolId>>,
}

impl Refs {
    fn new(graph: &PoolGraph) -> Refs {
        let native = graph.asset_id(&Asset::Native);
        let usdt = Asset::parse(USDT).ok().and_then(|a| graph.asset_id(&a));
        let mut per_asset: Vec<Option<(PoolId, u128, u8)>> = vec![None; graph.asset_count()];
        let mut ton_usd: Option<(PoolId, u128)> = None;
        for (i, p) in graph.pools().iter().enumerate() {
            let id = PoolId(u32::try_from(i).unwrap_or(u32::MAX));
            let r = graph.reserves(id);
            for side in 0..2 {
                let (me, other) = (p.assets[side], p.assets[1 - side]);
                // Rank: a TON pair beats a USD₮ pair; within a rank the deeper reference side wins.
                let rank = if Some(other) == native {
                    2
                } else if Some(other) == usdt {
                    1
                } else {
                    continue;
                };
                let depth = r[1 - side];
                let slot = &mut per_asset[me.index()];
                let better = match slot {
                    None => true,
                    Some((_, d, k)) => rank > *k || (rank == *k && depth > *d),
                };
                if better {
                    *slot = Some((id, depth, rank));
                }
            }
            if Some(p.assets[0]) == native && Some(p.assets[1]) == usdt
                || Some(p.assets[1]) == native && Some(p.assets[0]) == usdt
            {
                let ton_side = if Some(p.assets[0]) == native { 0 } else { 1 };
                if ton_usd.is_none_or(|(_, d)| r[ton_side] > d) {
                    ton_usd = Some((id, r[ton_side]));
                }
            }
        }
        Refs {
            usdt,
            native,
            ton_usd_pool: ton_usd.map(|(p, _)| p),
            per_asset: per_asset.into_iter().map(|x| x.map(|(p, _, _)| p)).collect(),
        }
    }

    /// Mid price of one whole `of` in whole `other` on `pool` at `reserves` (fee removed from the marginal rate).
    fn mid(graph: &PoolGraph, pool: PoolId, reserves: [u128; 2], of: AssetId) -> f64 {
        let meta = graph.pool(pool);
        let direction = if meta.assets[0] == of { Direction::ZeroToOne } else { Direction::OneToZero };
        let rate = if let Curve::Concentrated(_) = meta.curve {
            // A concentrated pool's reserve pair is its virtual reserves (x = L/√P, y = L·√P), whose ratio is
            // its price now; the curve itself keeps the snapshot's state.
            let (r_in, r_out) = direction.split(reserves);
            if r_in == 0 {
                0.0
            } else {
                r_out as f64 / r_in as f64
            }
        } else {
            let state = Pool::new(meta.curve.clone(), reserves);
            let fee = 1.0 - f64::from(meta.curve.total_fee_bps()) / 10_000.0;
            if fee > 0.0 {
                state.spot_rate(direction) / fee
            } else {
                0.0
            }
        };
        let (d_in, d_out) = match direction {
            Direction::ZeroToOne => (graph.asset(meta.assets[0]).decimals, graph.asset(meta.assets[1]).decimals),
            Direction::OneToZero => (graph.asset(meta.assets[1]).decimals, graph.asset(meta.assets[0]).decimals),
        };
        rate * 10f64.powi(i32::from(d_in) - i32::from(d_out))
    }

    fn ton_usd(&self, graph: &PoolGraph, reserves: &[[u128; 2]]) -> f64 {
        match (self.ton_usd_pool, self.native) {
            (Some(p), Some(n)) => Refs::mid(graph, p, reserves[p.index()], n),
            _ => graph.asset(AssetId(0)).usd_price.unwrap_or(0.0),
        }
    }

    /// Reference USD price of `asset` at the current reserves.
    fn usd(&self, graph: &PoolGraph, reserves: &[[u128; 2]], asset: AssetId, ton_usd: f64) -> f64 {
        if Some(asset) == self.usdt {
            return 1.0;
        }
        if Some(asset) == self.native {
            return ton_usd;
        }
        match self.per_asset[asset.index()] {
            Some(p) => {
                let meta = graph.pool(p);
                let other = if meta.assets[0] == asset { meta.assets[1] } else { meta.assets[0] };
                let mid = Refs::mid(graph, p, reserves[p.index()], asset);
                if Some(other) == self.native {
                    mid * ton_usd
                } else {
                    mid
                }
            }
            None => graph.asset(asset).usd_price.unwrap_or(0.0),
        }
    }

    /// Which side of a trade is the price reference: USD₮, then TON, then the side with a reference pool.
    fn rank(&self, asset: AssetId) -> u8 {
        if Some(asset) == self.usdt {
            3
        } else if Some(asset) == self.native {
            2
        } else if self.per_asset[asset.index()].is_some() {
            1
        } else {
            0
        }
    }
}

/// The pools while trades are replayed: every pool's reserve pair (a concentrated pool's virtual reserves)
/// and, for concentrated pools, the live [`ClState`] the next trade starts from. A concentrated pool swaps from
/// its state, not from a reserve pair, so a replay that kept only reserves would run every trade on the
/// snapshot's price.
#[derive(Debug, Clone)]
pub struct ReplayState {
    /// Reserves of every pool, [`PoolId`] order.
    pub reserves: Vec<[u128; 2]>,
    /// The state of each concentrated pool (`None` for the other curves).
    pub concentrated: Vec<Option<ClState>>,
}

impl ReplayState {
    /// The pools as the snapshot graph holds them.
    pub fn new(graph: &PoolGraph) -> ReplayState {
        let ids = (0..graph.pool_count()).map(|i| PoolId(u32::try_from(i).unwrap_or(u32::MAX)));
        ReplayState {
            reserves: ids.clone().map(|id| graph.reserves(id)).collect(),
            concentrated: ids.map(|id| graph.concentrated(id).map(|c| *c.state())).collect(),
        }
    }

    /// Runs one trade with the exact contract math on the current state and moves the pool to the state after
    /// it. Returns (direction, swap result, concentrated state after). Nothing changes when the pool refuses.
    pub fn apply(
        &mut self,
        graph: &PoolGraph,
        pool: PoolId,
        asset_in: &Asset,
        amount_in: u128,
    ) -> Result<(Direction, SwapResult, Option<ClState>), RecordError> {
        let meta = graph.pool(pool);
        let in_id = graph.asset_id(asset_in).ok_or(RecordError::NotInSnapshot { asset: *asset_in })?;
        let direction = if meta.assets[0] == in_id {
            Direction::ZeroToOne
        } else if meta.assets[1] == in_id {
            Direction::OneToZero
        } else {
            return Err(RecordError::AssetNotInPool { asset: *asset_in });
        };
        let i = pool.index();
        let (result, state_after) = match (&meta.curve, self.concentrated[i]) {
            (Curve::Concentrated(c), Some(state)) => {
                let (r, s) = c.swap_exact_in(&state, amount_in, direction)?;
                (r, Some(s))
            }
            (curve, _) => (curve.swap(self.reserves[i], amount_in, direction, None)?, None),
        };
        self.reserves[i] = result.reserves_after;
        if state_after.is_some() {
            self.concentrated[i] = state_after;
        }
        Ok((direction, result, state_after))
    }
}

impl CoinEntry {
    /// Validates a coin record against the snapshot.
    fn new(graph: &PoolGraph, c: &CoinRecord) -> Result<CoinEntry, RecordError> {
        let asset = Asset::parse(&c.asset)?;
        let id = graph.asset_id(&asset).ok_or(RecordError::NotInSnapshot { asset })?;
        let total_supply = uint("total_supply", &c.total_supply)?;
        let circulating_supply = uint("circulating_supply", &c.circulating_supply)?;
        if circulating_supply > total_supply {
            return Err(RecordError::CirculatingAboveTotal);
        }
        if c.verification_level > 4 || c.buy_tax > 100 || c.sell_tax > 100 {
            return Err(RecordError::LevelOrTaxOutOfRange);
        }
        let author = addr(&c.author)?;
        let curve_progress = match &c.memepad {
            Some(m) => {
                let got = uint("curve_ton_collected", &m.curve_ton_collected)?;
                let max = uint("curve_ton_max", &m.curve_ton_max)?;
                if max == 0 {
                    return Err(RecordError::ZeroCurveMax);
                }
                Some((got.min(max) as f64 / max as f64) * 100.0)
            }
            None => None,
        };
        Ok(CoinEntry { asset, id, record: c.clone(), total_supply, circulating_supply, author, curve_progress })
    }
}

impl Reward {
    /// Validates a reward program against the snapshot.
    fn new(graph: &PoolGraph, r: &RewardRecord) -> Result<Reward, RecordError> {
        let pool = graph.pool_id(&addr(&r.pool)?).ok_or_else(|| RecordError::UnknownPool { pool: r.pool.clone() })?;
        let asset = Asset::parse(&r.asset)?;
        let asset = graph.asset_id(&asset).ok_or(RecordError::NotInSnapshot { asset })?;
        let tokens_per_day = uint("tokens_per_day", &r.tokens_per_day)?;
        let remaining_budget = uint("remaining_budget", &r.remaining_budget)?;
        Ok(Reward { pool, record: r.clone(), asset, tokens_per_day, remaining_budget })
    }
}

impl Affiliate {
    /// Validates an affiliate account; its referred wallets join `wallets`, and `referred` (wallet → account
    /// id) refuses a wallet a second account claims.
    fn new(
        a: &AffiliateRecord,
        wallets: &mut Wallets,
        referred: &mut AHashMap<usize, String>,
    ) -> Result<Affiliate, RecordError> {
        if !is_account_id(&a.account_id) {
            return Err(RecordError::BadAccountId);
        }
        uint("balance_for_claim", &a.balance_for_claim)?;
        uint("balance_claimed", &a.balance_claimed)?;
        let mut referrals = Vec::new();
        for w in &a.referrals {
            let i = wallets.intern(addr(w)?);
            if let Some(by) = referred.insert(i, a.account_id.clone()) {
                return Err(RecordError::AlreadyReferred { wallet: w.clone(), by });
            }
            referrals.push(i);
        }
        Ok(Affiliate { record: a.clone(), address: addr(&a.address)?, controller: addr(&a.controller)?, referrals })
    }
}

/// Wallets (traders and referred wallets) in order of first appearance, deduplicated.
#[derive(Debug, Default)]
struct Wallets {
    list: Vec<TonAddress>,
    index: AHashMap<TonAddress, usize>,
}

impl Wallets {
    fn intern(&mut self, a: TonAddress) -> usize {
        let list = &mut self.list;
        *self.index.entry(a.clone()).or_insert_with(|| {
            list.push(a);
            list.len() - 1
        })
    }
}

impl ReplayState {
    /// Replays one trade record: checks it against the pool math on the current state, derives its prices at
    /// the state before it, and moves the pool on.
    fn trade(
        &mut self,
        graph: &PoolGraph,
        refs: &Refs,
        wallets: &mut Wallets,
        t: &TradeRecord,
    ) -> Result<Trade, RecordError> {
        let pool_addr = addr(&t.pool)?;
        let pool = graph.pool_id(&pool_addr).ok_or_else(|| RecordError::UnknownPool { pool: t.pool.clone() })?;
        let asset_in = Asset::parse(&t.asset_in)?;
        let amount_in = uint("amount_in", &t.amount_in)?;
        let amount_out = uint("amount_out", &t.amount_out)?;
        let reserves_before = self.reserves[pool.index()];
        let (direction, result, state_after) = self.apply(graph, pool, &asset_in, amount_in)?;
        if result.amount_out != amount_out {
            return Err(RecordError::AmountOutMismatch { recorded: amount_out, paid: result.amount_out });
        }
        if t.tx_hash.len() != 64 || !t.tx_hash.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(RecordError::BadTxHash);
        }
        let trader = wallets.intern(addr(&t.trader)?);
        let meta = graph.pool(pool);
        let (a_in, a_out) = match direction {
            Direction::ZeroToOne => (meta.assets[0], meta.assets[1]),
            Direction::OneToZero => (meta.assets[1], meta.assets[0]),
        };
        // Prices at the state before the trade (only the traded pool moved: it is put back while they are
        // read); the reference side is valued at its reference price and the other side at the execution rate.
        let reserves = &mut self.reserves;
        reserves[pool.index()] = reserves_before;
        let ton_usd = refs.ton_usd(graph, reserves);
        let w_in = whole(amount_in, graph.asset(a_in).decimals);
        let w_out = whole(amount_out, graph.asset(a_out).decimals);
        let (usd_in, usd_out, volume_usd) = if refs.rank(a_in) >= refs.rank(a_out) {
            let p = refs.usd(graph, reserves, a_in, ton_usd);
            let v = w_in * p;
            (p, if w_out > 0.0 { v / w_out } else { 0.0 }, v)
        } else {
            let p = refs.usd(graph, reserves, a_out, ton_usd);
            let v = w_out * p;
            (if w_in > 0.0 { v / w_in } else { 0.0 }, p, v)
        };
        reserves[pool.index()] = result.reserves_after;
        Ok(Trade {
            time: t.time,
            pool,
            direction,
            asset_in: a_in,
            asset_out: a_out,
            amount_in,
            amount_out,
            protocol_fee_out: result.protocol_fee_out,
            trader,
            tx_hash: t.tx_hash.to_ascii_lowercase(),
            reserves_after: result.reserves_after,
            state_after,
            usd_in,
            usd_out,
            ton_usd,
            volume_usd,
        })
    }
}

impl MarketData {
    /// Parses `text` and loads it over `graph` (the snapshot the file was generated on).
    pub fn from_json(graph: PoolGraph, text: &str) -> Result<MarketData, MarketDataError> {
        let file: MarketFile = serde_json::from_str(text)?;
        MarketData::load(graph, &file)
    }

    /// Validates `file` and replays its trades over `graph`.
    pub fn load(graph: PoolGraph, file: &MarketFile) -> Result<MarketData, MarketDataError> {
        let mut data = MarketData::replay(graph, file)?;
        data.liquidity = data.liquidity_history(&file.liquidity)?;
        Ok(data)
    }

    /// Checks the file's liquidity history against the snapshot and the replayed trades
    /// ([`crate::liquidity::replay_history`]).
    fn liquidity_history(&self, records: &[LiquidityRecord]) -> Result<Vec<LiquidityEvent>, MarketDataError> {
        let mut first_trade: Vec<Option<i64>> = vec![None; self.graph.pool_count()];
        for t in &self.trades {
            first_trade[t.pool.index()].get_or_insert(t.time);
        }
        crate::liquidity::replay_history(&self.graph, records, &first_trade)
            .map_err(|(index, reason)| MarketDataError::BadLiquidity { index, reason: Box::new(reason) })
    }

    fn replay(graph: PoolGraph, file: &MarketFile) -> Result<MarketData, MarketDataError> {
        MarketData::assemble(graph, file, |graph, refs, wallets| {
            let mut replay = ReplayState::new(graph);
            let mut trades = Vec::with_capacity(file.trades.len());
            let mut last_time = i64::MIN;
            for (index, t) in file.trades.iter().enumerate() {
                let bad = |reason: RecordError| MarketDataError::BadTrade { index, reason };
                if t.time < last_time {
                    return Err(bad(RecordError::OutOfOrder));
                }
                last_time = t.time;
                trades.push(replay.trade(graph, refs, wallets, t).map_err(bad)?);
            }
            Ok(trades)
        })
    }

    /// The market of `file` (its header, coins, reward programs and affiliate accounts; its `trades` are
    /// ignored) with `trades` as a store kept them: prices as recorded when they were taken in, not replayed.
    /// A trade without a recorded state leaves its pool's reserves where the previous one left them.
    pub fn from_stored(
        graph: PoolGraph,
        file: &MarketFile,
        stored: &[StoredTrade],
    ) -> Result<MarketData, MarketDataError> {
        MarketData::assemble(graph, file, |graph, _refs, wallets| {
            let mut reserves: Vec<[u128; 2]> = ReplayState::new(graph).reserves;
            let mut trades = Vec::with_capacity(stored.len());
            for (index, t) in stored.iter().enumerate() {
                let bad = |reason: RecordError| MarketDataError::BadTrade { index, reason };
                let pool =
                    graph.pool_id(&t.pool).ok_or_else(|| bad(RecordError::UnknownPool { pool: t.pool.to_hex() }))?;
                let meta = graph.pool(pool);
                let in_id = graph.asset_id(&t.asset_in).ok_or(bad(RecordError::NotInSnapshot { asset: t.asset_in }))?;
                let (direction, asset_in, asset_out) = if meta.assets[0] == in_id {
                    (Direction::ZeroToOne, meta.assets[0], meta.assets[1])
                } else if meta.assets[1] == in_id {
                    (Direction::OneToZero, meta.assets[1], meta.assets[0])
                } else {
                    return Err(bad(RecordError::AssetNotInPool { asset: t.asset_in }));
                };
                if let Some(state) = &t.state_after {
                    reserves[pool.index()] = state.reserves;
                }
                trades.push(Trade {
                    time: t.time,
                    pool,
                    direction,
                    asset_in,
                    asset_out,
                    amount_in: t.amount_in,
                    amount_out: t.amount_out,
                    protocol_fee_out: t.protocol_fee_out,
                    trader: wallets.intern(t.trader.clone()),
                    tx_hash: t.tx_hash.clone().unwrap_or_default(),
                    reserves_after: reserves[pool.index()],
                    state_after: t.state_after.as_ref().and_then(|s| s.concentrated),
                    usd_in: t.usd_in,
                    usd_out: t.usd_out,
                    ton_usd: t.ton_usd,
                    volume_usd: t.volume_usd,
                });
            }
            Ok(trades)
        })
    }

    /// Validates `file`'s header, coins, reward programs and affiliate accounts around the trades `trades`
    /// produces (replayed or as stored).
    fn assemble(
        graph: PoolGraph,
        file: &MarketFile,
        trades: impl FnOnce(&PoolGraph, &Refs, &mut Wallets) -> Result<Vec<Trade>, MarketDataError>,
    ) -> Result<MarketData, MarketDataError> {
        let program_address =
            tonroute_core::asset::parse_address(&file.program_address).map_err(MarketDataError::ProgramAddress)?;
        let mut coins = Vec::with_capacity(file.coins.len());
        let mut coin_index = AHashMap::new();
        for c in &file.coins {
            let entry = CoinEntry::new(&graph, c)
                .map_err(|reason| MarketDataError::BadCoin { asset: c.asset.clone(), reason })?;
            if coin_index.insert(entry.asset, coins.len()).is_some() {
                return Err(MarketDataError::BadCoin { asset: c.asset.clone(), reason: RecordError::ListedTwice });
            }
            coins.push(entry);
        }

        let refs = Refs::new(&graph);
        let mut wallets = Wallets::default();
        let trades = trades(&graph, &refs, &mut wallets)?;

        let mut rewards = Vec::new();
        for r in &file.rewards {
            rewards.push(
                Reward::new(&graph, r).map_err(|reason| MarketDataError::BadReward { pool: r.pool.clone(), reason })?,
            );
        }

        let mut affiliates: Vec<Affiliate> = Vec::new();
        let mut referred: AHashMap<usize, String> = AHashMap::new();
        for a in &file.affiliates {
            let bad = |reason: RecordError| MarketDataError::BadAffiliate { account_id: a.account_id.clone(), reason };
            if affiliates.iter().any(|x| x.record.account_id == a.account_id) {
                return Err(bad(RecordError::ListedTwice));
            }
            affiliates.push(Affiliate::new(a, &mut wallets, &mut referred).map_err(bad)?);
        }

        let mut balances = Vec::with_capacity(file.balances.len());
        for (index, b) in file.balances.iter().enumerate() {
            balances.push(
                crate::wallets::validate(&graph, b).map_err(|reason| MarketDataError::BadBalance { index, reason })?,
            );
        }
        let balances = crate::wallets::latest(balances);

        Ok(MarketData {
            balances,
            ton_usd_pool: refs.ton_usd_pool,
            graph,
            source: file.source.clone(),
            as_of: file.as_of.unix(),
            program_address,
            coins,
            coin_index,
            trades,
            liquidity: Vec::new(),
            traders: wallets.list,
            trader_index: wallets.index,
            rewards,
            affiliates,
        })
    }

    /// Reserves of every pool after the last trade at or before `now` (the snapshot's where none).
    pub fn reserves_at(&self, now: i64) -> Vec<[u128; 2]> {
        let mut r: Vec<[u128; 2]> = (0..self.graph.pool_count())
            .map(|i| self.graph.reserves(PoolId(u32::try_from(i).unwrap_or(u32::MAX))))
            .collect();
        for t in self.trades.iter().take_while(|t| t.time <= now) {
            r[t.pool.index()] = t.reserves_after;
        }
        r
    }

    /// Moves every traded pool of `graph` (a graph of the same snapshot, e.g. the router's) to where the trades
    /// up to `now` left it: a concentrated pool takes its replayed state ([`PoolGraph::update_concentrated_state`]),
    /// the others their reserves. Returns how many pools moved.
    pub fn apply_to(&self, graph: &PoolGraph, now: i64) -> Result<usize, GraphError> {
        let mut last: Vec<Option<&Trade>> = vec![None; self.graph.pool_count()];
        for t in self.trades.iter().take_while(|t| t.time <= now) {
            last[t.pool.index()] = Some(t);
        }
        let mut moved = 0;
        for t in last.into_iter().flatten() {
            // The router's graph may be another snapshot: pools are matched by address.
            let address = &self.graph.pool(t.pool).address;
            let id = graph.pool_id(address).ok_or_else(|| GraphError::UnknownPool { pool: address.to_hex() })?;
            match t.state_after {
                Some(state) => graph.update_concentrated_state(id, state)?,
                None => graph.update_reserves(id, t.reserves_after)?,
            }
            moved += 1;
        }
        Ok(moved)
    }

    /// Reference USD price of every asset at `reserves` (see [`usd_prices`]).
    pub fn usd_prices(&self, reserves: &[[u128; 2]]) -> Vec<f64> {
        usd_prices(&self.graph, reserves)
    }
}

/// Reference USD price of every asset of `graph` at `reserves` (TON from its deepest USD₮ pool, others from
/// their deepest TON or USD₮ pool, the snapshot's price for assets with neither).
pub fn usd_prices(graph: &PoolGraph, reserves: &[[u128; 2]]) -> Vec<f64> {
    let refs = Refs::new(graph);
    let ton_usd = refs.ton_usd(graph, reserves);
    (0..graph.asset_count())
        .map(|i| refs.usd(graph, reserves, AssetId(u32::try_from(i).unwrap_or(u32::MAX)), ton_usd))
        .collect()
}

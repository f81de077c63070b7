//! Traders from stored trades: a wallet's holdings (Holding: bought / sold / remaining tokens, realized and
//! unrealized PnL in TON), a coin's top traders (TopTrader, ranked by total PnL) and trader statistics over a
//! period (TraderInfoResponse). Pure: a store hands in the trades (the replay from memory, the SQL store from an
//! indexed query by trader or coin) and the prices at its "now" ([`Prices`]); the arithmetic is here, once.
//!
//! Owns the cost method and the answers' order; must not read trades itself or know the wire.
//!
//! # Cost method: average cost
//!
//! Each (wallet, asset) keeps a position (tokens, exact integers) and its cost basis (TON, and USD for the top
//! traders). A buy adds its tokens and its value to both. A sell of `q` tokens out of a position `P` with cost
//! basis `C` takes out the cost `C · min(q, P) / P` (the position's average cost per token times the tokens
//! covered); its realized PnL is the part of the proceeds for the covered tokens minus that cost. Tokens sold
//! beyond the position (bought before the data starts, or received from elsewhere) have no known cost: they
//! are counted at cost = proceeds (no profit, no loss) and never make the position negative.
//!
//! Why average cost rather than FIFO: it is one number per (wallet, asset) whatever the order of lots, so a
//! store can keep it incrementally (or compute it with one ordered scan) and the answer does not depend on
//! which of two same-second buys is "first"; FIFO needs the whole lot queue and gives different realized PnL
//! for the same trades depending on that order. Wallet trackers commonly show average cost for the same reason.
//!
//! - A trade's value in TON is its USD volume over TON's USD price at the time (the prices recorded with the
//!   trade); its value in USD is its USD volume. A jetton/jetton trade sells one coin and buys the other.
//! - TON itself has no holding (its PnL in TON is zero by definition).
//! - Unrealized PnL = remaining tokens at the coin's price now − the remaining cost basis. Total = realized +
//!   unrealized. Percentages: realized PnL over realized cost, unrealized over the remaining cost, realized and
//!   total over the total cost (realized cost + remaining cost); 0 when the denominator is 0.
//! - Holdings are ordered by current value (TON) descending, ties by asset id; top traders by total PnL (TON)
//!   descending, ties by wallet address; trader statistics by USD volume descending, ties by address.
//! - `/traders` statistics: `transactions` counts the wallet's buys of the coin in the period (the spec: "buy
//!   transactions"), `volume` / `volume_ton` its buys and sells; the period is `(start_date, end_date]`, by
//!   default the 24 hours up to now.

use std::collections::BTreeMap;

use tonlib_core::TonAddress;

use crate::limits::LimitRule;
use crate::money::Money;
use crate::portfolio::{
    Holding, HoldingsResponse, TopTrader, TopTradersResponse, TraderInfoListResponse, TraderInfoResponse,
};
use crate::query::Page;
use crate::replay::view::MarketView;
use crate::types::{DateTime, LargeFloat, LargeInteger};
use crate::units::{friendly_wallet, in_ton, whole};
use tonroute_core::asset::Asset;

/// `/wallets/{address}/holdings`: 50 a page, at most 500.
pub const HOLDINGS_LIMIT: LimitRule = LimitRule { default: 50, max: 500 };
/// `/coins/{asset}/top_traders`: 20 a page, at most 100.
pub const TOP_TRADERS_LIMIT: LimitRule = LimitRule { default: 20, max: 100 };
/// `/traders`: 20 a page, at most 100.
pub const TRADERS_LIMIT: LimitRule = LimitRule { default: 20, max: 100 };
/// `/traders` without `start_date`: the 24 hours up to `end_date` (default: now).
pub const TRADERS_DEFAULT_PERIOD: i64 = 86_400;

/// `/wallets/{address}/holdings`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HoldingsQuery {
    /// The wallet.
    pub wallet: TonAddress,
    /// The page.
    pub page: Page,
}

/// `/coins/{asset}/top_traders`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopTradersQuery {
    /// The coin.
    pub asset: Asset,
    /// The page.
    pub page: Page,
}

/// `/traders`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TradersQuery {
    /// The coin.
    pub asset: Asset,
    /// Period start (exclusive), Unix seconds; `None`: [`TRADERS_DEFAULT_PERIOD`] before the end.
    pub start: Option<i64>,
    /// Period end (inclusive); `None`: the store's now.
    pub end: Option<i64>,
    /// The page.
    pub page: Page,
}

/// A trade as the trader answers need it (either store's row).
#[derive(Debug, Clone, PartialEq)]
pub struct TraderTrade {
    /// Unix seconds.
    pub time: i64,
    /// Trader.
    pub trader: TonAddress,
    /// Asset sent in.
    pub asset_in: Asset,
    /// Asset received.
    pub asset_out: Asset,
    /// Smallest units in.
    pub amount_in: u128,
    /// Smallest units out.
    pub amount_out: u128,
    /// USD value.
    pub volume_usd: f64,
    /// TON's USD price at the time.
    pub ton_usd: f64,
}

impl TraderTrade {
    /// The trade's value in TON (0 when TON's price was unknown).
    pub fn volume_ton(&self) -> f64 {
        in_ton(self.volume_usd, self.ton_usd)
    }
}

/// What an asset is worth at the store's now and its decimals.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AssetPrice {
    /// USD per whole token.
    pub usd: f64,
    /// TON per whole token.
    pub ton: f64,
    /// Decimals.
    pub decimals: u8,
}

/// Prices at the store's now, by asset (a store builds it from its view).
pub trait Prices {
    /// The asset's price, `None` for an asset the store does not know.
    fn price(&self, asset: &Asset) -> Option<AssetPrice>;
}

/// The average-cost book of one (wallet, asset); see the module documentation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Book {
    /// Tokens held by the book (never negative).
    pub position: u128,
    /// Remaining cost basis, TON.
    pub cost_ton: f64,
    /// Remaining cost basis, USD.
    pub cost_usd: f64,
    /// Tokens bought.
    pub bought_tokens: u128,
    /// Tokens sold.
    pub sold_tokens: u128,
    /// TON spent buying (an exact sum: nanotons).
    pub bought_ton: Money,
    /// TON received selling.
    pub sold_ton: Money,
    /// USD spent buying.
    pub bought_usd: Money,
    /// USD received selling.
    pub sold_usd: Money,
    /// Cost of the tokens sold, TON.
    pub realized_cost_ton: f64,
    /// Cost of the tokens sold, USD.
    pub realized_cost_usd: f64,
    /// Realized PnL, TON.
    pub realized_pnl_ton: f64,
    /// Realized PnL, USD.
    pub realized_pnl_usd: f64,
    /// Buys.
    pub buys: i64,
    /// Sells.
    pub sells: i64,
}

impl Book {
    /// A buy of `tokens` worth `ton` / `usd`.
    pub fn buy(&mut self, tokens: u128, ton: f64, usd: f64) {
        self.position = self.position.saturating_add(tokens);
        self.cost_ton += ton;
        self.cost_usd += usd;
        self.bought_tokens = self.bought_tokens.saturating_add(tokens);
        self.bought_ton += ton;
        self.bought_usd += usd;
        self.buys += 1;
    }

    /// A sell of `tokens` for `ton` / `usd`.
    pub fn sell(&mut self, tokens: u128, ton: f64, usd: f64) {
        self.sold_tokens = self.sold_tokens.saturating_add(tokens);
        self.sold_ton += ton;
        self.sold_usd += usd;
        self.sells += 1;
        if tokens == 0 {
            return;
        }
        let covered = tokens.min(self.position);
        // Share of the sale covered by the position, and share of the position sold.
        let of_sale = covered as f64 / tokens as f64;
        let (out_ton, out_usd) = if covered == self.position {
            (self.cost_ton, self.cost_usd)
        } else {
            let of_position = covered as f64 / self.position as f64;
            (self.cost_ton * of_position, self.cost_usd * of_position)
        };
        self.position -= covered;
        self.cost_ton -= out_ton;
        self.cost_usd -= out_usd;
        if self.position == 0 {
            // Exactly nothing left: no float residue in the basis.
            self.cost_ton = 0.0;
            self.cost_usd = 0.0;
        }
        // Covered tokens: their average cost; uncovered tokens: cost = proceeds (no PnL).
        let uncovered = 1.0 - of_sale;
        self.realized_cost_ton += out_ton + ton * uncovered;
        self.realized_cost_usd += out_usd + usd * uncovered;
        self.realized_pnl_ton += ton * of_sale - out_ton;
        self.realized_pnl_usd += usd * of_sale - out_usd;
    }
}

fn pct(part: f64, whole: f64) -> f64 {
    if whole != 0.0 {
        part / whole * 100.0
    } else {
        0.0
    }
}

/// The books of every (wallet, asset) of `trades` (in time order), TON left out; `only` keeps one asset.
pub fn books(trades: &[TraderTrade], only: Option<&Asset>) -> BTreeMap<(String, Asset), (TonAddress, Book)> {
    let mut out: BTreeMap<(String, Asset), (TonAddress, Book)> = BTreeMap::new();
    for t in trades {
        let (ton, usd) = (t.volume_ton(), t.volume_usd);
        for (asset, buy) in [(&t.asset_out, true), (&t.asset_in, false)] {
            if asset.is_native() || only.is_some_and(|o| o != asset) {
                continue;
            }
            let entry = out.entry((t.trader.to_hex(), *asset)).or_insert_with(|| (t.trader.clone(), Book::default()));
            if buy {
                entry.1.buy(t.amount_out, ton, usd);
            } else {
                entry.1.sell(t.amount_in, ton, usd);
            }
        }
    }
    out
}

/// The Holding of one book at `price`.
pub fn holding(asset: &Asset, book: &Book, price: AssetPrice) -> Holding {
    let value_ton = whole(book.position, price.decimals) * price.ton;
    let unrealized = value_ton - book.cost_ton;
    let total = book.realized_pnl_ton + unrealized;
    let total_cost = book.realized_cost_ton + book.cost_ton;
    let f = LargeFloat::from_f64;
    Holding {
        asset_address: match asset {
            Asset::Jetton(master) => master.to_raw(),
            Asset::Native => asset.to_string(),
        },
        bought_ton: book.bought_ton.to_large_float(),
        sold_ton: book.sold_ton.to_large_float(),
        current_position_value_ton: f(value_ton),
        realized_cost_ton: f(book.realized_cost_ton),
        realized_pnl_ton: f(book.realized_pnl_ton),
        unrealized_pnl_ton: f(unrealized),
        total_pnl_ton: f(total),
        realized_pnl_percent: f(pct(book.realized_pnl_ton, book.realized_cost_ton)),
        unrealized_pnl_percent: f(pct(unrealized, book.cost_ton)),
        realized_pnl_percent_of_total_cost: f(pct(book.realized_pnl_ton, total_cost)),
        total_pnl_percent: f(pct(total, total_cost)),
        bought_tokens: LargeInteger::from(book.bought_tokens),
        sold_tokens: LargeInteger::from(book.sold_tokens),
        remaining_tokens: LargeInteger::from(book.position),
    }
}

/// `/wallets/{address}/holdings` over the wallet's trades (time order).
pub fn holdings(trades: &[TraderTrade], prices: &dyn Prices, q: &HoldingsQuery) -> HoldingsResponse {
    let mut rows: Vec<(f64, Asset, Holding)> = books(trades, None)
        .into_iter()
        .filter(|((w, _), _)| *w == q.wallet.to_hex())
        .filter_map(|((_, asset), (_, book))| {
            let price = prices.price(&asset)?;
            let h = holding(&asset, &book, price);
            Some((whole(book.position, price.decimals) * price.ton, asset, h))
        })
        .collect();
    rows.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.to_string().cmp(&b.1.to_string())));
    let all: Vec<Holding> = rows.into_iter().map(|r| r.2).collect();
    HoldingsResponse { holdings: q.page.of(&all).to_vec() }
}

/// `/coins/{asset}/top_traders` over the coin's trades (time order).
pub fn top_traders(trades: &[TraderTrade], price: AssetPrice, q: &TopTradersQuery) -> TopTradersResponse {
    let f = LargeFloat::from_f64;
    let w = |tokens: u128| whole(tokens, price.decimals);
    let mut rows: Vec<(f64, String, TopTrader)> = books(trades, Some(&q.asset))
        .into_values()
        .map(|(trader, b)| {
            let value_ton = w(b.position) * price.ton;
            let value_usd = w(b.position) * price.usd;
            let (unreal_ton, unreal_usd) = (value_ton - b.cost_ton, value_usd - b.cost_usd);
            let total_ton = b.realized_pnl_ton + unreal_ton;
            let row = TopTrader {
                rank: 0,
                trader: friendly_wallet(&trader),
                bought_usd: b.bought_usd.to_large_float(),
                bought_tokens: f(w(b.bought_tokens)),
                sold_usd: b.sold_usd.to_large_float(),
                sold_tokens: f(w(b.sold_tokens)),
                remaining_tokens: f(w(b.position)),
                remaining_value_usd: f(value_usd),
                remaining_value_ton: f(value_ton),
                realized_pnl_usd: f(b.realized_pnl_usd),
                realized_pnl_ton: f(b.realized_pnl_ton),
                unrealized_pnl_usd: f(unreal_usd),
                unrealized_pnl_ton: f(unreal_ton),
                total_pnl_usd: f(b.realized_pnl_usd + unreal_usd),
                total_pnl_ton: f(total_ton),
                buy_txns: b.buys,
                sell_txns: b.sells,
                remaining_percent_of_buys: pct(w(b.position), w(b.bought_tokens)),
            };
            (total_ton, trader.to_hex(), row)
        })
        .collect();
    rows.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let ranked: Vec<TopTrader> = rows
        .into_iter()
        .enumerate()
        .map(|(i, (_, _, mut t))| {
            t.rank = i as i64 + 1;
            t
        })
        .collect();
    TopTradersResponse { traders: q.page.of(&ranked).to_vec() }
}

/// The trades of a view (at or before its now) that `keep` accepts, as the trader answers read them.
pub fn view_trades(view: &MarketView, keep: impl Fn(&TonAddress, &Asset, &Asset) -> bool) -> Vec<TraderTrade> {
    let data = view.data();
    let g = &data.graph;
    view.trades()
        .iter()
        .filter_map(|t| {
            let trader = &data.traders[t.trader];
            let (asset_in, asset_out) = (g.asset(t.asset_in).asset, g.asset(t.asset_out).asset);
            keep(trader, &asset_in, &asset_out).then(|| TraderTrade {
                time: t.time,
                trader: trader.clone(),
                asset_in,
                asset_out,
                amount_in: t.amount_in,
                amount_out: t.amount_out,
                volume_usd: t.volume_usd,
                ton_usd: t.ton_usd,
            })
        })
        .collect()
}

/// The prices of a view at its now: a coin's last trade price (USD and TON), else the asset's reference USD
/// price over TON's.
impl Prices for MarketView {
    fn price(&self, asset: &Asset) -> Option<AssetPrice> {
        let data = self.data();
        let id = data.graph.asset_id(asset)?;
        let decimals = data.graph.asset(id).decimals;
        let listed = data.coin_index.get(asset).map(|&i| self.coin_stats(i));
        if let Some((Some(usd), Some(ton))) = listed.map(|s| (s.usd, s.ton)) {
            return Some(AssetPrice { usd, ton, decimals });
        }
        let usd = self.usd_price(id);
        let ton_usd = data.graph.asset_id(&Asset::Native).map_or(0.0, |n| self.usd_price(n));
        let ton = if asset.is_native() {
            1.0
        } else if ton_usd > 0.0 {
            usd / ton_usd
        } else {
            0.0
        };
        Some(AssetPrice { usd, ton, decimals })
    }
}

/// The period of a `/traders` query at `now`: `(start, end]`.
pub fn period(q: &TradersQuery, now: i64) -> (i64, i64) {
    let end = q.end.unwrap_or(now);
    (q.start.unwrap_or(end - TRADERS_DEFAULT_PERIOD), end)
}

/// `/traders` over the coin's trades in the period (any order).
pub fn traders(trades: &[TraderTrade], q: &TradersQuery, now: i64) -> TraderInfoListResponse {
    let (start, end) = period(q, now);
    let mut by: BTreeMap<String, (TonAddress, i64, Money, Money)> = BTreeMap::new();
    for t in trades.iter().filter(|t| t.time > start && t.time <= end) {
        if t.asset_in != q.asset && t.asset_out != q.asset {
            continue;
        }
        let e = by.entry(t.trader.to_hex()).or_insert_with(|| (t.trader.clone(), 0, Money::ZERO, Money::ZERO));
        if t.asset_out == q.asset {
            e.1 += 1;
        }
        e.2 += t.volume_usd;
        e.3 += t.volume_ton();
    }
    let mut rows: Vec<(String, (TonAddress, i64, Money, Money))> = by.into_iter().collect();
    rows.sort_by(|a, b| b.1 .2.cmp(&a.1 .2).then_with(|| a.0.cmp(&b.0)));
    let all: Vec<TraderInfoResponse> = rows
        .into_iter()
        .map(|(_, (trader, buys, usd, ton))| TraderInfoResponse {
            trader_address: friendly_wallet(&trader),
            transactions: buys,
            volume: usd.to_large_float(),
            volume_ton: ton.to_large_float(),
            start_date: DateTime::from_unix(start),
            end_date: DateTime::from_unix(end),
        })
        .collect();
    TraderInfoListResponse { traders: q.page.of(&all).to_vec() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn average_cost_by_hand() {
        let mut b = Book::default();
        // Buy 100 tokens for 10 TON, then 100 for 30 TON: position 200, basis 40 (0.2 TON each).
        b.buy(100, 10.0, 10.0);
        b.buy(100, 30.0, 30.0);
        // Sell 50 for 15 TON: cost 40·50/200 = 10, PnL 15 − 10 = 5; basis 30 for 150.
        b.sell(50, 15.0, 15.0);
        assert_eq!((b.position, b.cost_ton, b.realized_cost_ton, b.realized_pnl_ton), (150, 30.0, 10.0, 5.0));
        // Sell 200 for 20 TON: 150 covered (cost 30, proceeds 20·150/200 = 15, PnL −15); 50 uncovered at
        // cost = proceeds = 5. Realized cost 10 + 30 + 5 = 45, PnL 5 − 15 = −10; position 0, basis 0.
        b.sell(200, 20.0, 20.0);
        assert_eq!((b.position, b.cost_ton, b.realized_cost_ton, b.realized_pnl_ton), (0, 0.0, 45.0, -10.0));
        assert_eq!((b.bought_tokens, b.sold_tokens, b.buys, b.sells), (200, 250, 2, 2));
    }
}

//! The in-memory market store: a market file (coins, trades as the chain records them, reward programs,
//! affiliate accounts) **replayed** on load against its snapshot's pools with the exact pool math
//! ([`data`]), then seen at a given "now" ([`MarketView`]: statistics computed once) and queried
//! ([`coins`], [`chart`], [`pools`], [`affiliate`]). [`MarketView`] implements [`MarketStore`].
//!
//! Owns the replay (every recorded output must be what the contract pays on the reserves the previous trades
//! left, or the file is refused; prices and volumes are derived, never stored) and the answers computed from
//! it; must not read files or clocks (the caller hands in the text and "now").

pub mod affiliate;
pub mod chart;
pub mod coins;
pub mod data;
pub mod pools;
pub mod view;

use tonlib_core::TonAddress;

pub use chart::candles;
pub use data::{
    in_ton, to_json_lines, usd_prices, whole, AffiliateRecord, CoinRecord, MarketData, MarketFile, MemepadRecord,
    ReplayState, RewardRecord, StoredPoolState, StoredTrade, TradeRecord,
};
pub use pools::pool_kind;
pub use view::{friendly, friendly_wallet, CoinAllTime, CoinStats, MarketView, PoolAllTime, PoolStats};

use super::error::MarketError;
use super::portfolio::{HoldingsResponse, PortfolioResponse, TopTradersResponse, TraderInfoListResponse};
use super::query::{
    AffiliateKey, AffiliateVolumeQuery, ChartByPoolQuery, ChartQuery, CoinQuery, CoinTransactionsQuery, CoinsQuery,
    PairPoolsQuery, PoolQuery, PoolSummaryQuery, PoolsQuery,
};
use super::store::MarketStore;
use super::traders::{self, HoldingsQuery, TopTradersQuery, TradersQuery};
use super::types::{
    AffiliateAccount, AffiliateAccountReferrer, AffiliateAccountVolumeResponse, AffiliateReferralsResponse,
    ChartByPoolAddressResponse, ChartResponse, Coin, CoinTransactionsResponse, CoinsResponse, PairPoolsResponse,
    PoolResponse, PoolSummaryResponse, PoolsResponse, ResolverAddressResponse,
};
use crate::asset::Asset;

/// The replay answers from memory: only a chart of an asset its pool does not trade is refused.
impl MarketStore for MarketView {
    fn coin(&self, query: &CoinQuery) -> Result<Option<Coin>, MarketError> {
        Ok(MarketView::coin(self, query))
    }

    fn coins(&self, query: &CoinsQuery) -> Result<CoinsResponse, MarketError> {
        Ok(MarketView::coins(self, query))
    }

    fn coin_resolver(&self, asset: &Asset) -> Result<Option<ResolverAddressResponse>, MarketError> {
        Ok(MarketView::coin_resolver(self, asset))
    }

    fn coin_transactions(
        &self,
        query: &CoinTransactionsQuery,
    ) -> Result<Option<CoinTransactionsResponse>, MarketError> {
        Ok(MarketView::coin_transactions(self, query))
    }

    fn chart(&self, query: &ChartQuery) -> Result<ChartResponse, MarketError> {
        Ok(MarketView::chart(self, query))
    }

    fn chart_by_pool(&self, query: &ChartByPoolQuery) -> Result<ChartByPoolAddressResponse, MarketError> {
        MarketView::chart_by_pool(self, query)
    }

    fn pools(&self, query: &PoolsQuery) -> Result<PoolsResponse, MarketError> {
        Ok(MarketView::pools(self, query))
    }

    fn pair_pools(&self, query: &PairPoolsQuery) -> Result<PairPoolsResponse, MarketError> {
        Ok(MarketView::pair_pools(self, query))
    }

    fn pool(&self, query: &PoolQuery) -> Result<Option<PoolResponse>, MarketError> {
        Ok(MarketView::pool(self, query))
    }

    fn pool_summary(&self, query: &PoolSummaryQuery) -> Result<PoolSummaryResponse, MarketError> {
        Ok(MarketView::pool_summary(self, query))
    }

    fn affiliate_accounts(&self, key: &AffiliateKey) -> Result<Vec<AffiliateAccount>, MarketError> {
        Ok(MarketView::affiliate_accounts(self, key))
    }

    fn affiliate_volume(
        &self,
        query: &AffiliateVolumeQuery,
    ) -> Result<Option<AffiliateAccountVolumeResponse>, MarketError> {
        Ok(MarketView::affiliate_volume(self, query))
    }

    fn affiliate_referrals(&self, key: &AffiliateKey) -> Result<Option<AffiliateReferralsResponse>, MarketError> {
        Ok(MarketView::affiliate_referrals(self, key))
    }

    fn affiliate_referrer(&self, wallet: &TonAddress) -> Result<Option<AffiliateAccountReferrer>, MarketError> {
        Ok(MarketView::affiliate_referrer(self, wallet))
    }

    fn portfolio(&self, wallet: &TonAddress) -> Result<PortfolioResponse, MarketError> {
        let mine: Vec<_> = self.data().balances.iter().filter(|b| b.owner == *wallet).cloned().collect();
        Ok(crate::market::wallets::portfolio(self, wallet, &mine))
    }

    fn holdings(&self, query: &HoldingsQuery) -> Result<HoldingsResponse, MarketError> {
        let trades = traders::view_trades(self, |w, _, _| *w == query.wallet);
        Ok(traders::holdings(&trades, self, query))
    }

    fn top_traders(&self, query: &TopTradersQuery) -> Result<Option<TopTradersResponse>, MarketError> {
        use traders::Prices;
        let Some(price) = self.data().coin_index.get(&query.asset).and_then(|_| self.price(&query.asset)) else {
            return Ok(None);
        };
        let trades = traders::view_trades(self, |_, i, o| *i == query.asset || *o == query.asset);
        Ok(Some(traders::top_traders(&trades, price, query)))
    }

    fn traders(&self, query: &TradersQuery) -> Result<Option<TraderInfoListResponse>, MarketError> {
        if !self.data().coin_index.contains_key(&query.asset) {
            return Ok(None);
        }
        let trades = traders::view_trades(self, |_, i, o| *i == query.asset || *o == query.asset);
        Ok(Some(traders::traders(&trades, query, self.now())))
    }

    fn trending(
        &self,
        query: &crate::market::trending::TrendingQuery,
    ) -> Result<crate::market::trending::TrendingCoinsResponse, MarketError> {
        use crate::market::trending;
        let since = self.now() - trending::TRENDING_LOOKBACK;
        let trades = traders::view_trades(self, |_, _, _| true);
        let recent: Vec<_> = trades.into_iter().filter(|t| t.time > since).collect();
        Ok(trending::trending(&trending::candidates(self), &recent, self.now(), query))
    }

    // #23 part A: screener feed, providers, deposits (src/market/screener.rs, providers.rs).

    fn latest_block(&self) -> Result<Option<crate::market::portfolio::FeedBlock>, MarketError> {
        Ok(MarketView::latest_block(self))
    }

    fn feed_asset(&self, asset: &Asset) -> Result<Option<crate::market::portfolio::FeedAsset>, MarketError> {
        Ok(MarketView::feed_asset(self, asset))
    }

    fn feed_pair(&self, pool: &TonAddress) -> Result<Option<crate::market::portfolio::FeedPair>, MarketError> {
        Ok(MarketView::feed_pair(self, pool))
    }

    fn feed_events(
        &self,
        query: &crate::market::screener::EventsQuery,
    ) -> Result<Vec<crate::market::portfolio::FeedEvent>, MarketError> {
        Ok(MarketView::feed_events(self, query))
    }

    fn pool_providers(
        &self,
        query: &crate::market::providers::PoolProvidersQuery,
    ) -> Result<Option<crate::market::types::PoolProvidersResponse>, MarketError> {
        Ok(MarketView::pool_providers(self, query))
    }

    fn pool_deposits(
        &self,
        query: &crate::market::providers::PoolDepositsQuery,
    ) -> Result<Option<crate::market::types::DepositsResponse>, MarketError> {
        Ok(MarketView::pool_deposits(self, query))
    }

    fn liquidity_position(
        &self,
        query: &crate::market::positions::PositionQuery,
    ) -> Result<Option<crate::market::portfolio::PortfolioLiquidityPositionResponse>, MarketError> {
        Ok(MarketView::liquidity_position(self, query))
    }

    fn earnings(
        &self,
        wallet: &TonAddress,
    ) -> Result<crate::market::portfolio::PortfolioEarningsResponse, MarketError> {
        Ok(MarketView::earnings(self, wallet))
    }
}

//! The in-memory store: a [`MarketView`] (a replayed market file seen at its "now") answers every operation from
//! memory, through the resource files' computations. Only a chart of an asset its pool does not trade is refused.
//!
//! Owns the wiring of [`MarketStore`] to those computations; must not compute an answer itself.

use tonlib_core::TonAddress;

use super::MarketStore;
use crate::error::MarketError;
use crate::portfolio::{
    FeedAsset, FeedBlock, FeedEvent, FeedPair, HoldingsResponse, PortfolioEarningsResponse,
    PortfolioLiquidityPositionResponse, PortfolioResponse, TopTradersResponse, TraderInfoListResponse,
};
use crate::query::{
    AffiliateKey, AffiliateVolumeQuery, ChartByPoolQuery, ChartQuery, CoinQuery, CoinTransactionsQuery, CoinsQuery,
    PairPoolsQuery, PoolQuery, PoolSummaryQuery, PoolsQuery,
};
use crate::replay::MarketView;
use crate::traders::{self, HoldingsQuery, Prices, TopTradersQuery, TradersQuery};
use crate::trending::{self, TrendingCoinsResponse, TrendingQuery};
use crate::types::{
    AffiliateAccount, AffiliateAccountReferrer, AffiliateAccountVolumeResponse, AffiliateReferralsResponse,
    ChartByPoolAddressResponse, ChartResponse, Coin, CoinTransactionsResponse, CoinsResponse, DepositsResponse,
    PairPoolsResponse, PoolProvidersResponse, PoolResponse, PoolSummaryResponse, PoolsResponse,
    ResolverAddressResponse,
};
use crate::{affiliate, chart, coins, pools, positions, providers, screener};
use tonroute_core::asset::Asset;

/// The replay answers from memory: only a chart of an asset its pool does not trade is refused.
impl MarketStore for MarketView {
    fn coin(&self, query: &CoinQuery) -> Result<Option<Coin>, MarketError> {
        Ok(coins::coin(self, query))
    }

    fn coins(&self, query: &CoinsQuery) -> Result<CoinsResponse, MarketError> {
        Ok(coins::coins(self, query))
    }

    fn coin_resolver(&self, asset: &Asset) -> Result<Option<ResolverAddressResponse>, MarketError> {
        Ok(coins::coin_resolver(self, asset))
    }

    fn coin_transactions(
        &self,
        query: &CoinTransactionsQuery,
    ) -> Result<Option<CoinTransactionsResponse>, MarketError> {
        Ok(coins::coin_transactions(self, query))
    }

    fn chart(&self, query: &ChartQuery) -> Result<ChartResponse, MarketError> {
        Ok(chart::chart(self, query))
    }

    fn chart_by_pool(&self, query: &ChartByPoolQuery) -> Result<ChartByPoolAddressResponse, MarketError> {
        chart::chart_by_pool(self, query)
    }

    fn pools(&self, query: &PoolsQuery) -> Result<PoolsResponse, MarketError> {
        Ok(pools::pools(self, query))
    }

    fn pair_pools(&self, query: &PairPoolsQuery) -> Result<PairPoolsResponse, MarketError> {
        Ok(pools::pair_pools(self, query))
    }

    fn pool(&self, query: &PoolQuery) -> Result<Option<PoolResponse>, MarketError> {
        Ok(pools::pool(self, query))
    }

    fn pool_summary(&self, query: &PoolSummaryQuery) -> Result<PoolSummaryResponse, MarketError> {
        Ok(pools::pool_summary(self, query))
    }

    fn affiliate_accounts(&self, key: &AffiliateKey) -> Result<Vec<AffiliateAccount>, MarketError> {
        Ok(affiliate::affiliate_accounts(self, key))
    }

    fn affiliate_volume(
        &self,
        query: &AffiliateVolumeQuery,
    ) -> Result<Option<AffiliateAccountVolumeResponse>, MarketError> {
        Ok(affiliate::affiliate_volume(self, query))
    }

    fn affiliate_referrals(&self, key: &AffiliateKey) -> Result<Option<AffiliateReferralsResponse>, MarketError> {
        Ok(affiliate::affiliate_referrals(self, key))
    }

    fn affiliate_referrer(&self, wallet: &TonAddress) -> Result<Option<AffiliateAccountReferrer>, MarketError> {
        Ok(affiliate::affiliate_referrer(self, wallet))
    }

    fn portfolio(&self, wallet: &TonAddress) -> Result<PortfolioResponse, MarketError> {
        let mine: Vec<_> = self.data().balances.iter().filter(|b| b.owner == *wallet).cloned().collect();
        Ok(positions::portfolio(self, wallet, &mine))
    }

    fn holdings(&self, query: &HoldingsQuery) -> Result<HoldingsResponse, MarketError> {
        let trades = traders::view_trades(self, |w, _, _| *w == query.wallet);
        Ok(traders::holdings(&trades, self, query))
    }

    fn top_traders(&self, query: &TopTradersQuery) -> Result<Option<TopTradersResponse>, MarketError> {
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

    fn trending(&self, query: &TrendingQuery) -> Result<TrendingCoinsResponse, MarketError> {
        let since = self.now() - trending::TRENDING_LOOKBACK;
        let trades = traders::view_trades(self, |_, _, _| true);
        let recent: Vec<_> = trades.into_iter().filter(|t| t.time > since).collect();
        Ok(trending::trending(&trending::candidates(self), &recent, self.now(), query))
    }

    fn latest_block(&self) -> Result<Option<FeedBlock>, MarketError> {
        Ok(screener::latest_block(self))
    }

    fn feed_asset(&self, asset: &Asset) -> Result<Option<FeedAsset>, MarketError> {
        Ok(screener::feed_asset(self, asset))
    }

    fn feed_pair(&self, pool: &TonAddress) -> Result<Option<FeedPair>, MarketError> {
        Ok(screener::feed_pair(self, pool))
    }

    fn feed_events(&self, query: &screener::EventsQuery) -> Result<Vec<FeedEvent>, MarketError> {
        Ok(screener::feed_events(self, query))
    }

    fn pool_providers(
        &self,
        query: &providers::PoolProvidersQuery,
    ) -> Result<Option<PoolProvidersResponse>, MarketError> {
        Ok(providers::pool_providers(self, query))
    }

    fn pool_deposits(&self, query: &providers::PoolDepositsQuery) -> Result<Option<DepositsResponse>, MarketError> {
        Ok(providers::pool_deposits(self, query))
    }

    fn liquidity_position(
        &self,
        query: &positions::PositionQuery,
    ) -> Result<Option<PortfolioLiquidityPositionResponse>, MarketError> {
        Ok(positions::liquidity_position(self, query))
    }

    fn earnings(&self, wallet: &TonAddress) -> Result<PortfolioEarningsResponse, MarketError> {
        Ok(positions::earnings(self, wallet))
    }
}

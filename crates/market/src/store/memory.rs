//! The in-memory store: a [`MarketView`] (a replayed market file seen at its "now") answers every operation from
//! memory, through the resource files' computations. Only a chart of an asset its pool does not trade is refused.
//!
//! Owns the wiring of [`MarketStore`] to those computations; must not compute an answer itself.

use tonlib_core::TonAddress;

use super::MarketStore;
use crate::error::MarketError;
use crate::portfolio::{
    FeedBlock, FeedEvent, FeedPair, HoldingsResponse, PortfolioEarningsResponse, PortfolioLiquidityPositionResponse,
    PortfolioResponse, TopTradersResponse, TraderInfoListResponse,
};
use crate::query::{AffiliateVolumeQuery, ChartByPoolQuery, ChartQuery, CoinTransactionsQuery};
use crate::replay::MarketView;
use crate::traders::{self, HoldingsQuery, Prices, TopTradersQuery, TradersQuery};
use crate::trending::{self, TrendingCoinsResponse, TrendingQuery};
use crate::types::{
    AffiliateAccountVolumeResponse, ChartByPoolAddressResponse, ChartResponse, CoinTransactionsResponse,
};
use crate::{affiliate, chart, coins, positions, screener};

/// The memory store's view of itself, for [`super::view::view_operations!`].
fn itself<'v>(view: &'v MarketView, _operation: &'static str) -> Result<&'v MarketView, MarketError> {
    Ok(view)
}

/// The replay answers from memory: only a chart of an asset its pool does not trade is refused.
impl MarketStore for MarketView {
    super::view::view_operations!(itself);
    // The rest of the operations a computation over the view answers (the SQL store reads these from its tables).
    super::view::view_operations!(@each itself;
        coin_transactions(query: CoinTransactionsQuery) -> Option<CoinTransactionsResponse> = coins::coin_transactions;
        chart(query: ChartQuery) -> ChartResponse = chart::chart;
        affiliate_volume(query: AffiliateVolumeQuery)
            -> Option<AffiliateAccountVolumeResponse> = affiliate::affiliate_volume;
        feed_pair(pool: TonAddress) -> Option<FeedPair> = screener::feed_pair;
        feed_events(query: screener::EventsQuery) -> Vec<FeedEvent> = screener::feed_events;
        liquidity_position(query: positions::PositionQuery)
            -> Option<PortfolioLiquidityPositionResponse> = positions::liquidity_position;
        earnings(wallet: TonAddress) -> PortfolioEarningsResponse = positions::earnings;
    );

    fn chart_by_pool(&self, query: &ChartByPoolQuery) -> Result<ChartByPoolAddressResponse, MarketError> {
        chart::chart_by_pool(self, query)
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
}

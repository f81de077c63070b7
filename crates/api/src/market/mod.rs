//! The market routes of docs/interface.md area (A) on the wire: query strings and request bodies into the typed queries
//! of `tonroute_market` ([`parse`], [`params`], [`wire`]), the store answers ([`MarketStore`]), and every refusal
//! mapped once to `{code, message}` ([`error`]). [`MarketApi`] puts the three together per route, bytes or
//! decoded pairs in, the spec's shapes or an [`ApiError`] out, for the HTTP server and the tests alike.
//!
//! Owns the wire only: parameter names and syntax, codes and statuses. Must not compute market data (the
//! answers and their shapes are the domain's, `tonroute_market`; the shapes are serialised as they are).
//!
//! # Choices the spec leaves open (wire)
//!
//! - Query strings are percent-decoded with `+` read as a space, so a date-time offset such as `+02:00` must be
//!   sent as `%2B02:00`; lists are comma-separated; unknown or repeated parameters are refused (400).
//! - Parameters are read in the spec's order and each is checked as it is read: a request with several
//!   problems reports the first.
//! - The pool routes take the spec's request body (POST) or the same fields as query parameters (GET; lists
//!   comma-separated, `pair_pools` as JSON text); both forms meet the same checks.
//! - Not found (404) names the coin, pool, account or wallet as sent. `/affiliate/accounts/{id}` and
//!   `/affiliate/{wallet}/referrer` answer 404 for text that names nothing (no 400); `/volume` and `/referrals`
//!   answer 400 for text that is neither an address nor an account id.

pub mod error;
pub mod params;
pub mod parse;
pub mod screener;
pub mod traders;
pub mod wire;

use std::sync::Arc;

pub use error::{MarketFailure, NotFound, QueryError};
pub use wire::{GetPairPoolsRequest, GetPoolsRequest, PairPoolsRequest, PoolSummaryRequest};

use super::ApiError;
use tonroute_market::query::AffiliateKey;
use tonroute_market::types::{
    AffiliateAccount, AffiliateAccountReferrer, AffiliateAccountVolumeResponse, AffiliateReferralsResponse,
    ChartByPoolAddressResponse, ChartResponse, Coin, CoinTransactionsResponse, CoinsResponse, PairPoolsResponse,
    PoolResponse, PoolSummaryResponse, PoolsResponse, ResolverAddressResponse,
};
use tonroute_market::MarketStore;

/// A request's query string decoded into (name, value) pairs, in order ([`params::decode_query`]).
pub type Pairs = [(String, String)];

/// The market routes over one [`MarketStore`]: parse, ask the store, map the refusal.
#[derive(Debug, Clone)]
pub struct MarketApi {
    store: Arc<dyn MarketStore>,
}

/// Runs one route and maps its refusal to the wire.
fn answer<T>(route: impl FnOnce() -> Result<T, MarketFailure>) -> Result<T, ApiError> {
    route().map_err(ApiError::from)
}

impl MarketApi {
    /// The routes over `store`.
    pub fn new(store: Arc<dyn MarketStore>) -> MarketApi {
        MarketApi { store }
    }

    /// The store.
    pub fn store(&self) -> &Arc<dyn MarketStore> {
        &self.store
    }

    /// `GET /coin`.
    pub fn get_coin(&self, pairs: &Pairs) -> Result<Coin, ApiError> {
        answer(|| {
            let q = parse::coin(pairs)?;
            Ok(self.store.coin(&q)?.ok_or_else(|| NotFound::Coin { asset: q.asset.to_string() })?)
        })
    }

    /// `GET /coins`.
    pub fn get_coins(&self, pairs: &Pairs) -> Result<CoinsResponse, ApiError> {
        answer(|| Ok(self.store.coins(&parse::coins(pairs)?)?))
    }

    /// `GET /coins/{asset}/resolver`: the spec gives no body or statuses; this answers the
    /// ResolverAddressResponse for a listed coin, 404 otherwise.
    pub fn get_coin_resolver(&self, asset: &str, pairs: &Pairs) -> Result<ResolverAddressResponse, ApiError> {
        answer(|| {
            let asset = parse::coin_resolver(asset, pairs)?;
            Ok(self.store.coin_resolver(&asset)?.ok_or_else(|| NotFound::Coin { asset: asset.to_string() })?)
        })
    }

    /// `GET /coin_transactions`.
    pub fn get_coin_transactions(&self, pairs: &Pairs) -> Result<CoinTransactionsResponse, ApiError> {
        answer(|| {
            let q = parse::coin_transactions(pairs)?;
            Ok(self.store.coin_transactions(&q)?.ok_or_else(|| NotFound::CoinTrades { asset: q.asset.to_string() })?)
        })
    }

    /// `GET /chart`.
    pub fn get_chart(&self, pairs: &Pairs) -> Result<ChartResponse, ApiError> {
        answer(|| Ok(self.store.chart(&parse::chart(pairs)?)?))
    }

    /// `GET /chart_by_pool_address`.
    pub fn get_chart_by_pool_address(&self, pairs: &Pairs) -> Result<ChartByPoolAddressResponse, ApiError> {
        answer(|| Ok(self.store.chart_by_pool(&parse::chart_by_pool(pairs)?)?))
    }

    /// `/pools` (GET with [`parse::pools_request`], POST with the body).
    pub fn get_pools(&self, req: &GetPoolsRequest) -> Result<PoolsResponse, ApiError> {
        answer(|| Ok(self.store.pools(&parse::pools(req)?)?))
    }

    /// `/pools/pair` (GET with [`parse::pair_pools_request`], POST with the body).
    pub fn get_pair_pools(&self, req: &GetPairPoolsRequest) -> Result<PairPoolsResponse, ApiError> {
        answer(|| Ok(self.store.pair_pools(&parse::pair_pools(req)?)?))
    }

    /// `GET /pools/{address}` (404 when unknown).
    pub fn get_pool(&self, address: &str, wallet_address: Option<&str>) -> Result<PoolResponse, ApiError> {
        answer(|| {
            let q = parse::pool(address, wallet_address)?;
            Ok(self.store.pool(&q)?.ok_or_else(|| NotFound::Pool { address: address.to_string() })?)
        })
    }

    /// `/pools/summary` (GET with [`parse::pool_summary_request`], POST with the body).
    pub fn get_pool_summary(&self, req: &PoolSummaryRequest) -> Result<PoolSummaryResponse, ApiError> {
        answer(|| Ok(self.store.pool_summary(&parse::pool_summary(req)?)?))
    }

    /// `GET /affiliate/accounts/{id_or_controller_address}` (no 400: text that names nothing is 404).
    pub fn get_affiliate_account(&self, id_or_controller: &str) -> Result<Vec<AffiliateAccount>, ApiError> {
        answer(|| {
            let accounts = match AffiliateKey::parse(id_or_controller) {
                Some(key) => self.store.affiliate_accounts(&key)?,
                None => Vec::new(),
            };
            if accounts.is_empty() {
                return Err(NotFound::Affiliate { key: id_or_controller.to_string() }.into());
            }
            Ok(accounts)
        })
    }

    /// `GET /affiliate/accounts/{id_or_controller_address}/volume`.
    pub fn get_affiliate_account_volume(
        &self,
        id_or_controller: &str,
        pairs: &Pairs,
    ) -> Result<AffiliateAccountVolumeResponse, ApiError> {
        answer(|| {
            let q = parse::affiliate_volume(id_or_controller, pairs)?;
            let not_found = || NotFound::Affiliate { key: id_or_controller.to_string() };
            Ok(self.store.affiliate_volume(&q)?.ok_or_else(not_found)?)
        })
    }

    /// `GET /affiliate/{account_id_or_controller_address}/referrals`.
    pub fn get_affiliate_referrals(&self, id_or_controller: &str) -> Result<AffiliateReferralsResponse, ApiError> {
        answer(|| {
            let key = parse::affiliate_key(id_or_controller)?;
            let not_found = || NotFound::Affiliate { key: id_or_controller.to_string() };
            Ok(self.store.affiliate_referrals(&key)?.ok_or_else(not_found)?)
        })
    }

    /// `GET /affiliate/{wallet_address}/referrer` (no 400: a malformed wallet has no referrer, 404).
    pub fn get_affiliate_referrer(&self, wallet: &str) -> Result<AffiliateAccountReferrer, ApiError> {
        answer(|| {
            let not_found = || NotFound::Referrer { wallet: wallet.to_string() };
            let Ok(address) = tonroute_core::asset::parse_address(wallet) else {
                return Err(not_found().into());
            };
            Ok(self.store.affiliate_referrer(&address)?.ok_or_else(not_found)?)
        })
    }
}

#[cfg(test)]
mod tests {
    //! The seam: a store other than the replay plugged under the same routes.
    use std::sync::Mutex;

    use tonlib_core::TonAddress;

    use super::*;
    use tonroute_market::query::{
        AffiliateVolumeQuery, ChartByPoolQuery, ChartQuery, CoinQuery, CoinSort, CoinTransactionsQuery, CoinsQuery,
        PairPoolsQuery, PoolQuery, PoolSummaryQuery, PoolsQuery,
    };
    use tonroute_market::types::StatPeriod;
    use tonroute_market::{MarketError, StoreFailure};

    /// A store whose database is down: it records the queries it is asked and fails each.
    #[derive(Debug, Default)]
    struct DownStore {
        coins_asked: Mutex<Vec<CoinsQuery>>,
    }

    fn down<T>(operation: &'static str) -> Result<T, MarketError> {
        let refused = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "127.0.0.1:5432 refused");
        Err(StoreFailure::new(operation, refused).into())
    }

    impl MarketStore for DownStore {
        fn coin(&self, _: &CoinQuery) -> Result<Option<Coin>, MarketError> {
            down("coin")
        }
        fn coins(&self, query: &CoinsQuery) -> Result<CoinsResponse, MarketError> {
            self.coins_asked.lock().expect("not poisoned").push(query.clone());
            down("coins")
        }
        fn coin_resolver(
            &self,
            _: &tonroute_core::asset::Asset,
        ) -> Result<Option<ResolverAddressResponse>, MarketError> {
            down("coin_resolver")
        }
        fn coin_transactions(
            &self,
            _: &CoinTransactionsQuery,
        ) -> Result<Option<CoinTransactionsResponse>, MarketError> {
            down("coin_transactions")
        }
        fn chart(&self, _: &ChartQuery) -> Result<ChartResponse, MarketError> {
            down("chart")
        }
        fn chart_by_pool(&self, _: &ChartByPoolQuery) -> Result<ChartByPoolAddressResponse, MarketError> {
            down("chart_by_pool")
        }
        fn pools(&self, _: &PoolsQuery) -> Result<PoolsResponse, MarketError> {
            down("pools")
        }
        fn pair_pools(&self, _: &PairPoolsQuery) -> Result<PairPoolsResponse, MarketError> {
            down("pair_pools")
        }
        fn pool(&self, _: &PoolQuery) -> Result<Option<PoolResponse>, MarketError> {
            down("pool")
        }
        fn pool_summary(&self, _: &PoolSummaryQuery) -> Result<PoolSummaryResponse, MarketError> {
            down("pool_summary")
        }
        fn affiliate_accounts(&self, _: &AffiliateKey) -> Result<Vec<AffiliateAccount>, MarketError> {
            down("affiliate_accounts")
        }
        fn affiliate_volume(
            &self,
            _: &AffiliateVolumeQuery,
        ) -> Result<Option<AffiliateAccountVolumeResponse>, MarketError> {
            down("affiliate_volume")
        }
        fn affiliate_referrals(&self, _: &AffiliateKey) -> Result<Option<AffiliateReferralsResponse>, MarketError> {
            down("affiliate_referrals")
        }
        fn affiliate_referrer(&self, _: &TonAddress) -> Result<Option<AffiliateAccountReferrer>, MarketError> {
            down("affiliate_referrer")
        }
        // Wallets and traders (issue #23 part B).
        fn portfolio(&self, _: &TonAddress) -> Result<tonroute_market::portfolio::PortfolioResponse, MarketError> {
            down("portfolio")
        }
        fn holdings(
            &self,
            _: &tonroute_market::traders::HoldingsQuery,
        ) -> Result<tonroute_market::portfolio::HoldingsResponse, MarketError> {
            down("holdings")
        }
        fn top_traders(
            &self,
            _: &tonroute_market::traders::TopTradersQuery,
        ) -> Result<Option<tonroute_market::portfolio::TopTradersResponse>, MarketError> {
            down("top_traders")
        }
        fn traders(
            &self,
            _: &tonroute_market::traders::TradersQuery,
        ) -> Result<Option<tonroute_market::portfolio::TraderInfoListResponse>, MarketError> {
            down("traders")
        }
        fn trending(
            &self,
            _: &tonroute_market::trending::TrendingQuery,
        ) -> Result<tonroute_market::trending::TrendingCoinsResponse, MarketError> {
            down("trending")
        }
        fn latest_block(&self) -> Result<Option<tonroute_market::portfolio::FeedBlock>, MarketError> {
            down("latest_block")
        }
        fn feed_asset(
            &self,
            _: &tonroute_core::asset::Asset,
        ) -> Result<Option<tonroute_market::portfolio::FeedAsset>, MarketError> {
            down("feed_asset")
        }
        fn feed_pair(&self, _: &TonAddress) -> Result<Option<tonroute_market::portfolio::FeedPair>, MarketError> {
            down("feed_pair")
        }
        fn feed_events(
            &self,
            _: &tonroute_market::screener::EventsQuery,
        ) -> Result<Vec<tonroute_market::portfolio::FeedEvent>, MarketError> {
            down("feed_events")
        }
        fn pool_providers(
            &self,
            _: &tonroute_market::providers::PoolProvidersQuery,
        ) -> Result<Option<tonroute_market::types::PoolProvidersResponse>, MarketError> {
            down("pool_providers")
        }
        fn pool_deposits(
            &self,
            _: &tonroute_market::providers::PoolDepositsQuery,
        ) -> Result<Option<tonroute_market::types::DepositsResponse>, MarketError> {
            down("pool_deposits")
        }
        fn liquidity_position(
            &self,
            _: &tonroute_market::positions::PositionQuery,
        ) -> Result<Option<tonroute_market::portfolio::PortfolioLiquidityPositionResponse>, MarketError> {
            down("liquidity_position")
        }
        fn earnings(
            &self,
            _: &TonAddress,
        ) -> Result<tonroute_market::portfolio::PortfolioEarningsResponse, MarketError> {
            down("earnings")
        }
    }

    fn pairs(s: &str) -> Vec<(String, String)> {
        params::decode_query(s).expect("a valid query string")
    }

    #[test]
    fn another_store_answers_the_same_typed_queries() {
        let store = Arc::new(DownStore::default());
        let api = MarketApi::new(store.clone());
        // The store is handed the typed query the text says, already checked.
        let e = api.get_coins(&pairs("limit=7&sort_by=volume&sort_period=1h&sort_direction=asc")).unwrap_err();
        let asked = store.coins_asked.lock().expect("not poisoned").clone();
        assert_eq!(asked.len(), 1);
        assert_eq!((asked[0].page.limit.get(), asked[0].sort), (7, CoinSort::Volume(StatPeriod::H1)));
        // Its own failure is a 500 with the market store's code, naming the operation, not the driver's text.
        assert_eq!((e.status(), e.code()), (500, 6501));
        assert_eq!(e.message(), "the market store failed to answer `coins`");
        // A request the wire or the query refuses never reaches the store.
        for bad in ["limit=0", "sort_by=volume", "limit=x", "colour=red"] {
            assert_eq!(api.get_coins(&pairs(bad)).unwrap_err().status(), 400, "{bad}");
        }
        assert_eq!(store.coins_asked.lock().expect("not poisoned").len(), 1);
        // Every route reaches the store the same way.
        let e = api.get_chart(&pairs("asset=native&period=1h")).unwrap_err();
        assert_eq!((e.code(), e.message()), (6501, "the market store failed to answer `chart`"));
        let e = api.get_pool_summary(&PoolSummaryRequest::default()).unwrap_err();
        assert_eq!(e.code(), 6501);
        let wallet = "0:1111111111111111111111111111111111111111111111111111111111111111";
        let e = api.get_holdings(wallet, &[]).unwrap_err();
        assert_eq!((e.code(), e.message()), (6501, "the market store failed to answer `holdings`"));
        assert_eq!(api.get_portfolio(wallet, &[]).unwrap_err().code(), 6501);
        assert_eq!(api.get_top_traders("native", &[]).unwrap_err().code(), 6501);
        assert_eq!(api.get_traders(&pairs("asset=native")).unwrap_err().code(), 6501);
        assert_eq!(api.get_trending(&[]).unwrap_err().code(), 6501);
    }
}

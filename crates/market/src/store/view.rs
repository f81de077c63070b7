//! The operations both stores answer by one resource computation over a [`MarketView`](crate::replay::MarketView)
//! (coins, pools, affiliate accounts, an asset of the feed, a pool's providers and deposits): their table is
//! written once here, in [`view_operations!`], and each store's `impl MarketStore` expands it with the way that
//! store gets its view (the memory store is one; the SQL store reads its statistics view).
//!
//! Owns that table only; must not compute (the resource files do) nor get a view (each store does).

/// Expands, inside an `impl MarketStore`, to the methods a resource computation answers over a view. `$view` is
/// called as `$view(self, operation)` (the operation's name, for a store failure) and returns
/// `Result<V, MarketError>` with `V` dereferencing to a `MarketView`. `view_operations!(@each $view; table)`
/// expands a store's own table of the same form (`operation(argument: Input) -> Answer = computation;`).
macro_rules! view_operations {
    ($view:path) => {
        $crate::store::view::view_operations!(@each $view;
            coin(query: $crate::query::CoinQuery) -> Option<$crate::types::Coin> = $crate::coins::coin;
            coins(query: $crate::query::CoinsQuery) -> $crate::types::CoinsResponse = $crate::coins::coins;
            coin_resolver(asset: tonroute_core::asset::Asset)
                -> Option<$crate::types::ResolverAddressResponse> = $crate::coins::coin_resolver;
            pools(query: $crate::query::PoolsQuery) -> $crate::types::PoolsResponse = $crate::pools::pools;
            pair_pools(query: $crate::query::PairPoolsQuery)
                -> $crate::types::PairPoolsResponse = $crate::pools::pair_pools;
            pool(query: $crate::query::PoolQuery) -> Option<$crate::types::PoolResponse> = $crate::pools::pool;
            pool_summary(query: $crate::query::PoolSummaryQuery)
                -> $crate::types::PoolSummaryResponse = $crate::pools::pool_summary;
            affiliate_accounts(key: $crate::query::AffiliateKey)
                -> Vec<$crate::types::AffiliateAccount> = $crate::affiliate::affiliate_accounts;
            affiliate_referrals(key: $crate::query::AffiliateKey)
                -> Option<$crate::types::AffiliateReferralsResponse> = $crate::affiliate::affiliate_referrals;
            affiliate_referrer(wallet: tonlib_core::TonAddress)
                -> Option<$crate::types::AffiliateAccountReferrer> = $crate::affiliate::affiliate_referrer;
            feed_asset(asset: tonroute_core::asset::Asset)
                -> Option<$crate::portfolio::FeedAsset> = $crate::screener::feed_asset;
            pool_providers(query: $crate::providers::PoolProvidersQuery)
                -> Option<$crate::types::PoolProvidersResponse> = $crate::providers::pool_providers;
            pool_deposits(query: $crate::providers::PoolDepositsQuery)
                -> Option<$crate::types::DepositsResponse> = $crate::providers::pool_deposits;
        );
    };
    (@each $view:path; $($op:ident($arg:ident: $input:ty) -> $answer:ty = $compute:path;)*) => {
        $(
            fn $op(&self, $arg: &$input) -> Result<$answer, $crate::error::MarketError> {
                Ok($compute(&*$view(self, stringify!($op))?, $arg))
            }
        )*
    };
}

pub(crate) use view_operations;

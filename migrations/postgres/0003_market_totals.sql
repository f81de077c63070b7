-- The statistics fold's checkpoint (src/market/store/sql/stats.rs): the all-time figures (per coin: last trade,
-- all-time high and low, total volumes; per pool: protocol fees, last activity, latest recorded state) over the
-- trades with id <= seen, so that a process opening a large store folds only the trades added since, instead of
-- every row. `seen_key` is the natural key of trade `seen`: a store whose trades were rebuilt does not match it
-- and is folded from the start. A cache: deleting the row is always safe.
CREATE TABLE market_totals (
    id BIGINT PRIMARY KEY,
    seen BIGINT NOT NULL,
    seen_key TEXT NOT NULL,
    totals TEXT NOT NULL
);

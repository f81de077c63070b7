-- Market data (see migrations/README.md). PostgreSQL flavour: amounts as NUMERIC(40,0).

-- One row per key: as_of (Unix seconds, "now" of the bundled sample), program_address, source, snapshot_source.
CREATE TABLE market_meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- Listed coins and their metadata (name, ticker, decimals, image from the snapshot; the rest is the coin record).
CREATE TABLE coins (
    asset TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    ticker TEXT NOT NULL,
    decimals BIGINT NOT NULL,
    verification_level BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    total_supply NUMERIC(40,0) NOT NULL,
    circulating_supply NUMERIC(40,0) NOT NULL,
    record TEXT NOT NULL,
    position BIGINT NOT NULL
);

-- Pools trades may name (asset0/asset1 in contract order).
CREATE TABLE pools (
    address TEXT PRIMARY KEY,
    protocol TEXT NOT NULL,
    asset0 TEXT NOT NULL,
    asset1 TEXT NOT NULL
);
CREATE INDEX pools_asset0 ON pools (asset0);
CREATE INDEX pools_asset1 ON pools (asset1);

-- Trades. `id` is the arrival order (ties of `time` keep it); `natural_key` makes ingestion idempotent:
-- `tx:<tx_hash>:<pool>` when the hash is known, else `at:<pool>:<time>:<trader>:<asset_in>:<amount_in>:<amount_out>`.
CREATE TABLE trades (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    natural_key TEXT NOT NULL UNIQUE,
    time BIGINT NOT NULL,
    pool TEXT NOT NULL REFERENCES pools (address),
    asset_in TEXT NOT NULL,
    asset_out TEXT NOT NULL,
    amount_in NUMERIC(40,0) NOT NULL,
    amount_out NUMERIC(40,0) NOT NULL,
    protocol_fee_out NUMERIC(40,0) NOT NULL,
    whole_in DOUBLE PRECISION NOT NULL,
    whole_out DOUBLE PRECISION NOT NULL,
    price_usd_in DOUBLE PRECISION NOT NULL,
    price_usd_out DOUBLE PRECISION NOT NULL,
    ton_usd DOUBLE PRECISION NOT NULL,
    volume_usd DOUBLE PRECISION NOT NULL,
    trader TEXT NOT NULL,
    tx_hash TEXT
);
-- /chart, /coin_transactions, coin statistics: an asset's trades in time order (either side).
CREATE INDEX trades_asset_in_time ON trades (asset_in, time, id);
CREATE INDEX trades_asset_out_time ON trades (asset_out, time, id);
-- /chart_by_pool_address, the pool filter, pool statistics.
CREATE INDEX trades_pool_time ON trades (pool, time, id);
-- The trader filter, affiliate volumes.
CREATE INDEX trades_trader_time ON trades (trader, time);
-- Period windows over every trade.
CREATE INDEX trades_time ON trades (time, id);

-- Pool state over time: the state after a trade (trade_id) or an observation without one (trade_id NULL).
-- A concentrated pool also records sqrt_price_x96 (decimal), tick and liquidity.
CREATE TABLE pool_states (
    pool TEXT NOT NULL REFERENCES pools (address),
    time BIGINT NOT NULL,
    trade_id BIGINT UNIQUE REFERENCES trades (id),
    reserve0 NUMERIC(40,0) NOT NULL,
    reserve1 NUMERIC(40,0) NOT NULL,
    sqrt_price_x96 TEXT,
    tick BIGINT,
    liquidity NUMERIC(40,0)
);
CREATE INDEX pool_states_pool_time ON pool_states (pool, time);

-- Liquidity reward programs.
CREATE TABLE rewards (
    pool TEXT NOT NULL REFERENCES pools (address),
    reward_index BIGINT NOT NULL,
    asset TEXT NOT NULL,
    tokens_per_day NUMERIC(40,0) NOT NULL,
    remaining_budget NUMERIC(40,0) NOT NULL,
    end_date BIGINT NOT NULL,
    position BIGINT NOT NULL,
    PRIMARY KEY (pool, reward_index)
);

-- Affiliate (referral) accounts and the wallets they refer (a wallet has at most one referrer).
CREATE TABLE affiliates (
    account_id TEXT PRIMARY KEY,
    address TEXT NOT NULL,
    controller TEXT NOT NULL,
    initialized BIGINT NOT NULL,
    account_type TEXT NOT NULL,
    account_fee BIGINT NOT NULL,
    balance_for_claim NUMERIC(40,0) NOT NULL,
    balance_claimed NUMERIC(40,0) NOT NULL,
    position BIGINT NOT NULL
);
CREATE INDEX affiliates_address ON affiliates (address);
CREATE INDEX affiliates_controller ON affiliates (controller);
CREATE TABLE referrals (
    wallet TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES affiliates (account_id),
    position BIGINT NOT NULL
);
CREATE INDEX referrals_account ON referrals (account_id);

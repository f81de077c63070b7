-- Liquidity events (joins and exits; see src/market/liquidity.rs). SQLite flavour: amounts as TEXT.
-- `id` is the arrival order; `natural_key` makes ingestion idempotent: `tx:<tx_hash>:<pool>:<kind>` when the hash
-- is known, else `at:<pool>:<time>:<provider>:<kind>:<amount0>:<amount1>:<lp>`. `block` is `mc_seq_no` when known,
-- else the time mapped to a block (`liquidity::block_of_time`). Amounts in the pool's asset order.
CREATE TABLE liquidity_events (
    id INTEGER PRIMARY KEY,
    natural_key TEXT NOT NULL UNIQUE,
    time BIGINT NOT NULL,
    block BIGINT NOT NULL,
    mc_seq_no BIGINT,
    pool TEXT NOT NULL REFERENCES pools (address),
    kind TEXT NOT NULL CHECK (kind IN ('join', 'exit')),
    provider TEXT NOT NULL,
    amount0 TEXT NOT NULL,
    amount1 TEXT NOT NULL,
    lp TEXT NOT NULL,
    min_lp_out TEXT NOT NULL,
    deposit_address TEXT,
    tx_hash TEXT,
    reserve0_after TEXT,
    reserve1_after TEXT
);
-- A pool's providers and deposits.
CREATE INDEX liquidity_events_pool_time ON liquidity_events (pool, time, id);
-- A wallet's positions.
CREATE INDEX liquidity_events_provider ON liquidity_events (provider, pool);
-- The screener feed's block ranges.
CREATE INDEX liquidity_events_block ON liquidity_events (block, id);

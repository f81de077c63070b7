-- Liquidity events (joins and exits; see src/market/liquidity.rs). PostgreSQL flavour: amounts as NUMERIC(40,0).
-- `id` is the arrival order; `natural_key` makes ingestion idempotent: `tx:<tx_hash>:<pool>:<kind>` when the hash
-- is known, else `at:<pool>:<time>:<provider>:<kind>:<amount0>:<amount1>:<lp>`. `block` is `mc_seq_no` when known,
-- else the time mapped to a block (`liquidity::block_of_time`). Amounts in the pool's asset order.
CREATE TABLE liquidity_events (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    natural_key TEXT NOT NULL UNIQUE,
    time BIGINT NOT NULL,
    block BIGINT NOT NULL,
    mc_seq_no BIGINT,
    pool TEXT NOT NULL REFERENCES pools (address),
    kind TEXT NOT NULL CHECK (kind IN ('join', 'exit')),
    provider TEXT NOT NULL,
    amount0 NUMERIC(40,0) NOT NULL,
    amount1 NUMERIC(40,0) NOT NULL,
    lp NUMERIC(40,0) NOT NULL,
    min_lp_out NUMERIC(40,0) NOT NULL,
    deposit_address TEXT,
    tx_hash TEXT,
    reserve0_after NUMERIC(40,0),
    reserve1_after NUMERIC(40,0)
);
-- A pool's providers and deposits.
CREATE INDEX liquidity_events_pool_time ON liquidity_events (pool, time, id);
-- A wallet's positions.
CREATE INDEX liquidity_events_provider ON liquidity_events (provider, pool);
-- The screener feed's block ranges.
CREATE INDEX liquidity_events_block ON liquidity_events (block, id);

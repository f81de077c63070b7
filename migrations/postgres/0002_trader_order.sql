-- Affiliate volumes sum a wallet's trades in time order, ties in arrival order (the replay's order, so the sums
-- are the same floats): (trader, time, id) reads them in that order from the index, without a sort.
CREATE INDEX trades_trader_time_id ON trades (trader, time, id);
DROP INDEX trades_trader_time;

-- Wallet balances (src/market/wallets.rs): one row per (owner, asset), the latest as_of (then block) wins.
-- PostgreSQL flavour: amounts as NUMERIC(40,0).
CREATE TABLE wallet_balances (
    owner TEXT NOT NULL,
    asset TEXT NOT NULL,
    balance NUMERIC(40,0) NOT NULL,
    as_of BIGINT NOT NULL,
    block BIGINT,
    PRIMARY KEY (owner, asset)
);
-- Holders of an asset.
CREATE INDEX wallet_balances_asset ON wallet_balances (asset);

#!/usr/bin/env python3
"""Golden check of the market-data routes: the same requests to two `tonroute serve --market` servers (e.g. the
binary of `main` and the binary of a branch that moves or re-implements the market store), answers compared
byte for byte (status and body).

    scripts/market_golden.py OLD_BINARY NEW_BINARY [--market data/market.json] [--count N] [--seed S]

Each binary is started on a free 127.0.0.1 port with `serve --addr ... --market FILE` and stopped at the end.
The requests are drawn from the market file itself (its coins, pools, wallets, affiliate accounts) plus
malformed and out-of-range ones, so the error answers (code and message) are compared too. Exit status 1 and
the first differences printed when any answer differs. Standard library only.
"""

import argparse
import json
import random
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(binary, market):
    port = free_port()
    proc = subprocess.Popen(
        [binary, "serve", "--addr", f"127.0.0.1:{port}", "--market", market],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.time() + 120
    while time.time() < deadline:
        if proc.poll() is not None:
            sys.exit(f"{binary} exited: {proc.stderr.read().decode()}")
        try:
            urllib.request.urlopen(base + "/health", timeout=2).read()
            return proc, base
        except OSError:
            time.sleep(0.2)
    proc.kill()
    sys.exit(f"{binary} did not answer /health within 120 s")


def call(base, method, path, body=None):
    data = None if body is None else body.encode()
    req = urllib.request.Request(base + path, data=data, method=method)
    if data is not None:
        req.add_header("content-type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def friendly(raw, bounceable=True):
    """A raw `0:<hex>` address in user-friendly base64url form (the routes accept both)."""
    wc, hexpart = raw.split(":")
    tag = 0x11 if bounceable else 0x51
    payload = bytes([tag, int(wc) & 0xFF]) + bytes.fromhex(hexpart)
    crc = 0
    for byte in payload:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    import base64

    return base64.urlsafe_b64encode(payload + crc.to_bytes(2, "big")).decode()


def requests(market, rng, count):
    coins = [c["asset"] for c in market["coins"]]
    trades = market["trades"]
    pools = sorted({t["pool"] for t in trades})
    wallets = sorted({t["trader"] for t in trades})
    affiliates = market["affiliates"]
    periods = ["1s", "1m", "5m", "15m", "1h", "4h", "1d", "7d"]
    stat = ["15m", "1h", "6h", "24h", "7d"]
    q = urllib.parse.urlencode
    out = []

    def get(path, params=None):
        out.append(("GET", path + ("?" + q(params) if params else ""), None))

    # Fixed malformed or out-of-range requests, one per code path.
    for raw in [
        "/coin", "/coin?asset=bogus", "/coin?asset=native&extra_details=yes", "/coin?asset=native&colour=red",
        "/coin?asset=native&asset=native", "/coin?asset=%zz", "/coin?asset=%ff", "/coins?limit=0", "/coins?limit=501",
        "/coins?offset=-1", "/coins?sort_by=volume", "/coins?volume_usd_min=5", "/coins?holders_min=5&holders_max=1",
        "/coins?liquidity_usd_min=5&liquidity_usd_max=1", "/coins?bonding_curve_percentage_max=101",
        "/coins?filter_by_verification_level=0", "/coins?filter_by_verification_level=1,,2", "/coins?limit=x",
        "/coins?created_at_min=yesterday", "/coins?holders_min=1e3", "/coins?sort_by=bogus&limit=0",
        "/coins?filter_by_author=nope", "/coin_transactions", "/coin_transactions?asset=native&limit=101",
        "/coin_transactions?asset=native&volume_usd_min=2&volume_usd_max=2", "/coin_transactions?asset=native&type=x",
        "/coin_transactions?asset=native&start_date=2024-11-21T00:00:00Z&end_date=2024-11-20T00:00:00Z",
        "/coin_transactions?asset=native&offset=100000", "/chart?asset=native", "/chart?period=1h",
        "/chart?asset=native&period=2h", "/chart?asset=native&period=1h&opposite_asset=native",
        "/chart?asset=native&period=1h&limit=5001", "/chart?asset=native&period=1h&use_materialized=maybe",
        "/chart_by_pool_address?asset=native&period=1h", "/chart_by_pool_address?asset=native&pool_address=zzz&period=1h",
        "/pools?limit=0", "/pools?sort_by=value_usd", "/pools?tags=hot", "/pools?filter_by_type=cpmm_v3",
        "/pools?pair_pools=notjson", "/pools/pair", "/pools/pair?assets=native", "/pools/pair?assets=native,native",
        "/pools/summary?include_assets=%3F", "/pools/nope", "/pools/0:" + "34" * 32,
        "/coins/bogus/resolver", "/coins/native/resolver?x=1", "/affiliate/accounts/ref_nobody",
        "/affiliate/accounts/not%20an%20id!", "/affiliate/accounts/ref_alpha/volume?wallet_address=nope",
        "/affiliate/accounts/bad%20id!/volume", "/affiliate/accounts/ref_alpha/volume?wallet=x",
        "/affiliate/bad%20id!/referrals", "/affiliate/ref_nobody/referrals", "/affiliate/garbage/referrer",
    ]:
        out.append(("GET", raw, None))
    for body in ['{', '{"limt": 2}', '{"limit": 101}', '{"pair_pools": [{"assets": ["native"]}]}',
                 '{"pair_pools": [{"assets": ["native", "native"]}]}', '{"sort_by": "rewards_total_usd"}', '[]']:
        out.append(("POST", "/pools", body))
        out.append(("POST", "/pools/pair", body))
        out.append(("POST", "/pools/summary", body))

    # Affiliates: every account by id, address and controller, raw and friendly.
    for a in affiliates:
        for key in [a["account_id"], a["address"], a["controller"], friendly(a["controller"])]:
            get(f"/affiliate/accounts/{urllib.parse.quote(key)}")
            get(f"/affiliate/accounts/{urllib.parse.quote(key)}/volume")
            get(f"/affiliate/{urllib.parse.quote(key)}/referrals")
        for w in a["referrals"][:3]:
            get(f"/affiliate/{friendly(w, False)}/referrer")
            get(f"/affiliate/accounts/{a['account_id']}/volume", {"wallet_address": friendly(w, False)})

    def maybe(p):
        return rng.random() < p

    def date(unix):
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(unix))

    t0, t1 = trades[0]["time"], trades[-1]["time"]
    for _ in range(count):
        kind = rng.randrange(11)
        coin = rng.choice(coins[:80] if maybe(0.8) else coins)
        if kind == 0:
            p = {"asset": coin}
            if maybe(0.5):
                p["extra_details"] = rng.choice(["true", "false"])
            if maybe(0.5):
                p["memecoin_extra_details"] = "true"
            get("/coin", p)
        elif kind in (1, 2):
            p = {}
            if maybe(0.7):
                p["sort_by"] = rng.choice(["price", "market_cap", "liquidity", "holders", "age", "curve_progress",
                                           "price_change", "transactions", "volume"])
                p["sort_period"] = rng.choice(stat)
            for name, value in [("sort_direction", rng.choice(["asc", "desc"])), ("limit", rng.randint(1, 500)),
                                ("offset", rng.randint(0, 900)), ("compact", "true"),
                                ("filter_by_verification_level", ",".join(sorted(rng.sample("1234", rng.randint(1, 4))))),
                                ("include_without_price", "true"), ("memecoin_extra_details", "true"),
                                ("calculate_total_volume", "true"), ("skip_total_count", "true"),
                                ("query", rng.choice(["ton", "US", "a", "x", coin])),
                                ("liquidity_usd_min", rng.choice(["0", "1000", "1e5"])),
                                ("market_cap_usd_max", rng.choice(["1000000", "1e12"])),
                                ("holders_min", str(rng.randint(0, 5000))),
                                ("created_at_min", date(rng.randint(1500000000, t1))),
                                ("filter_by_tags", rng.choice(["stablecoin", "meme", "native"])),
                                ("exclude_tags", "meme"), ("filter_by_assets", ",".join(rng.sample(coins, 3))),
                                ("exclude_assets", coins[0]),
                                ("bonding_curve_percentage_min", str(rng.randint(0, 50)))]:
                if maybe(0.15):
                    p[name] = value
            if maybe(0.2):
                p["filter_period"] = rng.choice(stat)
                p["volume_usd_min"] = rng.choice(["0", "10", "1000"])
                p["transactions_min"] = str(rng.randint(0, 5))
            get("/coins", p)
        elif kind == 3:
            p = {"asset": coin, "limit": rng.randint(1, 100), "offset": rng.randint(0, 50)}
            if maybe(0.3):
                p["sort_direction"] = rng.choice(["asc", "desc"])
            if maybe(0.2):
                p["type"] = rng.choice(["buy", "sell"])
            if maybe(0.2):
                a = rng.randint(t0, t1)
                p["start_date"], p["end_date"] = date(a), date(rng.randint(a, t1))
            if maybe(0.2):
                p["volume_usd_min"] = rng.choice(["0", "1", "100"])
            if maybe(0.2):
                t = rng.choice(trades)
                p["pool_address"] = t["pool"]
            if maybe(0.1):
                p["trader_address"] = friendly(rng.choice(wallets), False)
            get("/coin_transactions", p)
        elif kind in (4, 5):
            p = {"asset": coin, "period": rng.choice(periods)}
            if maybe(0.3):
                p["limit"] = rng.randint(1, 5000)
            if maybe(0.3):
                p["opposite_asset"] = rng.choice(coins[:10])
            if maybe(0.2):
                a = rng.randint(t0, t1)
                p["start_date"], p["end_date"] = date(a), date(rng.randint(a, t1))
            get("/chart", p)
        elif kind == 6:
            t = rng.choice(trades)
            asset = t["asset_in"] if maybe(0.9) else coin
            p = {"asset": asset, "pool_address": t["pool"], "period": rng.choice(periods)}
            if maybe(0.3):
                p["limit"] = rng.randint(1, 5000)
            get("/chart_by_pool_address", p)
        elif kind == 7:
            body = {}
            for name, value in [("limit", rng.randint(1, 100)), ("offset", rng.randint(0, 100)),
                                ("sort_by", rng.choice(["tvl", "volume_24h", "apr", "fees_24h"])),
                                ("sort_direction", rng.choice(["asc", "desc"])),
                                ("filter_by_assets", rng.sample(coins[:20], 2)), ("include_assets", [coin]),
                                ("filter_by_type", [rng.choice(["cpmm_v1", "cpmm_v2", "stable", "Concentrated"])]),
                                ("tags", ["boosted"]), ("pool_addresses", rng.sample(pools, 5)),
                                ("wallet_address", friendly(rng.choice(wallets), False)),
                                ("pair_pools", [{"assets": ["native", coins[1]], "limit": rng.randint(1, 50)}])]:
                if maybe(0.25):
                    body[name] = value
            if maybe(0.5):
                out.append(("POST", "/pools", json.dumps(body)))
            else:
                params = {k: (",".join(v) if isinstance(v, list) and k != "pair_pools" else
                              json.dumps(v) if k == "pair_pools" else v) for k, v in body.items()}
                get("/pools", params)
        elif kind == 8:
            body = {"assets": ["native", coin] if coin != "native" else ["native", coins[1]]}
            for name, value in [("limit", rng.randint(1, 100)), ("sort_by", rng.choice(["tvl", "volume_24h"])),
                                ("wallet_address", friendly(rng.choice(wallets), False))]:
                if maybe(0.3):
                    body[name] = value
            if maybe(0.5):
                out.append(("POST", "/pools/pair", json.dumps(body)))
            else:
                get("/pools/pair", {k: (",".join(v) if isinstance(v, list) else v) for k, v in body.items()})
        elif kind == 9:
            pool = rng.choice(pools)
            params = {"wallet_address": friendly(rng.choice(wallets), False)} if maybe(0.3) else None
            get(f"/pools/{pool if maybe(0.5) else friendly(pool)}", params)
            body = {"include_assets": [coin]} if maybe(0.7) else {}
            out.append(("POST", "/pools/summary", json.dumps(body)))
        else:
            get(f"/coins/{urllib.parse.quote(coin)}/resolver")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--market", default="data/market.json")
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=16)
    args = ap.parse_args()
    market = json.load(open(args.market))
    reqs = requests(market, random.Random(args.seed), args.count)
    (old, old_base), (new, new_base) = start(args.old, args.market), start(args.new, args.market)
    try:
        diffs, statuses = 0, {}
        for method, path, body in reqs:
            a, b = call(old_base, method, path, body), call(new_base, method, path, body)
            statuses[a[0]] = statuses.get(a[0], 0) + 1
            if a != b:
                diffs += 1
                if diffs <= 10:
                    print(f"DIFF {method} {path} {body or ''}\n  old {a[0]} {a[1][:300]!r}\n  new {b[0]} {b[1][:300]!r}")
        print(f"{len(reqs)} requests, statuses {dict(sorted(statuses.items()))}, {diffs} differ")
        return 1 if diffs else 0
    finally:
        for p in (old, new):
            p.terminate()
            p.wait()


if __name__ == "__main__":
    sys.exit(main())

//! A deterministic generator of TON-shaped snapshots, for the bundled data, the benches and tests.
//!
//! [`generate`] is a pure function of [`SyntheticConfig`] (pool count and seed): same config, same
//! [`Snapshot`], byte for byte once serialised. It has its own SplitMix64 generator (no `rand`) and uses
//! integer arithmetic only, so the output does not depend on the platform's float library.
//!
//! **Shape** (as measured on TON, see DESIGN.md "Bundled data"): the native coin is the star centre (about
//! 91 % of the pools pair with it), USD₮ the second hub, then a very long tail of jettons with one pool each;
//! liquidity is concentrated (the three largest pools hold 75 % of the TVL); LP fees are 20–100 bps on
//! volatile pools and 1–5 bps on the few stable pools, which pair USD stablecoins.
//!
//! **Calibration** (figures from `data/ton-anchors.json`, copied from the project's reference data):
//! - real ids of TON, USD₮ and NOT ([`USDT`], [`NOT`], from `tonroute::asset::known`);
//! - the three largest TON/USD₮ pools at their real addresses. The `dex_b_v1` and `dex_b_v2` ones keep their
//!   rounded reserves, and the TON price is the `dex_b_v1` pool's ratio; the anchor's `dex_a` pool implies
//!   $1.575 per TON, an arbitrage of 14 % against the two others, so it keeps its TON reserve and its USD₮
//!   reserve is set to the common price;
//! - the exact `dex_b_v1` NOT/TON pool record (address, reserves, fees, router), which fixes the NOT price;
//! - the TVL of the 79 largest `dex_a` pairs ([`DEX_A_TOP_TVL_USD`]): sorted, without its TON/USD₮ entry, it is
//!   the TVL profile of the generated pools ranked 1..=78; beyond, a Zipf tail (TVL ∝ 1/rank, ±50 % noise)
//!   continues it. All generated TVLs are then scaled so that the top three pools hold 75 % of the total
//!   (the share the same 79 pairs show: 76 %).
//!
//! Every pool's price is the assets' USD price ratio (up to integer rounding), so no cycle of pools offers an
//! arbitrage beyond its fees. Protocols: `dex_a` (constant product and stable), `dex_b_v1` (constant product,
//! the real router), `dex_b_v2` (constant product and stable swap, on three routers) and, with
//! [`SyntheticConfig::more_curves`] (the default), in fixed ranks:
//! - `dex_c` concentrated pools (TON/USD₮ at fee 5, NOT/TON and two head jettons/TON at fee 30, in 1/10000),
//!   tick spacing 60, sqrt price `isqrt(price·2^192)` of the USD price ratio, and six positions
//!   ([`CL_POSITIONS`]): four nested ranges around the price (±100, ±20, −5..+6, ±1 spacings) and one
//!   out-of-range on each side; each position's liquidity is set from its share of the pool's TVL, and the
//!   pool's `reserves` are the tokens the positions hold;
//! - `dex_b_v2` weighted pools: an 80/20 NOT/TON `weighted_constant_product` (sides' values 80:20, which is
//!   its market price) and a `weighted_stable_swap` between two synthetic USD stables (rate 1e18, w0 0.5e18,
//!   amp 100·1e18, equal reserves).
//!
//! Jetton wallets are derivable for any owner: USD₮ carries its real wallet code (a library cell) with the
//! `stablecoin` layout, the generated jettons a real TEP-74 reference wallet code (one `wallet_codes` entry);
//! NOT, whose layout is not verified, has none, and only the demo user's NOT wallet is listed.
//!
//! Addresses not in the anchors (routers, router wallets, vaults, pools, jettons) are synthetic: `0:`
//! followed by the SHA-256 of a readable label.
//!
//! Owns generation only; must not know about routing. Sizes: any pool count works; at least
//! [`ANCHORED_POOLS`] pools are always made, and about 30 are needed for every protocol and curve to appear.

use std::collections::{BTreeMap, BTreeSet};

use sha2::{Digest, Sha256};

use primitive_types::{U256, U512};

use tonroute::asset::known::{NOT, USDT};
use tonroute::chain::wallet::{WalletFamily, TEP74_WALLET_CODE, USDT_WALLET_CODE};
use tonroute::graph::snapshot::{
    DexAContext, DexBV1Context, Snapshot, SnapshotAsset, SnapshotConcentrated, SnapshotPool, SnapshotProtocols,
    SnapshotTick, SnapshotWallet,
};
use tonroute::pool::concentrated::{sqrt_ratio_at_tick, tick_at_sqrt_ratio};

/// The seed of the bundled `data/snapshot.json`.
pub const DEFAULT_SEED: u64 = 4;
/// The pool count of the bundled `data/snapshot.json`.
pub const DEFAULT_POOLS: usize = 1000;
/// The pools copied from the anchors (three TON/USD₮ pools and the NOT/TON `dex_b_v1` record); always made.
pub const ANCHORED_POOLS: usize = 4;

/// The real `dex_b_v1` router (`EQB3ncyBUTjZUA5EnFKR5_EnOMI9V1tTEAAPaiU71gc4TiUt`).
pub const DEX_B_V1_ROUTER: &str = "0:779dcc815138d9500e449c5291e7f12738c23d575b5310000f6a253bd607384e";

/// TVL in whole USD of the 79 largest `dex_a` pairs as its UI showed them on 2024-11-21, in the anchors'
/// rank order (`dex_a_top_pairs_2024_11_21` in `data/ton-anchors.json`; `tests/it/bundled_data.rs` checks the
/// copy). The first is TON/USD₮.
pub const DEX_A_TOP_TVL_USD: [u64; 79] = [
    43_150_000, 19_240_000, 6_320_000, 442_420, 216_330, 1_330_000, 1_220_000, 1_050_000, 956_880, 942_120, 921_190,
    835_140, 752_950, 748_930, 741_310, 589_940, 539_330, 508_140, 423_800, 375_810, 375_160, 349_090, 340_990,
    340_650, 311_440, 303_270, 255_770, 255_380, 235_430, 230_110, 220_590, 215_450, 207_120, 191_290, 187_120,
    184_520, 173_510, 167_920, 166_200, 162_810, 161_730, 149_720, 132_910, 129_300, 127_320, 127_120, 123_950,
    123_860, 123_370, 121_950, 121_320, 106_480, 106_400, 106_070, 102_600, 100_450, 99_240, 98_000, 95_980, 95_330,
    90_650, 89_130, 80_250, 79_690, 76_700, 74_930, 74_610, 73_380, 73_190, 72_680, 72_050, 72_030, 70_890, 67_020,
    64_560, 64_410, 61_780, 60_780, 58_140,
];

/// What to generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SyntheticConfig {
    /// Number of pools (at least [`ANCHORED_POOLS`] are made whatever this says).
    pub pools: usize,
    /// Seed of the generator; recorded in [`Snapshot::source`].
    pub seed: u64,
    /// Also make `dex_c` concentrated pools and `dex_b_v2` weighted pools (see the module docs) in some of
    /// the fixed ranks; off gives the older, constant-product / stable-swap-only graphs of the same seed.
    /// Recorded in [`Snapshot::source`] when off.
    pub more_curves: bool,
}

impl Default for SyntheticConfig {
    /// The bundled snapshot's settings: [`DEFAULT_POOLS`] pools, [`DEFAULT_SEED`], all curves.
    fn default() -> SyntheticConfig {
        SyntheticConfig { pools: DEFAULT_POOLS, seed: DEFAULT_SEED, more_curves: true }
    }
}

impl SyntheticConfig {
    /// `pools` pools with `seed`, all curves.
    pub fn new(pools: usize, seed: u64) -> SyntheticConfig {
        SyntheticConfig { pools, seed, more_curves: true }
    }
}

/// The demo user whose NOT wallet the snapshot lists (`jetton_wallets`; NOT's wallet layout is not verified,
/// so it cannot be derived), so that swaps offering any jetton can be built for it. Every other jetton's
/// wallets are derived for any owner. A synthetic address: `0:` + SHA-256 of `tonroute demo user`.
pub fn demo_user() -> String {
    raw("tonroute demo user")
}

/// The `Snapshot::source` text for a config; [`parse_source`] reads it back.
pub fn source_of(config: &SyntheticConfig) -> String {
    let (classic, flag) = if config.more_curves { ("", "") } else { (" classic", " --classic") };
    format!(
        "tonroute synthetic generator v1 (tools/synth/src/snapshot.rs): pools {} seed {}{classic}; regenerate with \
         `cargo run --release --example gen_snapshot -- --pools {} --seed {}{flag}`",
        config.pools, config.seed, config.pools, config.seed
    )
}

/// The config recorded in a snapshot's `source` by [`generate`], if it is one of ours.
pub fn parse_source(source: &str) -> Option<SyntheticConfig> {
    let rest = source.strip_prefix("tonroute synthetic generator v1 (tools/synth/src/snapshot.rs): pools ")?;
    let (pools, rest) = rest.split_once(" seed ")?;
    let (seed, _) = rest.split_once(';')?;
    let (seed, more_curves) = match seed.strip_suffix(" classic") {
        Some(seed) => (seed, false),
        None => (seed, true),
    };
    Some(SyntheticConfig { pools: pools.parse().ok()?, seed: seed.parse().ok()?, more_curves })
}

/// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, and good enough to shape a test graph. Shared with the
/// other generators, and the seeded stream of the examples and tests that draw random cases (the field is the
/// state, i.e. the seed).
#[derive(Debug, Clone)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next 64 bits of the stream.
    // Not `Iterator::next`: the stream never ends, so an `Option` would only add an unwrap at every draw.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n = 0` reads as 1); the modulo bias is below 2^-50 for the small `n` used here.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    /// Uniform in `0..n` as a usize.
    pub fn index(&mut self, n: usize) -> usize {
        // `n` is a collection length (fits u64) and the result is below it (fits usize).
        usize::try_from(self.below(u64::try_from(n).unwrap_or(u64::MAX))).unwrap_or(0)
    }

    /// True with probability `per_mille` / 1000.
    fn chance(&mut self, per_mille: u64) -> bool {
        self.below(1000) < per_mille
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        // `below(len)` < len, and callers pass non-empty constant slices.
        items[self.below(items.len() as u64) as usize]
    }
}

/// `0:` + SHA-256 of `label`: the synthetic addresses of the generators.
pub(crate) fn raw(label: &str) -> String {
    let digest = Sha256::digest(label.as_bytes());
    let mut s = String::with_capacity(66);
    s.push_str("0:");
    for b in digest {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// Picodollars per USD: prices are integers in 1e-12 USD per whole token.
const PICO: u128 = 1_000_000_000_000;
/// TVLs are integers in micro-USD.
const MICRO: u128 = 1_000_000;
/// The smallest generated pool TVL: $20 (so that every reserve is at least ~10^6 units).
const MIN_TVL_MICRO: u128 = 20 * MICRO;
/// Generated pools ranked up to here may reuse an earlier jetton (majors with several pools).
const HEAD: usize = 60;

#[derive(Clone)]
struct GenAsset {
    id: String,
    symbol: String,
    name: String,
    decimals: u8,
    price_pico: u128,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Venue {
    DexA,
    V1,
    V2(usize),
    DexC,
}

/// A generated pool's curve and its parameters.
#[derive(Clone, PartialEq, Eq)]
enum Kind {
    ConstantProduct,
    Stable,
    /// `weighted_constant_product`; `w0` in 1e18.
    Weighted {
        w0: u128,
    },
    /// `weighted_stable_swap`; all in 1e18.
    WeightedStable {
        amp: u128,
        rate: u128,
        w0: u128,
    },
    /// `concentrated` (`dex_c`).
    Concentrated(ClGen),
}

/// A generated concentrated pool's state and tick map `(tick, liquidity_net, liquidity_gross)`.
#[derive(Clone, PartialEq, Eq)]
struct ClGen {
    sqrt_price_x96: U256,
    tick: i32,
    liquidity: u128,
    ticks: Vec<(i32, i128, u128)>,
}

impl ClGen {
    /// A placeholder until the pool's state is computed from its prices.
    const EMPTY: ClGen = ClGen { sqrt_price_x96: U256::zero(), tick: 0, liquidity: 0, ticks: Vec::new() };
}

struct GenPool {
    address: String,
    venue: Venue,
    kind: Kind,
    assets: [usize; 2],
    reserves: [u128; 2],
    lp_fee: u16,
    protocol_fee: u16,
    ref_fee: u16,
}

fn pow10(d: u8) -> u128 {
    10u128.pow(u32::from(d))
}

/// Micro-USD value of `amount` smallest units of `a`.
fn value_micro(a: &GenAsset, amount: u128) -> u128 {
    // amount ≤ 2^120 and price ≤ 10^14 pico: the product stays below 2^167, so go through U256.
    let v = primitive_types::U256::from(amount) * primitive_types::U256::from(a.price_pico)
        / primitive_types::U256::from(pow10(a.decimals))
        / primitive_types::U256::from(MICRO);
    v.try_into().unwrap_or(u128::MAX)
}

/// Smallest units of `a` worth `usd_micro`.
fn units_of(a: &GenAsset, usd_micro: u128) -> u128 {
    let v = primitive_types::U256::from(usd_micro)
        * primitive_types::U256::from(MICRO)
        * primitive_types::U256::from(pow10(a.decimals))
        / primitive_types::U256::from(a.price_pico);
    u128::try_from(v).unwrap_or(u128::MAX).min(tonroute::pool::MAX_COINS)
}

/// Tick spacing of the generated concentrated pools.
pub const CL_TICK_SPACING: i32 = 60;
/// Positions of a generated concentrated pool: (lower, upper) in tick spacings from the spacing-aligned
/// current tick, and the per-mille share of the pool's TVL. Several ranges around the price (wide to tight,
/// so the liquidity thins out step by step away from it) and one range on each side, out of range.
pub const CL_POSITIONS: [(i32, i32, u128); 6] =
    [(-100, 100, 300), (-20, 20, 300), (-5, 6, 250), (-1, 1, 100), (10, 30, 25), (-30, -10, 25)];
/// Liquidity of the reference position whose value scales the others (large enough for exact ratios).
const CL_REFERENCE_LIQUIDITY: u128 = 1_000_000_000_000_000_000_000_000;
/// 1e18, the weighted pools' fixed-point one.
const WAD: u128 = 1_000_000_000_000_000_000;

/// Token amounts `[amount0, amount1]` of a position of liquidity `l` over `[sa, sb]` at sqrt price `sp`
/// (all Q64.96), rounded down: `amount0 = L·2^96·(√b − √p)/(√p·√b)`, `amount1 = L·(√p − √a)/2^96` with
/// `√p` clamped into the range.
fn position_amounts(l: u128, sp: U256, sa: U256, sb: U256) -> [u128; 2] {
    let p = sp.clamp(sa, sb);
    let l = U512::from(l);
    let (p, a, b) = (U512::from(p), U512::from(sa), U512::from(sb));
    // L < 2^128 and prices < 2^160: every product here stays below 2^512.
    let amount0 = (l << 96) * (b - p) / p / b;
    let amount1 = (l * (p - a)) >> 96;
    [amount0, amount1].map(|v| u128::try_from(v).unwrap_or(u128::MAX))
}

/// A `dex_c` pool between `a0` (token0) and `a1` at their USD prices, worth about `tvl_micro`, with the
/// positions of [`CL_POSITIONS`]; returns the state with its tick map and the token balances. `None` when
/// the price is outside what the tick math covers (never for the generated prices).
fn concentrated_pool(a0: &GenAsset, a1: &GenAsset, tvl_micro: u128) -> Option<(ClGen, [u128; 2])> {
    // price = token1 units per token0 unit = (p0 / 10^d0) / (p1 / 10^d1); √price·2^96 = isqrt(price·2^192).
    let num = U512::from(a0.price_pico) * U512::from(pow10(a1.decimals));
    let den = U512::from(a1.price_pico) * U512::from(pow10(a0.decimals));
    let sqrt_price = ((num << 192) / den).integer_sqrt();
    let sqrt_price_x96 = U256::try_from(sqrt_price).ok()?;
    let tick = tick_at_sqrt_ratio(sqrt_price_x96).ok()?;
    let base = tick.div_euclid(CL_TICK_SPACING) * CL_TICK_SPACING;
    let mut ticks: BTreeMap<i32, (i128, u128)> = BTreeMap::new();
    let mut liquidity = 0u128;
    let mut balances = [0u128; 2];
    for (lo, hi, share) in CL_POSITIONS {
        let (lo, hi) = (base + lo * CL_TICK_SPACING, base + hi * CL_TICK_SPACING);
        let (sa, sb) = (sqrt_ratio_at_tick(lo).ok()?, sqrt_ratio_at_tick(hi).ok()?);
        let reference = position_amounts(CL_REFERENCE_LIQUIDITY, sqrt_price_x96, sa, sb);
        let value = value_micro(a0, reference[0]) + value_micro(a1, reference[1]);
        if value == 0 {
            return None;
        }
        let l = U256::from(CL_REFERENCE_LIQUIDITY) * U256::from(tvl_micro * share / 1000) / U256::from(value);
        // Well below 2^100 for TVLs below 10^15 USD.
        let l = u128::try_from(l).ok()?;
        let signed = i128::try_from(l).ok()?;
        let e = ticks.entry(lo).or_default();
        e.0 += signed;
        e.1 += l;
        let e = ticks.entry(hi).or_default();
        e.0 -= signed;
        e.1 += l;
        if lo <= tick && tick < hi {
            liquidity += l;
        }
        let amounts = position_amounts(l, sqrt_price_x96, sa, sb);
        balances = [balances[0] + amounts[0], balances[1] + amounts[1]];
    }
    let ticks = ticks.into_iter().map(|(t, (net, gross))| (t, net, gross)).collect();
    Some((ClGen { sqrt_price_x96, tick, liquidity, ticks }, balances))
}

fn price_text(pico: u128) -> String {
    let whole = pico / PICO;
    let frac = pico % PICO;
    if frac == 0 {
        return whole.to_string();
    }
    let digits = format!("{frac:012}");
    format!("{whole}.{}", digits.trim_end_matches('0'))
}

fn v2_router(i: usize) -> String {
    raw(&format!("tonroute synthetic dex_b_v2 router {i}"))
}

fn pton_wallet(router: &str) -> String {
    raw(&format!("tonroute synthetic pton wallet of {router}"))
}

fn router_wallet(router: &str, asset: &str) -> String {
    if asset == "native" {
        pton_wallet(router)
    } else {
        raw(&format!("tonroute synthetic jetton wallet of {router} for {asset}"))
    }
}

/// Generates a TON-shaped snapshot (see the module docs for shape and calibration).
///
/// ```
/// use tonroute_synth::snapshot::{generate, SyntheticConfig};
/// let snapshot = generate(&SyntheticConfig::new(100, 1));
/// assert_eq!(snapshot.pools.len(), 100);
/// let graph = snapshot.into_graph().unwrap();
/// assert_eq!(graph.pool_count(), 100);
/// ```
pub fn generate(config: &SyntheticConfig) -> Snapshot {
    let mut rng = SplitMix64(config.seed);
    // The TON price is the largest TON/USD₮ pool's ratio (dex_b_v1: 1 861 480 TON, 2 572 361 USD₮).
    let ton_price = 2_572_361 * PICO / 1_861_480;
    // NOT/TON dex_b_v1 record (exact): reserve0 NOT, reserve1 TON, both 9 decimals.
    let not_reserves: [u128; 2] = [327_026_382_098_709_038, 562_652_470_746_670];
    let not_price = ton_price * not_reserves[1] / not_reserves[0];
    let mut assets = vec![
        GenAsset {
            id: "native".into(),
            symbol: "TON".into(),
            name: "Toncoin".into(),
            decimals: 9,
            price_pico: ton_price,
        },
        GenAsset { id: USDT.into(), symbol: "USD₮".into(), name: "Tether USD".into(), decimals: 6, price_pico: PICO },
        GenAsset { id: NOT.into(), symbol: "NOT".into(), name: "Notcoin".into(), decimals: 9, price_pico: not_price },
    ];
    const TON: usize = 0;
    const USD: usize = 1;
    const NOTI: usize = 2;
    // Synthetic USD stablecoins (6 decimals like USD₮, so the stable curves balance at 1:1 in raw units).
    let stable: Vec<usize> = (1..=3)
        .map(|k| {
            assets.push(GenAsset {
                id: format!("jetton:{}", raw(&format!("tonroute synthetic stablecoin {k}"))),
                symbol: format!("sUSD{k}"),
                name: format!("Synthetic USD {k}"),
                decimals: 6,
                price_pico: PICO,
            });
            assets.len() - 1
        })
        .collect();

    let mut pools = vec![
        GenPool {
            address: "0:fc4c9f311160754a99d113877cf583b78e5d16d048819cd4b820168769499d7e".into(),
            venue: Venue::V1,
            kind: Kind::ConstantProduct,
            assets: [TON, USD],
            reserves: [1_861_480 * pow10(9), 2_572_361 * pow10(6)],
            lp_fee: 20,
            protocol_fee: 10,
            ref_fee: 10,
        },
        GenPool {
            address: "0:8649cad97b5c5bc96a960ef748ea6ccff8601c01616fe995ee6893ae4aa7a6c6".into(),
            venue: Venue::V2(0),
            kind: Kind::ConstantProduct,
            assets: [TON, USD],
            reserves: [1_806_615 * pow10(9), 2_501_328 * pow10(6)],
            lp_fee: 20,
            protocol_fee: 10,
            ref_fee: 0,
        },
        GenPool {
            address: "0:3e5ffca8ddfcf36c36c9ff46f31562aab51b9914845ad6c26cbde649d58a5588".into(),
            venue: Venue::DexA,
            kind: Kind::ConstantProduct,
            assets: [TON, USD],
            // The TON side of the anchor; the USD₮ side at the common TON price (see the module docs).
            reserves: [201_782 * pow10(9), 201_782 * ton_price / MICRO],
            lp_fee: 20,
            protocol_fee: 0,
            ref_fee: 0,
        },
        GenPool {
            // EQCaY8Ifl2S6lRBMBJeY35LIuMXPc8JfItWG4tl7lBGrSoR2, verbatim from the anchors' pool record.
            address: "0:9a63c21f9764ba95104c049798df92c8b8c5cf73c25f22d586e2d97b9411ab4a".into(),
            venue: Venue::V1,
            kind: Kind::ConstantProduct,
            assets: [NOTI, TON],
            reserves: not_reserves,
            lp_fee: 70,
            protocol_fee: 30,
            ref_fee: 30,
        },
    ];
    let tvl = |assets: &[GenAsset], p: &GenPool| {
        value_micro(&assets[p.assets[0]], p.reserves[0]) + value_micro(&assets[p.assets[1]], p.reserves[1])
    };
    let mut fixed_tvls: Vec<u128> = pools.iter().map(|p| tvl(&assets, p)).collect();
    let fixed_total: u128 = fixed_tvls.iter().sum();
    fixed_tvls.sort_unstable_by(|a, b| b.cmp(a));
    let top3: u128 = fixed_tvls.iter().take(3).sum();
    // Top three hold 3/4 of everything: the generated pools share the rest.
    let generated_total = (top3 * 4 / 3).saturating_sub(fixed_total);

    // The TVL profile of generated pools by rank: the dex_a table without TON/USD₮, then a Zipf tail.
    let mut profile: Vec<u64> = DEX_A_TOP_TVL_USD.to_vec();
    profile.sort_unstable_by(|a, b| b.cmp(a));
    profile.remove(0);
    let last = u128::from(profile[profile.len() - 1]);
    let slots = config.pools.saturating_sub(ANCHORED_POOLS);
    let weights: Vec<u128> = (1..=slots)
        .map(|r| match profile.get(r - 1) {
            Some(w) => u128::from(*w) * MICRO,
            None => {
                let zipf = last * MICRO * (profile.len() as u128 + 1) / (r as u128 + 1);
                zipf * u128::from(50 + rng.below(101)) / 100
            }
        })
        .collect();
    let weight_sum: u128 = weights.iter().sum::<u128>().max(1);

    let mut head: Vec<usize> = Vec::new();
    let mut jettons = 0usize;
    let mut new_jetton = |assets: &mut Vec<GenAsset>, rng: &mut SplitMix64| {
        jettons += 1;
        let mantissa = 1000 + u128::from(rng.below(9000));
        let price_pico = mantissa * 10u128.pow(2 + rng.below(8) as u32);
        let decimals = if rng.chance(150) { 6 } else { 9 };
        assets.push(GenAsset {
            id: format!("jetton:{}", raw(&format!("tonroute synthetic jetton seed {} #{jettons}", config.seed))),
            symbol: format!("JT{jettons}"),
            name: format!("Synthetic jetton {jettons}"),
            decimals,
            price_pico,
        });
        assets.len() - 1
    };
    for (i, weight) in weights.iter().enumerate() {
        let r = i + 1;
        let tvl_micro = (weight * generated_total / weight_sum).max(MIN_TVL_MICRO);
        let address = raw(&format!("tonroute synthetic pool seed {} rank {r}", config.seed));
        let volatile_fee = |rng: &mut SplitMix64, venue: Venue| match venue {
            Venue::V1 => (rng.pick(&[20u16, 20, 30, 50, 70]), 10, 10),
            Venue::V2(_) => (rng.pick(&[20u16, 25, 30, 50, 70, 100]), 10, 0),
            Venue::DexA | Venue::DexC => (rng.pick(&[20u16, 25, 30, 50, 100]), 0, 0),
        };
        // A few fixed ranks give NOT and USD₮ several pools, and place the stable, weighted and
        // concentrated pools.
        let more = config.more_curves;
        let cp = Kind::ConstantProduct;
        let (venue, kind, pair, fees) = match r {
            1 => (Venue::V2(0), cp, [NOTI, TON], (30, 10, 0)),
            2 => (Venue::V2(1), cp, [TON, USD], (25, 10, 0)),
            3 => (Venue::DexA, cp, [NOTI, USD], (25, 0, 0)),
            5 => (Venue::DexA, cp, [TON, NOTI], (30, 0, 0)),
            9 => (Venue::DexA, Kind::Stable, [stable[0], USD], (5, 0, 0)),
            12 => (Venue::V2(0), Kind::Stable, [USD, stable[1]], (4, 1, 0)),
            20 => (Venue::V2(1), Kind::Stable, [stable[2], USD], (2, 1, 0)),
            27 => (Venue::V2(1), Kind::Stable, [stable[1], stable[2]], (3, 1, 0)),
            // The concentrated pools' state is filled in below, from the pair's prices.
            4 if more => (Venue::DexC, Kind::Concentrated(ClGen::EMPTY), [TON, USD], (5, 0, 0)),
            7 if more => (Venue::DexC, Kind::Concentrated(ClGen::EMPTY), [NOTI, TON], (30, 0, 0)),
            14 if more && !head.is_empty() => {
                (Venue::DexC, Kind::Concentrated(ClGen::EMPTY), [head[0], TON], (30, 0, 0))
            }
            22 if more && head.len() > 1 => (Venue::DexC, Kind::Concentrated(ClGen::EMPTY), [TON, head[1]], (30, 0, 0)),
            // 80/20 NOT/TON, as the first weighted pools on the v2 routers were.
            8 if more => (Venue::V2(2), Kind::Weighted { w0: WAD / 5 * 4 }, [NOTI, TON], (20, 5, 0)),
            // A weighted stable pair at 1:1 (rate 1e18), equal weights, amp 100 in the contract's 1e18 units.
            16 if more => (
                Venue::V2(0),
                Kind::WeightedStable { amp: 100 * WAD, rate: WAD, w0: WAD / 2 },
                [stable[0], stable[1]],
                (3, 1, 0),
            ),
            _ => {
                let roll = rng.below(1000);
                let quote_kind = if roll < 915 {
                    Some(TON)
                } else if roll < 970 {
                    Some(USD)
                } else {
                    None
                };
                let reuse = r <= HEAD && !head.is_empty() && rng.chance(300);
                let base = if reuse {
                    head[rng.below(head.len() as u64) as usize]
                } else {
                    let id = new_jetton(&mut assets, &mut rng);
                    if r <= HEAD {
                        head.push(id);
                    }
                    id
                };
                let quote = match quote_kind {
                    Some(q) => q,
                    None => {
                        // Jetton/jetton pools pair with NOT or an earlier head jetton.
                        let k = rng.below(head.len() as u64 + 1) as usize;
                        if k == head.len() {
                            NOTI
                        } else {
                            head[k]
                        }
                    }
                };
                let quote = if quote == base { TON } else { quote };
                let v = rng.below(1000);
                let venue = if v < 380 {
                    Venue::V2(0)
                } else if v < 680 {
                    Venue::DexA
                } else if v < 850 {
                    Venue::V1
                } else if v < 950 {
                    Venue::V2(1)
                } else {
                    Venue::V2(2)
                };
                let fees = volatile_fee(&mut rng, venue);
                let pair = if rng.chance(500) { [base, quote] } else { [quote, base] };
                (venue, cp, pair, fees)
            }
        };
        // Each side's value is its weight's share of the TVL, so the pool's spot price is the market's.
        let side0 = match kind {
            Kind::Weighted { w0 } => tvl_micro * w0 / WAD,
            _ => tvl_micro / 2,
        };
        let mut reserves =
            [units_of(&assets[pair[0]], side0), units_of(&assets[pair[1]], tvl_micro.saturating_sub(side0))];
        let (venue, kind) = match kind {
            Kind::Concentrated(_) => match concentrated_pool(&assets[pair[0]], &assets[pair[1]], tvl_micro) {
                Some((cl, balances)) => {
                    reserves = balances;
                    (venue, Kind::Concentrated(cl))
                }
                // The tick math covers prices from 2^-128 to 2^128: unreachable for generated prices.
                None => (Venue::V2(0), Kind::ConstantProduct),
            },
            other => (venue, other),
        };
        pools.push(GenPool {
            address,
            venue,
            kind,
            assets: pair,
            reserves,
            lp_fee: fees.0,
            protocol_fee: fees.1,
            ref_fee: fees.2,
        });
    }
    assemble(config, assets, pools)
}

fn assemble(config: &SyntheticConfig, assets: Vec<GenAsset>, pools: Vec<GenPool>) -> Snapshot {
    let used: BTreeSet<usize> = pools.iter().flat_map(|p| p.assets).collect();
    let v1_pton = pton_wallet(DEX_B_V1_ROUTER);
    let mut dex_a_vaults = BTreeMap::new();
    let mut snapshot_pools = Vec::with_capacity(pools.len());
    for p in &pools {
        let ids = [assets[p.assets[0]].id.clone(), assets[p.assets[1]].id.clone()];
        let router = match p.venue {
            Venue::DexA => {
                for id in ids.iter().filter(|id| *id != "native") {
                    dex_a_vaults.insert(id.clone(), raw(&format!("tonroute synthetic dex_a vault for {id}")));
                }
                None
            }
            Venue::V1 => Some(DEX_B_V1_ROUTER.to_string()),
            Venue::V2(i) => Some(v2_router(i)),
            Venue::DexC => Some(raw("tonroute synthetic dex_c router")),
        };
        let router_wallets = router.as_ref().map(|r| [router_wallet(r, &ids[0]), router_wallet(r, &ids[1])]);
        let protocol = match p.venue {
            Venue::DexA => "dex_a",
            Venue::V1 => "dex_b_v1",
            Venue::V2(_) => "dex_b_v2",
            Venue::DexC => "dex_c",
        };
        let text = |v: u128| Some(v.to_string());
        let (curve, amp, w0, rate, concentrated) = match &p.kind {
            Kind::ConstantProduct => ("constant_product", None, None, None, SnapshotConcentrated::default()),
            // dex_b_v2 stores Curve's Ann (2·A): 200 is A = 100, a common choice for USD pairs.
            Kind::Stable => (
                "stable_swap",
                matches!(p.venue, Venue::V2(_)).then(|| "200".to_string()),
                None,
                None,
                SnapshotConcentrated::default(),
            ),
            Kind::Weighted { w0 } => {
                ("weighted_constant_product", None, text(*w0), None, SnapshotConcentrated::default())
            }
            Kind::WeightedStable { amp, rate, w0 } => {
                ("weighted_stable_swap", text(*amp), text(*w0), text(*rate), SnapshotConcentrated::default())
            }
            Kind::Concentrated(cl) => (
                "concentrated",
                None,
                None,
                None,
                SnapshotConcentrated {
                    sqrt_price_x96: Some(cl.sqrt_price_x96.to_string()),
                    tick: Some(cl.tick),
                    liquidity: text(cl.liquidity),
                    tick_spacing: Some(CL_TICK_SPACING),
                    ticks: Some(
                        cl.ticks
                            .iter()
                            .map(|&(tick, net, gross)| SnapshotTick {
                                tick,
                                liquidity_net: net.to_string(),
                                liquidity_gross: gross.to_string(),
                            })
                            .collect(),
                    ),
                },
            ),
        };
        snapshot_pools.push(SnapshotPool {
            address: p.address.clone(),
            protocol: protocol.into(),
            curve: curve.into(),
            assets: ids,
            reserves: [p.reserves[0].to_string(), p.reserves[1].to_string()],
            lp_fee: p.lp_fee,
            protocol_fee: p.protocol_fee,
            ref_fee: p.ref_fee,
            amp,
            w0,
            rate,
            router,
            router_wallets,
            volatility: None,
            concentrated,
        });
    }
    let snapshot_assets: Vec<SnapshotAsset> = used
        .iter()
        .map(|&i| {
            let a = &assets[i];
            SnapshotAsset {
                asset: a.id.clone(),
                symbol: a.symbol.clone(),
                name: a.name.clone(),
                decimals: a.decimals,
                usd_price: Some(price_text(a.price_pico)),
                image: None,
                wallet: wallet_of(&a.id),
            }
        })
        .collect();
    // Jettons whose wallets cannot be derived (NOT: its wallet layout is not verified) keep a listed wallet for
    // the demo user; every other jetton's wallets are derived for any owner.
    let wallets: BTreeMap<String, String> = snapshot_assets
        .iter()
        .filter(|a| a.asset != "native" && a.wallet.is_none())
        .map(|a| (a.asset.clone(), raw(&format!("tonroute demo user jetton wallet for {}", a.asset))))
        .collect();
    Snapshot {
        source: Some(source_of(config)),
        assets: snapshot_assets,
        pools: snapshot_pools,
        protocols: SnapshotProtocols {
            dex_a: Some(DexAContext {
                native_vault: raw("tonroute synthetic dex_a native vault"),
                jetton_vaults: dex_a_vaults,
            }),
            dex_b_v1: Some(DexBV1Context { router: DEX_B_V1_ROUTER.into(), pton_wallet: v1_pton }),
        },
        jetton_wallets: BTreeMap::from([(demo_user(), wallets)]),
        wallet_codes: BTreeMap::from([(TEP74_CODE_REF.to_string(), TEP74_WALLET_CODE.to_string())]),
    }
}

/// The `wallet_codes` entry the generated jettons' wallets use.
pub const TEP74_CODE_REF: &str = "tep74-reference";

/// How an asset's jetton wallets are derived: USD₮ with its real (library-cell) code and the `stablecoin`
/// layout; generated jettons with a real TEP-74 reference wallet code; NOT (real, layout not verified) and
/// TON with none.
fn wallet_of(id: &str) -> Option<SnapshotWallet> {
    match id {
        "native" | NOT => None,
        USDT => Some(SnapshotWallet {
            family: WalletFamily::Stablecoin.name().into(),
            code: Some(USDT_WALLET_CODE.into()),
            code_ref: None,
        }),
        _ => Some(SnapshotWallet {
            family: WalletFamily::Tep74.name().into(),
            code: None,
            code_ref: Some(TEP74_CODE_REF.into()),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_matches_the_reference_sequence() {
        // First outputs of SplitMix64 seeded with 0 (reference C implementation by Vigna).
        let mut r = SplitMix64(0);
        assert_eq!(r.next(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn raw_is_sha256_of_the_label() {
        // sha256("abc"), FIPS 180-2 appendix B.1.
        assert_eq!(raw("abc"), "0:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }

    #[test]
    fn prices_print_as_decimals() {
        assert_eq!(price_text(PICO), "1");
        assert_eq!(price_text(1_381_890_216_386), "1.381890216386");
        assert_eq!(price_text(2_377_557_246), "0.002377557246");
        assert_eq!(price_text(100_000), "0.0000001");
    }

    #[test]
    fn source_round_trips() {
        let c = SyntheticConfig::new(1234, 99);
        assert_eq!(parse_source(&source_of(&c)), Some(c));
        let classic = SyntheticConfig { more_curves: false, ..c };
        assert_eq!(parse_source(&source_of(&classic)), Some(classic));
        assert_eq!(parse_source("hand made"), None);
    }

    #[test]
    fn every_size_builds_and_is_deterministic() {
        for pools in [0, 4, 10, 100, 1000] {
            let c = SyntheticConfig::new(pools, 7);
            let a = generate(&c);
            assert_eq!(a.pools.len(), pools.max(ANCHORED_POOLS));
            a.into_graph().unwrap();
            let b = generate(&c);
            assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap());
        }
        let other = generate(&SyntheticConfig::new(100, 8));
        let base = generate(&SyntheticConfig::new(100, 7));
        assert_ne!(serde_json::to_string(&other).unwrap(), serde_json::to_string(&base).unwrap());
    }

    #[test]
    fn more_curves_is_a_switch() {
        let curves = |c: &SyntheticConfig| -> BTreeSet<String> {
            generate(c).pools.iter().map(|p| format!("{}/{}", p.protocol, p.curve)).collect()
        };
        let all = curves(&SyntheticConfig::new(100, 7));
        for kind in ["dex_c/concentrated", "dex_b_v2/weighted_constant_product", "dex_b_v2/weighted_stable_swap"] {
            assert!(all.contains(kind), "{kind}");
        }
        let classic = curves(&SyntheticConfig { more_curves: false, ..SyntheticConfig::new(100, 7) });
        assert!(classic.iter().all(|k| !k.starts_with("dex_c") && !k.contains("weighted")), "{classic:?}");
    }
}

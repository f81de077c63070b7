//! `tonroute quote`: the best route(s) as a table or as the `/v4` JSON. The arguments become a typed
//! [`QuoteRequest`] here ([`request_of`]: each value parsed by the API's own value parser, the limits checked by
//! the request's constructor) and the library answers it ([`tonroute::api::Api::answer_quote`]: the router
//! and the `/v4` answer), with no JSON in between; every refusal is the API's `{code, message}` for the same
//! values. Tickers (`TON`, `usdt`) stand for the one snapshot asset they name, and AMOUNT may be written in
//! whole tokens ([`amount_in_units`]). `--certify` asks for the quote's optimality certificate, computed without
//! a time limit here. A refusal for an amount read in smallest units says so (code 3002), and a quote whose
//! network fee is worth more than its output is answered with a warning on stderr.

use std::sync::Arc;

use tonroute::api::parse::QuoteCall;
use tonroute::api::value::{AssetId, LargeInteger, Problem};
use tonroute::api::wire::QuoteResponse;
use tonroute::api::{Api, ApiError, ErrorCode, PreparedQuote};
use tonroute::asset::{whole_units, Asset};
use tonroute::graph::{AssetMeta, PoolGraph};
use tonroute::route::{Budget, QuoteRequest, SwapMode};

use crate::args::QuoteArgs;
use crate::error::CliError;
use crate::print;

pub(super) fn run(args: QuoteArgs) -> Result<(), CliError> {
    let swap_mode = if args.exact_out { SwapMode::ExactOut } else { SwapMode::ExactIn };
    let graph = Arc::new(super::load_graph(args.snapshot)?);
    let in_asset = resolve_asset(&graph, "in_minter", args.in_asset)?;
    let out_asset = resolve_asset(&graph, "out_minter", args.out_asset)?;
    // AMOUNT counts the input, or with --exact-out the output wanted.
    let counted = meta_of(&graph, if args.exact_out { &out_asset } else { &in_asset });
    let (amount, written) = match counted {
        Some(meta) => amount_in_units(&args.amount, meta, &graph)?,
        // An asset the snapshot does not know: the API names it (2001); AMOUNT goes as written.
        None => (args.amount.clone(), Written::AsGiven),
    };
    let limits =
        Limits { swap_mode, max_splits: args.max_splits, max_length: args.max_length, slippage_bps: args.slippage_bps };
    let answer = request_of(&in_asset, &out_asset, &amount, limits).and_then(|request| {
        let call = PreparedQuote::from(QuoteCall { request, certify: args.certify });
        Api::new(Arc::clone(&graph)).answer_quote(&call, Budget::UNLIMITED)
    });
    let answer = answer.map_err(|error| hinted(error, &args.amount, written, counted))?;
    if let Some(warning) = fee_warning(&graph, &answer) {
        eprintln!("warning: {warning}");
    }
    let outs = answer.swap_data.routes.iter().filter_map(|steps| steps.last()).map(|s| s.out_amount.0);
    if let Some(warning) = super::zero_min_out_warning(answer.swap_data.slippage_bps, outs) {
        eprintln!("warning: {warning}");
    }
    if args.json {
        print::json(&answer)
    } else {
        print::quote_table(&answer);
        Ok(())
    }
}

/// The command's limits, as typed by its flags (signed: a negative value is refused with the API's code, not
/// by clap).
struct Limits {
    swap_mode: SwapMode,
    max_splits: i64,
    max_length: i64,
    slippage_bps: i64,
}

/// The request the arguments ask, refused as `POST /v4/router/quote` refuses a body with the same values: each
/// text parsed by the API's value parser and named by its field (`amount` first, then `in_minter`,
/// `out_minter`, the order the API reads them in), then the limits by [`QuoteRequest::try_new`] (the API's
/// [`tonroute::api::wire::QuoteRequestBody::into_request`] does the same).
fn request_of(in_asset: &str, out_asset: &str, amount: &str, limits: Limits) -> Result<QuoteRequest, ApiError> {
    let at = |field: &str, p: Problem| ApiError::field(p.kind(), field, p.message());
    let amount = LargeInteger::parse(amount).map_err(|p| at("amount", p))?.0;
    let in_asset = AssetId::parse(in_asset).map_err(|p| at("in_minter", p))?.0;
    let out_asset = AssetId::parse(out_asset).map_err(|p| at("out_minter", p))?.0;
    // A value that does not fit the request's type (a negative one) is out of its range, as the API says of a
    // JSON number that does not fit; the request's constructor checks the rest.
    let fits = |n: i64, kind: ErrorCode, field: &str, range: String| {
        u32::try_from(n).map_err(|_| ApiError::field(kind, field, format!("{n} is out of range {range}")))
    };
    let splits = format!("{}..={}", QuoteRequest::MIN_SPLITS, QuoteRequest::MAX_SPLITS);
    let splits = fits(limits.max_splits, ErrorCode::MaxSplitsOutOfRange, "max_splits", splits)?;
    let length = format!("{}..={}", QuoteRequest::MIN_LENGTH, QuoteRequest::MAX_LENGTH);
    let length = fits(limits.max_length, ErrorCode::MaxLengthOutOfRange, "max_length", length)?;
    let slippage = format!("0..={}", QuoteRequest::MAX_SLIPPAGE_BPS);
    let slippage = fits(limits.slippage_bps, ErrorCode::SlippageOutOfRange, "slippage_bps", slippage)?;
    // u32 → usize: a count flag always fits (usize is at least 32 bits on the targets the binary builds for).
    let count = |n: u32| usize::try_from(n).unwrap_or(usize::MAX);
    let request =
        QuoteRequest::try_new(in_asset, out_asset, amount, limits.swap_mode, count(splits), count(length), slippage)?;
    Ok(request)
}

/// The snapshot's entry of the asset `id` (as the API takes it), `None` when it is not an id of the snapshot.
fn meta_of<'g>(graph: &'g PoolGraph, id: &str) -> Option<&'g AssetMeta> {
    let asset = Asset::parse(id).ok()?;
    graph.asset_id(&asset).map(|i| graph.asset(i))
}

/// How AMOUNT was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Written {
    /// A bare integer: smallest units, passed on as written.
    SmallestUnits,
    /// A decimal point or a ticker suffix: whole tokens, converted exactly.
    WholeTokens,
    /// Anything else, passed on for the API to refuse with its code.
    AsGiven,
}

/// AMOUNT as the API takes it (an integer in the smallest units of `asset`) and how it was written. Whole tokens
/// where that is unambiguous: a decimal point (`1.5`, `.5`, `100.`) or a ticker suffix naming `asset` (`100TON`,
/// `2.5usdt`, `100 TON`), converted exactly with the asset's decimals (more fractional digits than it has are
/// refused, code 1016); a bare integer stays in smallest units (nanotons for TON), as the API reads it. Text
/// that is neither goes on unchanged, for the API to refuse with its code.
fn amount_in_units(text: &str, asset: &AssetMeta, graph: &PoolGraph) -> Result<(String, Written), ApiError> {
    // `+5` is the integer 5 to the API's parser; so it is here (a bare integer in smallest units).
    let t = text.trim();
    let t = t.strip_prefix('+').unwrap_or(t);
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (number, suffix) = (&t[..split], t[split..].trim());
    if number.is_empty() || (suffix.is_empty() && !number.contains('.')) {
        let form = if number.is_empty() { Written::AsGiven } else { Written::SmallestUnits };
        return Ok((text.to_string(), form));
    }
    let refuse = |code, why: String| Err(ApiError::new(code, format!("AMOUNT `{text}`: {why}")));
    if !suffix.is_empty() && fold(suffix) != fold(&asset.symbol) {
        let named: Vec<&AssetMeta> = graph.assets().iter().filter(|a| fold(&a.symbol) == fold(suffix)).collect();
        return match named.first() {
            Some(other) => refuse(
                ErrorCode::BadAmount,
                format!("counts {}, but AMOUNT is an amount of {} here", other.symbol, asset.symbol),
            ),
            None => refuse(
                ErrorCode::BadAmount,
                format!(
                    "`{suffix}` is not the ticker of {}; AMOUNT is an integer in smallest units, or whole tokens as \
                     1.5 or 100{}",
                    asset.symbol, asset.symbol
                ),
            ),
        };
    }
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if fraction.contains('.') || (whole.is_empty() && fraction.is_empty()) {
        return refuse(ErrorCode::BadAmount, "not a number".to_string());
    }
    let decimals = usize::from(asset.decimals);
    if fraction.len() > decimals {
        return refuse(
            ErrorCode::FractionalAmount,
            format!("{} decimal places, but {} has {decimals}", fraction.len(), asset.symbol),
        );
    }
    // Digits only (checked above), so the text is the exact integer in smallest units.
    let digits = format!("{whole}{fraction:0<decimals$}");
    let digits = digits.trim_start_matches('0');
    let units = if digits.is_empty() { "0" } else { digits };
    if units.len() > 39 || units.parse::<u128>().is_err() {
        return refuse(ErrorCode::AmountTooLarge, "not below 2^120 (the chain's Coins limit)".to_string());
    }
    Ok((units.to_string(), Written::WholeTokens))
}

/// The API's refusal, with a hint when AMOUNT was a bare integer that every route refuses (3002: the output
/// rounds to zero, usually because AMOUNT was meant in whole tokens).
fn hinted(error: ApiError, amount: &str, written: Written, asset: Option<&AssetMeta>) -> CliError {
    match asset {
        Some(a) if written == Written::SmallestUnits && error.kind() == ErrorCode::AmountRefused => {
            let t = amount.trim();
            let t = t.strip_prefix('+').unwrap_or(t);
            let hint = format!(
                "AMOUNT {t} is in the smallest units of {s} ({t} = {} {s}); for whole tokens write {t}.0 or {t}{s}",
                whole_units(t, a.decimals),
                s = a.symbol
            );
            CliError::Hinted { error, hint }
        }
        _ => CliError::Refused(error),
    }
}

/// A warning when the quote's network fee (TON) is worth more than its output: by the output itself when it is
/// TON, else at the snapshot's USD prices of TON and the output (none when the snapshot has no price for them).
fn fee_warning(graph: &PoolGraph, answer: &QuoteResponse) -> Option<String> {
    let fee: u128 = answer.display_data.iter().filter_map(|d| d.network_fee.parse::<u128>().ok()).sum();
    let out: u128 = answer.out_amount.parse().ok()?;
    let out_asset = answer.display_data.first()?.steps.last()?.out_minter.address.clone();
    let out_meta = meta_of(graph, &out_asset)?;
    let ton = meta_of(graph, "native");
    let fee_text = format!("{} TON", whole_units(&fee.to_string(), 9));
    let out_text = format!("{} {}", whole_units(&answer.out_amount, out_meta.decimals), out_meta.symbol);
    if out_meta.asset == Asset::Native {
        return (fee > out).then(|| format!("the network fee ({fee_text}) exceeds the output ({out_text})"));
    }
    let (ton_usd, out_usd) = (ton?.usd_price?, out_meta.usd_price?);
    let fee_value = fee as f64 / 1e9 * ton_usd;
    let out_value = out as f64 / 10f64.powi(i32::from(out_meta.decimals)) * out_usd;
    (fee_value > out_value).then(|| {
        format!(
            "the network fee ({fee_text}, ≈ ${fee_value:.4}) exceeds the output's value ({out_text}, ≈ ${out_value:.6}) \
             at the snapshot's prices"
        )
    })
}

/// A ticker as compared: case-insensitive, `₮` read as `T` (so `USDT` names `USD₮`).
fn fold(s: &str) -> String {
    s.replace('₮', "T").to_lowercase()
}

/// A convenience of the shell only: a ticker (`TON`, `usdt`) that names exactly one snapshot asset stands for
/// its id. An id or an address is passed on unchanged for the API's parser to accept or refuse; a word that is
/// neither is refused here, naming the nearest tickers of the snapshot (or, for a ticker several assets share,
/// their ids).
fn resolve_asset(graph: &PoolGraph, field: &str, text: String) -> Result<String, ApiError> {
    if Asset::parse(&text).is_ok() {
        return Ok(text);
    }
    let wanted = fold(text.trim());
    let named = |a: &AssetMeta| format!("{} ({})", a.symbol, a.asset);
    let hits: Vec<_> = graph.assets().iter().filter(|a| fold(&a.symbol) == wanted).collect();
    match hits.as_slice() {
        [one] => return Ok(one.asset.to_string()),
        [] => {}
        many => {
            let list: Vec<String> = many.iter().map(|a| named(a)).collect();
            return Err(ApiError::new(
                ErrorCode::BadAsset,
                format!(
                    "field `{field}`: ticker `{text}` names {} assets; give the id: {}",
                    many.len(),
                    list.join(", ")
                ),
            ));
        }
    }
    // Something written as an address or an id: the API's parser says what is wrong with it.
    let t = text.trim();
    if t.contains(':') || t.len() == 48 || ["EQ", "UQ", "Ef", "Uf", "kQ", "0Q"].iter().any(|p| t.starts_with(p)) {
        return Ok(text);
    }
    let mut near: Vec<(usize, &AssetMeta)> =
        graph.assets().iter().map(|a| (edit_distance(&wanted, &fold(&a.symbol)), a)).collect();
    near.sort_by(|x, y| x.0.cmp(&y.0).then_with(|| x.1.symbol.cmp(&y.1.symbol)));
    let list: Vec<String> = near.iter().take(3).map(|(_, a)| named(a)).collect();
    Err(ApiError::new(
        ErrorCode::UnknownAsset,
        format!(
            "field `{field}`: `{text}` is neither an asset id (`native`, `jetton:0:<64 hex>`, an address) nor a \
             ticker of the snapshot; nearest tickers: {}",
            list.join(", ")
        ),
    ))
}

/// Levenshtein distance over characters (tickers are short: the quadratic table is a few hundred cells).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = diagonal + usize::from(ca != *cb);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::edit_distance;
    use super::{amount_in_units, Written};
    use tonroute::asset::Asset;
    use tonroute::graph::{AssetMeta, GraphBuilder};

    #[test]
    fn amounts_in_whole_tokens_convert_exactly_and_integers_stay_in_smallest_units() {
        let ton = AssetMeta::new(Asset::Native, "TON", 9);
        let usdt = AssetMeta::new(Asset::parse(tonroute::asset::known::USDT).unwrap(), "USD₮", 6);
        let graph = GraphBuilder::new().build();
        let units = |text: &str, a: &AssetMeta| {
            amount_in_units(text, a, &graph).map_err(|e| (e.code(), e.message().to_string()))
        };
        assert_eq!(units("100", &ton), Ok(("100".into(), Written::SmallestUnits)));
        assert_eq!(units("1.5", &ton), Ok(("1500000000".into(), Written::WholeTokens)));
        assert_eq!(units("100TON", &ton), Ok(("100000000000".into(), Written::WholeTokens)));
        assert_eq!(units("100 ton", &ton), Ok(("100000000000".into(), Written::WholeTokens)));
        assert_eq!(units("2.5USDT", &usdt), Ok(("2500000".into(), Written::WholeTokens)));
        assert_eq!(units(".000001", &usdt), Ok(("1".into(), Written::WholeTokens)));
        assert_eq!(units("0.000000001", &ton), Ok(("1".into(), Written::WholeTokens)));
        assert_eq!(units("1.0000000001", &ton).map_err(|e| e.0), Err(1016));
        assert_eq!(units("1.2.3", &ton).map_err(|e| e.0), Err(1012));
        assert_eq!(units("1e9", &ton).map_err(|e| e.0), Err(1012));
        assert_eq!(units("-5", &ton), Ok(("-5".into(), Written::AsGiven)));
        // A leading `+` is the same number (the API's parser takes it): `+5` is a bare integer like `5`.
        assert_eq!(units("+5", &ton), Ok(("+5".into(), Written::SmallestUnits)));
        assert_eq!(units("+1.5", &ton), Ok(("1500000000".into(), Written::WholeTokens)));
        assert_eq!(units("++5", &ton), Ok(("++5".into(), Written::AsGiven)));
        assert_eq!(units("999999999999999999999999999999999.0", &ton).map_err(|e| e.0), Err(1014));
    }

    #[test]
    fn edit_distance_counts_single_character_edits() {
        assert_eq!(edit_distance("usdt", "usdt"), 0);
        assert_eq!(edit_distance("usdtt", "usdt"), 1);
        assert_eq!(edit_distance("jt55", "jt5"), 1);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "ton"), 3);
    }
}

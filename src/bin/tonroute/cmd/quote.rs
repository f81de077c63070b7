//! `tonroute quote`: the best route(s) through [`tonroute::api::Api::quote`], as a table or as the `/v4` JSON;
//! tickers (`TON`, `usdt`) stand for the one snapshot asset they name. `--certify` asks the API for the quote's
//! optimality certificate (`"certify": true`), computed without a time limit here.

use std::sync::Arc;

use tonroute::api::{Api, ApiError, ErrorCode};
use tonroute::asset::Asset;
use tonroute::graph::{AssetMeta, PoolGraph};

use crate::args::QuoteArgs;
use crate::error::CliError;
use crate::print;

pub(super) fn run(args: QuoteArgs) -> Result<(), CliError> {
    let swap_mode = if args.exact_out { "exact_out" } else { "exact_in" };
    let graph = super::load_graph(args.snapshot)?;
    let in_asset = resolve_asset(&graph, "in_minter", args.in_asset)?;
    let out_asset = resolve_asset(&graph, "out_minter", args.out_asset)?;
    let mut body = serde_json::json!({
        "in_minter": in_asset, "out_minter": out_asset, "amount": args.amount, "swap_mode": swap_mode,
        "slippage_bps": args.slippage_bps, "max_splits": args.max_splits, "max_length": args.max_length,
    });
    if args.certify {
        body["certify"] = true.into();
    }
    let answer = Api::new(Arc::new(graph)).quote(body.to_string().as_bytes())?;
    if args.json {
        print::json(&answer)
    } else {
        print::quote_table(&answer);
        Ok(())
    }
}

/// A convenience of the shell only: a ticker (`TON`, `usdt`) that names exactly one snapshot asset stands for
/// its id. An id or an address is passed on unchanged for the API's parser to accept or refuse; a word that is
/// neither is refused here, naming the nearest tickers of the snapshot (or, for a ticker several assets share,
/// their ids).
fn resolve_asset(graph: &PoolGraph, field: &str, text: String) -> Result<String, ApiError> {
    if Asset::parse(&text).is_ok() {
        return Ok(text);
    }
    let fold = |s: &str| s.replace('₮', "T").to_lowercase();
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

    #[test]
    fn edit_distance_counts_single_character_edits() {
        assert_eq!(edit_distance("usdt", "usdt"), 0);
        assert_eq!(edit_distance("usdtt", "usdt"), 1);
        assert_eq!(edit_distance("jt55", "jt5"), 1);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "ton"), 3);
    }
}

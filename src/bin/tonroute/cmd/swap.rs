//! `tonroute swap`: the messages for a quote read from stdin. The quote (a whole `/v4` quote answer, or just its
//! `swap_data`) is a JSON document the user gives, so its `swap_data` is read by the API's typed reader
//! ([`tonroute::api::parse::parse_swap_data`]); `--sender` by the API's address parser; the library then
//! checks and builds the messages ([`tonroute::api::Api::swap_parsed`]). Every refusal is the API's
//! `{code, message}` for the same values.
//!
//! A `swap_data` quoted on another snapshot than the one `swap` loads (the user gave `quote --snapshot FILE`
//! and not `swap --snapshot FILE`) is refused by the API with what it sees; this command adds which snapshot
//! it read and the flag that fixes it.

use std::error::Error as _;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use tonroute::api::parse::{parse_swap_data, SwapRequest};
use tonroute::api::value::Address;
use tonroute::api::{Api, ApiError, SwapClock};
use tonroute::swap::SwapError;

use super::LoadedSnapshot;
use crate::args::SwapArgs;
use crate::error::CliError;
use crate::print;

pub(super) fn run(args: SwapArgs) -> Result<(), CliError> {
    let given = args.snapshot.snapshot.is_some();
    let loaded = LoadedSnapshot::read(args.snapshot)?;
    loaded.require_pools()?;
    let graph = loaded.graph()?;
    let mut input = String::new();
    std::io::stdin().read_to_string(&mut input).map_err(CliError::ReadStdin)?;
    let value: serde_json::Value = serde_json::from_str(&input).map_err(|error| CliError::StdinNotJson {
        // `quote`'s table starts `AMOUNT SYMBOL → AMOUNT SYMBOL` and has a `min out` line.
        table: input.lines().next().is_some_and(|l| l.contains(" → ")) && input.contains("\nmin out"),
        error,
    })?;
    // A whole quote response, or just its swap_data.
    let swap_data = value.get("swap_data").unwrap_or(&value);
    // The API reads `sender_address` before `swap_data`; so does this.
    let sender = Address::parse(&args.sender).map_err(|p| ApiError::field(p.kind(), "sender_address", p.message()))?.0;
    let request = SwapRequest { sender, swap_data: parse_swap_data(swap_data, "swap_data")? };
    let data = &request.swap_data;
    let outs = data.routes.iter().filter_map(|steps| steps.last()).map(|s| s.out_amount);
    let zero_min_out = super::zero_min_out_warning(data.slippage_bps, outs);
    let api = Api::new(Arc::new(graph));
    let millis = match args.now {
        // At most MAX_NOW_SECS (the flag's parser), so the product is below 2^53.
        Some(seconds) => seconds.saturating_mul(1000),
        None => now_millis(),
    };
    let answer =
        api.swap_parsed(request, SwapClock::at(millis)).map_err(|e| with_snapshot_hint(e, &loaded.path, given))?;
    // Said once the messages are built (a refused swap_data gets its error alone).
    if let Some(warning) = zero_min_out {
        eprintln!("warning: stdin's swap_data: {warning}");
    }
    print::json(&answer)
}

/// The API's refusal, with which snapshot this run read and the flag that picks another, when the refusal
/// says the `swap_data` belongs to another snapshot.
fn with_snapshot_hint(e: ApiError, path: &Path, given: bool) -> ApiError {
    let elsewhere = e.source().and_then(|s| s.downcast_ref::<SwapError>()).is_some_and(|s| {
        matches!(
            s,
            SwapError::PoolsNotInGraph { .. }
                | SwapError::UnknownPool { .. }
                | SwapError::QuotedElsewhere { .. }
                | SwapError::MissingStepDetails { .. }
                | SwapError::StepDetailsMismatch { .. }
                | SwapError::QuoteOnlyPool { carried: true, .. }
        )
    });
    if !elsewhere {
        return e;
    }
    let which = if given { "the snapshot" } else { "the default snapshot" };
    let hint = format!(
        "; swap read {which} {}: give `swap` the same `--snapshot FILE` as the `quote` that made this swap_data",
        path.display()
    );
    let mut hinted = ApiError::new(e.kind(), format!("{}{hint}", e.message()));
    if let Some(source) = e.source().and_then(|s| s.downcast_ref::<SwapError>()) {
        hinted = hinted.with_source(source.clone());
    }
    hinted
}

/// The command's clock (unless `--now` is given): a swap's `query_id` and deadline come from it.
fn now_millis() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

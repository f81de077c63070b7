//! `tonroute swap`: the messages for a quote read from stdin, through [`tonroute::api::Api::swap`].

use std::io::Read;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use tonroute::api::{Api, SwapClock};

use crate::args::SwapArgs;
use crate::error::CliError;
use crate::print;

pub(super) fn run(args: SwapArgs) -> Result<(), CliError> {
    let graph = super::load_graph(args.snapshot)?;
    let mut input = String::new();
    std::io::stdin().read_to_string(&mut input).map_err(CliError::ReadStdin)?;
    let value: serde_json::Value = serde_json::from_str(&input).map_err(CliError::StdinNotJson)?;
    // A whole quote response, or just its swap_data.
    let swap_data = value.get("swap_data").cloned().unwrap_or(value);
    let body = serde_json::json!({ "sender_address": args.sender, "swap_data": swap_data });
    let api = Api::new(Arc::new(graph));
    let millis = match args.now {
        Some(seconds) => seconds.saturating_mul(1000),
        None => now_millis(),
    };
    let answer = api.swap(body.to_string().as_bytes(), SwapClock::at(millis))?;
    print::json(&answer)
}

/// The command's clock (unless `--now` is given): a swap's `query_id` and deadline come from it.
fn now_millis() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

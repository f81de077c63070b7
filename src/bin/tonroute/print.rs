//! What the binary writes to stdout: JSON answers, and the quote as a table for a human (amounts in whole
//! tokens, addresses shortened; with `--certify` a `certificate` line: the bound and the gap). Formatting
//! only; it computes nothing the API did not answer, except the minimum output summed from the answer's own
//! routes.

use serde::Serialize;
use tonroute::api::wire::{DisplayRoute, QuoteResponse};
// Amounts in whole tokens, as the tables print them.
use tonroute::asset::whole_units as units;

use crate::error::CliError;

/// `println!` that ends the process quietly when stdout is closed (`tonroute quote … | head`), instead of
/// panicking on the broken pipe.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = writeln!(std::io::stdout().lock(), $($arg)*) {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                std::process::exit(0);
            }
        }
    }};
}
pub(crate) use out;

/// An answer as pretty JSON.
pub(crate) fn json(answer: &impl Serialize) -> Result<(), CliError> {
    out!("{}", serde_json::to_string_pretty(answer).map_err(CliError::WriteJson)?);
    Ok(())
}

fn short(addr: &str) -> String {
    if addr.len() > 16 {
        format!("{}…{}", &addr[..8], &addr[addr.len() - 4..])
    } else {
        addr.to_string()
    }
}

fn percent_of_fraction(text: &str) -> String {
    text.parse::<f64>().map_or_else(|_| text.to_string(), |v| format!("{:+.4} %", v * 100.0))
}

/// The quote as a summary and one line per route and hop.
pub(crate) fn quote_table(r: &QuoteResponse) {
    let first = r.display_data.first().and_then(|d| d.steps.first());
    let last = r.display_data.first().and_then(|d| d.steps.last());
    let (Some(first), Some(last)) = (first, last) else {
        out!("no routes");
        return;
    };
    let (tin, tout) = (&first.in_minter, &last.out_minter);
    let slippage = r.swap_data.slippage_bps;
    let min_out: u128 = r
        .swap_data
        .routes
        .iter()
        .filter_map(|route| route.last())
        .map(|s| s.out_amount.0)
        .filter_map(|o| tonroute::route::min_out(o, slippage).ok())
        .sum();
    let fee: u128 = r.display_data.iter().filter_map(|d| d.network_fee.parse::<u128>().ok()).sum();
    out!(
        "{} {} → {} {}",
        units(&r.in_amount, tin.decimals),
        tin.symbol,
        units(&r.out_amount, tout.decimals),
        tout.symbol
    );
    out!(
        "min out      {} {} (slippage {}.{:02} %)",
        units(&min_out.to_string(), tout.decimals),
        tout.symbol,
        slippage / 100,
        slippage % 100
    );
    out!("price impact {:.4} %", r.price_impact * 100.0);
    out!("improvement  {} over the best single route", percent_of_fraction(&r.improvement));
    out!("network fee  {} TON", units(&fee.to_string(), 9));
    match &r.certificate {
        None => {}
        Some(Some(c)) => out!(
            "certificate  no routing of this input gets more than {} {}; the quote is {} bp below that",
            units(&c.upper_bound, tout.decimals),
            tout.symbol,
            gap_text(c.gap_bps)
        ),
        Some(None) => out!("certificate  none could be given for this quote"),
    }
    out!("routes       {}", r.display_data.len());
    out!();
    out!("{:<6} {:>8}  {:>24}  {:>24}  {:>12}", "route", "share", "in", "out", "fee TON");
    for (i, d) in r.display_data.iter().enumerate() {
        route_lines(i, d);
    }
    if !r.swap_is_possible {
        out!();
        out!(
            "quote only: the pools marked [quote-only] cannot be swapped from this snapshot (their router wallets \
             or vaults are unknown; `tonroute import` says why): `swap` refuses this quote"
        );
    }
}

/// A gap in basis points: four decimals, or two significant digits below 0.0001 bp (a tight bound is not
/// printed as a flat zero unless it is one).
fn gap_text(bps: f64) -> String {
    if bps == 0.0 || bps >= 1e-4 {
        format!("{bps:.4}")
    } else {
        format!("{bps:.1e}")
    }
}

fn route_lines(i: usize, d: &DisplayRoute) {
    let (Some(first), Some(last)) = (d.steps.first(), d.steps.last()) else { return };
    out!(
        "{:<6} {:>6.2} %  {:>24}  {:>24}  {:>12}",
        format!("#{}", i + 1),
        d.in_percent,
        format!("{} {}", units(&first.in_amount, first.in_minter.decimals), first.in_minter.symbol),
        format!("{} {}", units(&last.out_amount, last.out_minter.decimals), last.out_minter.symbol),
        units(&d.network_fee, 9)
    );
    for (j, s) in d.steps.iter().enumerate() {
        out!(
            "         hop {}  {:<9} pool {}  {} {} → {} {}{}",
            j + 1,
            s.protocol.slug,
            short(&s.pool_address),
            units(&s.in_amount, s.in_minter.decimals),
            s.in_minter.symbol,
            units(&s.out_amount, s.out_minter.decimals),
            s.out_minter.symbol,
            if s.quote_only { "  [quote-only]" } else { "" }
        );
    }
}

#[cfg(test)]
mod tests {
    use super::{short, units};

    #[test]
    fn units_place_the_point() {
        assert_eq!(units("100000000000", 9), "100");
        assert_eq!(units("1", 9), "0.000000001");
        assert_eq!(units("137912345678", 6), "137912.345678");
        assert_eq!(units("5", 0), "5");
        assert_eq!(units("1500000", 6), "1.5");
    }

    #[test]
    fn gaps_keep_their_significant_digits() {
        assert_eq!(super::gap_text(0.0), "0.0000");
        assert_eq!(super::gap_text(12.345_67), "12.3457");
        assert_eq!(super::gap_text(0.000_012_3), "1.2e-5");
    }

    #[test]
    fn short_keeps_both_ends_of_a_long_address() {
        assert_eq!(short("EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs"), "EQCxE6mU…_sDs");
        assert_eq!(short("native"), "native");
    }
}

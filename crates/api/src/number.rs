//! The spec's two number patterns as the JSON layer reads them: LargeInteger `^[-+]?[0-9]+$` and LargeFloat
//! `^[-+]?[0-9]*\.?[0-9]+$`. They are owned by [`tonroute_core::decimal`], below this layer and the market domain, which
//! both match them; this module keeps the layer's path to them ([`super::value`] reads amounts and reserves
//! through it).

pub use tonroute_core::decimal::{is_large_float, large_integer};

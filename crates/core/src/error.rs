//! Plumbing shared by the crate's error types: [`Shared`], which keeps an underlying error (a JSON parser's, a
//! bag-of-cells decoder's) as the source of ours while our error types stay `Clone` and comparable.
//!
//! Owns no error of its own and must not turn an error into text: the point is to keep the original.

use std::fmt;
use std::sync::Arc;

/// An error kept whole behind an `Arc`: `Clone` whatever `E` is, displayed as `E`, and equal to another
/// when both say the same (errors such as `serde_json::Error` have no equality of their own). Reach the
/// original with [`Shared::get`] or through [`std::error::Error::source`] chains.
pub struct Shared<E>(Arc<E>);

impl<E> Shared<E> {
    /// Wraps `error`.
    pub fn new(error: E) -> Shared<E> {
        Shared(Arc::new(error))
    }

    /// The original error.
    pub fn get(&self) -> &E {
        &self.0
    }
}

impl<E> Clone for Shared<E> {
    fn clone(&self) -> Shared<E> {
        Shared(Arc::clone(&self.0))
    }
}

impl<E: fmt::Debug> fmt::Debug for Shared<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl<E: fmt::Display> fmt::Display for Shared<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl<E: fmt::Display> PartialEq for Shared<E> {
    fn eq(&self, other: &Shared<E>) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0.to_string() == other.0.to_string()
    }
}

impl<E: fmt::Display> Eq for Shared<E> {}

impl<E: std::error::Error> std::error::Error for Shared<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

impl<E> From<E> for Shared<E> {
    fn from(error: E) -> Shared<E> {
        Shared::new(error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_errors_clone_compare_and_keep_the_original() {
        #[cfg(feature = "serde")]
        {
            let e = serde_json::from_str::<u8>("x").unwrap_err();
            let (line, column) = (e.line(), e.column());
            let shared = Shared::new(e);
            let copy = shared.clone();
            assert_eq!(shared, copy);
            assert_eq!((copy.get().line(), copy.get().column()), (line, column));
            assert_eq!(shared.to_string(), copy.get().to_string());
            assert_ne!(shared, Shared::new(serde_json::from_str::<u8>("300").unwrap_err()));
        }
        let io = Shared::new(std::io::Error::other("disk"));
        assert_eq!(io.get().kind(), std::io::ErrorKind::Other);
    }
}

//! Graceful shutdown: when to stop, and how long to wait for what is in flight.
//!
//! Owns [`signal`], the future that resolves on the first SIGTERM or SIGINT (Ctrl-C), and [`Shutdown`], the
//! one trigger the serve loop takes: a cancellation token that any number of accept loops, connection tasks
//! and background watchers can wait on (a `tokio::sync::watch`, so a waiter that subscribes late still sees it
//! fired). Must not know about routes or the API: [`super::serve`] stops
//! accepting when the trigger fires, lets every request in flight finish (its answer is written, the
//! connection closed), and gives up on those still running after the grace period.

use std::future::Future;
use std::time::Duration;

use tokio::sync::watch;

/// How long in-flight requests may take to finish after the signal, by default.
pub const DEFAULT_GRACE: Duration = Duration::from_secs(30);

/// A shutdown trigger: cloned freely, fired once ([`Shutdown::fire`]), awaited by any number of tasks
/// ([`Shutdown::fired`]).
#[derive(Debug, Clone)]
pub struct Shutdown {
    tx: std::sync::Arc<watch::Sender<bool>>,
}

impl Shutdown {
    /// A trigger that has not fired.
    pub fn new() -> Shutdown {
        Shutdown { tx: std::sync::Arc::new(watch::channel(false).0) }
    }

    /// Fires the trigger (idempotent).
    pub fn fire(&self) {
        self.tx.send_replace(true);
    }

    /// Whether it has fired.
    pub fn is_fired(&self) -> bool {
        *self.tx.borrow()
    }

    /// Resolves once the trigger has fired (at once if it already has).
    pub fn fired(&self) -> impl Future<Output = ()> + Send + 'static {
        let mut rx = self.tx.subscribe();
        async move {
            // `wait_for` fails only when the sender is gone; `self` holds it in an Arc the future does not
            // keep, so a dropped trigger counts as fired (nobody can fire it any more).
            let _ = rx.wait_for(|fired| *fired).await;
        }
    }

    /// Fires the trigger when `signal` resolves (e.g. [`signal`]), on a task of the current runtime.
    pub fn fire_on(&self, signal: impl Future<Output = ()> + Send + 'static) {
        let me = self.clone();
        tokio::spawn(async move {
            signal.await;
            me.fire();
        });
    }
}

impl Default for Shutdown {
    fn default() -> Shutdown {
        Shutdown::new()
    }
}

/// Resolves on the first SIGTERM or SIGINT. The handlers are installed when this is called (inside a
/// runtime), not when the future is first polled, so a signal that arrives as soon as the server announces
/// itself is not lost to the default action (termination). A signal whose handler cannot be installed is never
/// awaited; with neither, the server runs until killed.
#[cfg(unix)]
pub fn signal() -> impl Future<Output = ()> + Send + 'static {
    use tokio::signal::unix::{signal as install, Signal, SignalKind};
    let mut terminate = install(SignalKind::terminate()).ok();
    let mut interrupt = install(SignalKind::interrupt()).ok();
    async fn next(s: &mut Option<Signal>) {
        match s {
            Some(s) => {
                s.recv().await;
            }
            None => std::future::pending::<()>().await,
        }
    }
    async move {
        tokio::select! {
            () = next(&mut terminate) => tracing::info!(target: "tonroute::shutdown", "SIGTERM: stopping"),
            () = next(&mut interrupt) => tracing::info!(target: "tonroute::shutdown", "SIGINT: stopping"),
        }
    }
}

/// Resolves on Ctrl-C (no SIGTERM off Unix).
#[cfg(not(unix))]
pub fn signal() -> impl Future<Output = ()> + Send + 'static {
    async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_late_waiter_sees_the_trigger_fired() {
        let s = Shutdown::new();
        assert!(!s.is_fired());
        s.fire();
        s.fire();
        assert!(s.is_fired());
        tokio::time::timeout(Duration::from_secs(5), s.fired()).await.expect("fired resolves after fire");
    }
}

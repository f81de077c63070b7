//! The accept loop: HTTP/1 connections with a header timeout, an idle timeout and a connection cap.
//!
//! Owns sockets and connection lifetimes only; every request goes to the axum application unchanged, with
//! the peer's address as `ConnectInfo<SocketAddr>` (for the rate limit). Must not look at requests.
//!
//! Each connection has a watchdog that knows whether a request is inside the application (`in_flight`),
//! when the first byte of the next request head arrived, and when a byte last moved either way:
//! - **header timeout** (`--header-timeout-ms`): a request head that started arriving must be complete
//!   within it (a slowloris client trickling header bytes is closed);
//! - **idle timeout** (`--idle-timeout-ms`): a connection with no request in flight on which no byte moved
//!   for that long is closed (keep-alive sockets left open, clients that never send, a client that stops
//!   reading its answer);
//! - the body of a request is the edge's ([`super::limits`], `--body-timeout-ms`).
//!
//! **Connection cap** (`--max-connections`): at the cap, a new connection closes the connection that has been
//! idle longest (no request in flight), so a flood of idle or slow sockets cannot lock out `/health` or any
//! real client; only when every connection has a request in flight is the newcomer answered 503
//! ([`ErrorCode::TooManyConnections`], `Retry-After: 1`) and closed.
//!
//! Shutdown: when `shutdown` resolves the loop stops accepting, idle connections close, and connections
//! with a request in flight finish it (hyper's graceful shutdown); [`serve_connections`] returns when all are
//! gone.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Notify};
use tower::ServiceExt;

use crate::api::{ApiError, ErrorCode};

/// Connection limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnLimits {
    /// A started request head must be complete within this.
    pub header_timeout: Duration,
    /// A connection with nothing in flight and no byte moving is closed after this.
    pub idle_timeout: Duration,
    /// Most open connections.
    pub max_connections: usize,
}

impl Default for ConnLimits {
    fn default() -> ConnLimits {
        ConnLimits {
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            max_connections: 1024,
        }
    }
}

/// What the watchdog and the accept loop know of one connection.
struct ConnState {
    /// Requests inside the application.
    in_flight: AtomicUsize,
    /// Milliseconds since the server's epoch when a byte last moved (0 = never).
    last_activity: AtomicU64,
    /// Milliseconds since the epoch when the next request head started arriving; `u64::MAX` = not started.
    head_started: AtomicU64,
    /// Asks the connection to close (eviction or shutdown).
    close: Notify,
}

const NOT_STARTED: u64 = u64::MAX;

struct Clock(Instant);

impl Clock {
    fn now(&self) -> u64 {
        u64::try_from(self.0.elapsed().as_millis()).unwrap_or(u64::MAX - 1)
    }
}

/// The socket, noting every byte that moves.
struct Tracked {
    stream: TcpStream,
    state: Arc<ConnState>,
    clock: Arc<Clock>,
}

impl Tracked {
    fn moved(&self, reading: bool) {
        let now = self.clock.now();
        self.state.last_activity.store(now, Ordering::Relaxed);
        if reading && self.state.in_flight.load(Ordering::Relaxed) == 0 {
            // The first byte of the next head; later bytes keep the first time.
            let _ = self.state.head_started.compare_exchange(NOT_STARTED, now, Ordering::Relaxed, Ordering::Relaxed);
        }
    }
}

impl AsyncRead for Tracked {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let result = Pin::new(&mut self.stream).poll_read(cx, buf);
        if matches!(result, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.moved(true);
        }
        result
    }
}

impl AsyncWrite for Tracked {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
        let result = Pin::new(&mut self.stream).poll_write(cx, data);
        if matches!(result, Poll::Ready(Ok(n)) if n > 0) {
            self.moved(false);
        }
        result
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// Counts a request in flight for as long as it lives (also when the connection drops it).
struct InFlight(Arc<ConnState>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The open connections.
#[derive(Default)]
struct Registry {
    next_id: u64,
    open: HashMap<u64, Arc<ConnState>>,
}

/// Serves `app` on `listener` with `limits` until `shutdown` resolves (see the module doc), then waits for
/// the open connections to finish their requests.
pub async fn serve_connections(
    listener: TcpListener,
    app: Router,
    limits: ConnLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    let clock = Arc::new(Clock(Instant::now()));
    let registry = Arc::new(Mutex::new(Registry::default()));
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(pair) => pair,
                // Per-connection failures (reset before accept, out of descriptors): keep serving the others.
                Err(e) => {
                    tracing::warn!("accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
            },
        };
        let _ = stream.set_nodelay(true);
        let state = Arc::new(ConnState {
            in_flight: AtomicUsize::new(0),
            last_activity: AtomicU64::new(clock.now()),
            head_started: AtomicU64::new(NOT_STARTED),
            close: Notify::new(),
        });
        let id = {
            // A poisoned lock only means a connection task panicked; the map itself is consistent.
            let mut reg = registry.lock().unwrap_or_else(|p| p.into_inner());
            if reg.open.len() >= limits.max_connections {
                let victim = reg
                    .open
                    .iter()
                    .filter(|(_, c)| c.in_flight.load(Ordering::Relaxed) == 0)
                    .min_by_key(|(_, c)| c.last_activity.load(Ordering::Relaxed))
                    .map(|(id, _)| *id);
                match victim.and_then(|id| reg.open.remove(&id)) {
                    Some(evicted) => evicted.close.notify_one(),
                    None => {
                        drop(reg);
                        tokio::spawn(refuse(stream));
                        continue;
                    }
                }
            }
            reg.next_id += 1;
            let id = reg.next_id;
            reg.open.insert(id, state.clone());
            id
        };
        let (app, registry, clock, stop) = (app.clone(), registry.clone(), clock.clone(), stop_rx.clone());
        tokio::spawn(async move {
            connection(stream, peer, app, state, clock, limits, stop).await;
            registry.lock().unwrap_or_else(|p| p.into_inner()).open.remove(&id);
        });
    }
    drop(listener);
    let _ = stop_tx.send(true);
    // Wait for the connections to finish (each closes at once when idle, or after its request).
    while !registry.lock().unwrap_or_else(|p| p.into_inner()).open.is_empty() {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Ok(())
}

/// Answers a connection over the cap with 503 and closes it, reading what the client already sent (bounded)
/// so that the close does not reset the answer away.
async fn refuse(mut stream: TcpStream) {
    let body =
        ApiError::new(ErrorCode::TooManyConnections, "every connection slot is busy with a request; retry in a second")
            .to_json();
    let answer = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 1\r\n\
         connection: close\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        let _ = stream.write_all(answer.as_bytes()).await;
        let _ = stream.shutdown().await;
        let mut sink = [0u8; 4096];
        let mut left = 64 * 1024usize;
        while let Ok(n @ 1..) = stream.read(&mut sink).await {
            left = left.saturating_sub(n);
            if left == 0 {
                break;
            }
        }
    })
    .await;
}

/// One connection: hyper's HTTP/1 with the watchdog.
async fn connection(
    stream: TcpStream,
    peer: SocketAddr,
    app: Router,
    state: Arc<ConnState>,
    clock: Arc<Clock>,
    limits: ConnLimits,
    mut stop: watch::Receiver<bool>,
) {
    let io = TokioIo::new(Tracked { stream, state: state.clone(), clock: clock.clone() });
    let service_state = state.clone();
    let service = hyper::service::service_fn(move |mut req: hyper::Request<Incoming>| {
        service_state.head_started.store(NOT_STARTED, Ordering::Relaxed);
        service_state.in_flight.fetch_add(1, Ordering::Relaxed);
        let guard = InFlight(service_state.clone());
        req.extensions_mut().insert(ConnectInfo(peer));
        let app = app.clone();
        async move {
            let response = app.oneshot(req.map(Body::new)).await;
            drop(guard);
            response
        }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.keep_alive(true);
    let conn = builder.serve_connection(io, service);
    let mut conn = std::pin::pin!(conn);
    let tick =
        (limits.header_timeout.min(limits.idle_timeout) / 4).clamp(Duration::from_millis(10), Duration::from_secs(1));
    let header_ms = u64::try_from(limits.header_timeout.as_millis()).unwrap_or(u64::MAX);
    let idle_ms = u64::try_from(limits.idle_timeout.as_millis()).unwrap_or(u64::MAX);
    let mut closing = false;
    loop {
        tokio::select! {
            _ = conn.as_mut() => return,
            () = state.close.notified(), if !closing => {
                if state.in_flight.load(Ordering::Relaxed) == 0 {
                    return;
                }
                conn.as_mut().graceful_shutdown();
                closing = true;
            }
            Ok(()) = stop.changed(), if !closing => {
                if state.in_flight.load(Ordering::Relaxed) == 0 {
                    return;
                }
                conn.as_mut().graceful_shutdown();
                closing = true;
            }
            () = tokio::time::sleep(tick) => {
                if state.in_flight.load(Ordering::Relaxed) > 0 {
                    continue;
                }
                let now = clock.now();
                let head = state.head_started.load(Ordering::Relaxed);
                if head != NOT_STARTED && now.saturating_sub(head) > header_ms {
                    tracing::debug!(%peer, "closing a connection: request head not complete within the header timeout");
                    return;
                }
                if now.saturating_sub(state.last_activity.load(Ordering::Relaxed)) > idle_ms {
                    tracing::debug!(%peer, "closing an idle connection");
                    return;
                }
            }
        }
    }
}

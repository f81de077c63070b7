//! The accept loop: HTTP/1 connections with a header timeout, an idle timeout, a connection cap (global and per
//! client IP), eviction of connections that hold a slot without using it, and the budget of answer bytes held
//! in memory.
//!
//! Owns sockets, connection lifetimes and the bytes of answers not yet handed to the kernel; every request goes
//! to the axum application unchanged, with the peer's address as `ConnectInfo<SocketAddr>` and the server's
//! [`AnswerBudget`] in its extensions. Must not look at requests beyond whether a body is still arriving.
//!
//! Each connection has a watchdog that knows whether a request is inside the application (`in_flight`),
//! whether its body is still arriving, when the first byte of the next request head arrived, when a byte was
//! last read and last written, and how much of the current answer is still held here:
//! - **header timeout** (`--header-timeout-ms`): a request head that started arriving must be complete within
//!   it (a slowloris client trickling header bytes is closed);
//! - **idle timeout** (`--idle-timeout-ms`): a connection with no request in flight on which no byte moved for
//!   that long is closed (keep-alive sockets left open, clients that never send, a client that stops reading
//!   its answer);
//! - the body of a request is the edge's ([`super::limits`], `--body-timeout-ms`), but a body on which no byte
//!   arrived for [`BODY_STALL`] makes its connection evictable (below).
//!
//! **Connection caps** (`--max-connections`, `--max-connections-per-ip`): a new connection over a cap closes
//! the connection that has held its slot longest without using it — idle (no request in flight, including one
//! whose client stopped reading its answer: last byte moved longest ago) or body-stalled (a request whose body
//! has not moved for [`BODY_STALL`]: last byte read longest ago); over the per-IP cap only that IP's
//! connections are candidates. Only when every candidate is computing an answer or receiving a body right now
//! is the newcomer answered 503 ([`ErrorCode::TooManyConnections`] 5010, or
//! [`ErrorCode::TooManyConnectionsFromClient`] 5011 for the per-IP cap) with `Retry-After: 1` and closed.
//! Every refusal and eviction is counted ([`ConnStats`], `/metrics`) and logged (at most one line a second
//! per kind, with the count since the last line).
//!
//! **Turns**: the listening socket ([`bind`]) queues up to [`LISTEN_BACKLOG`] connections not yet accepted, and
//! a request a client pipelined behind another (already buffered, no read since) waits for its connection's
//! next turn on the runtime: hyper alone would run up to 16 of them in one poll, and a burst of pipelining
//! clients would hold the workers for as long while a health probe waits behind them.
//!
//! **Accept failures** (out of file descriptors, `EMFILE`/`ENFILE`, or kernel memory): counted and logged
//! (rate-limited); when the failure is a resource one the loop closes up to [`EVICT_ON_ACCEPT_FAILURE`] of the
//! best candidates to give descriptors back and retries after 10 ms; with nothing to close it backs off, 10 ms
//! doubling to 1 s (reset by the next success).
//!
//! **Answer memory** ([`ConnLimits::answer_budget`], `--memory-budget-mb`): every answer's bytes count against
//! one budget from the moment the application returns it until they are handed to hyper, which holds at most
//! [`HYPER_BUFFER`] per connection (answers are handed over in pieces of at most [`ANSWER_CHUNK`]; the kernel
//! holds at most [`SEND_BUFFER`] more, outside the process); hyper
//! does not start the next pipelined request of a connection before the previous answer has been written to
//! the socket, so a connection that does not read holds at most one answer. Handlers of large answers ask
//! [`AnswerBudget::has_room`] before computing (and answer 503 when it is spent); while the budget is at least
//! three quarters spent, a connection whose answer has not moved for [`WRITE_STALL`] is closed (its answer
//! freed, counted as `write_stalled`).
//!
//! Shutdown: when `shutdown` resolves the loop stops accepting; every answer written from then on says
//! `Connection: close`; a connection with a request in flight finishes it (and any pipelined request hyper has
//! already read); an idle one stays open for [`SHUTDOWN_LINGER`] so that a request its client sent before the
//! signal is still read and answered, then closes. [`serve_connections`] returns when all are gone.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{header, HeaderValue};
use axum::Router;
use hyper::body::{Body as HttpBody, Incoming};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Notify};
use tower::ServiceExt;

use tonroute_api::{ApiError, ErrorCode};

mod stats;
mod watchdog;

pub use stats::{AnswerBudget, ConnLimits, ConnStats, Eviction, Refusal};
use watchdog::{Clock, ConnState, InFlight, Metered, Tracked, WatchedBody, NOT_STARTED};

/// A request body on which no byte arrived for this long makes its connection a candidate for eviction at a
/// connection cap (a client trickling a body holds a slot it does not use).
pub const BODY_STALL: Duration = Duration::from_secs(1);

/// While the answer budget is three quarters spent, a connection whose answer has not moved for this long is
/// closed.
pub const WRITE_STALL: Duration = Duration::from_secs(1);

/// Each connection's kernel send buffer (`SO_SNDBUF`): enough for loopback and LAN rates (256 KiB a round
/// trip: 25 MB/s at 10 ms), and a bound on the host memory a client that does not read can pin in the kernel.
pub const SEND_BUFFER: usize = 256 * 1024;

/// Connections closed (longest unused first) when `accept` fails for want of a descriptor: a few at once, so
/// that a limit lowered well below what is open is met again within a few retries.
pub const EVICT_ON_ACCEPT_FAILURE: usize = 4;

/// How long an idle connection stays open after the shutdown signal, for a request already sent.
pub const SHUTDOWN_LINGER: Duration = Duration::from_millis(300);

/// The largest piece of an answer handed to hyper at once.
pub const ANSWER_CHUNK: usize = 16 * 1024;

/// hyper's per-connection buffer bound (read and write): the most of an answer it holds beyond the budget,
/// and the largest request head it reads (larger: 431).
pub const HYPER_BUFFER: usize = 32 * 1024;

/// The open connections.
#[derive(Default)]
struct Registry {
    next_id: u64,
    open: HashMap<u64, Arc<ConnState>>,
    per_ip: HashMap<IpAddr, usize>,
}

impl Registry {
    /// The connection (of `ip`, if given) that has held its slot longest without using it.
    fn victim(&self, now: u64, ip: Option<IpAddr>) -> Option<(u64, Eviction)> {
        self.open
            .iter()
            .filter(|(_, c)| ip.is_none_or(|ip| c.ip == ip))
            .filter_map(|(id, c)| c.unused_since(now).map(|(since, why)| (since, *id, why)))
            .min_by_key(|(since, id, _)| (*since, *id))
            .map(|(_, id, why)| (id, why))
    }

    /// Removes connection `id` and asks it to close; `false` if it was gone.
    fn evict(&mut self, id: u64, why: Eviction, stats: &ConnStats) -> bool {
        match self.remove(id) {
            Some(c) => {
                stats.evict(why, c.ip);
                c.close.notify_one();
                true
            }
            None => false,
        }
    }

    fn remove(&mut self, id: u64) -> Option<Arc<ConnState>> {
        let c = self.open.remove(&id)?;
        if let Some(n) = self.per_ip.get_mut(&c.ip) {
            *n -= 1;
            if *n == 0 {
                self.per_ip.remove(&c.ip);
            }
        }
        Some(c)
    }
}

/// The registry, locked. A poisoned lock only means a connection task panicked; the map itself is consistent.
fn lock(r: &Mutex<Registry>) -> std::sync::MutexGuard<'_, Registry> {
    r.lock().unwrap_or_else(|p| p.into_inner())
}

fn all_closed(r: &Mutex<Registry>) -> bool {
    lock(r).open.is_empty()
}

/// Whether an `accept` error means the process or the host ran out of something a closed connection gives back.
fn out_of_resources(e: &io::Error) -> bool {
    // EMFILE 24, ENFILE 23, ENOBUFS 105, ENOMEM 12 (Linux numbers; std has no kinds for them).
    matches!(e.raw_os_error(), Some(24 | 23 | 105 | 12))
}

/// The listening socket's queue of connections not yet accepted (the kernel caps it at `somaxconn`, 4,096 on
/// current Linux). The usual 128 is below the default connection cap: a burst of connections arriving while
/// the accept loop waits its turn would overflow it, and the kernel drops the overflow's SYNs, which their
/// clients (a health probe among them) resend only after a second.
pub const LISTEN_BACKLOG: u32 = 1024;

/// Listens on `addr` (a socket address or `host:port`; the first of its addresses that binds) with
/// [`LISTEN_BACKLOG`], reusing the address as [`TcpListener::bind`] does.
pub async fn bind(addr: &str) -> io::Result<TcpListener> {
    let mut last = None;
    for at in tokio::net::lookup_host(addr).await? {
        let socket = if at.is_ipv4() { tokio::net::TcpSocket::new_v4()? } else { tokio::net::TcpSocket::new_v6()? };
        #[cfg(unix)]
        socket.set_reuseaddr(true)?;
        match socket.bind(at).and_then(|()| socket.listen(LISTEN_BACKLOG)) {
            Ok(listener) => return Ok(listener),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "the address resolves to nothing")))
}

/// Serves `app` on `listener` with `limits` until `shutdown` resolves (see the module doc), counting into
/// `stats`, then waits for the open connections to finish their requests.
pub async fn serve_connections(
    listener: TcpListener,
    app: Router,
    limits: ConnLimits,
    stats: Arc<ConnStats>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    let clock = Arc::new(Clock(Instant::now()));
    let registry = Arc::new(Mutex::new(Registry::default()));
    stats.answer_budget.store(limits.answer_budget, Ordering::Relaxed);
    let budget = AnswerBudget { stats: stats.clone(), limit: limits.answer_budget };
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut shutdown = std::pin::pin!(shutdown);
    let mut backoff = Duration::from_millis(10);
    loop {
        let (stream, peer) = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(pair) => {
                    backoff = Duration::from_millis(10);
                    pair
                }
                Err(e) => {
                    let freed = {
                        let mut reg = lock(&registry);
                        stats.accept_failed(&e, reg.open.len());
                        let mut freed = 0;
                        while out_of_resources(&e) && freed < EVICT_ON_ACCEPT_FAILURE {
                            let Some((id, _)) = reg.victim(clock.now(), None) else { break };
                            reg.evict(id, Eviction::AcceptFailed, &stats);
                            freed += 1;
                        }
                        freed
                    };
                    // Descriptors given back come free as soon as their tasks close them: retry soon. Nothing
                    // to give back (every connection busy, or the host is out): back off, doubling.
                    backoff = if freed > 0 { Duration::from_millis(10) } else { (backoff * 2).min(Duration::from_secs(1)) };
                    tokio::time::sleep(backoff).await;
                    continue;
                }
            },
        };
        let _ = stream.set_nodelay(true);
        // The kernel's share of an answer a client does not read: bounded too (autotuning would grow it to
        // megabytes per connection, host memory the budget does not see).
        let _ = socket2::SockRef::from(&stream).set_send_buffer_size(SEND_BUFFER);
        let now = clock.now();
        let state = Arc::new(ConnState {
            ip: peer.ip(),
            in_flight: AtomicUsize::new(0),
            body_open: AtomicBool::new(false),
            reads: AtomicU64::new(0),
            reads_at_request: AtomicU64::new(u64::MAX),
            last_read: AtomicU64::new(now),
            last_write: AtomicU64::new(now),
            head_started: AtomicU64::new(NOT_STARTED),
            answer_left: AtomicUsize::new(0),
            closing: AtomicBool::new(false),
            close: Notify::new(),
        });
        let id = {
            let mut reg = lock(&registry);
            let from_ip = reg.per_ip.get(&state.ip).copied().unwrap_or(0);
            let over = if limits.max_per_ip > 0 && from_ip >= limits.max_per_ip {
                Some((Refusal::PerIp, Some(state.ip)))
            } else if reg.open.len() >= limits.max_connections {
                Some((Refusal::Cap, None))
            } else {
                None
            };
            if let Some((why, among)) = over {
                match reg.victim(now, among) {
                    Some((victim, how)) => {
                        reg.evict(victim, how, &stats);
                    }
                    None => {
                        drop(reg);
                        stats.refuse(why, peer);
                        tokio::spawn(refuse(stream, why));
                        continue;
                    }
                }
            }
            reg.next_id += 1;
            let id = reg.next_id;
            reg.open.insert(id, state.clone());
            *reg.per_ip.entry(state.ip).or_insert(0) += 1;
            stats.open.store(reg.open.len(), Ordering::Relaxed);
            id
        };
        let (app, registry, clock, stop) = (app.clone(), registry.clone(), clock.clone(), stop_rx.clone());
        let (budget, stats) = (budget.clone(), stats.clone());
        tokio::spawn(async move {
            let evicted = connection(stream, peer, app, state, clock, limits, budget, stop).await;
            let mut reg = lock(&registry);
            if let Some(why) = evicted {
                reg.evict(id, why, &stats);
            } else {
                reg.remove(id);
            }
            stats.open.store(reg.open.len(), Ordering::Relaxed);
        });
    }
    drop(listener);
    let _ = stop_tx.send(true);
    // Wait for the connections to finish (each closes after its requests, or its linger when idle).
    while !all_closed(&registry) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Ok(())
}

/// Answers a connection over a cap with 503 and closes it, reading what the client already sent (bounded)
/// so that the close does not reset the answer away.
async fn refuse(mut stream: TcpStream, why: Refusal) {
    let error = match why {
        Refusal::Cap => ApiError::new(
            ErrorCode::TooManyConnections,
            "every connection slot is busy with a request; retry in a second",
        ),
        Refusal::PerIp => ApiError::new(
            ErrorCode::TooManyConnectionsFromClient,
            "every connection slot of this client address is busy with a request; retry in a second",
        ),
    };
    let body = error.to_json();
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

/// One connection: hyper's HTTP/1 with the watchdog. Returns why it closed itself to make room, if it did.
#[allow(clippy::too_many_arguments)]
async fn connection(
    stream: TcpStream,
    peer: SocketAddr,
    app: Router,
    state: Arc<ConnState>,
    clock: Arc<Clock>,
    limits: ConnLimits,
    budget: AnswerBudget,
    mut stop: watch::Receiver<bool>,
) -> Option<Eviction> {
    let io = TokioIo::new(Tracked { stream, state: state.clone(), clock: clock.clone() });
    let service_state = state.clone();
    let service_budget = budget.clone();
    let service = hyper::service::service_fn(move |req: hyper::Request<Incoming>| {
        let state = service_state.clone();
        let reads = state.reads.load(Ordering::Relaxed);
        let pipelined = state.reads_at_request.swap(reads, Ordering::Relaxed) == reads;
        state.head_started.store(NOT_STARTED, Ordering::Relaxed);
        state.in_flight.fetch_add(1, Ordering::Relaxed);
        let guard = InFlight(state.clone());
        let mut req = if req.body().is_end_stream() {
            req.map(Body::new)
        } else {
            state.body_open.store(true, Ordering::Relaxed);
            let watched = state.clone();
            req.map(move |inner| Body::new(WatchedBody { inner, state: watched }))
        };
        req.extensions_mut().insert(ConnectInfo(peer));
        req.extensions_mut().insert(service_budget.clone());
        let (app, budget) = (app.clone(), service_budget.clone());
        async move {
            if pipelined {
                // hyper runs up to 16 buffered requests of a connection in one poll of its task; each waits its
                // turn behind the other tasks instead, so that a client pipelining many requests (even ones
                // refused at once) cannot hold a worker while others, such as a health probe, queue behind it.
                tokio::task::yield_now().await;
            }
            let response = app.oneshot(req).await;
            drop(guard);
            response.map(|mut r| {
                if state.closing.load(Ordering::Relaxed) {
                    r.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
                }
                r.map(|body| Body::new(Metered::new(body, budget, state)))
            })
        }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.keep_alive(true).max_buf_size(HYPER_BUFFER);
    let conn = builder.serve_connection(io, service);
    let mut conn = std::pin::pin!(conn);
    let tick =
        (limits.header_timeout.min(limits.idle_timeout) / 4).clamp(Duration::from_millis(10), Duration::from_secs(1));
    let header_ms = u64::try_from(limits.header_timeout.as_millis()).unwrap_or(u64::MAX);
    let idle_ms = u64::try_from(limits.idle_timeout.as_millis()).unwrap_or(u64::MAX);
    let stall_ms = u64::try_from(WRITE_STALL.as_millis()).unwrap_or(u64::MAX);
    // When the shutdown signal came (ms since the epoch); the connection then closes once idle after the linger.
    let mut stopping: Option<u64> = None;
    let mut graceful = false;
    loop {
        let tick = if stopping.is_some() { Duration::from_millis(20) } else { tick };
        tokio::select! {
            _ = conn.as_mut() => return None,
            () = state.close.notified() => return None,
            Ok(()) = stop.changed(), if stopping.is_none() => {
                state.closing.store(true, Ordering::Relaxed);
                stopping = Some(clock.now());
            }
            () = tokio::time::sleep(tick) => {
                let now = clock.now();
                let idle = state.in_flight.load(Ordering::Relaxed) == 0;
                if let Some(since) = stopping {
                    let linger = u64::try_from(SHUTDOWN_LINGER.as_millis()).unwrap_or(0);
                    let head = state.head_started.load(Ordering::Relaxed);
                    if idle && head == NOT_STARTED && now.saturating_sub(since) >= linger && !graceful {
                        // hyper closes an idle connection at once, a busy one after its answer.
                        conn.as_mut().graceful_shutdown();
                        graceful = true;
                    }
                    continue;
                }
                if !idle {
                    continue;
                }
                let stalled = state.answer_left.load(Ordering::Relaxed) > 0
                    && now.saturating_sub(state.last_write.load(Ordering::Relaxed)) >= stall_ms;
                if stalled && budget.short() {
                    return Some(Eviction::WriteStalled);
                }
                let head = state.head_started.load(Ordering::Relaxed);
                if head != NOT_STARTED && now.saturating_sub(head) > header_ms {
                    tracing::debug!(%peer, "closing a connection: request head not complete within the header timeout");
                    return None;
                }
                if now.saturating_sub(state.last_activity()) > idle_ms {
                    tracing::debug!(%peer, "closing an idle connection");
                    return None;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conn(ip: [u8; 4], in_flight: usize, body_open: bool, read: u64, write: u64) -> Arc<ConnState> {
        Arc::new(ConnState {
            ip: IpAddr::from(ip),
            in_flight: AtomicUsize::new(in_flight),
            body_open: AtomicBool::new(body_open),
            reads: AtomicU64::new(0),
            reads_at_request: AtomicU64::new(u64::MAX),
            last_read: AtomicU64::new(read),
            last_write: AtomicU64::new(write),
            head_started: AtomicU64::new(NOT_STARTED),
            answer_left: AtomicUsize::new(0),
            closing: AtomicBool::new(false),
            close: Notify::new(),
        })
    }

    #[test]
    fn victims_are_the_longest_unused_and_never_a_computing_request() {
        let mut reg = Registry::default();
        let now = 10_000;
        // 1: computing (in flight, body done); 2: receiving a body right now; 3: body stalled since 5,000;
        // 4: idle since 7,000; 5: another IP, idle since 1,000.
        for (id, c) in [
            (1, conn([1, 1, 1, 1], 1, false, 0, 0)),
            (2, conn([1, 1, 1, 1], 1, true, 9_900, 9_900)),
            (3, conn([1, 1, 1, 1], 1, true, 5_000, 5_000)),
            (4, conn([1, 1, 1, 1], 0, false, 7_000, 6_000)),
            (5, conn([2, 2, 2, 2], 0, false, 1_000, 1_000)),
        ] {
            *reg.per_ip.entry(c.ip).or_insert(0) += 1;
            reg.open.insert(id, c);
        }
        assert_eq!(reg.victim(now, None), Some((5, Eviction::Idle)));
        assert_eq!(reg.victim(now, Some(IpAddr::from([1, 1, 1, 1]))), Some((3, Eviction::BodyStalled)));
        let stats = ConnStats::default();
        assert!(reg.evict(3, Eviction::BodyStalled, &stats));
        assert_eq!(reg.victim(now, Some(IpAddr::from([1, 1, 1, 1]))), Some((4, Eviction::Idle)));
        assert!(reg.evict(4, Eviction::Idle, &stats));
        // Only the computing request and the live body are left for that IP: no victim.
        assert_eq!(reg.victim(now, Some(IpAddr::from([1, 1, 1, 1]))), None);
        assert_eq!(reg.per_ip.get(&IpAddr::from([1, 1, 1, 1])), Some(&2));
        assert_eq!((stats.evicted(Eviction::BodyStalled), stats.evicted(Eviction::Idle)), (1, 1));
    }

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a test runtime")
    }

    #[test]
    fn the_listener_queues_a_burst_of_connections_beyond_the_usual_128() {
        let rt = runtime();
        let listener = rt.block_on(bind("127.0.0.1:0")).expect("a loopback listener");
        let addr = listener.local_addr().expect("its address");
        // Nobody accepts: each connection the kernel completes waits in the listener's queue. Past a queue of
        // 128 the kernel would drop the SYN and the connect would wait a second for its resend.
        let burst: Vec<_> = (0..400)
            .map(|i| {
                std::net::TcpStream::connect_timeout(&addr, Duration::from_millis(500))
                    .unwrap_or_else(|e| panic!("connection {i} of the burst: {e}"))
            })
            .collect();
        assert_eq!(burst.len(), 400);
        // A name resolves too, as `--addr localhost:8080` does.
        assert!(rt.block_on(bind("localhost:0")).is_ok());
    }

    #[test]
    fn a_pipelined_request_waits_for_its_turn_behind_other_connections() {
        use std::io::Write;
        let rt = runtime();
        let listener = rt.block_on(bind("127.0.0.1:0")).expect("a loopback listener");
        let addr = listener.local_addr().expect("its address");
        let order = Arc::new(Mutex::new(Vec::new()));
        let seen = order.clone();
        let app = Router::new().route(
            "/",
            axum::routing::get(move |headers: axum::http::HeaderMap| {
                let client = headers.get("x-client").and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
                seen.lock().expect("the order").push(client);
                async { "" }
            }),
        );
        // Before the server runs, client A has pipelined 64 requests and then client B sent one: B is not
        // answered after all of A's (hyper alone would run 16 of A's in one turn).
        let mut a = std::net::TcpStream::connect(addr).expect("client A");
        a.write_all("GET / HTTP/1.1\r\nHost: x\r\nx-client: a\r\n\r\n".repeat(64).as_bytes()).expect("A's requests");
        let mut b = std::net::TcpStream::connect(addr).expect("client B");
        b.write_all(b"GET / HTTP/1.1\r\nHost: x\r\nx-client: b\r\n\r\n").expect("B's request");
        let limits = ConnLimits { max_per_ip: 0, ..ConnLimits::default() };
        rt.block_on(async {
            tokio::spawn(serve_connections(listener, app, limits, Arc::default(), std::future::pending()));
            let deadline = Instant::now() + Duration::from_secs(10);
            while !order.lock().expect("the order").iter().any(|c| c == "b") && Instant::now() < deadline {
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
        });
        let order = order.lock().expect("the order").clone();
        let b_at = order.iter().position(|c| c == "b").unwrap_or_else(|| panic!("B never answered: {order:?}"));
        assert!(b_at <= 2, "B's request ran after {b_at} of A's: {order:?}");
    }
}

//! One connection as its watchdog sees it: the state the accept loop reads to pick a victim, and the wrappers
//! around the socket, the request body and the answer that keep that state current and meter answer bytes.
//! Decides nothing: the loop in `conn.rs` closes and evicts.

use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use axum::body::{Body, Bytes};
use hyper::body::{Body as HttpBody, Frame, Incoming, SizeHint};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::Notify;

use super::{AnswerBudget, Eviction, ANSWER_CHUNK, BODY_STALL};

/// What the watchdog and the accept loop know of one connection.
pub(super) struct ConnState {
    pub(super) ip: IpAddr,
    /// Requests inside the application.
    pub(super) in_flight: AtomicUsize,
    /// A request body is still arriving.
    pub(super) body_open: AtomicBool,
    /// Reads from the socket that returned bytes, and their count when the last request started: a request
    /// that starts with no read since the previous one was pipelined (its head was already buffered).
    pub(super) reads: AtomicU64,
    pub(super) reads_at_request: AtomicU64,
    /// Milliseconds since the server's epoch when a byte was last read / written.
    pub(super) last_read: AtomicU64,
    pub(super) last_write: AtomicU64,
    /// Milliseconds since the epoch when the next request head started arriving; `u64::MAX` = not started.
    pub(super) head_started: AtomicU64,
    /// Bytes of the current answer not yet handed to hyper.
    pub(super) answer_left: AtomicUsize,
    /// The server is shutting down: answers say `Connection: close`.
    pub(super) closing: AtomicBool,
    /// Asks the connection to close at once (eviction).
    pub(super) close: Notify,
}

impl ConnState {
    pub(super) fn last_activity(&self) -> u64 {
        self.last_read.load(Ordering::Relaxed).max(self.last_write.load(Ordering::Relaxed))
    }

    /// Since when this connection has held its slot without using it, and how it would be evicted; `None`
    /// while it computes an answer or receives a body.
    pub(super) fn unused_since(&self, now: u64) -> Option<(u64, Eviction)> {
        if self.in_flight.load(Ordering::Relaxed) == 0 {
            let why =
                if self.answer_left.load(Ordering::Relaxed) > 0 { Eviction::WriteStalled } else { Eviction::Idle };
            return Some((self.last_activity(), why));
        }
        let read = self.last_read.load(Ordering::Relaxed);
        let stall = u64::try_from(BODY_STALL.as_millis()).unwrap_or(u64::MAX);
        (self.body_open.load(Ordering::Relaxed) && now.saturating_sub(read) >= stall)
            .then_some((read, Eviction::BodyStalled))
    }
}

pub(super) const NOT_STARTED: u64 = u64::MAX;

pub(super) struct Clock(pub(super) Instant);

impl Clock {
    pub(super) fn now(&self) -> u64 {
        u64::try_from(self.0.elapsed().as_millis()).unwrap_or(u64::MAX - 1)
    }
}

/// The socket, noting every byte that moves.
pub(super) struct Tracked {
    pub(super) stream: TcpStream,
    pub(super) state: Arc<ConnState>,
    pub(super) clock: Arc<Clock>,
}

impl AsyncRead for Tracked {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let result = Pin::new(&mut self.stream).poll_read(cx, buf);
        if matches!(result, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            let now = self.clock.now();
            self.state.reads.fetch_add(1, Ordering::Relaxed);
            self.state.last_read.store(now, Ordering::Relaxed);
            if self.state.in_flight.load(Ordering::Relaxed) == 0 {
                // The first byte of the next head; later bytes keep the first time.
                let _ =
                    self.state.head_started.compare_exchange(NOT_STARTED, now, Ordering::Relaxed, Ordering::Relaxed);
            }
        }
        result
    }
}

impl AsyncWrite for Tracked {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
        let result = Pin::new(&mut self.stream).poll_write(cx, data);
        if matches!(result, Poll::Ready(Ok(n)) if n > 0) {
            self.state.last_write.store(self.clock.now(), Ordering::Relaxed);
        }
        result
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let result = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        if matches!(result, Poll::Ready(Ok(n)) if n > 0) {
            self.state.last_write.store(self.clock.now(), Ordering::Relaxed);
        }
        result
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// Counts a request in flight for as long as it lives (also when the connection drops it).
pub(super) struct InFlight(pub(super) Arc<ConnState>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A request body, noting when it ends (or is dropped unread) so that the watchdog knows whether one is still
/// arriving.
pub(super) struct WatchedBody {
    pub(super) inner: Incoming,
    pub(super) state: Arc<ConnState>,
}

impl HttpBody for WatchedBody {
    type Data = Bytes;
    type Error = hyper::Error;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, hyper::Error>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        if matches!(polled, Poll::Ready(None) | Poll::Ready(Some(Err(_)))) {
            self.state.body_open.store(false, Ordering::Relaxed);
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

impl Drop for WatchedBody {
    fn drop(&mut self) {
        self.state.body_open.store(false, Ordering::Relaxed);
    }
}

/// An answer on its way out: its bytes count against the budget until they are handed to hyper, in pieces
/// of at most [`ANSWER_CHUNK`].
pub(super) struct Metered {
    pub(super) inner: Body,
    /// The rest of a frame longer than a chunk.
    pub(super) rest: Bytes,
    /// Bytes still counted.
    pub(super) counted: usize,
    pub(super) budget: AnswerBudget,
    pub(super) state: Arc<ConnState>,
}

impl Metered {
    pub(super) fn new(inner: Body, budget: AnswerBudget, state: Arc<ConnState>) -> Metered {
        let size = usize::try_from(inner.size_hint().lower()).unwrap_or(usize::MAX / 2);
        budget.take(size);
        state.answer_left.store(size, Ordering::Relaxed);
        Metered { inner, rest: Bytes::new(), counted: size, budget, state }
    }

    pub(super) fn handed(&mut self, n: usize) {
        let n = n.min(self.counted);
        self.counted -= n;
        self.budget.give_back(n);
        self.state.answer_left.store(self.counted, Ordering::Relaxed);
    }

    pub(super) fn piece(&mut self) -> Bytes {
        let n = self.rest.len().min(ANSWER_CHUNK);
        let piece = self.rest.split_to(n);
        self.handed(n);
        piece
    }
}

impl HttpBody for Metered {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        if !self.rest.is_empty() {
            return Poll::Ready(Some(Ok(Frame::data(self.piece()))));
        }
        match Pin::new(&mut self.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => match frame.into_data() {
                Ok(data) => {
                    self.rest = data;
                    Poll::Ready(Some(Ok(Frame::data(self.piece()))))
                }
                Err(frame) => Poll::Ready(Some(Ok(frame))),
            },
            other => other,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.rest.is_empty() && self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        let inner = self.inner.size_hint();
        let rest = self.rest.len() as u64;
        let mut hint = SizeHint::new();
        if let Some(upper) = inner.upper() {
            hint.set_upper(upper + rest);
        }
        hint.set_lower(inner.lower() + rest);
        hint
    }
}

impl Drop for Metered {
    fn drop(&mut self) {
        let left = self.counted;
        self.handed(left);
    }
}

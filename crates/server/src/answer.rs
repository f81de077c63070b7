//! JSON answers as bodies: a value serialised in pieces of at most [`ANSWER_CHUNK`] bytes.
//!
//! Owns the body type of every JSON answer. A small answer (one piece) is one buffer, as before; a large one
//! (a 5,000-candle chart is 1.5 MB) is a list of separately allocated pieces, so that the accept loop can hand
//! them to the socket one by one and each piece's memory is freed as soon as it is written (a single buffer
//! would stay allocated whole until its last byte left). Must not choose statuses or know routes.

use std::collections::VecDeque;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::{Body, Bytes};
use hyper::body::{Body as HttpBody, Frame, SizeHint};
use serde::Serialize;

use super::conn::ANSWER_CHUNK;

/// A first guess at an answer's size: a one-route quote is about 1 KiB; starting there spares the
/// serializer the four or five regrowths (copies) of an empty buffer.
const FIRST_CAPACITY: usize = 2048;

/// An `io::Write` that cuts what it is given into pieces of [`ANSWER_CHUNK`] bytes.
struct Pieces {
    done: Vec<Bytes>,
    current: Vec<u8>,
}

impl io::Write for Pieces {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut rest = buf;
        while !rest.is_empty() {
            let room = ANSWER_CHUNK - self.current.len();
            if room == 0 {
                let full = std::mem::replace(&mut self.current, Vec::with_capacity(ANSWER_CHUNK));
                self.done.push(Bytes::from(full));
                continue;
            }
            let n = room.min(rest.len());
            self.current.extend_from_slice(&rest[..n]);
            rest = &rest[n..];
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// `value` as JSON text in a body (one buffer when it fits a piece, else the pieces).
pub(crate) fn json_body<T: Serialize + ?Sized>(value: &T) -> Result<Body, serde_json::Error> {
    let mut out = Pieces { done: Vec::new(), current: Vec::with_capacity(FIRST_CAPACITY) };
    serde_json::to_writer(&mut out, value)?;
    if out.done.is_empty() {
        // The body takes the buffer as it is (no copy).
        return Ok(Body::from(out.current));
    }
    if !out.current.is_empty() {
        out.done.push(Bytes::from(out.current));
    }
    let len = out.done.iter().map(|b| b.len() as u64).sum();
    Ok(Body::new(Chunked { pieces: out.done.into(), len }))
}

/// A body of pieces, with its exact length (so the answer has a `Content-Length`).
struct Chunked {
    pieces: VecDeque<Bytes>,
    len: u64,
}

impl HttpBody for Chunked {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, std::convert::Infallible>>> {
        let piece = self.pieces.pop_front();
        if let Some(p) = &piece {
            self.len -= p.len() as u64;
        }
        Poll::Ready(piece.map(|p| Ok(Frame::data(p))))
    }

    fn is_end_stream(&self) -> bool {
        self.pieces.is_empty()
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_large_answer_is_cut_into_pieces_that_join_to_the_json_text() {
        let value: Vec<String> = (0..20_000).map(|i| format!("candle-{i}")).collect();
        let text = serde_json::to_vec(&value).unwrap();
        let body = json_body(&value).unwrap();
        assert_eq!(body.size_hint().exact(), Some(text.len() as u64));
        let mut body = std::pin::pin!(body);
        let mut joined = Vec::new();
        let mut pieces = 0;
        while let Some(frame) = std::future::poll_fn(|cx| body.as_mut().poll_frame(cx)).await {
            let data = frame.unwrap().into_data().unwrap();
            assert!(data.len() <= ANSWER_CHUNK);
            joined.extend_from_slice(&data);
            pieces += 1;
        }
        assert_eq!(joined, text);
        assert_eq!(pieces, text.len().div_ceil(ANSWER_CHUNK));
        // A small one stays one buffer.
        let small = json_body(&["a", "b"]).unwrap();
        assert_eq!(small.size_hint().exact(), Some(9));
    }
}

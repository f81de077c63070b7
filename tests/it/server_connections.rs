//! Connection limits of `tonroute serve` over real HTTP on loopback, against the built binary and its flags:
//! a slowloris client is cut at the header timeout, idle sockets at the idle timeout, 200 idle sockets
//! beyond a cap of 20 do not lock `/health` out (the longest-idle one makes room), a cap full of requests in
//! flight answers 503 with `Retry-After`, and `--rate-limit` answers 429 with `Retry-After`. `/health`
//! stays responsive throughout. Counts and times are bounded.
#![cfg(feature = "server")]

use crate::common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use common::bin::{http, http_raw, repo, spawn_serve_env};
use serde_json::Value;

/// `/health` answers 200 within `within`.
fn health_answers(addr: SocketAddr, within: Duration) {
    let started = Instant::now();
    let (status, body) = http(addr, "GET", "/health", None).expect("/health");
    assert_eq!(status, 200, "{body}");
    assert!(started.elapsed() < within, "/health took {:?}", started.elapsed());
}

/// Whether the server closed `stream`, waiting at most `wait` for it.
fn closed_by_server(stream: &mut TcpStream, wait: Duration) -> bool {
    stream.set_read_timeout(Some(wait)).unwrap();
    let mut buf = [0u8; 1024];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => continue,
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {
                return false
            }
            Err(_) => return true,
        }
    }
}

#[test]
fn slowloris_heads_are_cut_at_the_header_timeout() {
    let server = spawn_serve_env(&repo(), &["--header-timeout-ms", "600", "--idle-timeout-ms", "30000"], &[]);
    let head = b"GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n";
    let mut slow: Vec<TcpStream> = (0..20).map(|_| TcpStream::connect(server.addr).unwrap()).collect();
    let started = Instant::now();
    let mut cut = vec![None; slow.len()];
    // One byte per client every 50 ms: always sending, never finishing the head.
    for (i, byte) in head.iter().cycle().take(200).enumerate() {
        for (s, when) in slow.iter_mut().zip(cut.iter_mut()) {
            if when.is_none() && s.write_all(&[*byte]).is_err() {
                *when = Some(started.elapsed());
            }
        }
        if i % 10 == 0 {
            health_answers(server.addr, Duration::from_secs(2));
        }
        if cut.iter().all(Option::is_some) {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    for (s, when) in slow.iter_mut().zip(cut.iter_mut()) {
        if when.is_none() && closed_by_server(s, Duration::from_millis(100)) {
            *when = Some(started.elapsed());
        }
    }
    let cut: Vec<Duration> = cut.into_iter().map(|c| c.expect("every slow client is closed")).collect();
    assert!(cut.iter().all(|c| *c >= Duration::from_millis(600) && *c < Duration::from_secs(8)), "{cut:?}");
}

#[test]
fn idle_sockets_close_after_the_idle_timeout_not_the_header_timeout() {
    let server = spawn_serve_env(&repo(), &["--header-timeout-ms", "300", "--idle-timeout-ms", "1500"], &[]);
    // A socket that never sends is idle, not a slow head: still open after 3 header timeouts.
    let mut silent = TcpStream::connect(server.addr).unwrap();
    // A keep-alive socket after one answered request.
    let mut kept = TcpStream::connect(server.addr).unwrap();
    kept.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    kept.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut buf = [0u8; 4096];
    let n = kept.read(&mut buf).unwrap();
    assert!(String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200"));
    let started = Instant::now();
    assert!(!closed_by_server(&mut silent, Duration::from_millis(900)), "closed at the header timeout");
    assert!(closed_by_server(&mut silent, Duration::from_secs(5)), "not closed at the idle timeout");
    assert!(closed_by_server(&mut kept, Duration::from_secs(5)), "keep-alive socket not closed");
    let waited = started.elapsed();
    assert!(waited >= Duration::from_millis(1000) && waited < Duration::from_secs(8), "{waited:?}");
    health_answers(server.addr, Duration::from_secs(2));
}

#[test]
fn two_hundred_idle_sockets_beyond_the_cap_do_not_lock_out_health() {
    let server = spawn_serve_env(&repo(), &["--max-connections", "20", "--idle-timeout-ms", "60000"], &[]);
    let mut idle: Vec<TcpStream> = (0..200).map(|_| TcpStream::connect(server.addr).unwrap()).collect();
    // Let the server accept them all.
    std::thread::sleep(Duration::from_millis(300));
    for _ in 0..10 {
        health_answers(server.addr, Duration::from_secs(2));
    }
    // Each newcomer closed the longest-idle socket: at most 20 of the 200 are still open.
    let closed = idle.iter_mut().map(|s| closed_by_server(s, Duration::from_millis(50))).filter(|c| *c).count();
    assert!(closed >= 180, "only {closed} of 200 idle sockets were closed");
}

#[test]
fn a_cap_full_of_requests_in_flight_answers_503_with_retry_after() {
    // The global cap alone (the per-IP cap, half of it by default, would count these three from one IP first).
    let server = spawn_serve_env(
        &repo(),
        &["--max-connections", "3", "--max-connections-per-ip", "0", "--body-timeout-ms", "3000"],
        &[],
    );
    // Three requests in flight: heads sent, bodies still coming.
    let head =
        "POST /v4/router/quote HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{";
    let busy: Vec<TcpStream> = (0..3)
        .map(|_| {
            let mut s = TcpStream::connect(server.addr).unwrap();
            s.write_all(head.as_bytes()).unwrap();
            s
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let (status, head, body) =
        http_raw(server.addr, b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n", Duration::from_secs(5)).unwrap();
    assert_eq!(status, 503, "{head}");
    assert!(head.to_ascii_lowercase().contains("retry-after: 1"), "{head}");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["code"], 5010, "{v}");
    drop(busy);
    std::thread::sleep(Duration::from_millis(200));
    health_answers(server.addr, Duration::from_secs(2));
}

#[test]
fn rate_limit_answers_429_with_retry_after() {
    let server = spawn_serve_env(&repo(), &["--rate-limit", "5/s"], &[]);
    let mut statuses = Vec::new();
    let mut retry_after = None;
    for _ in 0..10 {
        let (status, head, body) = http_raw(
            server.addr,
            b"GET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
            Duration::from_secs(5),
        )
        .unwrap();
        if status == 429 {
            let v: Value = serde_json::from_str(&body).unwrap();
            assert_eq!(v["code"], 1042, "{v}");
            retry_after =
                head.lines().find_map(|l| l.to_ascii_lowercase().strip_prefix("retry-after: ").map(str::to_string));
        }
        statuses.push(status);
    }
    // The burst of 5 passes (404: no such path), the rest of a burst well under a second is refused.
    assert_eq!(&statuses[..5], &[404; 5], "{statuses:?}");
    assert!(statuses[5..].iter().filter(|s| **s == 429).count() >= 4, "{statuses:?}");
    assert_eq!(retry_after.as_deref(), Some("1"));
    // `/health` is not limited.
    health_answers(server.addr, Duration::from_secs(2));
    // A token comes back within 1/5 s.
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(http(server.addr, "GET", "/nope", None).unwrap().0, 404);
}

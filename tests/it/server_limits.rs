//! Request limits at the edge over real HTTP against the built binary: 413 with the `{code, message}` body,
//! also for a client that sends a large body without `Expect: 100-continue` (written whole before reading);
//! 415 for a JSON route without `Content-Type: application/json` (admin included); 408 for a body shorter
//! than its `Content-Length`, with `/health` answering meanwhile.
#![cfg(feature = "server")]

use crate::common;

use std::io::Write;
use std::net::TcpStream;
use std::time::{Duration, Instant};

use common::bin::{http, http_raw, read_answer, repo, spawn_serve_env};
use serde_json::Value;

const QUOTE: &str = r#"{"in_minter": "native", "out_minter": "jetton:0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe", "amount": "1000000000"}"#;
const TOKEN: &str = "ops:limits-test-token-0123456789";

fn error_of(body: &str) -> (i64, String) {
    let v: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {body:?}"));
    assert_eq!(v.as_object().map(|o| o.len()), Some(2), "{v}");
    (v["code"].as_i64().unwrap(), v["message"].as_str().unwrap().to_string())
}

#[test]
fn oversized_bodies_get_413_even_without_expect_continue() {
    let server = spawn_serve_env(&repo(), &[], &[]);
    // The whole 200 KB body is written before anything is read, as urllib does.
    let body = format!(r#"{{"in_minter": "native", "pad": "{}"}}"#, "x".repeat(200_000));
    let request = format!(
        "POST /v4/router/quote HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut stream = TcpStream::connect(server.addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    stream.write_all(request.as_bytes()).expect("the server reads the whole body");
    let (status, head, text) = read_answer(&mut stream).expect("an answer, not a reset");
    assert_eq!(status, 413, "{head}\n{text}");
    assert!(head.to_ascii_lowercase().contains("connection: close"), "{head}");
    let (code, message) = error_of(&text);
    assert_eq!(code, 1001);
    assert!(message.contains("65536"), "{message}");
    // With `Expect: 100-continue` the answer comes before any body byte is sent.
    let request = format!(
        "POST /v4/router/quote HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nExpect: 100-continue\r\n\
         Content-Length: {}\r\n\r\n",
        body.len()
    );
    let (status, _, text) = http_raw(server.addr, request.as_bytes(), Duration::from_secs(30)).unwrap();
    assert_eq!((status, error_of(&text).0), (413, 1001));
    // Beyond the drain bound (1 MiB) the answer is immediate too.
    let request = "POST /v4/router/quote HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50000000\r\n\r\n";
    let (status, _, text) = http_raw(server.addr, request.as_bytes(), Duration::from_secs(30)).unwrap();
    assert_eq!((status, error_of(&text).0), (413, 1001));
    // A body within the limit still quotes.
    assert_eq!(http(server.addr, "POST", "/v4/router/quote", Some(QUOTE)).unwrap().0, 200);
}

#[test]
fn json_routes_need_the_json_content_type() {
    let server = spawn_serve_env(&repo(), &[], &[("TONROUTE_ADMIN_TOKEN", TOKEN)]);
    let token = TOKEN.split_once(':').unwrap().1;
    let admin = r#"[{"pool": "0:8649cad97b5c5bc96a960ef748ea6ccff8601c01616fe995ee6893ae4aa7a6c6", "reserves": ["1806615000000000", "2601328000000"]}]"#;
    let send = |path: &str, content_type: Option<&str>, body: &str| {
        let ct = content_type.map(|c| format!("Content-Type: {c}\r\n")).unwrap_or_default();
        let request = format!(
            "POST {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer {token}\r\n{ct}Content-Length: {}\r\n\r\n{body}",
            body.len()
        );
        http_raw(server.addr, request.as_bytes(), Duration::from_secs(30)).unwrap()
    };
    for (path, body) in [("/v4/router/quote", QUOTE), ("/v4/admin/reserves", admin), ("/pools", "{}")] {
        // A cross-site form post is text/plain; a missing header and look-alikes are refused the same way.
        for ct in [Some("text/plain"), None, Some("application/x-www-form-urlencoded"), Some("application/jsonp")] {
            let (status, _, text) = send(path, ct, body);
            assert_eq!((status, error_of(&text).0), (415, 1005), "{path} {ct:?}: {text}");
        }
    }
    assert_eq!(send("/v4/router/quote", Some("application/json; charset=utf-8"), QUOTE).0, 200);
    let (status, _, text) = send("/v4/admin/reserves", Some("Application/JSON"), admin);
    assert_eq!(status, 200, "{text}");
}

#[test]
fn a_body_shorter_than_its_length_times_out_with_408() {
    let server = spawn_serve_env(&repo(), &["--body-timeout-ms", "700"], &[]);
    let started = Instant::now();
    let mut stream = TcpStream::connect(server.addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let head =
        "POST /v4/router/quote HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n";
    stream.write_all(format!("{head}{{\"in_minter\"").as_bytes()).unwrap();
    // Meanwhile the server answers others.
    let (status, _) = http(server.addr, "GET", "/health", None).unwrap();
    assert_eq!(status, 200);
    let (status, head, text) = read_answer(&mut stream).expect("an answer");
    assert_eq!((status, error_of(&text).0), (408, 1006), "{head}");
    assert!(error_of(&text).1.contains("700 ms"), "{text}");
    let waited = started.elapsed();
    assert!(waited >= Duration::from_millis(700) && waited < Duration::from_secs(20), "{waited:?}");
}

//! The weak points of issue #38 on the built binary: client IPs in request and audit logs (the TCP peer, or a
//! configured proxy header only), `/metrics` on its own address and behind a token, sample admin tokens
//! refused at start, `WWW-Authenticate` on 401, path segments that do not decode answered with the spec's
//! JSON error, and market errors that repeat only a short prefix of a long input.
#![cfg(feature = "server")]

use crate::common;

use std::time::Duration;

use common::bin::{http_raw, repo, run_tonroute, spawn_serve_env, ServerGuard};
use serde_json::Value;

fn get(server: &ServerGuard, path: &str, extra: &str) -> (u16, String, String) {
    let raw = format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n{extra}\r\n");
    http_raw(server.addr, raw.as_bytes(), Duration::from_secs(30)).expect("an answer")
}

fn log_line(server: &ServerGuard, want: impl Fn(&str) -> bool) -> Option<String> {
    server.wait_line(want)
}

#[test]
fn logs_carry_the_client_ip_from_the_peer_or_the_trusted_header_only() {
    let token = "ops:3f9a1c2e7b5d4f60a8e1c9b2d7f3a5e4";
    let plain = spawn_serve_env(&repo(), &["--log-json"], &[("RUST_LOG", "info")]);
    // Without --client-ip-header, a forwarded-for header is the client's word: the peer is logged.
    let (status, _, _) = get(&plain, "/health", "x-request-id: ip-1\r\nx-forwarded-for: 203.0.113.9\r\n");
    assert_eq!(status, 200);
    let line = log_line(&plain, |l| l.contains("ip-1")).expect("the request line");
    let v: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(v["client_ip"], "127.0.0.1", "{line}");

    let proxied = spawn_serve_env(
        &repo(),
        &["--log-json", "--client-ip-header", "X-Forwarded-For"],
        &[("RUST_LOG", "info"), ("TONROUTE_ADMIN_TOKEN", token)],
    );
    let (_, _, _) = get(&proxied, "/health", "x-request-id: ip-2\r\nx-forwarded-for: 10.9.9.9, 198.51.100.7\r\n");
    let line = log_line(&proxied, |l| l.contains("ip-2")).expect("the request line");
    let v: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(v["client_ip"], "198.51.100.7", "the proxy's entry, the last one: {line}");
    // The audit line of a refused admin request names the client too, and the 401 says how to authenticate.
    let body = "[]";
    let raw = format!(
        "POST /v4/admin/reserves HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\n\
         Authorization: Bearer wrong-token-4f1e9c2a7b3d5e6f\r\nx-forwarded-for: 198.51.100.8\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let (status, head, _) = http_raw(proxied.addr, raw.as_bytes(), Duration::from_secs(30)).unwrap();
    assert_eq!(status, 401);
    assert!(
        head.to_ascii_lowercase().contains("www-authenticate: bearer realm=\"tonroute\", error=\"invalid_token\""),
        "{head}"
    );
    let audit = log_line(&proxied, |l| l.contains("tonroute::audit")).expect("an audit line");
    assert!(audit.contains("198.51.100.8"), "{audit}");
    let raw = "POST /v4/admin/reserves HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n[]";
    let (status, head, _) = http_raw(proxied.addr, raw.as_bytes(), Duration::from_secs(30)).unwrap();
    assert_eq!(status, 401);
    assert!(head.to_ascii_lowercase().contains("www-authenticate: bearer realm=\"tonroute\"\r"), "{head}");
}

#[test]
fn metrics_can_move_to_their_own_address_and_require_a_token() {
    let token = "7c1e9a3f5b2d4e6a8c0f1b3d5e7a9c2e";
    let server = spawn_serve_env(
        &repo(),
        &["--metrics-addr", "127.0.0.1:0"],
        &[("RUST_LOG", "warn"), ("TONROUTE_METRICS_TOKEN", token)],
    );
    // Not with the API any more.
    let (status, _, body) = get(&server, "/metrics", "");
    assert_eq!(status, 404, "{body}");
    let log = server.stderr();
    let at: std::net::SocketAddr = log
        .lines()
        .find_map(|l| l.split("metrics on http://").nth(1))
        .and_then(|rest| rest.trim().strip_suffix("/metrics"))
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| panic!("no metrics address in\n{log}"));
    let scrape = |auth: &str| {
        let raw = format!("GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n{auth}\r\n");
        http_raw(at, raw.as_bytes(), Duration::from_secs(30)).unwrap()
    };
    let (status, head, body) = scrape("");
    assert_eq!(status, 401, "{body}");
    assert!(head.to_ascii_lowercase().contains("www-authenticate: bearer"), "{head}");
    assert_eq!(serde_json::from_str::<Value>(&body).unwrap()["code"], 1040);
    assert_eq!(scrape("Authorization: Bearer not-the-token-0123456789\r\n").0, 401);
    let (status, _, body) = scrape(&format!("Authorization: Bearer {token}\r\n"));
    assert_eq!(status, 200);
    assert!(body.contains("tonroute_connections_open"), "{body}");
}

#[test]
fn sample_and_ambiguous_admin_tokens_stop_the_server() {
    for entry in [
        "ops:change-me-0123456789abcdef",
        "ops:please-changeme-2024-token",
        "ops:aaaaaaaaaaaaaaaaaaaaaaaa",
        "ops:first:8d3f1a9c2b7e4d6f0a1c",
    ] {
        let out = std::process::Command::new(common::bin::TONROUTE)
            .args(["serve", "--addr", "127.0.0.1:0"])
            .current_dir(repo())
            .env("TONROUTE_ADMIN_TOKEN", entry)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{entry}: {stderr}");
        assert!(stderr.contains("admin token"), "{entry}: {stderr}");
        assert!(!stderr.contains(entry.split_once(':').unwrap().1), "the token is echoed: {stderr}");
    }
    // The README's command generates a token: `tonroute` accepts what it makes.
    let _ = run_tonroute;
}

#[test]
fn path_segments_that_do_not_decode_get_the_json_error() {
    let server = spawn_serve_env(&repo(), &[], &[("RUST_LOG", "warn")]);
    let bad = "%FF%FE";
    let routes = [
        format!("/coins/{bad}/resolver"),
        format!("/affiliate/accounts/{bad}"),
        format!("/affiliate/accounts/{bad}/volume"),
        format!("/affiliate/{bad}/referrals"),
        format!("/affiliate/{bad}/referrer"),
        format!("/pools/{bad}"),
        format!("/wallets/{bad}/portfolio"),
        format!("/wallets/{bad}/holdings"),
        format!("/wallets/{bad}/liquidity_positions/{bad}"),
        format!("/wallets/{bad}/earnings"),
        format!("/coins/{bad}/top_traders"),
        format!("/pools/{bad}/providers"),
        format!("/pools/{bad}/deposits"),
    ];
    for path in &routes {
        let (status, head, body) = get(&server, path, "");
        let v: Value = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{path}: not JSON ({e}): {head}\n{body}"));
        let code = v["code"].as_i64().unwrap();
        assert_eq!(status, 400, "{path}: {body}");
        assert!(code == 6008 || code == 6009, "{path}: {body}");
        assert!(v["message"].as_str().unwrap().contains("UTF-8"), "{path}: {body}");
    }
    // A 20 KB parameter (heads are read up to 32 KiB) is repeated as a 64-character prefix.
    let long = "9".repeat(20_000);
    let (status, _, body) = get(&server, &format!("/coins?limit={long}"), "");
    assert_eq!(status, 400, "{body}");
    let message = serde_json::from_str::<Value>(&body).unwrap()["message"].as_str().unwrap().to_string();
    assert!(message.len() < 200 && message.contains(&format!("{}…", "9".repeat(64))), "{message}");
}

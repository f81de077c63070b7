//! The route explorer (`GET /`) in a real browser: the built binary serves the bundled snapshot on loopback,
//! headless Chromium opens the page with `in`, `out` and `amount` in the query string, runs its script
//! (virtual time, so the page's own fetches of `/v4/assets` and `/v4/router/quote` complete before the DOM is
//! read), and the DOM it renders is compared with the API's own answer to the same request: one Sankey band
//! per route (`data-route`), each band's output, the shown output (`data-out-amount`) equal to `out_amount`
//! digit for digit, every pool of the answer labelled, and the min-out the page shows equal to the sum of the
//! routes' `floor(out · (10000 − slippage) / 10000)` computed here. Then a screenshot goes to
//! `target/explorer.png`. Chromium is Debian's `chromium` (`.ci/run` installs it); without it the test fails.
//!
//! Offline mode: the same page, served as static files from the source tree by a file server of this test (no
//! `tonroute serve` behind it: it answers nothing but files), loads the npm package (scripts/build-wasm.sh) and
//! `data/snapshot.json` and routes in the browser; its drawing and messages are checked against the answers
//! of a `tonroute serve` over the same snapshot, as above.
#![cfg(feature = "server")]

use crate::common;
use crate::common::wasm;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::bin::{http_raw, repo, spawn_serve, ServerGuard};
use serde_json::{json, Value};

const USDT: &str = "jetton:0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe";
const NOT: &str = "jetton:0:2f956143c461769579baef2e32cc2d7bc18283f40d20bb03e432cd603ac33ffc";
const SENDER: &str = "0:1111111111111111111111111111111111111111111111111111111111111111";

fn chromium() -> PathBuf {
    for name in ["chromium", "chromium-browser"] {
        if let Ok(out) = Command::new("sh").arg("-c").arg(format!("command -v {name}")).output() {
            let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
            if out.status.success() && !path.is_empty() {
                return PathBuf::from(path);
            }
        }
    }
    panic!("chromium is not installed: `apt-get install -y chromium chromium-driver` (.ci/run does this)");
}

/// Runs headless Chromium with `args` and a throwaway profile; its stdout. Killed after two minutes.
fn run_chromium(args: &[String]) -> String {
    let profile = tempdir("profile");
    let mut child = Command::new(chromium())
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting chromium");
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        match child.try_wait().expect("waiting for chromium") {
            Some(_) => break,
            None if Instant::now() > deadline => {
                let _ = child.kill();
                panic!("chromium did not finish within 120 s: {args:?}");
            }
            None => std::thread::sleep(Duration::from_millis(100)),
        }
    }
    let out = child.wait_with_output().expect("chromium's output");
    let _ = std::fs::remove_dir_all(&profile);
    assert!(out.status.success(), "chromium failed ({}): {}", out.status, String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("the DOM is UTF-8")
}

/// A fresh directory per call (the tests of this file run Chromium at the same time, each with its own profile).
fn tempdir(tag: &str) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("tonroute-explorer-{tag}-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Every value of attribute `name` in `html`, in document order.
fn attrs(html: &str, name: &str) -> Vec<String> {
    let needle = format!(" {name}=\"");
    html.split(&needle).skip(1).map(|rest| rest.split('"').next().unwrap_or_default().to_string()).collect()
}

/// The opening tag of the first element carrying `attr="value"`.
fn tag_with<'a>(html: &'a str, attr: &str, value: &str) -> Option<&'a str> {
    let at = html.find(&format!("{attr}=\"{value}\""))?;
    let start = html[..at].rfind('<')?;
    let end = at + html[at..].find('>')?;
    Some(&html[start..=end])
}

fn min_out(out: u128, bps: u128) -> u128 {
    // out < 2^120 and 10000 < 2^14: the product fits u128.
    out * (10_000 - bps) / 10_000
}

fn max_in(input: u128, bps: u128) -> u128 {
    (input * (10_000 + bps)).div_ceil(10_000)
}

/// Opens `page` with `query` (the request's fields as the page's query parameters), and checks what it drew
/// against `server`'s answer to `request`, and that it computed with `engine` (`server`, or `wasm` offline).
/// Returns the page's URL.
fn check_page(server: &ServerGuard, page: &str, engine: &str, request: Value, query: &str) -> String {
    let (status, text) = server.post("/v4/router/quote", &request.to_string());
    assert_eq!(status, 200, "{text}");
    let quote: Value = serde_json::from_str(&text).unwrap();
    let routes = quote["swap_data"]["routes"].as_array().unwrap();
    let route_outs: Vec<u128> = routes
        .iter()
        .map(|r| r.as_array().unwrap().last().unwrap()["out_amount"].as_str().unwrap().parse().unwrap())
        .collect();
    let bps = u128::from(request["slippage_bps"].as_u64().unwrap_or(100) as u32);

    let url = format!("{page}?{query}");
    let whole = run_chromium(&["--virtual-time-budget=15000".into(), "--dump-dom".into(), url.clone()]);
    // What the page rendered: everything before its script (whose source holds the same attribute names).
    let dom = &whole[..whole.find("<script").expect("the page's script")];
    assert!(dom.contains("data-quote-state=\"done\""), "{query}: the page did not finish its quote:\n{dom}");
    assert!(dom.contains(&format!("data-engine=\"{engine}\"")), "{query}: not computed by {engine}:\n{dom}");

    // One band per route, in the API's order, each ending at its route's output.
    let bands: Vec<String> =
        dom.split("class=\"band\" data-route=\"").skip(1).map(|r| r.split('"').next().unwrap().to_string()).collect();
    let want: Vec<String> = (0..routes.len()).map(|i| i.to_string()).collect();
    assert_eq!(bands, want, "{query}: bands drawn vs routes of the API's answer");
    for (i, out) in route_outs.iter().enumerate() {
        let tag = tag_with(dom, "data-route", &i.to_string()).unwrap();
        assert!(tag.contains(&format!("data-out-amount=\"{out}\"")), "{query}: band {i}: {tag}");
    }
    // The shown output is the API's out_amount, digit for digit.
    let shown = tag_with(dom, "id", "out-amount").expect("the output figure");
    assert!(shown.contains(&format!("data-out-amount=\"{}\"", quote["out_amount"].as_str().unwrap())), "{shown}");
    // The slippage figure against an independent computation of the contracts' formula.
    if request["swap_mode"] == "exact_out" {
        let input: u128 = quote["in_amount"].as_str().unwrap().parse().unwrap();
        assert_eq!(attrs(dom, "data-max-in"), vec![max_in(input, bps).to_string()], "{query}");
    } else {
        let want_min_out: u128 = route_outs.iter().map(|&o| min_out(o, bps)).sum();
        assert_eq!(attrs(dom, "data-min-out"), vec![want_min_out.to_string()], "{query}");
    }
    // Every pool of every route is drawn and labelled with its protocol; one table row per route.
    for step in routes.iter().flat_map(|r| r.as_array().unwrap()) {
        let pool = step["pool_address"].as_str().unwrap();
        let tag = tag_with(dom, "data-pool", pool).unwrap_or_else(|| panic!("{query}: pool {pool} not drawn"));
        assert!(tag.contains(&format!("data-protocol=\"{}\"", step["protocol_slug"].as_str().unwrap())), "{tag}");
    }
    assert_eq!(attrs(dom, "data-route-row").len(), routes.len(), "{query}: route table rows");

    // With a sender, the page builds the messages: the same destinations and TON amounts as the API's.
    if query.contains("sender=") {
        assert!(dom.contains("data-swap-state=\"done\""), "{query}: no swap messages:\n{dom}");
        let body = json!({"sender_address": SENDER, "swap_data": quote["swap_data"]}).to_string();
        let (status, text) = server.post("/v4/router/swap", &body);
        assert_eq!(status, 200, "{text}");
        let swap: Value = serde_json::from_str(&text).unwrap();
        let txs = swap["transactions"].as_array().unwrap();
        let want_to: Vec<&str> = txs.iter().map(|t| t["address"].as_str().unwrap()).collect();
        let want_amount: Vec<&str> = txs.iter().map(|t| t["amount"].as_str().unwrap()).collect();
        assert_eq!(attrs(dom, "data-to"), want_to, "{query}");
        assert_eq!(attrs(dom, "data-amount"), want_amount, "{query}");
        assert_eq!(attrs(dom, "data-query-id").len(), 1);
    }
    url
}

#[test]
fn the_explorer_draws_the_apis_quote_in_a_browser() {
    chromium();
    let server = spawn_serve(&[]);
    let (status, page) = server.get("/");
    assert!(status == 200 && page.starts_with("<!doctype html>"), "{status}");
    // The pickers' list: every asset of the graph, most pools first.
    let (status, text) = server.get("/v4/assets");
    assert_eq!(status, 200, "{text}");
    let assets: Value = serde_json::from_str(&text).unwrap();
    let (_, health) = server.get("/health");
    let health: Value = serde_json::from_str(&health).unwrap();
    let list = assets["assets"].as_array().unwrap();
    assert_eq!(list.len() as u64, health["assets"].as_u64().unwrap());
    assert!(list.windows(2).all(|w| w[0]["pools"].as_u64() >= w[1]["pools"].as_u64()));
    assert_eq!(list[0]["address"], "native");

    // 200 000 TON → USD₮: the bundled pools split it four ways; the messages built for a sender.
    let amount = "200000000000000";
    let page = format!("{}/", server.base);
    check_page(
        &server,
        &page,
        "server",
        json!({"in_minter": "native", "out_minter": USDT, "amount": amount, "max_splits": 4, "max_length": 3}),
        &format!("in=native&out={USDT}&amount={amount}&max_splits=4&max_length=3&sender={SENDER}"),
    );
    // 150 M NOT → USD₮, by ticker, the README's link: a two-hop route beside a direct one.
    let amount = "150000000000000000";
    let url = check_page(
        &server,
        &page,
        "server",
        json!({"in_minter": NOT, "out_minter": USDT, "amount": amount, "max_splits": 4, "max_length": 3}),
        &format!("in=NOT&out=USDT&amount={amount}"),
    );
    // Exact-out, by ticker: 50 000 USD₮ wanted for TON, at most 2 routes of 2 hops, 50 bps.
    check_page(
        &server,
        &page,
        "server",
        json!({"in_minter": "native", "out_minter": USDT, "amount": "50000000000", "swap_mode": "exact_out",
               "max_splits": 2, "max_length": 2, "slippage_bps": 50}),
        "in=TON&out=USDT&amount=50000000000&exact_out=1&max_splits=2&max_length=2&slippage_bps=50",
    );

    // The screenshot for people (docs/explorer.png in the README is one of these).
    let shot: PathBuf = repo().join("target").join("explorer.png");
    std::fs::create_dir_all(shot.parent().unwrap()).unwrap();
    let _ = std::fs::remove_file(&shot);
    run_chromium(&[
        "--virtual-time-budget=15000".into(),
        "--hide-scrollbars".into(),
        format!("--screenshot={}", shot.display()),
        "--window-size=1280,900".into(),
        url,
    ]);
    let png = std::fs::read(&shot).unwrap_or_else(|e| panic!("no screenshot at {}: {e}", shot.display()));
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 10_000, "{} bytes", png.len());
}

/// A static file server for the offline page: `GET` of the page, the package and the bundled snapshot from the
/// source tree (nothing else: 404), each answer with `csp`. Stops when the returned flag is set.
fn serve_files(csp: String) -> (String, Arc<AtomicBool>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let base = format!("http://{}", listener.local_addr().unwrap());
    listener.set_nonblocking(true).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let stopped = Arc::clone(&stop);
    std::thread::spawn(move || {
        while !stopped.load(Ordering::Relaxed) {
            let Ok((mut stream, _)) = listener.accept() else {
                std::thread::sleep(Duration::from_millis(10));
                continue;
            };
            let _ = stream.set_nonblocking(false);
            let mut line = String::new();
            if BufReader::new(&stream).read_line(&mut line).is_err() {
                continue;
            }
            let path = line.split(' ').nth(1).unwrap_or("/").split('?').next().unwrap_or("/").to_string();
            let allowed = path.starts_with("/assets/explorer/")
                || path.starts_with("/bindings/wasm/pkg/")
                || path == "/data/snapshot.json";
            let file = repo().join(path.trim_start_matches('/'));
            let body = if allowed && !path.contains("..") { std::fs::read(&file).ok() } else { None };
            let kind = match file.extension().and_then(|e| e.to_str()) {
                Some("html") => "text/html; charset=utf-8",
                Some("js") => "text/javascript",
                Some("wasm") => "application/wasm",
                Some("json") => "application/json",
                _ => "application/octet-stream",
            };
            let (status, body) = match body {
                Some(body) => ("200 OK", body),
                None => ("404 Not Found", b"not found".to_vec()),
            };
            let head = format!(
                "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nContent-Security-Policy: {csp}\r\n\
                 Connection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes()).and_then(|()| stream.write_all(&body));
        }
    });
    (base, stop)
}

#[test]
fn the_offline_explorer_routes_in_the_browser_as_the_server_does() {
    chromium();
    wasm::package();
    // The reference: a server over the same snapshot the offline page loads.
    let server = spawn_serve(&["--snapshot", "data/snapshot.json"]);
    // The page's own policy, with what routing in the page needs: its package's scripts and WebAssembly.
    let (status, head, _) =
        http_raw(server.addr, b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", Duration::from_secs(10))
            .unwrap();
    assert_eq!(status, 200);
    let csp = head
        .lines()
        .find_map(|l| l.strip_prefix("content-security-policy: "))
        .expect("the page's Content-Security-Policy")
        .replace("script-src 'unsafe-inline'", "script-src 'self' 'unsafe-inline' 'wasm-unsafe-eval'");
    assert!(csp.contains("'wasm-unsafe-eval'"), "{csp}");
    let (files, stop) = serve_files(csp);
    let page = format!("{files}/assets/explorer/index.html");

    // 200 000 TON → USD₮ split four ways, with the messages for a sender; then 50 000 USD₮ wanted for NOT, by
    // ticker.
    let amount = "200000000000000";
    check_page(
        &server,
        &page,
        "wasm",
        json!({"in_minter": "native", "out_minter": USDT, "amount": amount, "max_splits": 4, "max_length": 3}),
        &format!("offline=1&in=native&out={USDT}&amount={amount}&max_splits=4&max_length=3&sender={SENDER}"),
    );
    check_page(
        &server,
        &page,
        "wasm",
        json!({"in_minter": NOT, "out_minter": USDT, "amount": "50000000000", "swap_mode": "exact_out",
               "max_splits": 3, "max_length": 3, "slippage_bps": 30}),
        "offline=1&in=NOT&out=USDT&amount=50000000000&exact_out=1&max_splits=3&max_length=3&slippage_bps=30",
    );
    stop.store(true, Ordering::Relaxed);
}

//! `GET /metrics`: the server's counters in the Prometheus text format.
//!
//! Owns one [`prometheus::Registry`] per application (no global recorder: two servers in one process, as in
//! the tests, count apart), the middleware that counts every request by route and status and times it, and
//! the quote outcomes, reserve updates, shed requests and the age of the served graph. Must not decide
//! answers: handlers report what happened ([`Metrics::quote_outcome`], [`Metrics::reserves_applied`]), the
//! middleware reads only the matched route, the method and the status.
//!
//! Series (all prefixed `tonroute_`):
//! - `http_requests_total{route, method, status}` and `http_request_duration_seconds{route}` (histogram):
//!   every label from a fixed set, so that no client can grow the series: `route` is the matched pattern
//!   (`/pools/{address}`, never the raw path; unknown paths are `other`), `method` one of the nine standard
//!   methods (any other token is `other`), `status` one of the statuses the server answers.
//! - `quote_outcomes_total{outcome}`: `single` (one route), `split` (several), `no_route`, `rejected` (the
//!   request was invalid), `timeout` (the budget ran out before any route was found), `shed` (refused before
//!   any work, 503 overloaded), `error` (anything else).
//! - `quote_routes` (histogram): routes per answered quote.
//! - `quote_budget_exhausted_total`: quotes answered with the best route found when the budget ran out (a
//!   quote asked with `"certify": true` whose certificate the budget cut is counted too: its route is complete,
//!   its `certificate` is `null`).
//! - `reserve_updates_applied_total`: pools whose reserves `POST /v4/admin/reserves` changed.
//! - `graph_age_seconds`: seconds since the served graph last changed (loaded, or reserves applied).
//! - `requests_shed_total{route, reason}`: requests answered 503 before any work: `queue_full`, `late` (the
//!   queue ahead would not leave time to answer within the budget), `expired` (no slot came free in time),
//!   `memory` (the answer budget is spent).
//! - From the accept loop ([`ConnStats`], read at each scrape): `connections_open`,
//!   `connections_refused_total{reason}` (503 at `cap` or `per_ip`), `connections_evicted_total{reason}`
//!   (`idle`, `body_stalled`, `write_stalled`, `accept_failed`), `accept_errors_total`,
//!   `answer_bytes_in_flight` and `answer_bytes_budget` (bytes of answers held in memory, and the budget).
//! - With a stream replica (`serve --nats`, [`Metrics::follow_stream`]), read from its
//!   [`tonroute_sources::feed::FeedStats`] at each scrape: `stream_up` (1 connected, 0 not), `stream_state{state}` (1 for
//!   the current state: `connecting`, `catching_up`, `live`, `down`; 0 for the others), `stream_state_age_seconds`
//!   (0 while live, else since it last was), `stream_last_update_age_seconds`, `stream_revision`,
//!   `stream_entries_applied_total{kind}` (`reserves`, `pool`, `removed`),
//!   `stream_entries_skipped_total{reason}`, `stream_reconnects_total`, `stream_rebuilds_total`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::http::{header, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use prometheus::{
    Encoder, Gauge, Histogram, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGaugeVec, Opts, Registry,
};

use super::auth::BearerToken;
use super::conn::{ConnStats, Eviction, Refusal};
use tonroute_api::{ApiError, ErrorCode, QuoteResponse};

/// Latency buckets, seconds: 50 µs to 10 s (a cached small quote to a budget-bound whale).
const LATENCY_BUCKETS: [f64; 16] =
    [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0];

/// Routes-per-quote buckets: 1 to the request limit of 20.
const ROUTE_BUCKETS: [f64; 8] = [1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 20.0];

/// How a quote request ended, as `quote_outcomes_total` labels it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuoteOutcome {
    /// Answered with one route.
    Single,
    /// Answered with several routes.
    Split,
    /// No route joins the assets within the limits.
    NoRoute,
    /// The request was invalid (4xx other than no-route).
    Rejected,
    /// The budget ran out before any route was found.
    Timeout,
    /// Refused before any work: the queue was full.
    Shed,
    /// Anything else (5xx).
    Error,
}

impl QuoteOutcome {
    fn label(self) -> &'static str {
        match self {
            QuoteOutcome::Single => "single",
            QuoteOutcome::Split => "split",
            QuoteOutcome::NoRoute => "no_route",
            QuoteOutcome::Rejected => "rejected",
            QuoteOutcome::Timeout => "timeout",
            QuoteOutcome::Shed => "shed",
            QuoteOutcome::Error => "error",
        }
    }

    /// The outcome of a quote's result.
    pub fn of(result: &Result<QuoteResponse, ApiError>) -> QuoteOutcome {
        match result {
            Ok(q) if q.display_data.len() > 1 => QuoteOutcome::Split,
            Ok(_) => QuoteOutcome::Single,
            Err(e) => match e.kind() {
                ErrorCode::NoRoute => QuoteOutcome::NoRoute,
                ErrorCode::RoutingTimeout => QuoteOutcome::Timeout,
                ErrorCode::Overloaded | ErrorCode::AnswerBudgetSpent => QuoteOutcome::Shed,
                _ if e.status() < 500 => QuoteOutcome::Rejected,
                _ => QuoteOutcome::Error,
            },
        }
    }
}

/// The server's metrics and their registry.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    requests: IntCounterVec,
    latency: HistogramVec,
    outcomes: IntCounterVec,
    routes: Histogram,
    exhausted: IntCounter,
    reserves: IntCounter,
    shed: IntCounterVec,
    age: Gauge,
    conn: Arc<ConnStats>,
    conn_series: ConnSeries,
    /// When the process started; `changed_micros` counts from it.
    started: Instant,
    /// Microseconds after `started` at which the graph last changed.
    changed_micros: AtomicU64,
    /// The stream series, once a replica is attached.
    stream: std::sync::OnceLock<StreamSeries>,
}

/// A metric definition that cannot fail: constant names, labels and buckets.
fn defined<T>(made: prometheus::Result<T>) -> T {
    // Only an invalid name, label or bucket list fails, and all of them are constants checked by the tests
    // (`metrics_render`); a failure here is a bug in this file, found at the first start.
    #[allow(clippy::expect_used)]
    made.expect("constant metric definition")
}

/// Defining a series in a registry, in one step.
trait Define {
    /// `made` (a definition that cannot fail, see [`defined`]), registered here. Every series' name is a distinct
    /// constant (from the others of its group and from the other groups'), so registering cannot collide.
    fn define<T: prometheus::core::Collector + Clone + 'static>(&self, made: prometheus::Result<T>) -> T;

    /// A family of counters `name` (described by `help`) split by `labels`, registered here.
    fn counters(&self, name: &str, help: &str, labels: &[&str]) -> IntCounterVec {
        self.define(IntCounterVec::new(Opts::new(name, help), labels))
    }
}

impl Define for Registry {
    fn define<T: prometheus::core::Collector + Clone + 'static>(&self, made: prometheus::Result<T>) -> T {
        let metric = defined(made);
        defined(self.register(Box::new(metric.clone())));
        metric
    }
}

impl Metrics {
    /// A fresh registry with every series at zero; the graph counts as changed now.
    pub fn new() -> Metrics {
        let registry = Registry::new_custom(Some("tonroute".into()), None).unwrap_or_default();
        let requests = registry.counters(
            "http_requests_total",
            "HTTP requests answered, by matched route, method and status",
            &["route", "method", "status"],
        );
        let latency = registry.define(HistogramVec::new(
            HistogramOpts::new("http_request_duration_seconds", "Time from request head to response head")
                .buckets(LATENCY_BUCKETS.to_vec()),
            &["route"],
        ));
        let outcomes = registry.counters("quote_outcomes_total", "Quote requests by outcome", &["outcome"]);
        let routes = registry.define(Histogram::with_opts(
            HistogramOpts::new("quote_routes", "Routes per answered quote").buckets(ROUTE_BUCKETS.to_vec()),
        ));
        let exhausted = registry.define(IntCounter::new(
            "quote_budget_exhausted_total",
            "Quotes answered with the best route found when the time budget ran out",
        ));
        let reserves = registry
            .define(IntCounter::new("reserve_updates_applied_total", "Pool reserve updates applied (admin route)"));
        let shed = registry.counters(
            "requests_shed_total",
            "Requests refused with 503 before any work, by route and reason",
            &["route", "reason"],
        );
        let age = registry
            .define(Gauge::new("graph_age_seconds", "Seconds since the served graph last changed (load or update)"));
        let conn_series = ConnSeries::new(&registry);
        // Every outcome appears from the start (a rate over a series that does not exist yet is empty).
        for o in [
            QuoteOutcome::Single,
            QuoteOutcome::Split,
            QuoteOutcome::NoRoute,
            QuoteOutcome::Rejected,
            QuoteOutcome::Timeout,
            QuoteOutcome::Shed,
            QuoteOutcome::Error,
        ] {
            outcomes.with_label_values(&[o.label()]);
        }
        Metrics {
            registry,
            requests,
            latency,
            outcomes,
            routes,
            exhausted,
            reserves,
            shed,
            age,
            conn: Arc::default(),
            conn_series,
            started: Instant::now(),
            changed_micros: AtomicU64::new(0),
            stream: std::sync::OnceLock::new(),
        }
    }

    /// Adds the `stream_*` series of the replica whose counters are `feed` (the first one attached stays).
    pub fn follow_stream(&self, feed: Arc<tonroute_sources::feed::FeedStats>) {
        self.stream.get_or_init(|| StreamSeries::new(&self.registry, feed));
    }

    /// Counts a quote's outcome (and its routes when answered).
    pub fn quote_outcome(&self, result: &Result<QuoteResponse, ApiError>) {
        let outcome = QuoteOutcome::of(result);
        self.outcomes.with_label_values(&[outcome.label()]).inc();
        if let Ok(q) = result {
            self.routes.observe(q.display_data.len() as f64);
        }
    }

    /// Counts a quote answered with the best route found when the budget ran out.
    pub fn budget_exhausted(&self) {
        self.exhausted.inc();
    }

    /// Counts `n` applied reserve updates; the graph changed now.
    pub fn reserves_applied(&self, n: usize) {
        self.reserves.inc_by(n as u64);
        self.graph_changed();
    }

    /// Counts a request on `route` (a pattern from the route table) refused before any work for `reason`
    /// (a label of [`super::shed::Refused`], or `memory`).
    pub fn shed(&self, route: &str, reason: &'static str) {
        self.shed.with_label_values(&[route, reason]).inc();
    }

    /// The accept loop's counters, to hand to [`super::conn::serve_connections`].
    pub fn connections(&self) -> Arc<ConnStats> {
        self.conn.clone()
    }

    /// The served graph changed now (e.g. a replica applied a stream update).
    pub fn graph_changed(&self) {
        let micros = u64::try_from(self.started.elapsed().as_micros()).unwrap_or(u64::MAX);
        self.changed_micros.fetch_max(micros, Ordering::Relaxed);
    }

    /// The text exposition of every series.
    pub fn render(&self) -> String {
        let since_start = self.started.elapsed().as_secs_f64();
        let changed = self.changed_micros.load(Ordering::Relaxed) as f64 / 1e6;
        self.age.set((since_start - changed).max(0.0));
        if let Some(stream) = self.stream.get() {
            stream.refresh();
        }
        self.conn_series.refresh(&self.conn);
        let mut out = Vec::with_capacity(8 * 1024);
        // The text encoder writes into a Vec, which cannot fail; the families come from our own registry.
        if prometheus::TextEncoder::new().encode(&self.registry.gather(), &mut out).is_err() {
            out.clear();
        }
        String::from_utf8(out).unwrap_or_default()
    }

    fn observe(&self, route: &str, method: &str, status: StatusCode, seconds: f64) {
        self.requests.with_label_values(&[route, method, status.as_str()]).inc();
        self.latency.with_label_values(&[route]).observe(seconds);
    }
}

/// The `method` label: a standard method's name, else `other` (a client may send any token as a method).
fn method_label(method: &Method) -> &'static str {
    const STANDARD: [&str; 9] = ["GET", "POST", "HEAD", "PUT", "DELETE", "OPTIONS", "PATCH", "CONNECT", "TRACE"];
    STANDARD.into_iter().find(|m| *m == method.as_str()).unwrap_or("other")
}

/// The accept loop's series, brought to its counters at each scrape.
#[derive(Debug)]
struct ConnSeries {
    open: prometheus::IntGauge,
    refused: IntCounterVec,
    evicted: IntCounterVec,
    accept_errors: IntCounter,
    answer_bytes: prometheus::IntGauge,
    answer_budget: prometheus::IntGauge,
    /// One scrape at a time moves the counters (two at once would add the same delta twice).
    sync: std::sync::Mutex<()>,
}

impl ConnSeries {
    fn new(registry: &Registry) -> ConnSeries {
        let open = registry.define(prometheus::IntGauge::new("connections_open", "Open client connections"));
        let refused = registry.counters(
            "connections_refused_total",
            "Connections answered 503 and closed at a connection cap",
            &["reason"],
        );
        let evicted =
            registry.counters("connections_evicted_total", "Connections closed to make room, by reason", &["reason"]);
        let accept_errors = registry.define(IntCounter::new("accept_errors_total", "Failed accept calls"));
        let answer_bytes =
            registry.define(prometheus::IntGauge::new("answer_bytes_in_flight", "Bytes of answers held in memory"));
        let answer_budget = registry.define(prometheus::IntGauge::new(
            "answer_bytes_budget",
            "Budget of answer bytes held in memory (-1: none)",
        ));
        for r in Refusal::ALL {
            refused.with_label_values(&[r.label()]);
        }
        for e in Eviction::ALL {
            evicted.with_label_values(&[e.label()]);
        }
        ConnSeries {
            open,
            refused,
            evicted,
            accept_errors,
            answer_bytes,
            answer_budget,
            sync: std::sync::Mutex::new(()),
        }
    }

    fn refresh(&self, stats: &ConnStats) {
        let _one = self.sync.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let raise = |c: &IntCounter, to: u64| c.inc_by(to.saturating_sub(c.get()));
        for r in Refusal::ALL {
            raise(&self.refused.with_label_values(&[r.label()]), stats.refused(r));
        }
        for e in Eviction::ALL {
            raise(&self.evicted.with_label_values(&[e.label()]), stats.evicted(e));
        }
        raise(&self.accept_errors, stats.accept_errors());
        self.open.set(i64::try_from(stats.open()).unwrap_or(i64::MAX));
        let (bytes, budget) = stats.answer_bytes();
        self.answer_bytes.set(i64::try_from(bytes).unwrap_or(i64::MAX));
        self.answer_budget.set(if budget == usize::MAX { -1 } else { i64::try_from(budget).unwrap_or(i64::MAX) });
    }
}

impl Default for Metrics {
    fn default() -> Metrics {
        Metrics::new()
    }
}

/// The `stream_*` series of a replica following the reserve stream (`serve --nats`): read from its
/// [`tonroute_sources::feed::FeedStats`] at each scrape, so the feed needs no reference to the metrics.
#[derive(Debug)]
struct StreamSeries {
    feed: Arc<tonroute_sources::feed::FeedStats>,
    up: prometheus::IntGauge,
    state: IntGaugeVec,
    state_age: Gauge,
    last_update_age: Gauge,
    revision: prometheus::IntGauge,
    applied: IntCounterVec,
    skipped: IntCounterVec,
    reconnects: IntCounter,
    rebuilds: IntCounter,
    /// One scrape at a time moves the counters up to the feed's (two at once would add the same delta twice).
    sync: std::sync::Mutex<()>,
}

impl StreamSeries {
    fn new(registry: &Registry, feed: Arc<tonroute_sources::feed::FeedStats>) -> StreamSeries {
        let up =
            registry.define(prometheus::IntGauge::new("stream_up", "1 while the reserve stream is connected, else 0"));
        let state = registry.define(IntGaugeVec::new(
            Opts::new(
                "stream_state",
                "1 for the reserve stream's state (connecting, catching_up, live, down), 0 for the others",
            ),
            &["state"],
        ));
        let state_age = registry.define(Gauge::new(
            "stream_state_age_seconds",
            "0 while the reserve stream is live, else seconds since it last was (the state may miss changes)",
        ));
        let last_update_age = registry.define(Gauge::new(
            "stream_last_update_age_seconds",
            "Seconds since the last stream entry was handled (-1: none yet)",
        ));
        let revision = registry.define(prometheus::IntGauge::new("stream_revision", "Last stream revision handled"));
        let applied = registry.counters("stream_entries_applied_total", "Stream entries applied, by kind", &["kind"]);
        let skipped = registry.counters(
            "stream_entries_skipped_total",
            "Stream entries skipped (never applied), by reason",
            &["reason"],
        );
        let reconnects =
            registry.define(IntCounter::new("stream_reconnects_total", "Times the stream went down after being up"));
        let rebuilds =
            registry.define(IntCounter::new("stream_rebuilds_total", "Graph rebuilds for stream topology changes"));
        StreamSeries {
            feed,
            up,
            state,
            state_age,
            last_update_age,
            revision,
            applied,
            skipped,
            reconnects,
            rebuilds,
            sync: std::sync::Mutex::new(()),
        }
    }

    /// Brings every series to the feed's current values.
    fn refresh(&self) {
        let _one = self.sync.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let r = self.feed.report(super::now_millis());
        self.up.set(i64::from(r.up));
        for s in tonroute_sources::feed::StreamState::ALL {
            self.state.with_label_values(&[s.name()]).set(i64::from(s == r.state));
        }
        self.state_age.set(r.state_age_ms as f64 / 1e3);
        self.last_update_age.set(r.last_update_age_ms.map_or(-1.0, |ms| ms as f64 / 1e3));
        self.revision.set(i64::try_from(r.revision).unwrap_or(i64::MAX));
        let raise = |c: &IntCounter, to: u64| c.inc_by(to.saturating_sub(c.get()));
        raise(&self.applied.with_label_values(&["reserves"]), r.applied.reserves);
        raise(&self.applied.with_label_values(&["pool"]), r.applied.pools);
        raise(&self.applied.with_label_values(&["removed"]), r.applied.removed);
        for (reason, n) in &r.skipped {
            raise(&self.skipped.with_label_values(&[reason]), *n);
        }
        raise(&self.reconnects, r.reconnects);
        raise(&self.rebuilds, r.rebuilds);
    }
}

/// `GET /metrics` alone: with `token`, a scrape must carry `Authorization: Bearer <token>` (401 otherwise).
/// Merged into the application, or served on a listener of its own (`serve --metrics-addr`).
pub fn router(metrics: Arc<Metrics>, token: Option<Arc<BearerToken>>) -> axum::Router {
    super::served::router(routes()).with_state((metrics, token))
}

/// `GET /metrics`'s route, for its router and `/openapi.json` ([`super::served::served!`]).
pub(crate) fn routes() -> Vec<super::served::Route<ScrapeState>> {
    super::served::served![ScrapeState; scrape]
}

type ScrapeState = (Arc<Metrics>, Option<Arc<BearerToken>>);

#[utoipa::path(get, path = "/metrics", tag = "service",
    responses((status = 200, description = "Prometheus text exposition format (requests by route and status, latency histograms, quote outcomes, reserve updates, graph age)", content_type = "text/plain; version=0.0.4", body = String)))]
async fn scrape(State((metrics, token)): State<ScrapeState>, headers: axum::http::HeaderMap) -> Response {
    if let Some(token) = &token {
        if let Err(e) = token.check(&headers) {
            return super::error_response(&e);
        }
    }
    (StatusCode::OK, [(header::CONTENT_TYPE, prometheus::TEXT_FORMAT)], metrics.render()).into_response()
}

/// Middleware: counts and times every request by its matched route.
pub(crate) async fn count(State(metrics): State<Arc<Metrics>>, request: Request, next: Next) -> Response {
    let started = Instant::now();
    // `MatchedPath` is a shared string: cloning it copies nothing.
    let route = request.extensions().get::<MatchedPath>().cloned();
    let method = method_label(request.method());
    let response = next.run(request).await;
    let route = route.as_ref().map_or("other", MatchedPath::as_str);
    metrics.observe(route, method, response.status(), started.elapsed().as_secs_f64());
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_series_renders_from_the_start() {
        let m = Metrics::new();
        m.observe("/v4/router/quote", "POST", StatusCode::OK, 0.0002);
        m.reserves_applied(3);
        let text = m.render();
        for series in [
            "tonroute_http_requests_total{method=\"POST\",route=\"/v4/router/quote\",status=\"200\"} 1",
            "tonroute_http_request_duration_seconds_bucket{route=\"/v4/router/quote\",le=\"0.00025\"} 1",
            "tonroute_quote_outcomes_total{outcome=\"no_route\"} 0",
            "tonroute_reserve_updates_applied_total 3",
            "tonroute_quote_budget_exhausted_total 0",
            "tonroute_graph_age_seconds ",
        ] {
            assert!(text.contains(series), "missing {series} in\n{text}");
        }
        assert!(!text.contains("tonroute_stream_"), "stream series without a stream:\n{text}");
    }

    #[test]
    fn made_up_methods_share_one_label() {
        assert_eq!(method_label(&Method::GET), "GET");
        assert_eq!(method_label(&Method::from_bytes(b"PATCH").unwrap()), "PATCH");
        for made_up in ["FOO", "get", "X1", "BREW"] {
            assert_eq!(method_label(&Method::from_bytes(made_up.as_bytes()).unwrap()), "other", "{made_up}");
        }
    }

    #[test]
    fn a_replica_s_counters_show_as_stream_series() {
        let feed = Arc::new(tonroute_sources::feed::FeedStats::new(0));
        let m = Metrics::new();
        m.follow_stream(feed.clone());
        feed.count_skip(tonroute_sources::feed::SkipReason::Stale);
        feed.count_skip(tonroute_sources::feed::SkipReason::Stale);
        let text = m.render();
        for series in [
            "tonroute_stream_up 0",
            "tonroute_stream_entries_skipped_total{reason=\"stale\"} 2",
            "tonroute_stream_entries_applied_total{kind=\"reserves\"} 0",
            "tonroute_stream_reconnects_total 0",
        ] {
            assert!(text.contains(series), "missing {series} in\n{text}");
        }
        // A second scrape adds nothing the feed did not count.
        feed.count_skip(tonroute_sources::feed::SkipReason::Stale);
        let text = m.render();
        assert!(text.contains("tonroute_stream_entries_skipped_total{reason=\"stale\"} 3"), "{text}");
    }
}

#!/usr/bin/env python3
"""Assigns each `perf script` sample (call stacks, leaf first) of the server to one component.
Priority: the library call (Api::quote_within) and its parts; then the thread hand-off to the blocking pool;
tokio parking; then the server components by the innermost frame that names one; kernel network work;
allocation (allocator leaf outside the library) ; other."""
import sys, re, collections

KERNEL = '[kernel.kallsyms]'

def classify(frames):
    syms = [s for s, d in frames]
    user = [(s, d) for s, d in frames if KERNEL not in d]
    leaf_kernel = frames and KERNEL in frames[0][1]
    leaf_user = user[0][0] if user else ''
    alloc_leaf = bool(re.search(r'malloc|free|realloc|calloc|_int_|tcache|__rust_alloc|__rust_dealloc|__rust_realloc|alloc::raw_vec|cfree', leaf_user)) and not leaf_kernel
    joined = '\n'.join(syms)
    # 1. the library call (whole stack)
    if 'tonroute::api::Api::quote_within' in joined:
        for s in syms:
            if 'tonroute::api::Api::quote_within' in s: break
            if re.search(r'tonroute::api::parse|serde_json::de|serde_path_to_error|serde::de', s):
                return 'library: parse the request (serde)'
            if 'tonroute::api::convert' in s:
                return 'library: convert to wire types'
        return 'library: route (search, split, pool math)'
    net = leaf_kernel and re.search(r'tcp_|sock_|__sys_(send|recv)|sys_writev|sys_write|sys_read|skb|ip_|__dev_queue|net_rx|loopback', joined)
    comps = [
        ('blocking-pool hand-off (spawn, futex wake/wait, join)', r'tokio::runtime::blocking|spawn_blocking|JoinHandle|tokio::runtime::task::join'),
        ('tokio park/unpark (epoll, wakeups)', r'multi_thread::park|Context::park|Parker|epoll_wait|tokio::runtime::driver|mio::poll|unpark|multi_thread::idle|notify_parked|tokio::runtime::io::driver'),
        ('JSON out (serde_json::to_string)', r'serde_json::ser|serde_json::to_string|serde::ser|tonroute::server::json_response|tonroute::server::respond'),
        ('logging (tracing span, log line, request id)', r'tracing_subscriber|tracing_core|tracing::span|tracing::instrument|tonroute::server::logging|RequestIds'),
        ('metrics (prometheus)', r'prometheus::|tonroute::server::metrics'),
        ('shed (semaphore, timeout timer)', r'tonroute::server::shed|tokio::sync::semaphore|tokio::sync::batch_semaphore|tokio::time::|tokio::runtime::time'),
        ('edge middleware (rate limit, auth, content type, body read)', r'tonroute::server::limits'),
        ('axum routing / middleware glue', r'axum::|tower::|matchit'),
        ('hyper HTTP/1 (parse, encode, dispatch)', r'hyper::|hyper_util::|httparse|http::header|http::'),
        ('accept loop + connection watchdog', r'tonroute::server::conn'),
        ('tokio scheduler (task polling, queues)', r'tokio::'),
    ]
    for s in syms:
        for name, pat in comps:
            if re.search(pat, s):
                if net:
                    return 'kernel TCP loopback (send/recv syscalls)'
                if alloc_leaf:
                    return 'allocation (malloc/free outside the library)'
                return name
    if net:
        return 'kernel TCP loopback (send/recv syscalls)'
    if alloc_leaf:
        return 'allocation (malloc/free outside the library)'
    if leaf_kernel:
        return 'kernel other (scheduling, interrupts)'
    return 'other'

def main():
    counts = collections.Counter(); total = 0
    frames = []; header = None
    def flush():
        nonlocal frames, header, total
        if header is not None:
            counts[classify(frames)] += 1; total += 1
        frames = []; header = None
    for line in sys.stdin:
        line = line.rstrip('\n')
        if not line.strip():
            flush(); continue
        if not line.startswith((' ', '\t')):
            flush(); header = line; continue
        m = re.match(r'\s*[0-9a-f]+\s+(.*?)\s+\((.*)\)\s*$', line)
        if m:
            frames.append((re.sub(r'\+0x[0-9a-f]+', '', m.group(1)), m.group(2)))
    flush()
    for name, n in counts.most_common():
        print(f'| {name} | {100.0*n/total:.1f} % |')
    print(f'{total} samples')

main()

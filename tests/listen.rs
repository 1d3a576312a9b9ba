//! The listener against slow, idle and numerous clients, over real TCP: a client that sends
//! half its headers is disconnected after the header timeout; one that stalls its body is
//! answered 408 and let go; beyond the connection limit `/health` still answers and the rest
//! is told `503 BUSY` with `Retry-After`; event streams cannot take every connection.

use crate::common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use common::*;
use mobilectl::server::listen::{serve_with, Limits};
use virtual_device::testing::wait_until;

/// Starts the bare app on an ephemeral port with these limits; returns its address.
fn start(limits: Limits) -> std::net::SocketAddr {
    let std_listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    std_listener.set_nonblocking(true).unwrap();
    let addr = std_listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(std_listener).unwrap();
            let policy = mobilectl::server::SecurityPolicy {
                bound: Some(addr),
                ..Default::default()
            };
            let app = app_with(mobilectl::exec::Toolbox::with([]), policy);
            serve_with(listener, app, limits, std::future::pending()).await
        })
    });
    addr
}

fn health_request(addr: std::net::SocketAddr) -> String {
    format!("GET /health HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n")
}

#[test]
fn half_sent_headers_are_cut_at_the_header_timeout() {
    let addr = start(Limits {
        header_read_timeout: Duration::from_millis(300),
        ..Limits::default()
    });
    let mut slow = TcpStream::connect(addr).unwrap();
    slow.write_all(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .unwrap();
    slow.set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let started = Instant::now();
    let mut buf = Vec::new();
    // The server closes the connection (EOF, or a reset) without waiting for the rest.
    let _ = slow.read_to_end(&mut buf);
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "still open after {:?}",
        started.elapsed()
    );
    // An idle kept-alive connection is closed the same way.
    let mut idle = TcpStream::connect(addr).unwrap();
    idle.write_all(format!("GET /health HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes())
        .unwrap();
    idle.set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let started = Instant::now();
    let mut all = Vec::new();
    let _ = idle.read_to_end(&mut all);
    assert!(String::from_utf8_lossy(&all).starts_with("HTTP/1.1 200"));
    assert!(started.elapsed() < Duration::from_secs(15));
}

/// Sends `request` on a new connection and reads the whole answer (the server closes it).
fn exchange(addr: std::net::SocketAddr, request: &str) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut answer = Vec::new();
    let _ = s.read_to_end(&mut answer);
    String::from_utf8_lossy(&answer).into_owned()
}

/// The headers of a POST whose 20-byte body never comes.
fn stalled_post(addr: std::net::SocketAddr) -> String {
    format!(
        "POST /api/v1/device/ui/press HTTP/1.1\r\nHost: {addr}\r\n\
         Content-Type: application/json\r\nContent-Length: 20\r\n\r\n"
    )
}

#[test]
fn beyond_the_limit_health_answers_and_the_rest_is_told_busy_then_served_when_a_slot_frees() {
    let addr = start(Limits {
        max_connections: 1,
        header_read_timeout: Duration::from_secs(30),
        ..Limits::default()
    });
    // One connection holds the only slot by sending nothing.
    let holder = TcpStream::connect(addr).unwrap();
    // Let the server take it before the next ones (it answers in order of acceptance).
    let held = exchange(addr, &health_request(addr));
    assert!(
        held.starts_with("HTTP/1.1 200"),
        "health beyond the limit: {held}"
    );
    let busy = exchange(
        addr,
        &format!("GET /api/v1/device/list HTTP/1.1\r\nHost: {addr}\r\n\r\n"),
    );
    assert!(busy.starts_with("HTTP/1.1 503"), "{busy}");
    assert!(busy.contains("\"code\":\"BUSY\""), "{busy}");
    assert!(
        busy.to_ascii_lowercase().contains("retry-after: 1"),
        "{busy}"
    );
    drop(holder);
    // Once the holder has gone, requests are served as usual again.
    let served = wait_until(Duration::from_secs(10), || {
        exchange(
            addr,
            &format!(
                "GET /api/v1/device/list HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
            ),
        )
        .starts_with("HTTP/1.1 200")
    });
    assert!(served, "not served after the slot was freed");
}

#[test]
fn stalled_bodies_time_out_and_cannot_lock_out_the_server() {
    let addr = start(Limits {
        max_connections: 4,
        body: mobilectl::server::budget::BodyLimits {
            idle: Duration::from_millis(500),
            total: Duration::from_secs(5),
        },
        ..Limits::default()
    });
    // Every slot taken by a client that sent its headers and stalls its body.
    let mut stalled: Vec<TcpStream> = (0..4)
        .map(|_| {
            let mut s = TcpStream::connect(addr).unwrap();
            s.write_all(stalled_post(addr).as_bytes()).unwrap();
            s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
            s
        })
        .collect();
    // Meanwhile health still answers.
    assert!(exchange(addr, &health_request(addr)).starts_with("HTTP/1.1 200"));
    // Each stalled client is told its body timed out, and its connection is closed.
    for s in &mut stalled {
        let mut answer = Vec::new();
        let _ = s.read_to_end(&mut answer);
        let answer = String::from_utf8_lossy(&answer);
        assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
        assert!(answer.contains("REQUEST_TIMEOUT"), "{answer}");
    }
    // And the server serves again.
    let list = exchange(
        addr,
        &format!("GET /api/v1/device/list HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"),
    );
    assert!(list.starts_with("HTTP/1.1 200"), "{list}");
}

#[test]
fn event_streams_have_a_budget_of_their_own() {
    let addr = start(Limits {
        max_streams: 2,
        ..Limits::default()
    });
    let follow = || {
        let mut s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        s.write_all(
            format!("GET /api/v1/proxy/flows/stream HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes(),
        )
        .unwrap();
        let mut head = [0u8; 512];
        let n = s.read(&mut head).unwrap();
        (s, String::from_utf8_lossy(&head[..n]).into_owned())
    };
    let (first, a) = follow();
    let (_second, b) = follow();
    assert!(
        a.starts_with("HTTP/1.1 200") && a.contains("text/event-stream"),
        "{a}"
    );
    assert!(b.starts_with("HTTP/1.1 200"), "{b}");
    let (_third, c) = follow();
    assert!(c.starts_with("HTTP/1.1 503"), "{c}");
    assert!(
        c.contains("BUSY") && c.to_ascii_lowercase().contains("retry-after"),
        "{c}"
    );
    // Other requests are unaffected.
    assert!(exchange(addr, &health_request(addr)).starts_with("HTTP/1.1 200"));
    // A follower that leaves gives its slot back.
    drop(first);
    let again = wait_until(Duration::from_secs(10), || {
        follow().1.starts_with("HTTP/1.1 200")
    });
    assert!(again, "the stream slot did not come back");
}

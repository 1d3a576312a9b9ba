//! The listener against slow, idle and numerous clients, over real TCP: a client that sends
//! half its headers is disconnected after the header timeout; connections beyond the limit
//! wait until one closes, then are served.

use crate::common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use common::*;
use mobilectl::server::listen::{serve_with, Limits};

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

#[test]
fn connections_beyond_the_limit_wait_for_a_free_slot() {
    let addr = start(Limits {
        max_connections: 1,
        header_read_timeout: Duration::from_secs(30),
        ..Limits::default()
    });
    // One connection holds the only slot by sending nothing.
    let holder = TcpStream::connect(addr).unwrap();
    let mut waiting = TcpStream::connect(addr).unwrap();
    waiting.write_all(health_request(addr).as_bytes()).unwrap();
    waiting
        .set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    let mut buf = [0u8; 64];
    assert!(
        waiting.read(&mut buf).is_err(),
        "served beyond the connection limit"
    );
    drop(holder);
    waiting
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut answer = Vec::new();
    waiting.read_to_end(&mut answer).unwrap();
    assert!(
        String::from_utf8_lossy(&answer).starts_with("HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&answer)
    );
}

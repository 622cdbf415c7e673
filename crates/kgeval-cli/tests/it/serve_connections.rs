//! `kgeval serve` under clients that hold connections: half-sent heads, bodies that trickle,
//! many connections from one address, and a shutdown with hundreds of them open. The server
//! listens on 127.0.0.1; the attackers connect from 127.0.0.2 (another loopback address,
//! another client to the server), the honest client from 127.0.0.1. Every wait is bounded.

use std::io::{Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use socket2::{Domain, Socket, Type};

use crate::serve::{open_phase, trec_task, Served};

/// A campaign of one open trec task with `keys` in `[serve]`.
fn campaign(keys: &str) -> String {
    format!("{}[serve]\n{keys}\n{}", trec_task("adhoc", ""), open_phase("p", ""))
}

/// The server's address.
pub(crate) fn address(server: &Served) -> SocketAddr {
    server.url.trim_start_matches("http://").parse().expect("an address")
}

/// A connection to `to` from the loopback address `from`.
pub(crate) fn connect_from(from: &str, to: SocketAddr) -> TcpStream {
    let socket = Socket::new(Domain::IPV4, Type::STREAM, None).expect("a socket");
    let source = SocketAddr::new(from.parse().expect("an address"), 0);
    socket.bind(&source.into()).expect("bound");
    socket.connect_timeout(&to.into(), Duration::from_secs(5)).expect("connected");
    socket.into()
}

/// The start of a request whose head never ends.
const HALF_HEAD: &[u8] = b"POST /api/tasks/adhoc/submissions HTTP/1.1\r\nHost: kgeval\r\nX-Slow: ";

/// Reads `stream` until the server closes it or `limit` passes: how long it took to close
/// (`None`: still open) and what the server sent.
fn wait_closed(stream: &mut TcpStream, limit: Duration) -> (Option<Duration>, Vec<u8>) {
    let start = Instant::now();
    let mut received = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        let left = limit.saturating_sub(start.elapsed());
        if left.is_zero() {
            return (None, received);
        }
        stream.set_read_timeout(Some(left)).expect("a timeout");
        match stream.read(&mut buffer) {
            Ok(0) => return (Some(start.elapsed()), received),
            Ok(n) => received.extend_from_slice(&buffer[..n]),
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {
                return (None, received)
            }
            Err(_) => return (Some(start.elapsed()), received),
        }
    }
}

/// `GET /api/health` from 127.0.0.1 on a new connection: its status line, and how long the
/// answer took (at most `limit`, else a panic).
fn health(server: &Served, limit: Duration) -> (String, Duration) {
    let start = Instant::now();
    let mut stream = connect_from("127.0.0.1", address(server));
    stream.write_all(b"GET /api/health HTTP/1.1\r\nHost: kgeval\r\nConnection: close\r\n\r\n").expect("sent");
    let (closed, answer) = wait_closed(&mut stream, limit);
    assert!(closed.is_some(), "no answer within {limit:?}");
    let answer = String::from_utf8_lossy(&answer).into_owned();
    (answer.lines().next().unwrap_or_default().to_owned(), start.elapsed())
}

#[test]
fn half_sent_heads_from_one_address_block_only_that_address() {
    let server = Served::start(&campaign("max_connections_per_client = 16"));
    let to = address(&server);
    let mut attackers: Vec<TcpStream> = (0..300)
        .map(|_| {
            let mut stream = connect_from("127.0.0.2", to);
            // A connection closed by the server may refuse the write: that is the point.
            let _ = stream.write_all(HALF_HEAD);
            stream
        })
        .collect();
    let (status, took) = health(&server, Duration::from_secs(5));
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert!(took < Duration::from_secs(2), "the honest request took {took:?}");
    // Past the cap, the server closed the attacker's connections at once, unanswered; the 16
    // it holds are still open (the header timeout, 10 s, has not passed).
    let mut open = 0;
    for stream in &mut attackers {
        let (closed, answer) = wait_closed(stream, Duration::from_millis(50));
        assert!(answer.is_empty(), "{}", String::from_utf8_lossy(&answer));
        if closed.is_none() {
            open += 1;
        }
    }
    assert_eq!(open, 16, "connections held for 127.0.0.2");
}

#[test]
fn the_header_timeout_closes_half_sent_heads_and_idle_connections() {
    let server = Served::start(&campaign("header_timeout = 1\nmax_connections = 4"));
    let to = address(&server);
    // A head that never ends is closed after the header timeout, unanswered.
    let mut slow = connect_from("127.0.0.2", to);
    slow.write_all(HALF_HEAD).expect("sent");
    let (closed, answer) = wait_closed(&mut slow, Duration::from_secs(5));
    let closed = closed.expect("closed by the header timeout");
    assert!(closed >= Duration::from_millis(800) && closed < Duration::from_secs(3), "closed after {closed:?}");
    assert!(answer.is_empty(), "{}", String::from_utf8_lossy(&answer));
    // A kept-alive connection left idle after its answer is closed after the same time.
    let mut idle = connect_from("127.0.0.1", to);
    idle.write_all(b"GET /api/health HTTP/1.1\r\nHost: kgeval\r\n\r\n").expect("sent");
    let (closed, answer) = wait_closed(&mut idle, Duration::from_secs(5));
    assert!(String::from_utf8_lossy(&answer).starts_with("HTTP/1.1 200 OK"));
    let closed = closed.expect("an idle connection closed");
    assert!(closed < Duration::from_secs(3), "closed after {closed:?}");
    // Four connections fill max_connections = 4: a fifth, from anywhere, is closed at once,
    // unanswered; once the header timeout closed the four, the server answers again.
    let held: Vec<TcpStream> = (0..4)
        .map(|_| {
            let mut stream = connect_from("127.0.0.2", to);
            stream.write_all(HALF_HEAD).expect("sent");
            stream
        })
        .collect();
    std::thread::sleep(Duration::from_millis(200));
    let mut fifth = connect_from("127.0.0.1", to);
    let _ = fifth.write_all(b"GET /api/health HTTP/1.1\r\nHost: kgeval\r\nConnection: close\r\n\r\n");
    let (closed, answer) = wait_closed(&mut fifth, Duration::from_secs(5));
    assert!(answer.is_empty(), "{}", String::from_utf8_lossy(&answer));
    assert!(closed.expect("closed") < Duration::from_millis(800), "closed at once");
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(health(&server, Duration::from_secs(5)).0, "HTTP/1.1 200 OK");
    drop(held);
}

#[test]
fn a_trickling_body_is_dropped_and_a_fast_one_is_read() {
    // 1000 bytes a second over a window of 1 s: each second must bring 1000 bytes.
    let server = Served::start(&campaign("min_body_rate = 1000\nbody_rate_window = 1"));
    let to = address(&server);
    let head = "POST /api/tasks/adhoc/submissions HTTP/1.1\r\nHost: kgeval\r\nContent-Length: 200000\r\n\r\n";
    // 10 bytes every 100 ms (100 bytes a second): dropped after the first window, unanswered.
    let mut slow = connect_from("127.0.0.2", to);
    slow.write_all(head.as_bytes()).expect("sent");
    let start = Instant::now();
    slow.set_read_timeout(Some(Duration::from_millis(100))).expect("a timeout");
    let mut dropped = None;
    while start.elapsed() < Duration::from_secs(5) {
        if slow.write_all(&[b'x'; 10]).is_err() {
            dropped = Some(start.elapsed());
            break;
        }
        let mut buffer = [0u8; 256];
        match slow.read(&mut buffer) {
            Ok(0) => {
                dropped = Some(start.elapsed());
                break;
            }
            Ok(n) => panic!("answered: {}", String::from_utf8_lossy(&buffer[..n])),
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {}
            Err(_) => {
                dropped = Some(start.elapsed());
                break;
            }
        }
    }
    let dropped = dropped.expect("the trickling body dropped within 5 s");
    assert!(dropped >= Duration::from_millis(800) && dropped < Duration::from_secs(3), "dropped after {dropped:?}");
    // The same body sent at once is read to its end and answered (401: no token).
    let mut fast = connect_from("127.0.0.1", to);
    fast.write_all(head.as_bytes()).expect("sent");
    fast.write_all(&vec![b'x'; 200_000]).expect("sent");
    let (_, answer) = wait_closed(&mut fast, Duration::from_secs(5));
    assert!(String::from_utf8_lossy(&answer).starts_with("HTTP/1.1 401"), "{}", String::from_utf8_lossy(&answer));
}

#[test]
fn sigterm_with_300_open_connections_exits_within_5_s() {
    let mut server = Served::start(&campaign("max_connections_per_client = 512"));
    let to = address(&server);
    let held: Vec<TcpStream> = (0..300)
        .map(|i| {
            let mut stream = connect_from("127.0.0.2", to);
            // Half of them idle, half of them in the middle of a head.
            if i % 2 == 0 {
                stream.write_all(HALF_HEAD).expect("sent");
            }
            stream
        })
        .collect();
    assert_eq!(health(&server, Duration::from_secs(5)).0, "HTTP/1.1 200 OK");
    // And a request in flight: a body trickling at 10 bytes a second (dropped by the body rate
    // only after 10 s), which the shutdown grace does not wait for.
    let mut uploading = connect_from("127.0.0.1", to);
    uploading
        .write_all(b"POST /api/tasks/adhoc/submissions HTTP/1.1\r\nHost: kgeval\r\nContent-Length: 100000\r\n\r\n")
        .expect("sent");
    let trickle = std::thread::spawn(move || {
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(15) && uploading.write_all(b"x").is_ok() {
            std::thread::sleep(Duration::from_millis(100));
        }
    });
    std::thread::sleep(Duration::from_millis(500));
    let (took, status) = server.terminate(Duration::from_secs(10));
    assert!(took < Duration::from_secs(5), "exited after {took:?}");
    assert_eq!(status.code(), Some(0), "{status:?}");
    drop(held);
    trickle.join().expect("the trickling client stopped");
}

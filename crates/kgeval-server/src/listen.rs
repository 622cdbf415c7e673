//! The accept loop: HTTP/1.1 connections served by hyper under the campaign's connection
//! limits ([`Connections`]), and the graceful shutdown.
//!
//! - **Open connections.** A connection past `max_connections`, or past
//!   `max_connections_per_client` from its client's address (an IPv4 address, an IPv6 /64),
//!   is closed as soon as it is accepted, before a byte of it is read: a client holding many
//!   connections blocks only itself.
//! - **A request's head** must arrive within `header_timeout` of the connection's opening or
//!   of the end of the previous answer on it (hyper's header read timer), else the connection
//!   is closed without an answer: a head sent byte by byte, and a kept-alive connection left
//!   idle, both end there.
//! - **A body** must bring `min_body_rate × body_rate_window` bytes in every
//!   `body_rate_window` while the server reads it (the window starts when the server starts
//!   reading, so the first window is the grace a client has to start sending; a handler that
//!   is not reading, waiting for its turn, costs the client nothing). A body slower than that
//!   is dropped with its connection, without an answer. An upload's body is read in full
//!   before it waits for a scoring slot, so a slow client never holds one.
//! - **Shutdown** (Ctrl-C or SIGTERM): stop accepting, let the requests in flight finish for
//!   [`SHUTDOWN_GRACE`] (idle connections close at once), then drop every connection left.

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes, HttpBody};
use axum::http::Request;
use axum::response::Response;
use axum::Router;
use hyper::body::{Frame, Incoming, SizeHint};
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Notify, OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinSet;
use tokio::time::{Instant, Sleep};

use crate::config::Connections;

/// How long the requests in flight may go on after a shutdown signal before their
/// connections are dropped.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);

/// Serves `router` on `listener` under `limits` until `shutdown` resolves, then shuts down
/// gracefully: returns within [`SHUTDOWN_GRACE`] of `shutdown`, whatever the clients do.
pub async fn serve(listener: TcpListener, router: Router, limits: Connections, shutdown: impl Future<Output = ()>) {
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let clients = Clients::new(limits.max_connections_per_client);
    let (stop, stopping) = watch::channel(false);
    let mut connections = JoinSet::new();
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            biased;
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of file descriptors, a connection reset before it was accepted:
                    // wait a little rather than spin.
                    tracing::warn!("accepting a connection: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        while connections.try_join_next().is_some() {}
        let Ok(slot) = Arc::clone(&slots).try_acquire_owned() else {
            tracing::debug!("{peer}: closed, max_connections reached");
            continue; // `stream` is dropped: closed at once
        };
        let Some(client) = clients.enter(peer) else {
            tracing::debug!("{peer}: closed, max_connections_per_client reached");
            continue;
        };
        let _ = stream.set_nodelay(true);
        let held = Held { _slot: slot, _client: client };
        connections.spawn(connection(stream, router.clone(), limits, stopping.clone(), held));
    }
    drop(listener);
    let _ = stop.send(true);
    let drained = async { while connections.join_next().await.is_some() {} };
    if tokio::time::timeout(SHUTDOWN_GRACE, drained).await.is_err() {
        tracing::info!("dropping {} connections still open after the shutdown grace", connections.len());
    }
    connections.abort_all();
}

/// What an open connection holds until it closes: its place in `max_connections` and in its
/// client's count.
struct Held {
    _slot: OwnedSemaphorePermit,
    _client: ClientGuard,
}

/// Serves one connection until it closes, its body is too slow (dropped at once), or the
/// server stops (graceful: the request in flight may finish).
async fn connection(
    stream: TcpStream,
    router: Router,
    limits: Connections,
    mut stopping: watch::Receiver<bool>,
    _held: Held,
) {
    let too_slow = Arc::new(Notify::new());
    let handler = Handler { router, limits, too_slow: Arc::clone(&too_slow) };
    let mut builder = http1::Builder::new();
    builder.timer(TokioTimer::new()).header_read_timeout(limits.header_timeout).keep_alive(true);
    let connection = builder.serve_connection(TokioIo::new(stream), handler);
    tokio::pin!(connection);
    tokio::select! {
        biased;
        () = too_slow.notified() => return,
        _ = connection.as_mut() => return,
        _ = stopping.wait_for(|stop| *stop) => connection.as_mut().graceful_shutdown(),
    }
    tokio::select! {
        biased;
        () = too_slow.notified() => {}
        _ = connection => {}
    }
}

/// The hyper service of one connection: the router, with the request's body held to the
/// minimum rate.
#[derive(Clone)]
struct Handler {
    router: Router,
    limits: Connections,
    too_slow: Arc<Notify>,
}

impl hyper::service::Service<Request<Incoming>> for Handler {
    type Response = Response;
    type Error = Infallible;
    type Future = axum::routing::future::RouteFuture<Infallible>;

    fn call(&self, request: Request<Incoming>) -> Self::Future {
        let (limits, too_slow) = (self.limits, Arc::clone(&self.too_slow));
        let request = request.map(|body| Body::new(MinRate::new(body, &limits, too_slow)));
        // A router is always ready: no `poll_ready` needed.
        tower_service::Service::call(&mut self.router.clone(), request)
    }
}

/// A request body that must bring `bytes` in every `window` while it is read; slower, it
/// tells its connection (`too_slow`), which drops itself, and never ends.
struct MinRate {
    inner: Incoming,
    window: Duration,
    bytes: u64,
    /// The bytes of the current window so far.
    received: u64,
    /// The end of the current window; set at the first read.
    deadline: Option<Pin<Box<Sleep>>>,
    too_slow: Arc<Notify>,
    tripped: bool,
}

impl MinRate {
    fn new(inner: Incoming, limits: &Connections, too_slow: Arc<Notify>) -> MinRate {
        MinRate {
            inner,
            window: limits.body_rate_window,
            bytes: limits.bytes_per_window(),
            received: 0,
            deadline: None,
            too_slow,
            tripped: false,
        }
    }
}

impl HttpBody for MinRate {
    type Data = Bytes;
    type Error = hyper::Error;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, hyper::Error>>> {
        let this = self.get_mut();
        if this.tripped {
            return Poll::Pending;
        }
        let window = this.window;
        let deadline = this.deadline.get_or_insert_with(|| Box::pin(tokio::time::sleep(window)));
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref() {
                    this.received += data.len() as u64;
                    if this.received >= this.bytes {
                        // This window brought enough: the next one starts now.
                        this.received = 0;
                        deadline.as_mut().reset(Instant::now() + window);
                    }
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Pending => {
                if deadline.as_mut().poll(cx).is_ready() {
                    tracing::debug!("a body brought {} bytes in {window:?}: dropped", this.received);
                    this.tripped = true;
                    this.too_slow.notify_one();
                }
                Poll::Pending
            }
            done => done,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// The open connections of each client address, each at most `max`.
#[derive(Clone)]
struct Clients {
    open: Arc<Mutex<HashMap<IpAddr, usize>>>,
    max: usize,
}

/// A connection's place in its client's count, given back on drop.
struct ClientGuard {
    clients: Clients,
    client: IpAddr,
}

impl Clients {
    fn new(max: usize) -> Clients {
        Clients { open: Arc::new(Mutex::new(HashMap::new())), max }
    }

    /// A place for a connection from `peer`, if its client has fewer than `max` open.
    fn enter(&self, peer: SocketAddr) -> Option<ClientGuard> {
        let client = client_of(peer.ip());
        let mut open = self.open.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let count = open.entry(client).or_insert(0);
        if *count >= self.max {
            return None;
        }
        *count += 1;
        Some(ClientGuard { clients: self.clone(), client })
    }
}

impl Drop for ClientGuard {
    fn drop(&mut self) {
        let mut open = self.clients.open.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(count) = open.get_mut(&self.client) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                open.remove(&self.client);
            }
        }
    }
}

/// The client an address counts as: an IPv4 address as it is (an IPv4-mapped IPv6 address
/// too), an IPv6 address by its /64 (one host usually holds a whole /64).
fn client_of(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let mut segments = v6.segments();
                segments[4..].fill(0);
                IpAddr::V6(segments.into())
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use std::net::{IpAddr, SocketAddr};

    use super::{client_of, Clients};

    fn peer(text: &str) -> SocketAddr {
        SocketAddr::new(text.parse().expect("an address"), 4000)
    }

    #[test]
    fn clients_are_addresses_and_ipv6_prefixes() {
        let ip = |text: &str| text.parse::<IpAddr>().expect("an address");
        assert_eq!(client_of(ip("127.0.0.2")), ip("127.0.0.2"));
        assert_eq!(client_of(ip("::ffff:10.1.2.3")), ip("10.1.2.3"));
        assert_eq!(client_of(ip("2001:db8:1:2:aaaa:bbbb:cccc:dddd")), ip("2001:db8:1:2::"));
        assert_eq!(client_of(ip("::1")), ip("::"));
    }

    #[test]
    fn a_client_past_its_cap_is_refused_until_one_closes() {
        let clients = Clients::new(2);
        let first = clients.enter(peer("127.0.0.2")).expect("first");
        let second = clients.enter(peer("127.0.0.2")).expect("second");
        assert!(clients.enter(peer("127.0.0.2")).is_none(), "a third from the same address");
        assert!(clients.enter(peer("127.0.0.1")).is_some(), "another address has its own count");
        drop(first);
        let third = clients.enter(peer("127.0.0.2")).expect("a place again");
        drop((second, third));
        assert!(clients.open.lock().expect("the map").is_empty(), "no entry left for a client without connections");
    }
}

//! The connections of the `--http` server: how many it holds, in all and per client address.

use std::collections::HashMap;
use std::hash::Hash;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use hyper::service::Service as _;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::{ConnectionLimits, SHUTDOWN_GRACE};

/// The IP address a request came from, which the per-client limits count by.
#[derive(Clone, Copy)]
pub(crate) struct Client(pub(crate) IpAddr);

/// What `axum::serve` does, with hyper's connection builder instead: `axum::serve` sets no
/// timer, and so no header timeout. Holds at most `limits.max` connections, and closes at once
/// a client's connection beyond `limits.max_per_client`; tags every request with its
/// [`Client`]. Once `shutdown` completes, stops accepting and returns when the open
/// connections have closed or `SHUTDOWN_GRACE` has passed.
pub(crate) async fn serve_connections(
    listener: tokio::net::TcpListener,
    router: axum::Router,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()>,
) {
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    let graceful = GracefulShutdown::new();
    let permits = Arc::new(Semaphore::new(limits.max));
    let per_client = Arc::new(Counts::default());
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (permit, accepted) = tokio::select! {
            next = accept_below_cap(&listener, &permits) => next,
            () = &mut shutdown => break,
        };
        let (tcp, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(error) => {
                drop(permit);
                accept_failed(error).await;
                continue;
            }
        };
        let client = peer.ip().to_canonical();
        // Closing at once costs nothing more; the client's own connections free its slots.
        let Some(of_client) = per_client.take(client, limits.max_per_client) else {
            continue;
        };
        // A reply is several small writes (head, then SSE events); with Nagle's algorithm the
        // second waits for the client's delayed ACK of the first, tens of milliseconds.
        if let Err(error) = tcp.set_nodelay(true) {
            eprintln!("demo-server: TCP_NODELAY not set on a connection: {error}");
        }
        let service = TowerToHyperService::new(router.clone());
        let service = hyper::service::service_fn(move |mut request| {
            request.extensions_mut().insert(Client(client));
            service.call(request)
        });
        let connection = http.serve_connection(TokioIo::new(tcp), service);
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            // A client that hangs up or times out ends its own connection only.
            let _ = connection.await;
            drop((permit, of_client));
        });
    }
    drop(listener);
    if tokio::time::timeout(SHUTDOWN_GRACE, graceful.shutdown())
        .await
        .is_err()
    {
        eprintln!("demo-server: connections still open after {SHUTDOWN_GRACE:?}; closing them");
    }
}

/// Accepts once fewer than the cap's connections are open; until then new connections wait in
/// the listen backlog. The permit is `None` only if the semaphore were closed, which nothing
/// does.
async fn accept_below_cap(
    listener: &tokio::net::TcpListener,
    permits: &Arc<Semaphore>,
) -> (
    Option<OwnedSemaphorePermit>,
    std::io::Result<(tokio::net::TcpStream, SocketAddr)>,
) {
    let permit = permits.clone().acquire_owned().await.ok();
    (permit, listener.accept().await)
}

/// Per-connection failures (the peer reset before accept) say nothing about the listener;
/// anything else (out of file descriptors) gets a pause so the loop does not spin.
async fn accept_failed(error: std::io::Error) {
    use std::io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    if matches!(
        error.kind(),
        ConnectionAborted | ConnectionRefused | ConnectionReset
    ) {
        return;
    }
    eprintln!("demo-server: accept failed: {error}");
    tokio::time::sleep(Duration::from_secs(1)).await;
}

/// How many of something each key holds. A key holding none has no entry, so the map is as
/// large as what is held right now, whatever keys clients send.
pub(crate) struct Counts<K>(Mutex<HashMap<K, usize>>);

impl<K> Default for Counts<K> {
    fn default() -> Self {
        Self(Mutex::new(HashMap::new()))
    }
}

/// One of what [`Counts`] counts for `key`, given back on drop.
pub(crate) struct Held<K: Hash + Eq> {
    counts: Arc<Counts<K>>,
    key: K,
}

impl<K: Hash + Eq + Clone> Counts<K> {
    /// One more for `key`, unless it holds `max` already.
    pub(crate) fn take(self: &Arc<Self>, key: K, max: usize) -> Option<Held<K>> {
        let mut counts = lock(&self.0);
        let held = counts.entry(key.clone()).or_default();
        if *held >= max {
            // `max` is at least 1, so a refused key has an entry already.
            return None;
        }
        *held += 1;
        Some(Held {
            counts: self.clone(),
            key,
        })
    }
}

impl<K: Hash + Eq> Drop for Held<K> {
    fn drop(&mut self) {
        let mut counts = lock(&self.counts.0);
        if let Some(held) = counts.get_mut(&self.key) {
            *held = held.saturating_sub(1);
            if *held == 0 {
                counts.remove(&self.key);
            }
        }
    }
}

/// The maps behind these mutexes stay consistent at every step, so a panic elsewhere while
/// one was locked leaves nothing to repair.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

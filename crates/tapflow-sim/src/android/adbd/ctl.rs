//! The control a device listener ([`super::server`]) shares with its connections
//! ([`super::conn`]): the live connections, and taking the device off the network
//! ([`ServerCtl::go_offline`]) or cutting its links.

use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use super::link::Shared;

/// Control shared by the listener and the connections.
pub struct ServerCtl {
    conns: Mutex<Vec<Arc<Shared>>>,
    pub(super) stop: AtomicBool,
    pub(super) offline: AtomicBool,
    pub(super) addr: SocketAddr,
}

impl ServerCtl {
    /// The control of a listener on `addr`, with no connection yet.
    pub(super) fn new(addr: SocketAddr) -> Self {
        Self {
            conns: Mutex::new(Vec::new()),
            stop: AtomicBool::new(false),
            offline: AtomicBool::new(false),
            addr,
        }
    }

    pub(super) fn register(&self, s: Arc<Shared>) {
        self.lock().push(s);
    }

    pub(super) fn unregister(&self, s: &Arc<Shared>) {
        self.lock().retain(|x| !Arc::ptr_eq(x, s));
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Arc<Shared>>> {
        self.conns.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Takes the device off the network: every connection is cut and the port closes.
    pub fn go_offline(&self) {
        self.offline.store(true, Ordering::SeqCst);
        for c in self.lock().iter() {
            c.cut();
        }
        // Wake the blocked `accept` so the listener is dropped.
        let _ = TcpStream::connect(self.addr);
    }

    /// Cuts the current connections without closing the port (a dropped link: the host
    /// reconnects by itself).
    pub fn drop_connections(&self) {
        for c in self.lock().iter() {
            c.cut();
        }
    }

    pub fn is_offline(&self) -> bool {
        self.offline.load(Ordering::SeqCst)
    }

    pub fn connections(&self) -> usize {
        self.lock().len()
    }
}

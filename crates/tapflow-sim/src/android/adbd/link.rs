//! One connection's shared half: the socket's writing end, the device served, the negotiated
//! message size and features, and the open streams the reader thread forwards host messages to
//! ([`Event`]). The reader ([`super::conn`]), every stream ([`super::stream`]) and the listener's
//! control ([`super::ctl`]) hold it.

use std::collections::HashMap;
use std::io::Write;
use std::net::{Shutdown, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};

use super::packet::{MAX_DATA, Packet};
use crate::android::AndroidDevice;

/// What the connection's reader forwards to a stream.
#[derive(Debug)]
pub enum Event {
    Data(Vec<u8>),
    Okay,
    Close,
}

/// What the connection's threads share.
pub struct Shared {
    writer: Mutex<TcpStream>,
    device: Arc<AndroidDevice>,
    streams: Mutex<HashMap<u32, Sender<Event>>>,
    pub(super) next_id: AtomicU32,
    pub(super) max_data: AtomicUsize,
    pub(super) features: Vec<String>,
    pub(super) alive: AtomicBool,
}

impl Shared {
    /// A live connection writing to `writer`, serving `device`, advertising `features`.
    pub(super) fn new(
        writer: TcpStream,
        device: Arc<AndroidDevice>,
        features: Vec<String>,
    ) -> Self {
        Self {
            writer: Mutex::new(writer),
            device,
            streams: Mutex::new(HashMap::new()),
            next_id: AtomicU32::new(1),
            max_data: AtomicUsize::new(MAX_DATA as usize),
            features,
            alive: AtomicBool::new(true),
        }
    }

    /// Writes one message (header and payload in one call); a failed write ends the connection.
    pub fn send(&self, p: &Packet) {
        if !self.alive.load(Ordering::SeqCst) {
            return;
        }
        let bytes = p.encode();
        let mut w = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        if w.write_all(&bytes).is_err() {
            self.alive.store(false, Ordering::SeqCst);
            let _ = w.shutdown(Shutdown::Both);
        }
        tracing::trace!(target: "tapflow::sim::adbd", cmd = %p.name(), arg0 = p.arg0, arg1 = p.arg1, len = p.data.len(), "D>H");
    }

    pub fn max_data(&self) -> usize {
        self.max_data.load(Ordering::SeqCst)
    }

    pub fn device(&self) -> &Arc<AndroidDevice> {
        &self.device
    }

    pub fn has_feature(&self, f: &str) -> bool {
        self.features.iter().any(|x| x == f)
    }

    pub(super) fn unregister(&self, id: u32) {
        self.lock_streams().remove(&id);
    }

    pub(super) fn lock_streams(&self) -> std::sync::MutexGuard<'_, HashMap<u32, Sender<Event>>> {
        self.streams.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn forward(&self, id: u32, e: Event) {
        if let Some(tx) = self.lock_streams().get(&id) {
            let _ = tx.send(e);
        }
    }

    /// Ends the connection at once (a dropped cable, a device going away).
    pub fn cut(&self) {
        self.alive.store(false, Ordering::SeqCst);
        let w = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        let _ = w.shutdown(Shutdown::Both);
    }
}

//! One adb stream as a service sees it: accept or refuse the OPEN, write with the protocol's
//! flow control (one WRTE in flight, wait for the host's OKAY), read what the host wrote, close.
//!
//! Host data arrives through the connection's reader, which acknowledges every WRTE at once
//! (the device takes the data into memory); the service thread consumes it in order.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use super::link::{Event, Shared};
use super::packet::{A_CLSE, A_OKAY, A_WRTE, Packet};

/// The host went away (CLSE, connection lost, or no OKAY within the deadline).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Closed;

/// How long a stream waits for the host's OKAY or data before giving up (a hang guard: the
/// host answers within milliseconds, or closes the stream when its client goes away).
const HOST_DEADLINE: Duration = Duration::from_secs(120);

pub struct Stream {
    pub local: u32,
    pub remote: u32,
    rx: Receiver<Event>,
    shared: Arc<Shared>,
    pending: VecDeque<Vec<u8>>,
    closed: bool,
}

impl Stream {
    pub(super) fn new(local: u32, remote: u32, rx: Receiver<Event>, shared: Arc<Shared>) -> Self {
        Self {
            local,
            remote,
            rx,
            shared,
            pending: VecDeque::new(),
            closed: false,
        }
    }

    /// `OKAY(local, remote)`: the OPEN is accepted (must precede the first WRTE).
    pub fn accept(&self) {
        self.shared
            .send(&Packet::new(A_OKAY, self.local, self.remote, Vec::new()));
    }

    /// `CLSE(0, remote)`: the OPEN is refused.
    pub fn refuse(mut self) {
        self.shared
            .send(&Packet::new(A_CLSE, 0, self.remote, Vec::new()));
        self.closed = true;
        self.shared.unregister(self.local);
    }

    fn wait(&mut self) -> Result<Event, Closed> {
        let deadline = Instant::now() + HOST_DEADLINE;
        let left = deadline.saturating_duration_since(Instant::now());
        match self.rx.recv_timeout(left) {
            Ok(e) => Ok(e),
            Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => Err(Closed),
        }
    }

    /// Sends `bytes` as WRTEs of at most the negotiated size, each acknowledged before the next.
    pub fn write(&mut self, bytes: &[u8]) -> Result<(), Closed> {
        if self.closed {
            return Err(Closed);
        }
        let max = self.shared.max_data();
        for chunk in bytes.chunks(max.max(1)) {
            self.shared.send(&Packet::new(
                A_WRTE,
                self.local,
                self.remote,
                chunk.to_vec(),
            ));
            loop {
                match self.wait()? {
                    Event::Okay => break,
                    Event::Data(d) => self.pending.push_back(d),
                    Event::Close => {
                        self.closed = true;
                        return Err(Closed);
                    }
                }
            }
        }
        Ok(())
    }

    /// Whether the host still holds the stream open: takes what already arrived without
    /// waiting (a streaming `logcat` asks between two reads of the log).
    pub fn is_open(&mut self) -> bool {
        while !self.closed {
            match self.rx.try_recv() {
                Ok(Event::Data(d)) => self.pending.push_back(d),
                Ok(Event::Okay) => {}
                Ok(Event::Close) | Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                    self.closed = true
                }
                Err(std::sync::mpsc::TryRecvError::Empty) => break,
            }
        }
        !self.closed
    }

    /// The next bytes the host wrote; `None` once the host closed the stream.
    pub fn read(&mut self) -> Option<Vec<u8>> {
        if let Some(d) = self.pending.pop_front() {
            return Some(d);
        }
        if self.closed {
            return None;
        }
        loop {
            match self.wait() {
                Ok(Event::Data(d)) => return Some(d),
                Ok(Event::Okay) => continue,
                Ok(Event::Close) | Err(Closed) => {
                    self.closed = true;
                    return None;
                }
            }
        }
    }

    /// `CLSE(local, remote)`: the device closes (it closes every stream the commands use).
    pub fn close(mut self) {
        self.finish();
    }

    fn finish(&mut self) {
        if !self.closed {
            self.shared
                .send(&Packet::new(A_CLSE, self.local, self.remote, Vec::new()));
            self.closed = true;
        }
        self.shared.unregister(self.local);
    }

    pub fn device(&self) -> &Arc<crate::android::AndroidDevice> {
        self.shared.device()
    }

    pub fn has_feature(&self, f: &str) -> bool {
        self.shared.has_feature(f)
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        self.finish();
    }
}

//! One simulated device on the network: a TCP listener on `127.0.0.1:PORT` (as a phone after
//! `adb tcpip`) accepting the host's connections, each served on its own thread
//! ([`super::conn`]). A device can be taken off the network ([`ServerCtl::go_offline`], or the
//! `disconnect-after` fault): its connections are cut and its port closes, so the host lists
//! it `offline` and its reconnects are refused.

use std::io;
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::thread::JoinHandle;

use super::conn;
use super::ctl::ServerCtl;
use crate::android::AndroidDevice;

/// A running device listener.
pub struct DeviceServer {
    ctl: Arc<ServerCtl>,
    thread: Option<JoinHandle<()>>,
}

impl DeviceServer {
    /// Listens on `127.0.0.1:port` (`0`: any free port) and serves `device`, advertising
    /// `features` in its banner.
    pub fn start(device: Arc<AndroidDevice>, features: Vec<String>, port: u16) -> io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", port))?;
        let addr = listener.local_addr()?;
        let ctl = Arc::new(ServerCtl::new(addr));
        let c = ctl.clone();
        let thread = std::thread::Builder::new()
            .name(format!("adbd-{}", addr.port()))
            .spawn(move || {
                for conn in listener.incoming() {
                    if c.stop.load(Ordering::SeqCst) || c.offline.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(conn) = conn else { continue };
                    let (d, f, c2) = (device.clone(), features.clone(), c.clone());
                    let _ = std::thread::Builder::new()
                        .name("adbd-conn".into())
                        .spawn(move || conn::serve(conn, d, f, c2));
                }
            })?;
        Ok(Self {
            ctl,
            thread: Some(thread),
        })
    }

    pub fn port(&self) -> u16 {
        self.ctl.addr.port()
    }

    /// `127.0.0.1:PORT`, what `adb connect` takes and `adb devices` lists.
    pub fn address(&self) -> String {
        format!("127.0.0.1:{}", self.port())
    }

    pub fn ctl(&self) -> &Arc<ServerCtl> {
        &self.ctl
    }

    /// Stops listening and cuts every connection.
    pub fn stop(&mut self) {
        self.ctl.stop.store(true, Ordering::SeqCst);
        self.ctl.drop_connections();
        let _ = TcpStream::connect(self.ctl.addr);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for DeviceServer {
    fn drop(&mut self) {
        self.stop();
    }
}

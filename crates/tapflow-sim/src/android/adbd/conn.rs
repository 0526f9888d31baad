//! One TCP connection from the host's adb server: the CNXN handshake (no authentication, as
//! a device with `ro.adb.secure=0`), then streams multiplexed over it. The reader thread
//! dispatches every message; each OPEN gets its own service thread ([`super::services`]).
//!
//! Faults are drawn per OPEN (one command): `fail` refuses the stream (`error: closed` in the
//! client), `drop-conn` cuts the TCP connection before answering (the host lists the device
//! `offline` and reconnects by itself), `disconnect-after` takes the device off the network
//! for good ([`super::server`]).

use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc::channel;

use super::ctl::ServerCtl;
use super::link::{Event, Shared};
use super::packet::*;
use super::services;
use super::stream::Stream;
use crate::android::AndroidDevice;

/// The device's CNXN banner: `device::ro.product.name=…;ro.product.model=…;
/// ro.product.device=…;features=…` (no value may hold `:`, `;` or `=`).
pub fn banner(device: &AndroidDevice, features: &[String]) -> String {
    let p = device.profile();
    let clean = |s: &str| s.replace([':', ';', '='], "_");
    format!(
        "device::ro.product.name={};ro.product.model={};ro.product.device={};features={}",
        clean(&p.product),
        clean(&p.model),
        clean(&p.device),
        features.join(",")
    )
}

/// Serves one connection until the host or the device ends it.
pub fn serve(
    stream: TcpStream,
    device: Arc<AndroidDevice>,
    features: Vec<String>,
    ctl: Arc<ServerCtl>,
) {
    let _ = stream.set_nodelay(true);
    let Ok(writer) = stream.try_clone() else {
        return;
    };
    let shared = Arc::new(Shared::new(writer, device, features));
    ctl.register(shared.clone());
    let mut reader = stream;
    let mut connected = false;
    while shared.alive.load(Ordering::SeqCst) {
        let p = match read_packet(&mut reader) {
            Ok(p) => p,
            Err(_) => break,
        };
        tracing::trace!(target: "tapflow::sim::adbd", cmd = %p.name(), arg0 = p.arg0, arg1 = p.arg1, len = p.data.len(), "H>D");
        match p.command {
            A_CNXN => {
                // Accept any host maxdata; never send more than either side can take.
                let max = p.arg1.clamp(4096, MAX_DATA) as usize;
                shared.max_data.store(max, Ordering::SeqCst);
                let b = banner(shared.device(), &shared.features);
                shared.send(&Packet::new(A_CNXN, VERSION, MAX_DATA, b.into_bytes()));
                connected = true;
            }
            A_OPEN if connected => open(&shared, &ctl, p),
            A_OKAY => shared.forward(p.arg1, Event::Okay),
            A_WRTE => {
                // Take the data now and acknowledge it (no back-pressure needed in memory).
                let known = shared.lock_streams().contains_key(&p.arg1);
                if known {
                    shared.send(&Packet::new(A_OKAY, p.arg1, p.arg0, Vec::new()));
                    shared.forward(p.arg1, Event::Data(p.data));
                }
            }
            A_CLSE => {
                shared.forward(p.arg1, Event::Close);
                shared.unregister(p.arg1);
            }
            // AUTH is never needed (no AUTH was sent); anything else is ignored.
            _ => {}
        }
    }
    shared.alive.store(false, Ordering::SeqCst);
    let ids: Vec<u32> = shared.lock_streams().keys().copied().collect();
    for id in ids {
        shared.forward(id, Event::Close);
    }
    shared.cut();
    ctl.unregister(&shared);
}

/// An OPEN: draw the command's faults, then hand the stream to its service on a new thread.
fn open(shared: &Arc<Shared>, ctl: &Arc<ServerCtl>, p: Packet) {
    let remote = p.arg0;
    // The service name ends with one NUL (and older clients may send more).
    let name = String::from_utf8_lossy(&p.data)
        .trim_end_matches('\0')
        .to_string();
    let local = shared.next_id.fetch_add(1, Ordering::SeqCst);
    let (tx, rx) = channel();
    shared.lock_streams().insert(local, tx);
    let stream = Stream::new(local, remote, rx, shared.clone());
    let (admitted, refused, dropped) = {
        let mut f = shared.device().faults();
        let admitted = f.admit_command();
        let refused = admitted && f.transient_fail();
        let dropped = admitted && !refused && f.drop_connection();
        (admitted, refused, dropped)
    };
    if !admitted {
        // The device leaves the network: this and every connection end, the port closes.
        ctl.go_offline();
        drop(stream);
        return;
    }
    if dropped {
        shared.cut();
        drop(stream);
        return;
    }
    if refused {
        stream.refuse();
        return;
    }
    std::thread::Builder::new()
        .name(format!("adbd-stream-{local}"))
        .spawn(move || services::run(stream, &name))
        .map(|_| ())
        .unwrap_or_else(|e| tracing::warn!(target: "tapflow::sim::adbd", error = %e, "cannot spawn a stream thread"));
}

//! A network device whose TCP connection dropped, attached again: the adb counterpart of hdc's
//! resend of an undelivered command (docs/run.md, "Infrastructure faults").
//!
//! When the connection of a device attached with `adb connect HOST:PORT` drops, the adb server
//! lists it `offline` and answers every command for it `error: device offline` (or, once it
//! has given the transport up, `device 'HOST:PORT' not found`) *without forwarding anything*:
//! such a command never reached the device, so it can be sent again once the device is back.
//! The server's own reconnection is not waited for (it may take seconds, or never come):
//! `adb disconnect HOST:PORT` drops the dead transport and `adb connect HOST:PORT` opens a fresh
//! one, which adb lists as `device` as soon as the device's `CNXN` arrived (measured with adb
//! 29.0.6 against the simulated device: about 40 ms; the server on its own took about 250 ms).
//!
//! Only serials of the `HOST:PORT` form are reconnected: a USB device cannot be attached by
//! the host. The runner ([`super::runner`]) decides when; every command sent here is one more
//! round trip in the cost. Before the dead transport is dropped, the device's port is tried
//! ([`port_answers`]): a device that is gone for good stays listed `offline` (so adb's own
//! reconnection can still bring it back, and a later lookup still says it is disconnected)
//! instead of vanishing from the list.

use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use crate::adb::classify::AdbFailure;

/// Whether something accepts TCP connections at the network device `serial` (`HOST:PORT`)
/// within `within`; `Err` says why not. The connection is closed at once (adbd drops a
/// connection that never sent `CNXN`).
pub fn port_answers(serial: &str, within: Duration) -> Result<(), String> {
    let addrs: Vec<_> = serial
        .to_socket_addrs()
        .map_err(|e| format!("{serial} does not resolve: {e}"))?
        .collect();
    let mut last = format!("{serial} has no address");
    for a in addrs {
        match TcpStream::connect_timeout(&a, within.max(Duration::from_millis(1))) {
            Ok(_) => return Ok(()),
            Err(e) => last = format!("{serial} does not accept connections: {e}"),
        }
    }
    Err(last)
}

/// Whether `serial` names a network device (`HOST:PORT`, `[v6]:PORT`), the only kind
/// `adb connect` can attach again.
pub fn is_network_serial(serial: &str) -> bool {
    let Some((host, port)) = serial.rsplit_once(':') else {
        return false;
    };
    !host.is_empty() && !port.is_empty() && port.parse::<u16>().is_ok()
}

/// Whether adb's words say the server did not forward the command because the device's
/// connection is gone (offline, or no longer listed), so that it never ran.
pub fn never_forwarded(failure: &AdbFailure) -> bool {
    matches!(failure, AdbFailure::Offline(_) | AdbFailure::NoDevice(_))
}

/// Whether `adb connect`'s words say the device is attached (adb exits 0 either way).
pub fn connected(text: &str) -> bool {
    text.lines().any(|l| {
        let l = l.trim();
        l.starts_with("connected to ") || l.starts_with("already connected to ")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_host_port_serials_are_network_devices() {
        for s in [
            "127.0.0.1:5555",
            "192.168.1.20:40123",
            "[::1]:5555",
            "phone.lan:5555",
        ] {
            assert!(is_network_serial(s), "{s}");
        }
        for s in [
            "emulator-5554",
            "R58M123ABC",
            "",
            ":5555",
            "host:",
            "host:port",
        ] {
            assert!(!is_network_serial(s), "{s}");
        }
    }

    #[test]
    fn a_port_nobody_listens_on_is_reported() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let serial = l.local_addr().unwrap().to_string();
        assert!(port_answers(&serial, Duration::from_secs(5)).is_ok());
        drop(l);
        let e = port_answers(&serial, Duration::from_secs(5)).unwrap_err();
        assert!(e.contains("does not accept connections"), "{e}");
    }

    #[test]
    fn the_words_of_adb_decide() {
        assert!(never_forwarded(&AdbFailure::Offline(
            "error: device offline".into()
        )));
        assert!(never_forwarded(&AdbFailure::NoDevice(
            "error: device '127.0.0.1:5555' not found".into()
        )));
        // A stream closed after it opened may have run the command.
        assert!(!never_forwarded(&AdbFailure::Closed(
            "error: device closed the connection".into()
        )));
        assert!(connected("connected to 127.0.0.1:5555\n"));
        assert!(connected("already connected to 127.0.0.1:5555\n"));
        assert!(!connected(
            "failed to connect to '127.0.0.1:5555': Connection refused\n"
        ));
    }
}

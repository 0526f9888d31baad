//! Shell protocol v2 (`shell,v2,…:`): packets of 1 byte id + u32 LE length + data, forming a
//! byte stream across WRTEs. The device sends stdout (1), stderr (2) and the exit status (3,
//! one byte) before its CLSE; the host's stdin (0), close-stdin (4) and window size (5) are
//! read and ignored (no simulated program reads stdin). A streaming program (`logcat` without
//! `-d`) sends stdout packets as its entries come, until the host closes the stream.

use super::stream::Stream;
use crate::latency::Cost;

pub const STDOUT: u8 = 1;
pub const STDERR: u8 = 2;
pub const EXIT: u8 = 3;

pub fn packet(id: u8, data: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(5 + data.len());
    v.push(id);
    v.extend_from_slice(&(data.len() as u32).to_le_bytes());
    v.extend_from_slice(data);
    v
}

pub fn serve(mut stream: Stream, cmd: &str, pty: bool) {
    let mut out = Vec::new();
    if cmd.trim().is_empty() || pty && cmd.trim().is_empty() {
        out.extend(packet(
            STDERR,
            b"error: the simulated device has no interactive shell: pass a command\n",
        ));
        out.extend(packet(EXIT, &[1]));
        let _ = stream.write(&out);
        stream.close();
        return;
    }
    let device = stream.device().clone();
    // A streaming `logcat` writes stdout packets as it goes, until the host closes the stream.
    let mut sink = |b: &[u8]| {
        if b.is_empty() {
            stream.is_open()
        } else {
            stream.write(&packet(STDOUT, b)).is_ok()
        }
    };
    let run = device.run_streaming(cmd, true, Some(&mut sink));
    let wait = run.spent + device.latency().cost(Cost::ShellRoundTrip);
    if !wait.is_zero() {
        std::thread::sleep(wait);
    }
    if !run.out.is_empty() {
        out.extend(packet(STDOUT, &run.out));
    }
    if !run.err.is_empty() {
        out.extend(packet(STDERR, &run.err));
    }
    out.extend(packet(EXIT, &[(run.status & 0xff) as u8]));
    let _ = stream.write(&out);
    stream.close();
}

//! The `sync:` service (`adb push`, `adb pull`, the push step of a push install): a byte
//! stream of records (4-byte id, u32 LE length, payload) unrelated to WRTE boundaries
//! (`docs/reference/adb-protocol.md` §4.4). Answers have exact sizes: STAT 16 bytes; STA2/LST2 72; DENT 20 +
//! name; DNT2 76 + name; the listing's DONE 20 (LIST) or 76 (LIS2); after RECV, DATA chunks
//! then DONE 8; after SEND's DONE, OKAY 8 or FAIL + message. QUIT ends the session.
//!
//! Files live in the phone's file system; the shell user may write under `/sdcard`,
//! `/storage` and `/data/local/tmp` (elsewhere: `couldn't create file: Permission denied`).

use std::time::{SystemTime, UNIX_EPOCH};

use super::stream::Stream;
use crate::android::commands::ui_writable;
use crate::latency::Cost;
use crate::phone::Vfs;

const FILE_MODE: u32 = 0o100_660;
const DIR_MODE: u32 = 0o40_771;
const ENOENT: u32 = 2;
const CHUNK: usize = 64 * 1024;

/// Buffered reading of records out of the stream's WRTEs.
struct Records<'s> {
    stream: &'s mut Stream,
    buf: Vec<u8>,
    pos: usize,
}

impl Records<'_> {
    fn take(&mut self, n: usize) -> Option<Vec<u8>> {
        while self.buf.len() - self.pos < n {
            let more = self.stream.read()?;
            self.buf.drain(..self.pos);
            self.pos = 0;
            self.buf.extend_from_slice(&more);
        }
        let out = self.buf[self.pos..self.pos + n].to_vec();
        self.pos += n;
        Some(out)
    }

    fn u32(&mut self) -> Option<u32> {
        let b = self.take(4)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// A request: id and payload.
    fn request(&mut self) -> Option<([u8; 4], Vec<u8>)> {
        let id = self.take(4)?;
        let len = self.u32()? as usize;
        let payload = self.take(len)?;
        Some(([id[0], id[1], id[2], id[3]], payload))
    }
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// mode, size of a path (`None` when missing).
fn stat(fs: &Vfs, path: &str) -> Option<(u32, u64)> {
    if let Some(size) = fs.size(path) {
        Some((FILE_MODE, size))
    } else if fs.is_dir(path) {
        Some((DIR_MODE, 4096))
    } else {
        None
    }
}

fn fail(msg: &str) -> Vec<u8> {
    let mut v = b"FAIL".to_vec();
    v.extend_from_slice(&(msg.len() as u32).to_le_bytes());
    v.extend_from_slice(msg.as_bytes());
    v
}

/// The 72-byte `STA2`/`LST2` record (or the 76-byte `DNT2` head without the name length).
fn stat2(id: &[u8; 4], st: Option<(u32, u64)>, mtime: u64) -> Vec<u8> {
    let mut v = id.to_vec();
    let (err, mode, size) = match st {
        Some((m, s)) => (0u32, m, s),
        None => (ENOENT, 0, 0),
    };
    let t = if st.is_some() { mtime } else { 0 };
    v.extend_from_slice(&err.to_le_bytes());
    v.extend_from_slice(&0u64.to_le_bytes()); // dev
    v.extend_from_slice(&0u64.to_le_bytes()); // ino
    v.extend_from_slice(&mode.to_le_bytes());
    v.extend_from_slice(&u32::from(st.is_some()).to_le_bytes()); // nlink
    v.extend_from_slice(&2000u32.to_le_bytes()); // uid (shell)
    v.extend_from_slice(&1015u32.to_le_bytes()); // gid (sdcard_rw)
    v.extend_from_slice(&size.to_le_bytes());
    for _ in 0..3 {
        v.extend_from_slice(&(t as i64).to_le_bytes()); // atime, mtime, ctime
    }
    v
}

pub fn serve(stream: &mut Stream) {
    let device = stream.device().clone();
    let mtime = now_secs();
    let mut rec = Records {
        stream,
        buf: Vec::new(),
        pos: 0,
    };
    loop {
        let Some((id, payload)) = rec.request() else {
            return;
        };
        let path = String::from_utf8_lossy(&payload).into_owned();
        let answer: Vec<u8> = match &id {
            b"STAT" => {
                let st = stat(&device.phone().fs, &path);
                let (mode, size, t) = match st {
                    Some((m, s)) => (m, s as u32, mtime as u32),
                    None => (0, 0, 0),
                };
                let mut v = b"STAT".to_vec();
                for x in [mode, size, t] {
                    v.extend_from_slice(&x.to_le_bytes());
                }
                v
            }
            b"STA2" | b"LST2" => stat2(&id, stat(&device.phone().fs, &path), mtime),
            b"LIST" | b"LIS2" => list(&device.phone().fs, &path, &id == b"LIS2", mtime),
            b"SEND" => match receive_file(&mut rec, &path) {
                Some(Ok((target, bytes))) => {
                    let n = bytes.len() as u64;
                    let result = store(&device, &target, bytes);
                    let d = device.latency().cost(Cost::Transfer(n));
                    if !d.is_zero() {
                        std::thread::sleep(d);
                    }
                    match result {
                        Ok(()) => {
                            let mut v = b"OKAY".to_vec();
                            v.extend_from_slice(&0u32.to_le_bytes());
                            v
                        }
                        Err(msg) => fail(&msg),
                    }
                }
                Some(Err(msg)) => fail(&msg),
                None => return,
            },
            b"RECV" => {
                let bytes = device.phone().fs.read(&path).map(<[u8]>::to_vec);
                match bytes {
                    Some(bytes) => {
                        let d = device.latency().cost(Cost::Transfer(bytes.len() as u64));
                        if !d.is_zero() {
                            std::thread::sleep(d);
                        }
                        let mut v = Vec::with_capacity(bytes.len() + bytes.len() / CHUNK * 8 + 16);
                        for chunk in bytes.chunks(CHUNK) {
                            v.extend_from_slice(b"DATA");
                            v.extend_from_slice(&(chunk.len() as u32).to_le_bytes());
                            v.extend_from_slice(chunk);
                        }
                        v.extend_from_slice(b"DONE");
                        v.extend_from_slice(&0u32.to_le_bytes());
                        v
                    }
                    None => fail("No such file or directory"),
                }
            }
            b"QUIT" => return,
            other => {
                let code = u32::from_le_bytes(*other);
                let _ = rec
                    .stream
                    .write(&fail(&format!("unknown command {code:08x}")));
                return;
            }
        };
        if rec.stream.write(&answer).is_err() {
            return;
        }
    }
}

/// `LIST`/`LIS2`: `.` and `..` then every entry, then DONE of the matching size.
fn list(fs: &Vfs, path: &str, v2: bool, mtime: u64) -> Vec<u8> {
    let mut v = Vec::new();
    let dir = path.trim_end_matches('/');
    let dir = if dir.is_empty() { "/" } else { dir };
    let mut entries: Vec<(String, Option<(u32, u64)>)> = Vec::new();
    if let Some(names) = fs.list(dir) {
        entries.push((".".into(), Some((DIR_MODE, 4096))));
        entries.push(("..".into(), Some((DIR_MODE, 4096))));
        for n in names {
            let child = format!("{}/{n}", dir.trim_end_matches('/'));
            entries.push((n, stat(fs, &child)));
        }
    }
    for (name, st) in entries {
        if v2 {
            v.extend(stat2(b"DNT2", st, mtime));
            v.extend_from_slice(&(name.len() as u32).to_le_bytes());
        } else {
            let (mode, size) = st.unwrap_or((0, 0));
            v.extend_from_slice(b"DENT");
            for x in [mode, size as u32, mtime as u32, name.len() as u32] {
                v.extend_from_slice(&x.to_le_bytes());
            }
        }
        v.extend_from_slice(name.as_bytes());
    }
    v.extend_from_slice(b"DONE");
    v.extend(std::iter::repeat_n(0u8, if v2 { 72 } else { 16 }));
    v
}

/// After `SEND "<path>,<mode>"`: DATA chunks until DONE. `Some(Err)` is a refusal to send
/// after the client's DONE; `None` the stream ended.
fn receive_file(rec: &mut Records<'_>, spec: &str) -> Option<Result<(String, Vec<u8>), String>> {
    // Split at the last comma: the mode is decimal with the type bits (33188 = 0o100644).
    let path = spec
        .rsplit_once(',')
        .map(|(p, _)| p)
        .unwrap_or(spec)
        .to_string();
    let mut data = Vec::new();
    loop {
        let id = rec.take(4)?;
        let n = rec.u32()?;
        match &id[..] {
            b"DATA" => data.extend(rec.take(n as usize)?),
            b"DONE" => return Some(Ok((path, data))),
            _ => {
                return Some(Err(format!(
                    "invalid data message: expected DATA or DONE, got {:?}",
                    String::from_utf8_lossy(&id)
                )));
            }
        }
    }
}

fn store(device: &crate::android::AndroidDevice, path: &str, bytes: Vec<u8>) -> Result<(), String> {
    let mut phone = device.phone();
    if phone.fs.is_dir(path) && !phone.fs.is_file(path) {
        return Err("couldn't create file: Is a directory".into());
    }
    if !ui_writable(path) {
        return Err("couldn't create file: Permission denied".into());
    }
    phone.fs.write(path, bytes);
    Ok(())
}

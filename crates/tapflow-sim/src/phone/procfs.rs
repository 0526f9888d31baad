//! Processes as `/proc` shows them: the always-running system processes and the app processes,
//! with `/proc/<pid>/cmdline`, `/proc/<pid>/status` and `/proc/<pid>/stat` in the Linux 5.10
//! kernel's formats (what HarmonyOS NEXT phones run). Memory and thread counts are modelled:
//! a per-process base derived from its name plus what the app holds (pages on its stack, text
//! fields, an open dialog), so sampling shows movement when the app does something, and the
//! numbers stay consistent between `status` (kB) and `stat` (pages, bytes).

use super::Phone;
use super::logs::sys;
use sha2::{Digest, Sha256};
use std::time::{Duration, SystemTime};

/// The kernel's clock ticks per second (`USER_HZ`).
const HZ: u64 = 100;
/// Page size in kB.
const PAGE_KB: u64 = 4;
/// The kernel keeps 15 bytes of a process name (`TASK_COMM_LEN` 16 with the NUL).
const COMM_LEN: usize = 15;
/// appspawn forks every app process.
pub const APPSPAWN_PID: u32 = 598;

/// One process as `/proc` describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcInfo {
    pub pid: u32,
    /// The full name (`cmdline`).
    pub name: String,
    pub ppid: u32,
    pub uid: u32,
    pub threads: u32,
    pub rss_kb: u64,
    pub vm_size_kb: u64,
    /// Device time the process started.
    pub started: SystemTime,
    pub foreground: bool,
}

/// Always-running system processes: (pid, process name, uid).
pub fn system_processes() -> [(u32, &'static str, u32); 10] {
    [
        (1, "init", 0),
        (APPSPAWN_PID, "appspawn", 0),
        (sys::FOUNDATION, "foundation", 5523),
        (sys::HIVIEW, "hiview", 1201),
        (sys::MMI, "multimodalinput", 6696),
        (sys::RENDER_SERVICE, "render_service", 1003),
        (sys::SCENEBOARD, super::loader::SCENEBOARD, 20020018),
        (
            sys::SCB_ENGINE,
            "com.ohos.sceneboard:EngineServiceAbility:1",
            20020018,
        ),
        (
            sys::MEDIALIBRARY,
            "com.ohos.medialibrary.medialibrarydata",
            20020103,
        ),
        (sys::IME, super::loader::IME_BUNDLE, 20020035),
    ]
}

/// A stable number in `lo..hi` from a name.
fn spread(name: &str, lo: u64, hi: u64) -> u64 {
    let h = Sha256::digest(name.as_bytes());
    let n = u64::from_be_bytes([h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]]);
    lo + n % (hi - lo)
}

impl Phone {
    /// Every running process (system ones first, then apps in launch order).
    pub fn processes(&self) -> Vec<ProcInfo> {
        let boot = self.boot_time;
        let mut v: Vec<ProcInfo> = system_processes()
            .iter()
            .map(|&(pid, name, uid)| {
                let rss = spread(name, 2_000, 65_000) * PAGE_KB;
                ProcInfo {
                    pid,
                    name: name.to_string(),
                    ppid: if pid == 1 { 0 } else { 1 },
                    uid,
                    threads: spread(name, 4, 90) as u32,
                    rss_kb: rss,
                    vm_size_kb: rss * 9 + 1_900_000,
                    started: boot + Duration::from_secs(2 + u64::from(pid % 97)),
                    foreground: false,
                }
            })
            .collect();
        for p in self.procs.values() {
            let fields: u64 = p
                .fields
                .values()
                .map(|f| f.text.len() as u64 / 64 + 120)
                .sum();
            let rss = spread(&p.bundle, 110_000, 190_000)
                + p.stack.len() as u64 * 6_144
                + fields
                + if p.dialog.is_some() { 2_048 } else { 0 }
                + if p.ui { 24_576 } else { 0 };
            let rss = rss / PAGE_KB * PAGE_KB;
            v.push(ProcInfo {
                pid: p.pid,
                name: p.bundle.clone(),
                ppid: APPSPAWN_PID,
                uid: p.uid,
                threads: spread(&p.bundle, 28, 44) as u32 + 2 * p.stack.len() as u32,
                rss_kb: rss,
                vm_size_kb: rss * 12 + 8_400_000,
                started: p.started,
                foreground: self.foreground.as_deref() == Some(p.bundle.as_str()),
            });
        }
        v
    }

    fn process(&self, pid: u32) -> Option<ProcInfo> {
        self.processes().into_iter().find(|p| p.pid == pid)
    }

    /// `/proc/<pid>/cmdline` (without the trailing NUL).
    pub fn cmdline(&self, pid: u32) -> Option<String> {
        self.process(pid).map(|p| p.name)
    }

    /// `/proc/<pid>/status`.
    pub fn proc_status(&self, pid: u32) -> Option<String> {
        let p = self.process(pid)?;
        let comm = comm(&p.name);
        let (rss, size) = (p.rss_kb, p.vm_size_kb);
        let anon = rss * 45 / 100;
        let shmem = rss * 2 / 100;
        let file = rss - anon - shmem;
        let kb = |label: &str, v: u64| format!("{label}:\t{v:>8} kB\n");
        let age = self
            .clock
            .duration_since(p.started)
            .unwrap_or_default()
            .as_secs();
        let mut s = String::new();
        s.push_str(&format!("Name:\t{comm}\nUmask:\t0077\n"));
        s.push_str(if p.foreground {
            "State:\tR (running)\n"
        } else {
            "State:\tS (sleeping)\n"
        });
        s.push_str(&format!(
            "Tgid:\t{pid}\nNgid:\t0\nPid:\t{pid}\nPPid:\t{ppid}\nTracerPid:\t0\n\
Uid:\t{u}\t{u}\t{u}\t{u}\nGid:\t{u}\t{u}\t{u}\t{u}\nFDSize:\t256\nGroups:\t1008 1023 3003 3009\n\
NStgid:\t{pid}\nNSpid:\t{pid}\nNSpgid:\t{pgid}\nNSsid:\t{pgid}\n",
            pid = p.pid,
            ppid = p.ppid,
            u = p.uid,
            pgid = if p.ppid == APPSPAWN_PID {
                APPSPAWN_PID
            } else {
                p.pid
            },
        ));
        s.push_str(&kb("VmPeak", size + 65_536));
        s.push_str(&kb("VmSize", size));
        s.push_str(&kb("VmLck", 0));
        s.push_str(&kb("VmPin", 0));
        s.push_str(&kb("VmHWM", rss + rss / 10));
        s.push_str(&kb("VmRSS", rss));
        s.push_str(&kb("RssAnon", anon));
        s.push_str(&kb("RssFile", file));
        s.push_str(&kb("RssShmem", shmem));
        s.push_str(&kb("VmData", size / 3));
        s.push_str(&kb("VmStk", 132));
        s.push_str(&kb("VmExe", 16));
        s.push_str(&kb("VmLib", 98_304));
        s.push_str(&kb("VmPTE", rss / 200 + 8));
        s.push_str(&kb("VmSwap", 0));
        s.push_str(&format!(
            "CoreDumping:\t0\nTHP_enabled:\t1\nThreads:\t{t}\nSigQ:\t0/45510\n\
SigPnd:\t0000000000000000\nShdPnd:\t0000000000000000\nSigBlk:\t0000000000000000\n\
SigIgn:\t0000000000001000\nSigCgt:\t00000002000084f8\nCapInh:\t0000000000000000\n\
CapPrm:\t0000000000000000\nCapEff:\t0000000000000000\nCapBnd:\t0000000000000000\n\
CapAmb:\t0000000000000000\nNoNewPrivs:\t1\nSeccomp:\t2\nSeccomp_filters:\t1\n\
Speculation_Store_Bypass:\tthread vulnerable\nCpus_allowed:\tff\nCpus_allowed_list:\t0-7\n\
Mems_allowed:\t1\nMems_allowed_list:\t0\nvoluntary_ctxt_switches:\t{v}\n\
nonvoluntary_ctxt_switches:\t{nv}\n",
            t = p.threads,
            v = 1_200 + age * 37,
            nv = 80 + age * 3,
        ));
        Some(s)
    }

    /// `/proc/<pid>/stat`: 52 fields on one line; rss in pages, vsize in bytes, times in ticks.
    pub fn proc_stat(&self, pid: u32) -> Option<String> {
        let p = self.process(pid)?;
        let age = self.clock.duration_since(p.started).unwrap_or_default();
        let start_ticks = p
            .started
            .duration_since(self.boot_time)
            .unwrap_or_default()
            .as_millis() as u64
            * HZ
            / 1000;
        let busy = age.as_millis() as u64 * HZ / 1000 / 20;
        let (utime, stime) = (busy * 2 / 3, busy / 3);
        let state = if p.foreground { 'R' } else { 'S' };
        let pgrp = if p.ppid == APPSPAWN_PID {
            APPSPAWN_PID
        } else {
            p.pid
        };
        Some(format!(
            "{pid} ({comm}) {state} {ppid} {pgrp} {pgrp} 0 -1 1077936448 {minflt} 0 {majflt} 0 \
{utime} {stime} 0 0 20 0 {threads} 0 {start_ticks} {vsize} {rss} 18446744073709551615 \
1 1 0 0 0 0 0 4096 1073775864 0 0 0 17 {cpu} 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
            pid = p.pid,
            comm = comm(&p.name),
            ppid = p.ppid,
            minflt = p.rss_kb / 2,
            majflt = p.rss_kb / 400,
            threads = p.threads,
            vsize = p.vm_size_kb * 1024,
            rss = p.rss_kb / PAGE_KB,
            cpu = p.pid % 8,
        ))
    }
}

/// The kernel's process name: the first 15 bytes (on a character boundary).
fn comm(name: &str) -> &str {
    let mut end = name.len().min(COMM_LEN);
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    &name[..end]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::phone::PhoneProfile;

    #[test]
    fn status_and_stat_agree_in_the_kernel_format() {
        let now = SystemTime::now();
        let mut p = Phone::new(PhoneProfile::default_for("S", 0));
        p.start_ability("com.tapflow.demo", "EntryAbility", None, now)
            .unwrap();
        let pid = p.pid_of("com.tapflow.demo").unwrap();
        let status = p.proc_status(pid).unwrap();
        assert!(status.starts_with("Name:\tcom.tapflow.dem\n"), "{status}");
        let rss: u64 = regex::Regex::new(r"(?m)^VmRSS:\t +(\d+) kB$")
            .unwrap()
            .captures(&status)
            .unwrap()[1]
            .parse()
            .unwrap();
        let stat = p.proc_stat(pid).unwrap();
        let fields: Vec<&str> = stat.trim_end().split(' ').collect();
        assert_eq!(fields.len(), 52, "{stat}");
        assert_eq!(fields[0], pid.to_string());
        assert_eq!(fields[1], "(com.tapflow.dem)");
        assert_eq!(fields[3], APPSPAWN_PID.to_string());
        assert_eq!(fields[23].parse::<u64>().unwrap() * PAGE_KB, rss);
        assert!(p.proc_status(4_000_000).is_none());
        assert_eq!(comm("ab"), "ab");
    }
}

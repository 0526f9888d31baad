//! The HTTP listener's resource limits: how many connections and sessions it holds, how long a
//! connection may sit without a request, how long an idle session lives — and the process's
//! open-file limit, which the connection cap must stay below (every connection is a file
//! descriptor; running out of them makes `accept` fail and locks every client out).

use std::time::Duration;

/// File descriptors kept for everything that is not a client connection: devices, their
/// `hdc`/`adb` child processes and pipes, screenshots, logs, reports, the runtime itself.
pub const RESERVED_FDS: u64 = 256;
/// Connections beyond the cap still get a quick 503 (read the request, answer, close); at most
/// this many at once. Past that a connection is closed as soon as it is accepted.
pub const REFUSAL_SLOTS: usize = 32;
/// The default connection cap when the open-file limit allows more.
pub const DEFAULT_MAX_CONNECTIONS: usize = 4096;
/// The default header read / keep-alive idle timeout.
pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// The default session cap.
pub const DEFAULT_MAX_SESSIONS: usize = 256;
/// The default idle lifetime of a session (rmcp's own default keep-alive).
pub const DEFAULT_SESSION_IDLE: Duration = Duration::from_secs(300);
/// `Retry-After` of a 503 for a full session table: a slot frees when a client ends its
/// session (DELETE) or a session idles out, neither of which the server can predict.
pub const SESSION_RETRY_AFTER_SECS: u64 = 5;
/// The largest POST body read (rmcp's own default, set explicitly so both agree).
pub const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

/// Limits as configured (`tapflow mcp` flags; docs/mcp.md).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpLimits {
    /// Open connections served at once; `None`: derived from the open-file limit.
    pub max_connections: Option<usize>,
    /// A connection must deliver a complete request head within this long of opening, or of
    /// finishing its previous response (hyper's header read timeout, which is therefore also
    /// the keep-alive idle timeout). A POST body must arrive within the same time.
    pub header_timeout: Duration,
    /// Sessions (handshake-era clients) alive at once.
    pub max_sessions: usize,
    /// A session with no traffic for this long is closed (rmcp's session keep-alive).
    pub session_idle: Duration,
}

impl Default for HttpLimits {
    fn default() -> Self {
        HttpLimits {
            max_connections: None,
            header_timeout: DEFAULT_HEADER_TIMEOUT,
            max_sessions: DEFAULT_MAX_SESSIONS,
            session_idle: DEFAULT_SESSION_IDLE,
        }
    }
}

impl HttpLimits {
    /// `Retry-After` of a 503 for a full connection table: by then every connection that was
    /// idle when it was refused has been closed by the header timeout.
    pub fn connection_retry_after_secs(&self) -> u64 {
        self.header_timeout.as_secs_f64().ceil().max(1.0) as u64
    }

    /// Checks the limits against the open-file limit `nofile` (after [`raise_nofile`]) and
    /// returns the connection cap to enforce.
    pub fn connection_cap(&self, nofile: u64) -> Result<usize, String> {
        if self.header_timeout.is_zero() {
            return Err("--http-header-timeout must be longer than 0".into());
        }
        if self.session_idle.is_zero() {
            return Err("--http-session-idle-timeout must be longer than 0".into());
        }
        if self.max_sessions == 0 {
            return Err("--http-max-sessions must be at least 1".into());
        }
        let kept = RESERVED_FDS + REFUSAL_SLOTS as u64;
        let budget = nofile.saturating_sub(kept);
        if budget < 16 {
            return Err(format!(
                "the open-file limit is {nofile} (ulimit -n), too low to serve HTTP: tapflow mcp keeps {kept} descriptors for devices, files and refusals and needs at least 16 more for connections. Raise it (ulimit -n 4096)"
            ));
        }
        let budget = usize::try_from(budget).unwrap_or(usize::MAX);
        match self.max_connections {
            None => Ok(DEFAULT_MAX_CONNECTIONS.min(budget)),
            Some(0) => Err("--http-max-connections must be at least 1".into()),
            Some(n) if n > budget => Err(format!(
                "--http-max-connections {n} does not fit the open-file limit of {nofile} (ulimit -n): {kept} descriptors are kept for devices, files and refusals, which leaves {budget}. Raise the limit (ulimit -n) or lower the cap"
            )),
            Some(n) => Ok(n),
        }
    }
}

/// Raises the soft open-file limit to the hard one (the hard limit is the administrator's
/// ceiling; the soft one is often a low default such as 1 024) and returns the soft limit in
/// force afterwards. If raising fails, the current soft limit is returned unchanged.
#[cfg(unix)]
pub fn raise_nofile() -> u64 {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes into the struct it is given, which lives for the call.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 {
        return RESERVED_FDS * 4;
    }
    let want = lim.rlim_max;
    // macOS refuses a soft limit above OPEN_MAX, whatever the hard limit says.
    #[cfg(target_os = "macos")]
    let want = want.min(10_240);
    if want > lim.rlim_cur {
        let raised = libc::rlimit {
            rlim_cur: want,
            rlim_max: lim.rlim_max,
        };
        // SAFETY: setrlimit reads the struct it is given, which lives for the call.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
            lim.rlim_cur = want;
        }
    }
    if lim.rlim_cur == libc::RLIM_INFINITY {
        u64::MAX
    } else {
        // rlim_t is u64 on Linux and macOS, not on every Unix.
        #[allow(clippy::unnecessary_cast)]
        let soft = lim.rlim_cur as u64;
        soft
    }
}

/// Without `getrlimit`, the connection cap is what 2 048 descriptors allow.
#[cfg(not(unix))]
pub fn raise_nofile() -> u64 {
    2048
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_connection_cap_stays_below_the_open_file_limit() {
        let d = HttpLimits::default();
        assert_eq!(
            d.connection_cap(1_048_576).unwrap(),
            DEFAULT_MAX_CONNECTIONS
        );
        // A 1 024 soft limit that could not be raised: the cap leaves room for everything else.
        let cap = d.connection_cap(1024).unwrap();
        assert_eq!(cap as u64, 1024 - RESERVED_FDS - REFUSAL_SLOTS as u64);
        let e = d.connection_cap(256).unwrap_err();
        assert!(e.contains("ulimit -n"), "{e}");
        let big = HttpLimits {
            max_connections: Some(5000),
            ..HttpLimits::default()
        };
        let e = big.connection_cap(1024).unwrap_err();
        assert!(
            e.contains("--http-max-connections 5000") && e.contains("1024"),
            "{e}"
        );
        assert_eq!(big.connection_cap(20_000).unwrap(), 5000);
    }

    #[test]
    fn zero_limits_are_refused_and_retry_after_covers_the_header_timeout() {
        let zero = |l: HttpLimits| l.connection_cap(1_000_000).unwrap_err();
        let d = HttpLimits::default();
        assert!(
            zero(HttpLimits {
                max_connections: Some(0),
                ..d.clone()
            })
            .contains("max-connections")
        );
        assert!(
            zero(HttpLimits {
                max_sessions: 0,
                ..d.clone()
            })
            .contains("max-sessions")
        );
        assert!(
            zero(HttpLimits {
                header_timeout: Duration::ZERO,
                ..d.clone()
            })
            .contains("header-timeout")
        );
        assert!(
            zero(HttpLimits {
                session_idle: Duration::ZERO,
                ..d.clone()
            })
            .contains("idle-timeout")
        );
        assert_eq!(d.connection_retry_after_secs(), 10);
        let short = HttpLimits {
            header_timeout: Duration::from_millis(300),
            ..d
        };
        assert_eq!(short.connection_retry_after_secs(), 1);
    }
}

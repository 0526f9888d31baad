//! The session table's cap: rmcp's [`LocalSessionManager`] (with its idle expiry, the
//! `keep_alive` of its `SessionConfig`) behind a semaphore with one permit per live session.
//!
//! The permit of a new session is taken by the request that creates it — the body check
//! ([`super::body`]) sees an `initialize` and either answers 503 at once or takes a permit and
//! lends it to this manager through a task-local for the rest of the request. rmcp calls
//! [`SessionManager::create_session`] inside that request's future, so the permit is there;
//! the session keeps it until rmcp closes the session (DELETE, idle expiry, shutdown), and a
//! request that creates no session (a refused handshake) drops it at its end. A request that
//! reaches `create_session` without a lent permit (none does today) tries the semaphore
//! itself, so the cap holds either way.

use std::cell::Cell;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_core::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::session::{ServerSseMessage, SessionId};
use rmcp::transport::streamable_http_server::{RestoreOutcome, SessionManager};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

tokio::task_local! {
    /// The session permit the current request took for the session it may create.
    static LENT: Cell<Option<OwnedSemaphorePermit>>;
}

/// Runs `fut` (the rest of a request) with `permit` lent to [`CappedSessions::create_session`].
pub async fn with_permit<F: Future>(permit: OwnedSemaphorePermit, fut: F) -> F::Output {
    LENT.scope(Cell::new(Some(permit)), fut).await
}

#[derive(Debug, thiserror::Error)]
pub enum CappedError {
    #[error("the server holds its maximum of {0} sessions")]
    Full(usize),
    #[error(transparent)]
    Local(#[from] LocalSessionManagerError),
}

/// [`LocalSessionManager`] with at most `max` sessions alive.
#[derive(Debug)]
pub struct CappedSessions {
    inner: LocalSessionManager,
    slots: Arc<Semaphore>,
    max: usize,
    held: Mutex<HashMap<SessionId, OwnedSemaphorePermit>>,
}

impl CappedSessions {
    /// At most `max` sessions; one with no traffic for `idle` is closed by rmcp.
    pub fn new(max: usize, idle: Duration) -> Self {
        let mut inner = LocalSessionManager::default();
        inner.session_config.keep_alive = Some(idle);
        CappedSessions {
            inner,
            slots: Arc::new(Semaphore::new(max)),
            max,
            held: Mutex::new(HashMap::new()),
        }
    }

    /// A permit for one more session, if the table is not full.
    pub fn try_reserve(&self) -> Option<OwnedSemaphorePermit> {
        self.slots.clone().try_acquire_owned().ok()
    }

    /// Sessions alive now.
    pub fn live(&self) -> usize {
        self.max - self.slots.available_permits()
    }
}

impl SessionManager for CappedSessions {
    type Error = CappedError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let lent = LENT.try_with(Cell::take).ok().flatten();
        let permit = lent
            .or_else(|| self.try_reserve())
            .ok_or(CappedError::Full(self.max))?;
        let (id, transport) = self.inner.create_session().await?;
        self.held
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id.clone(), permit);
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        Ok(self.inner.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        Ok(self.inner.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        let closed = self.inner.close_session(id).await;
        // The inner manager forgets the session before it reports how closing went: free the
        // slot either way.
        self.held
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(id);
        Ok(closed?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.create_stream(id, message).await?)
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        Ok(self.inner.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.create_standalone_stream(id).await?)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.resume(id, last_event_id).await?)
    }

    /// No session store is configured, so nothing is restored (the inner manager would create
    /// an uncounted session).
    async fn restore_session(
        &self,
        _id: SessionId,
    ) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        Ok(RestoreOutcome::NotSupported)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_cap_holds_and_closing_frees_a_slot() {
        let s = CappedSessions::new(2, Duration::from_secs(60));
        let (a, _ta) = s.create_session().await.unwrap();
        let permit = s.try_reserve().unwrap();
        let (_b, _tb) = with_permit(permit, s.create_session()).await.unwrap();
        assert_eq!(s.live(), 2);
        assert!(s.try_reserve().is_none());
        assert!(matches!(
            s.create_session().await,
            Err(CappedError::Full(2))
        ));
        s.close_session(&a).await.unwrap();
        assert_eq!(s.live(), 1);
        let (_c, _tc) = s.create_session().await.unwrap();
        assert_eq!(s.live(), 2);
    }
}

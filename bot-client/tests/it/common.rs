//! Shared by the integration tests: a real gin server in this process.
#![allow(dead_code)]

use std::net::SocketAddr;

use tokio::net::TcpListener;
use tokio::sync::oneshot;

/// A gin server in this process on 127.0.0.1:0, with a temporary database.
pub struct Server {
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<anyhow::Result<()>>,
    _dir: Option<tempfile::TempDir>,
}

impl Server {
    pub async fn start() -> Server {
        let dir = tempfile::tempdir().unwrap();
        let mut server = Server::start_at(&dir.path().join("t.db"), "127.0.0.1:0".parse().unwrap()).await;
        server._dir = Some(dir);
        server
    }

    /// A server with the settings `f` makes of the tests' ones.
    pub async fn start_with(f: impl FnOnce(gin_server::Config) -> gin_server::Config) -> Server {
        let dir = tempfile::tempdir().unwrap();
        let cfg =
            f(gin_server::Config { db: dir.path().join("t.db"), rate_per_sec: 0, ..Default::default() });
        let mut server = Server::start_cfg(cfg, "127.0.0.1:0".parse().unwrap()).await;
        server._dir = Some(dir);
        server
    }

    /// A server on database `db` at `addr` (a server that was stopped there, started again).
    pub async fn start_at(db: &std::path::Path, addr: SocketAddr) -> Server {
        let cfg = gin_server::Config { db: db.to_owned(), rate_per_sec: 0, ..Default::default() };
        Server::start_cfg(cfg, addr).await
    }

    async fn start_cfg(cfg: gin_server::Config, addr: SocketAddr) -> Server {
        let listener = TcpListener::bind(addr).await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (tx, rx) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            let r = gin_server::run(listener, cfg, async {
                let _ = rx.await;
            })
            .await;
            // Said at once: a server that stopped on an error leaves its clients only a
            // refused connection to report.
            if let Err(e) = &r {
                eprintln!("test server at {addr}: {e:#}");
            }
            r
        });
        Server { addr, stop: Some(tx), task, _dir: None }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub async fn stop(mut self) {
        let _ = self.stop.take().unwrap().send(());
        self.task.await.unwrap().unwrap();
    }
}

//! A real gin server in the test's process, on a loopback socket.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::path::Path;

use tokio::net::TcpListener;
use tokio::sync::oneshot;

/// A running server.
pub struct Server {
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<anyhow::Result<()>>,
}

impl Server {
    /// A server on 127.0.0.1:0 keeping its games in `db`.
    pub async fn start(db: &Path) -> Server {
        Server::start_on(TcpListener::bind("127.0.0.1:0").await.unwrap(), db)
    }

    /// A server on `addr` (after a stop: the same address again), keeping its games in `db`.
    pub async fn restart(addr: SocketAddr, db: &Path) -> Server {
        Server::start_on(TcpListener::bind(addr).await.expect("bind the same address again"), db)
    }

    fn start_on(listener: TcpListener, db: &Path) -> Server {
        Server::start_cfg(
            listener,
            gin_server::Config { db: db.to_path_buf(), rate_per_sec: 0, ..Default::default() },
        )
    }

    /// A server on 127.0.0.1:0 with the settings `f` makes of the tests' ones (games in `db`).
    pub async fn start_with(db: &Path, f: impl FnOnce(gin_server::Config) -> gin_server::Config) -> Server {
        let cfg = f(gin_server::Config { db: db.to_path_buf(), rate_per_sec: 0, ..Default::default() });
        Server::start_cfg(TcpListener::bind("127.0.0.1:0").await.unwrap(), cfg)
    }

    fn start_cfg(listener: TcpListener, cfg: gin_server::Config) -> Server {
        let addr = listener.local_addr().unwrap();
        let (tx, rx) = oneshot::channel::<()>();
        let task = tokio::spawn(gin_server::run(listener, cfg, async {
            let _ = rx.await;
        }));
        Server { addr, stop: Some(tx), task }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Stops gracefully: open event streams are cut off (UNAVAILABLE), as when a server
    /// goes away.
    pub async fn stop(mut self) {
        let _ = self.stop.take().unwrap().send(());
        self.task.await.unwrap().unwrap();
    }
}

/// Runs the `gin` binary with `args`.
pub fn gin(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_gin")).args(args).output().expect("run gin")
}

/// Runs the `gin` binary with `args` and `input` on its stdin (written from another thread, so
/// a large input cannot deadlock against a full stdout pipe).
pub fn gin_with_stdin(args: &[&str], input: &[u8]) -> std::process::Output {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_gin"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run gin");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().expect("wait for gin");
    writer.join().unwrap().expect("write stdin");
    out
}

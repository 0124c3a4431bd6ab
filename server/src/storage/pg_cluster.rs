//! [`LocalPostgres`]: a private PostgreSQL cluster in a temporary directory (`initdb` and
//! `pg_ctl` from Debian's `postgresql` package), on a free loopback port, stopped and
//! deleted when dropped. Tests use it to run the store and the server on a real PostgreSQL;
//! nothing of it is a mock.
//!
//! Where PostgreSQL is not installed, [`LocalPostgres::start`] says so and tests skip with
//! that reason, unless `GIN_REQUIRE_POSTGRES=1` (set by `.ci/run`, which installs it) makes
//! the missing server a failure.
//!
//!
//! Run as `postgres` when the process is root; stopped with `-m immediate`. `for_test` skips
//! with the reason (or fails under `GIN_REQUIRE_POSTGRES=1`); `GIN_PG_BIN` names the folder of
//! `initdb` and `pg_ctl` when they are elsewhere. `off_runtime` runs a blocking PostgreSQL call
//! from async code.

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

/// A running private cluster; its superuser is `gin`, with trust authentication on loopback.
pub struct LocalPostgres {
    bin: PathBuf,
    dir: PathBuf,
    port: u16,
    /// When running as root: PostgreSQL refuses to, so it runs as this user.
    run_as: Option<String>,
}

/// The directory of PostgreSQL's server programs: `GIN_PG_BIN`, else the newest
/// `/usr/lib/postgresql/<version>/bin` (Debian's layout), else `initdb` on the `PATH`.
fn bin_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("GIN_PG_BIN") {
        return Some(PathBuf::from(dir));
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| Some((e.file_name().to_str()?.parse().ok()?, e.path().join("bin"))))
        .filter(|(_, bin): &(u32, PathBuf)| bin.join("initdb").exists())
        .collect();
    versions.sort();
    if let Some((_, bin)) = versions.pop() {
        return Some(bin);
    }
    std::env::var_os("PATH")
        .and_then(|paths| std::env::split_paths(&paths).find(|p| p.join("initdb").exists()))
}

/// Whether this process runs as root (PostgreSQL's programs refuse to).
fn is_root() -> bool {
    Command::new("id").arg("-u").output().is_ok_and(|o| o.stdout.trim_ascii() == b"0")
}

impl LocalPostgres {
    /// Creates and starts a cluster; `Err` says why it could not (PostgreSQL not installed,
    /// `initdb` or the server failed, with their output).
    pub fn start() -> Result<LocalPostgres, String> {
        static N: AtomicU32 = AtomicU32::new(0);
        let bin = bin_dir().ok_or(
            "PostgreSQL is not installed (no initdb in /usr/lib/postgresql/*/bin, GIN_PG_BIN or PATH; \
             Debian: apt-get install postgresql)",
        )?;
        let run_as = is_root().then(|| "postgres".to_owned());
        let dir = std::env::temp_dir().join(format!(
            "gin-pg-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
        let mut pg = LocalPostgres { bin, dir, port: 0, run_as };
        if let Some(user) = &pg.run_as {
            let out = Command::new("chown")
                .arg(user)
                .arg(&pg.dir)
                .output()
                .map_err(|e| format!("chown {user} {}: {e}", pg.dir.display()))?;
            if !out.status.success() {
                return Err(format!("chown {user}: {}", String::from_utf8_lossy(&out.stderr)));
            }
        }
        let data = pg.dir.join("data");
        pg.run(
            "initdb",
            &[
                "-D".as_ref(),
                data.as_os_str(),
                "-U".as_ref(),
                "gin".as_ref(),
                "--auth=trust".as_ref(),
                "-E".as_ref(),
                "UTF8".as_ref(),
                "--no-sync".as_ref(),
            ],
        )?;
        // A free port may be taken between the probe and the start: a few tries.
        let mut last = String::new();
        for _ in 0..5 {
            pg.port = free_port()?;
            let opts = format!(
                "-p {} -k {} -c listen_addresses=127.0.0.1 -c max_connections=200",
                pg.port,
                pg.dir.display()
            );
            let log = pg.dir.join("log");
            match pg.run(
                "pg_ctl",
                &[
                    "-D".as_ref(),
                    data.as_os_str(),
                    "-o".as_ref(),
                    opts.as_ref(),
                    "-w".as_ref(),
                    "-l".as_ref(),
                    log.as_os_str(),
                    "start".as_ref(),
                ],
            ) {
                Ok(_) => return Ok(pg),
                Err(e) => last = format!("{e}\n{}", std::fs::read_to_string(&log).unwrap_or_default()),
            }
        }
        Err(last)
    }

    /// Runs one of PostgreSQL's programs (as the `postgres` user when root).
    fn run(&self, program: &str, args: &[&std::ffi::OsStr]) -> Result<String, String> {
        let path = self.bin.join(program);
        let mut cmd = match &self.run_as {
            Some(user) => {
                let mut c = Command::new("runuser");
                c.args(["-u", user, "--"]).arg(&path);
                c
            }
            None => Command::new(&path),
        };
        let out =
            cmd.args(args).current_dir(&self.dir).output().map_err(|e| format!("{}: {e}", path.display()))?;
        if out.status.success() {
            Ok(String::from_utf8_lossy(&out.stdout).into_owned())
        } else {
            Err(format!(
                "{program} failed ({}): {}{}",
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ))
        }
    }

    /// The port it listens on (127.0.0.1).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Its data directory.
    pub fn data_dir(&self) -> PathBuf {
        self.dir.join("data")
    }

    /// Creates the database `name` and returns its connection string.
    /// (Callable from async code: the blocking client runs on a thread of its own.)
    pub fn create_database(&self, name: &str) -> Result<String, String> {
        let admin_url = self.url("postgres");
        off_runtime(|| {
            let mut admin = postgres::Client::connect(&admin_url, postgres::NoTls)
                .map_err(|e| format!("connecting to the private cluster: {e}"))?;
            admin
                .batch_execute(&format!("CREATE DATABASE \"{}\"", name.replace('"', "")))
                .map_err(|e| format!("creating database {name}: {e}"))
        })?;
        Ok(self.url(name))
    }

    /// The connection string of database `name`.
    pub fn url(&self, name: &str) -> String {
        format!("postgres://gin@127.0.0.1:{}/{name}", self.port)
    }

    /// Stops the server at once (`pg_ctl stop -m immediate`: as a crash would).
    pub fn stop(&self) {
        let data = self.data_dir();
        let _ = self.run(
            "pg_ctl",
            &["-D".as_ref(), data.as_os_str(), "-m".as_ref(), "immediate".as_ref(), "stop".as_ref()],
        );
    }
}

impl Drop for LocalPostgres {
    fn drop(&mut self) {
        self.stop();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Runs `f` on a thread of its own: PostgreSQL's blocking client starts a runtime, which
/// may not happen on a thread that drives async tasks.
pub fn off_runtime<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|s| s.spawn(f).join().expect("the blocking call does not panic"))
}

fn free_port() -> Result<u16, String> {
    let l = TcpListener::bind("127.0.0.1:0").map_err(|e| format!("finding a free port: {e}"))?;
    l.local_addr().map(|a| a.port()).map_err(|e| format!("finding a free port: {e}"))
}

/// A private cluster for a test, or `None` with the reason printed when PostgreSQL cannot be
/// started here; with `GIN_REQUIRE_POSTGRES=1` that is a panic instead.
pub fn for_test() -> Option<LocalPostgres> {
    match LocalPostgres::start() {
        Ok(pg) => Some(pg),
        Err(why) if std::env::var("GIN_REQUIRE_POSTGRES").is_ok_and(|v| v == "1") => {
            panic!("GIN_REQUIRE_POSTGRES=1 but PostgreSQL could not be started: {why}")
        }
        Err(why) => {
            eprintln!("skipped: PostgreSQL could not be started: {why}");
            None
        }
    }
}

//! The account tokens `gin` keeps between runs (`gin login`, `gin account create`; `gin
//! logout` forgets one): one file, `accounts.json`, in the user's config folder
//! (`directories`' `ProjectDirs` for `gin`: `~/.config/gin` on Linux; `GIN_CONFIG_DIR`
//! names another), a map from server URL to the account signed in there and its token.
//!
//! The tokens are secrets: the folder is made `0700`, the file is written `0600` from its
//! creation on (a new file beside it, created with that mode, then renamed over it: never
//! readable by others, not even for a moment, and never half written). A file that does not
//! parse is an error naming it, not an empty map.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

/// The environment variable naming the config folder instead of the platform's.
pub const CONFIG_DIR_ENV: &str = "GIN_CONFIG_DIR";

/// The file's name in the folder.
pub const FILE_NAME: &str = "accounts.json";

/// The account signed in on one server.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Kept {
    /// The account's name, as registered.
    pub name: String,
    /// Its token (`gin_at_…`): secret.
    pub token: String,
}

/// No token in `Debug`.
impl std::fmt::Debug for Kept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kept").field("name", &self.name).finish_non_exhaustive()
    }
}

/// The file's content.
#[derive(Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    /// By server URL ([`server_key`]).
    servers: BTreeMap<String, Kept>,
}

/// Where the tokens are kept.
#[derive(Clone, Debug)]
pub struct Store {
    dir: PathBuf,
}

/// A server URL as the map's key: without a trailing `/`, so `http://h:1/` and `http://h:1`
/// are one server.
pub fn server_key(url: &str) -> String {
    url.trim().trim_end_matches('/').to_string()
}

impl Store {
    /// The user's store: `$GIN_CONFIG_DIR`, else the platform's config folder for `gin`.
    pub fn open() -> Result<Store> {
        if let Some(dir) = std::env::var_os(CONFIG_DIR_ENV).filter(|d| !d.is_empty()) {
            return Ok(Store::at(PathBuf::from(dir)));
        }
        let dirs = directories::ProjectDirs::from("", "", "gin")
            .context("no home folder to keep the account token in (set GIN_CONFIG_DIR)")?;
        Ok(Store::at(dirs.config_dir().to_path_buf()))
    }

    /// A store in `dir`.
    pub fn at(dir: PathBuf) -> Store {
        Store { dir }
    }

    /// The file.
    pub fn path(&self) -> PathBuf {
        self.dir.join(FILE_NAME)
    }

    fn read(&self) -> Result<File> {
        let path = self.path();
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(File::default()),
            Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
        };
        serde_json::from_str(&text).with_context(|| {
            format!(
                "{} is not a token file gin wrote: remove it, then sign in again (gin login)",
                path.display()
            )
        })
    }

    fn write(&self, file: &File) -> Result<()> {
        let path = self.path();
        if file.servers.is_empty() {
            return match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    Err(e).with_context(|| format!("removing {}", path.display()))
                }
                _ => Ok(()),
            };
        }
        private_dir(&self.dir)?;
        let text = serde_json::to_string_pretty(file)? + "\n";
        let tmp = self.dir.join(format!(".{FILE_NAME}.{}.tmp", std::process::id()));
        let written = (|| -> std::io::Result<()> {
            let mut f = private_file(&tmp)?;
            f.write_all(text.as_bytes())?;
            f.sync_all()?;
            std::fs::rename(&tmp, &path)
        })();
        if let Err(e) = written {
            let _ = std::fs::remove_file(&tmp);
            return Err(e).with_context(|| format!("writing {}", path.display()));
        }
        Ok(())
    }

    /// The account signed in on `server`, if any.
    pub fn get(&self, server: &str) -> Result<Option<Kept>> {
        Ok(self.read()?.servers.remove(&server_key(server)))
    }

    /// Keeps `kept` for `server` (replacing the one kept before).
    pub fn set(&self, server: &str, kept: Kept) -> Result<()> {
        let mut file = self.read()?;
        file.servers.insert(server_key(server), kept);
        self.write(&file)
    }

    /// Forgets the account of `server`; what was kept, if anything. The file goes with the
    /// last one.
    pub fn remove(&self, server: &str) -> Result<Option<Kept>> {
        let mut file = self.read()?;
        let gone = file.servers.remove(&server_key(server));
        if gone.is_some() {
            self.write(&file)?;
        }
        Ok(gone)
    }
}

/// Makes `dir` (and its parents) if needed; `dir` itself is made `0700`, or set so.
fn private_dir(dir: &Path) -> Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
        }
        match std::fs::DirBuilder::new().mode(0o700).create(dir) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
                    .with_context(|| format!("making {} private (0700)", dir.display()))?;
            }
            Err(e) => return Err(e).with_context(|| format!("creating {}", dir.display())),
        }
        Ok(())
    }
    #[cfg(not(unix))]
    {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))
    }
}

/// A new file `0600` from its creation (an older one of that name, left by a crash, is
/// removed first: `create_new` then guarantees the mode).
fn private_file(path: &Path) -> std::io::Result<std::fs::File> {
    let _ = std::fs::remove_file(path);
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600);
    }
    o.open(path)
}

/// Writes `text` to a new file `path`, `0600` from its creation (replacing one there).
pub fn write_private(path: &Path, text: &str) -> Result<()> {
    let mut f = private_file(path).with_context(|| format!("creating {}", path.display()))?;
    f.write_all(text.as_bytes()).with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(unix)]
    use std::os::unix::fs::PermissionsExt;

    fn kept(name: &str) -> Kept {
        Kept { name: name.into(), token: format!("gin_at_{name}") }
    }

    #[cfg(unix)]
    fn mode(p: &Path) -> u32 {
        std::fs::metadata(p).unwrap().permissions().mode() & 0o777
    }

    #[test]
    #[cfg(unix)]
    fn the_file_is_0600_and_its_folder_0700() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("cfg").join("gin");
        let s = Store::at(dir.clone());
        s.set("http://a:1", kept("alice")).unwrap();
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&s.path()), 0o600);
        // A folder there before, too open: made private.
        let open = tmp.path().join("open");
        std::fs::create_dir(&open).unwrap();
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o755)).unwrap();
        Store::at(open.clone()).set("http://a:1", kept("bob")).unwrap();
        assert_eq!(mode(&open), 0o700);
        assert_eq!(mode(&open.join(FILE_NAME)), 0o600);
        // Nothing else left in the folder (no temporary file).
        assert_eq!(std::fs::read_dir(&open).unwrap().count(), 1);
    }

    #[test]
    fn one_account_per_server_and_logout_forgets_only_its_own() {
        let tmp = tempfile::tempdir().unwrap();
        let s = Store::at(tmp.path().join("gin"));
        assert_eq!(s.get("http://a:1").unwrap(), None, "nothing kept: signed out");
        s.set("http://a:1/", kept("alice")).unwrap();
        s.set("http://b:2", kept("bob")).unwrap();
        assert_eq!(s.get("http://a:1").unwrap(), Some(kept("alice")), "a trailing / is the same server");
        assert_eq!(s.get("http://b:2").unwrap(), Some(kept("bob")));
        s.set("http://a:1", kept("carol")).unwrap();
        assert_eq!(s.get("http://a:1").unwrap(), Some(kept("carol")));
        assert_eq!(s.remove("http://a:1").unwrap(), Some(kept("carol")));
        assert_eq!(s.get("http://a:1").unwrap(), None);
        assert_eq!(s.get("http://b:2").unwrap(), Some(kept("bob")));
        assert_eq!(s.remove("http://a:1").unwrap(), None);
        s.remove("http://b:2").unwrap();
        assert!(!s.path().exists(), "the file goes with the last account");
    }

    #[test]
    fn a_corrupt_file_is_an_error_naming_it() {
        let tmp = tempfile::tempdir().unwrap();
        let s = Store::at(tmp.path().to_path_buf());
        for bad in ["{not json", "{\"servers\": 3}", "[]"] {
            std::fs::write(s.path(), bad).unwrap();
            let e = format!("{:#}", s.get("http://a:1").unwrap_err());
            assert!(e.contains(&s.path().display().to_string()) && e.contains("gin login"), "{e}");
            assert!(s.set("http://a:1", kept("a")).is_err(), "not overwritten: {bad}");
        }
    }

    #[test]
    fn the_token_is_not_in_debug() {
        let k = kept("alice");
        assert!(!format!("{k:?}").contains("gin_at_"), "{k:?}");
    }

    #[test]
    #[cfg(unix)]
    fn a_private_file_replaces_an_open_one_with_0600() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("export.json");
        std::fs::write(&p, "old").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o644)).unwrap();
        write_private(&p, "new").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "new");
        assert_eq!(mode(&p), 0o600);
    }
}

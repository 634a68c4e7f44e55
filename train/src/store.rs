//! Where a run's shared files live: a local directory (the default, the
//! run directory itself, with the layout `brandubh loop` writes), or, in
//! builds with the `s3` feature, an object store (`s3://bucket/prefix`,
//! through the `object_store` crate). Self-play workers and the learner
//! meet only here.
//!
//! The rules that make this safe on a store with no rename:
//! - an object is written whole or not at all (a local write goes to a
//!   temporary file, is flushed and renamed; an object store's put is
//!   atomic), and every object but `state.json` and the learner's records
//!   is written once, under a name no other writer uses;
//! - a shard is its positions file, then its games file: a reader lists
//!   games files, so it never sees half a shard;
//! - a checkpoint is published before the `state.json` that names it;
//! - a worker slot is claimed with a create-if-absent put, the one step two
//!   writers could race on.

use std::path::{Path, PathBuf};

/// Why a store operation failed; each names the store and the object.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("--run {url}: {why}")]
    Url { url: String, why: String },
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[cfg(feature = "s3")]
    #[error("{url}/{path}: {source}")]
    Object {
        url: String,
        path: String,
        source: object_store::Error,
    },
}

enum Backend {
    Local(PathBuf),
    #[cfg(feature = "s3")]
    Object(remote::Remote),
}

/// A run's shared files (see the module).
pub struct RunStore {
    url: String,
    backend: Backend,
}

/// An object's path in the store (relative, `/`-separated) and size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub path: String,
    pub size: u64,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> StoreError + '_ {
    move |source| StoreError::Io {
        path: path.to_path_buf(),
        source,
    }
}

impl RunStore {
    /// Opens the store a `--run` value names: a directory (or `file://`
    /// URL), or `s3://bucket/prefix` in builds with the `s3` feature.
    /// An object store is checked at once (reachable, bucket there), so a
    /// wrong URL is an error now, not a hang later.
    pub fn open(url: &str) -> Result<RunStore, StoreError> {
        let bad = |why: String| StoreError::Url {
            url: url.to_string(),
            why,
        };
        if url.is_empty() {
            return Err(bad("empty".into()));
        }
        if let Some(path) = url.strip_prefix("file://") {
            return Ok(RunStore::local(Path::new(path)));
        }
        match url.split_once("://") {
            None => Ok(RunStore::local(Path::new(url))),
            #[cfg(feature = "s3")]
            Some(("s3", _)) => Ok(RunStore {
                url: url.to_string(),
                backend: Backend::Object(remote::Remote::open(url).map_err(bad)?),
            }),
            Some((scheme, _)) => Err(bad(format!(
                "`{scheme}://` stores are not supported by this build ({}); give a directory \
                 (for several machines, a volume they all mount)",
                if cfg!(feature = "s3") {
                    "it has s3:// only"
                } else {
                    "build with `--features s3` for s3://"
                }
            ))),
        }
    }

    /// A store over the local directory `dir`.
    pub fn local(dir: &Path) -> RunStore {
        RunStore {
            url: dir.display().to_string(),
            backend: Backend::Local(dir.to_path_buf()),
        }
    }

    /// The store as the user named it, for messages.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The directory, when the store is a local one.
    pub fn local_dir(&self) -> Option<&Path> {
        match &self.backend {
            Backend::Local(dir) => Some(dir),
            #[cfg(feature = "s3")]
            Backend::Object(_) => None,
        }
    }

    /// An object's bytes, or `None` when there is no such object.
    pub fn get(&self, path: &str) -> Result<Option<Vec<u8>>, StoreError> {
        match &self.backend {
            Backend::Local(dir) => {
                let p = dir.join(path);
                match std::fs::read(&p) {
                    Ok(b) => Ok(Some(b)),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                    Err(e) => Err(io(&p)(e)),
                }
            }
            #[cfg(feature = "s3")]
            Backend::Object(r) => r.get(path).map_err(|e| self.object(path, e)),
        }
    }

    /// Writes an object whole, replacing any.
    pub fn put(&self, path: &str, bytes: &[u8]) -> Result<(), StoreError> {
        match &self.backend {
            Backend::Local(dir) => {
                let p = dir.join(path);
                if let Some(parent) = p.parent() {
                    std::fs::create_dir_all(parent).map_err(io(parent))?;
                }
                brandubh_durable::write(&p, bytes).map_err(io(&p))
            }
            #[cfg(feature = "s3")]
            Backend::Object(r) => r
                .put(path, bytes, false)
                .map(|_| ())
                .map_err(|e| self.object(path, e)),
        }
    }

    /// Writes an object only if there is none under that name; returns
    /// whether this call created it.
    pub fn put_new(&self, path: &str, bytes: &[u8]) -> Result<bool, StoreError> {
        match &self.backend {
            Backend::Local(dir) => {
                use std::io::Write;
                let p = dir.join(path);
                if let Some(parent) = p.parent() {
                    std::fs::create_dir_all(parent).map_err(io(parent))?;
                }
                match std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&p)
                {
                    Ok(mut f) => {
                        f.write_all(bytes)
                            .and_then(|_| f.sync_all())
                            .map_err(io(&p))?;
                        brandubh_durable::sync_dir(p.parent().unwrap_or(dir));
                        Ok(true)
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
                    Err(e) => Err(io(&p)(e)),
                }
            }
            #[cfg(feature = "s3")]
            Backend::Object(r) => r.put(path, bytes, true).map_err(|e| self.object(path, e)),
        }
    }

    /// Every object under `prefix` (a directory, `/`-separated, "" for
    /// all), sorted; temporary files are left out.
    pub fn list(&self, prefix: &str) -> Result<Vec<Entry>, StoreError> {
        let mut out = match &self.backend {
            Backend::Local(dir) => {
                let mut out = Vec::new();
                walk(dir, &dir.join(prefix), &mut out)?;
                out
            }
            #[cfg(feature = "s3")]
            Backend::Object(r) => r.list(prefix).map_err(|e| self.object(prefix, e))?,
        };
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }

    /// Copies an object to a local file, written whole.
    pub fn download(&self, path: &str, to: &Path) -> Result<bool, StoreError> {
        let Some(bytes) = self.get(path)? else {
            return Ok(false);
        };
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).map_err(io(parent))?;
        }
        brandubh_durable::write(to, &bytes).map_err(io(to))?;
        Ok(true)
    }

    /// Copies a local file to an object.
    pub fn upload(&self, from: &Path, path: &str) -> Result<(), StoreError> {
        let bytes = std::fs::read(from).map_err(io(from))?;
        self.put(path, &bytes)
    }

    #[cfg(feature = "s3")]
    fn object(&self, path: &str, source: object_store::Error) -> StoreError {
        StoreError::Object {
            url: self.url.clone(),
            path: path.to_string(),
            source,
        }
    }
}

/// The order in which a run's files are copied: a shard's games file after
/// its positions file, a checkpoint's `model.json` after its weights, and
/// `state.json` (which names the current net) after everything.
fn copy_rank(path: &str) -> (u8, &str) {
    let rank = if path == "state.json" {
        2
    } else if path.ends_with(".games.parquet") || path.ends_with("/model.json") {
        1
    } else {
        0
    };
    (rank, path)
}

/// Files of a learner's working directory that stay local: TensorBoard
/// events, partial and retired candidates, and the workers' shards (the
/// store has them already).
fn stays_local(path: &str) -> bool {
    path.starts_with("tb/")
        || path.starts_with("checkpoints/candidate")
        || path.starts_with("checkpoints/retired")
        || path.starts_with("workers/")
        || (path.starts_with("selfplay/iter-") && path.ends_with(".parquet"))
}

impl RunStore {
    /// Copies the objects under `prefix` ("" for all) that `dir` lacks, or
    /// holds at another size, into it, in the order that keeps each whole
    /// (see `copy_rank`). Worker slots are not copied. Returns how many.
    pub fn pull(&self, prefix: &str, dir: &Path) -> Result<usize, StoreError> {
        if self.local_dir() == Some(dir) {
            return Ok(0);
        }
        let mut entries = self.list(prefix)?;
        entries.retain(|e| !e.path.starts_with("workers/"));
        entries.sort_by(|a, b| copy_rank(&a.path).cmp(&copy_rank(&b.path)));
        let mut n = 0;
        for e in entries {
            let to = dir.join(&e.path);
            if std::fs::metadata(&to).is_ok_and(|m| m.len() == e.size) {
                continue;
            }
            self.download(&e.path, &to)?;
            n += 1;
        }
        Ok(n)
    }

    /// Copies a learner's working directory `dir` to the store: every file
    /// the store lacks or holds at another size, except what stays local,
    /// then the records that change in place, then `state.json`. Returns
    /// how many files were copied.
    pub fn publish(&self, dir: &Path) -> Result<usize, StoreError> {
        if self.local_dir() == Some(dir) {
            return Ok(0);
        }
        let remote: std::collections::HashMap<String, u64> = self
            .list("")?
            .into_iter()
            .map(|e| (e.path, e.size))
            .collect();
        let mut local = Vec::new();
        walk(dir, dir, &mut local)?;
        local.retain(|e| !stays_local(&e.path));
        local.sort_by(|a, b| copy_rank(&a.path).cmp(&copy_rank(&b.path)));
        let rewritten = ["generations.jsonl", "ratings.json", "state.json"];
        let mut n = 0;
        for e in local {
            let changed = rewritten.contains(&e.path.as_str())
                || remote.get(&e.path).is_none_or(|&size| size != e.size);
            if changed {
                self.upload(&dir.join(&e.path), &e.path)?;
                n += 1;
            }
        }
        Ok(n)
    }
}

/// The files under `at`, as paths relative to `root`.
fn walk(root: &Path, at: &Path, out: &mut Vec<Entry>) -> Result<(), StoreError> {
    let rd = match std::fs::read_dir(at) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io(at)(e)),
    };
    for entry in rd {
        let entry = entry.map_err(io(at))?;
        let p = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || name.ends_with(".tmp") {
            continue;
        }
        let meta = entry.metadata().map_err(io(&p))?;
        if meta.is_dir() {
            walk(root, &p, out)?;
        } else if let Ok(rel) = p.strip_prefix(root) {
            let parts: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            out.push(Entry {
                path: parts.join("/"),
                size: meta.len(),
            });
        }
    }
    Ok(())
}

#[cfg(feature = "s3")]
mod remote {
    //! An object store reached through `object_store`, driven from our
    //! threads by a small tokio runtime of its own.

    use super::Entry;
    use futures::TryStreamExt;
    use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
    use object_store::path::Path as ObjectPath;
    use object_store::prefix::PrefixStore;
    use object_store::{ClientConfigKey, ObjectStore, PutMode, PutOptions, RetryConfig};
    use std::sync::Arc;
    use std::time::Duration;

    pub(super) struct Remote {
        store: Arc<dyn ObjectStore>,
        rt: tokio::runtime::Runtime,
    }

    impl Remote {
        /// `s3://bucket/prefix`; credentials, region and endpoint come from
        /// the usual `AWS_*` variables. Fails at once when the store cannot
        /// be reached or the bucket is missing.
        pub(super) fn open(url: &str) -> Result<Remote, String> {
            let rest = url.strip_prefix("s3://").ok_or("not an s3:// URL")?;
            let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
            if bucket.is_empty() {
                return Err("no bucket named".into());
            }
            // Timeouts set key by key: `with_client_options` would drop
            // what the environment set (`AWS_ALLOW_HTTP`, say).
            let s3 = AmazonS3Builder::from_env()
                .with_bucket_name(bucket)
                .with_config(
                    AmazonS3ConfigKey::Client(ClientConfigKey::ConnectTimeout),
                    "5s",
                )
                .with_config(AmazonS3ConfigKey::Client(ClientConfigKey::Timeout), "60s")
                .with_retry(RetryConfig {
                    max_retries: 3,
                    retry_timeout: Duration::from_secs(20),
                    ..RetryConfig::default()
                })
                .build()
                .map_err(|e| e.to_string())?;
            let prefix = prefix.trim_matches('/');
            let store: Arc<dyn ObjectStore> = if prefix.is_empty() {
                Arc::new(s3)
            } else {
                Arc::new(PrefixStore::new(s3, prefix))
            };
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| e.to_string())?;
            let r = Remote { store, rt };
            // One cheap request: is the store there and the bucket with it?
            r.rt.block_on(async {
                r.store
                    .list_with_delimiter(None)
                    .await
                    .map(|_| ())
                    .map_err(|e| format!("cannot reach the store: {e}"))
            })?;
            Ok(r)
        }

        pub(super) fn get(&self, path: &str) -> Result<Option<Vec<u8>>, object_store::Error> {
            self.rt.block_on(async {
                match self.store.get(&ObjectPath::from(path)).await {
                    Ok(r) => Ok(Some(r.bytes().await?.to_vec())),
                    Err(object_store::Error::NotFound { .. }) => Ok(None),
                    Err(e) => Err(e),
                }
            })
        }

        /// Puts `bytes`; with `create`, only if absent (returns whether
        /// this call created it).
        pub(super) fn put(
            &self,
            path: &str,
            bytes: &[u8],
            create: bool,
        ) -> Result<bool, object_store::Error> {
            let opts = PutOptions {
                mode: if create {
                    PutMode::Create
                } else {
                    PutMode::Overwrite
                },
                ..PutOptions::default()
            };
            let payload = bytes.to_vec().into();
            self.rt.block_on(async {
                match self
                    .store
                    .put_opts(&ObjectPath::from(path), payload, opts)
                    .await
                {
                    Ok(_) => Ok(true),
                    Err(object_store::Error::AlreadyExists { .. })
                    | Err(object_store::Error::Precondition { .. })
                        if create =>
                    {
                        Ok(false)
                    }
                    Err(e) => Err(e),
                }
            })
        }

        pub(super) fn list(&self, prefix: &str) -> Result<Vec<Entry>, object_store::Error> {
            let prefix = prefix.trim_matches('/');
            let prefix = (!prefix.is_empty()).then(|| ObjectPath::from(prefix));
            self.rt.block_on(async {
                self.store
                    .list(prefix.as_ref())
                    .map_ok(|m| Entry {
                        path: m.location.to_string(),
                        size: m.size,
                    })
                    .try_collect()
                    .await
            })
        }
    }
}

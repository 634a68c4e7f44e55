//! One way to write a file whole or not at all, for every crate above this
//! one: write a temporary file in the same directory, flush it to disk,
//! rename it over the target, and flush the directory, so that after a
//! crash or a kill the target holds either the old contents or the new.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The temporary name for `path`: beside it, unique to this process and
/// write, ending in `.tmp` (so a directory scan can remove leftovers).
pub fn temp_path(path: &Path) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let name = path
        .file_name()
        .map_or_else(|| "file".into(), |n| n.to_string_lossy().into_owned());
    path.with_file_name(format!(".{name}.{}-{n}.tmp", std::process::id()))
}

/// Flushes a directory's entries (the rename) to disk; a no-op where
/// directories cannot be opened.
pub fn sync_dir(dir: &Path) {
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

/// Renames a finished temporary file (already synced) over `path` and
/// flushes the directory.
pub fn persist(tmp: &Path, path: &Path) -> std::io::Result<()> {
    std::fs::rename(tmp, path)?;
    sync_dir(path.parent().unwrap_or(Path::new(".")));
    Ok(())
}

/// Writes `bytes` to `path` durably (see the module). On error the target
/// is untouched and the temporary file removed.
pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = temp_path(path);
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        persist(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Puts the whole directory `from` (its files already synced) in the place
/// of `to` by renames only: an existing `to` is first renamed to `aside`
/// and removed afterwards. After a kill `to` names the old directory,
/// nothing, or the new one — never a mix — and a leftover `aside` is the
/// caller's to remove.
pub fn replace_dir(from: &Path, to: &Path, aside: &Path) -> std::io::Result<()> {
    let parent = to.parent().unwrap_or(Path::new("."));
    if to.exists() {
        if aside.exists() {
            std::fs::remove_dir_all(aside)?;
        }
        std::fs::rename(to, aside)?;
    }
    std::fs::rename(from, to)?;
    sync_dir(parent);
    if aside.exists() {
        std::fs::remove_dir_all(aside)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_whole_and_leaves_no_temporary_file() {
        let dir = std::env::temp_dir().join(format!("brandubh-durable-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("x.json");
        write(&p, b"one").unwrap();
        write(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names, ["x.json"]);
        // A directory that does not exist: an error, nothing left behind.
        assert!(write(&dir.join("no/such/file"), b"x").is_err());
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn replaces_a_directory_whole() {
        let dir = std::env::temp_dir().join(format!("brandubh-replace-{}", std::process::id()));
        let (new, to, aside) = (dir.join("new"), dir.join("to"), dir.join("aside"));
        for d in [&new, &to] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(to.join("old.txt"), "old").unwrap();
        std::fs::write(new.join("new.txt"), "new").unwrap();
        replace_dir(&new, &to, &aside).unwrap();
        assert!(to.join("new.txt").exists() && !to.join("old.txt").exists());
        assert!(!new.exists() && !aside.exists());
        std::fs::remove_dir_all(&dir).ok();
    }
}

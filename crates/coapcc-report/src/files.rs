//! Output files written atomically: a reader (or an interrupted run) never sees half a file.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::ReportError;

/// Writes `bytes` to `path` through a temporary file in the same folder and a rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ReportError> {
    let mut f = AtomicFile::create(path)?;
    f.write_all(bytes).map_err(|e| f.error("write", e))?;
    f.commit()
}

/// A file written piece by piece (while a run goes) and put in place whole: the bytes go to a
/// temporary file in the target's folder, [`AtomicFile::commit`] flushes it to disk and
/// renames it over the target; dropped uncommitted (a failed run), the temporary file is
/// removed and the target is untouched.
#[derive(Debug)]
pub struct AtomicFile {
    path: PathBuf,
    tmp: PathBuf,
    out: Option<std::io::BufWriter<std::fs::File>>,
}

impl AtomicFile {
    /// A temporary file beside `path` (its folder created if missing).
    pub fn create(path: &Path) -> Result<AtomicFile, ReportError> {
        let fail = |action: &'static str, source: std::io::Error| ReportError::File {
            action,
            path: path.to_path_buf(),
            source,
        };
        let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir).map_err(|e| fail("create the folder of", e))?;
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "out".into());
        let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
        let f = std::fs::File::create(&tmp).map_err(|e| fail("create a temporary file for", e))?;
        Ok(AtomicFile { path: path.to_path_buf(), tmp, out: Some(std::io::BufWriter::new(f)) })
    }

    /// The error of `action` on this file, naming the target.
    pub fn error(&self, action: &'static str, source: std::io::Error) -> ReportError {
        ReportError::File { action, path: self.path.clone(), source }
    }

    /// Flushes everything written to disk and renames the temporary file over the target.
    pub fn commit(mut self) -> Result<(), ReportError> {
        let Some(out) = self.out.take() else { return Ok(()) };
        let f = out.into_inner().map_err(|e| self.error("write", e.into_error()))?;
        f.sync_all().map_err(|e| self.error("flush", e))?;
        drop(f);
        std::fs::rename(&self.tmp, &self.path).map_err(|e| self.error("rename into place", e))?;
        self.tmp = PathBuf::new();
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self.out.as_mut() {
            Some(o) => o.write(buf),
            None => Err(std::io::ErrorKind::BrokenPipe.into()),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.as_mut().map_or(Ok(()), Write::flush)
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if !self.tmp.as_os_str().is_empty() {
            self.out = None;
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Checks, before a run, that results can be written into folder `dir`: it is created if
/// missing, and a file is created in it and removed. A path that is a file, or a folder that
/// cannot be created or written, is bad input naming the path.
///
/// Returns the folders the check created. Dropped, they are removed again (innermost first,
/// each only while it is empty), so a run that then fails leaves nothing behind that did not
/// exist before; [`CreatedFolders::keep`] keeps them once the run has succeeded.
pub fn check_writable(dir: &Path) -> Result<CreatedFolders, ReportError> {
    let bad = |problem: String| ReportError::Options(format!("cannot write results to `{}`: {problem}", dir.display()));
    if dir.exists() && !dir.is_dir() {
        return Err(bad("it is not a folder".into()));
    }
    // The missing folders, innermost first, up to the first one that exists.
    let missing: Vec<PathBuf> = dir
        .ancestors()
        .take_while(|d| !d.as_os_str().is_empty() && std::fs::symlink_metadata(d).is_err())
        .map(Path::to_path_buf)
        .collect();
    let created = CreatedFolders { innermost_first: missing };
    std::fs::create_dir_all(dir).map_err(|e| bad(format!("cannot create the folder: {e}")))?;
    let probe = dir.join(format!(".write-check-{}", std::process::id()));
    std::fs::File::create(&probe).map_err(|e| bad(format!("cannot create a file in it: {e}")))?;
    let _ = std::fs::remove_file(&probe);
    Ok(created)
}

/// The folders [`check_writable`] created: removed when dropped (innermost first, each only
/// while it is empty) unless [`kept`](CreatedFolders::keep).
#[derive(Debug, Default)]
#[must_use = "dropped at once, the folders the check created are removed at once"]
pub struct CreatedFolders {
    innermost_first: Vec<PathBuf>,
}

impl CreatedFolders {
    /// Adds the folders a later check created (they are removed first: they may be inside
    /// these).
    pub fn extend(&mut self, later: CreatedFolders) {
        let mut later = later;
        let mut all = std::mem::take(&mut later.innermost_first);
        all.append(&mut self.innermost_first);
        self.innermost_first = all;
    }

    /// Keeps the folders (the run they were checked for succeeded).
    pub fn keep(mut self) {
        self.innermost_first.clear();
    }
}

impl Drop for CreatedFolders {
    fn drop(&mut self) {
        for d in &self.innermost_first {
            // `remove_dir` removes only an empty folder: one the run wrote into stays, and
            // so does every folder above it.
            let _ = std::fs::remove_dir(d);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_atomic_write_replaces_the_whole_file_and_leaves_no_temporary() {
        let dir = std::env::temp_dir().join(format!("coapcc-files-{}", std::process::id()));
        let p = dir.join("sub/a.csv");
        write_atomic(&p, b"one\n").unwrap();
        write_atomic(&p, b"two\n").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "two\n");
        let leftovers: Vec<_> =
            std::fs::read_dir(p.parent().unwrap()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(leftovers.len(), 1);
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn a_results_folder_that_is_a_file_or_below_one_is_bad_input_naming_it() {
        let dir = std::env::temp_dir().join(format!("coapcc-writable-{}", std::process::id()));
        check_writable(&dir.join("new/sub")).unwrap().keep();
        assert_eq!(std::fs::read_dir(dir.join("new/sub")).unwrap().count(), 0, "the probe file is removed");
        let file = dir.join("file");
        std::fs::write(&file, b"x").unwrap();
        for p in [file.clone(), file.join("sub")] {
            let e = check_writable(&p).unwrap_err();
            assert!(e.is_bad_input() && e.to_string().contains(&p.display().to_string()), "{e}");
        }
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn a_failed_run_leaves_no_folder_the_check_created_and_keeps_every_other() {
        let dir = std::env::temp_dir().join(format!("coapcc-created-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // Dropped (the run failed): the two folders it created go, the one that existed stays.
        drop(check_writable(&dir.join("a/b")).unwrap());
        assert!(dir.is_dir() && !dir.join("a").exists());
        // A folder the run wrote into stays, and so does every folder above it.
        let created = check_writable(&dir.join("a/b")).unwrap();
        std::fs::write(dir.join("a/b/partial.csv"), b"x").unwrap();
        drop(created);
        assert!(dir.join("a/b/partial.csv").is_file());
        // Kept (the run succeeded): an empty folder stays too.
        check_writable(&dir.join("c")).unwrap().keep();
        assert!(dir.join("c").is_dir());
        // Two checks in one new folder: a failed run removes both, and the folder above.
        let mut created = check_writable(&dir.join("d/e")).unwrap();
        created.extend(check_writable(&dir.join("d/f")).unwrap());
        drop(created);
        assert!(!dir.join("d").exists());
        // An existing folder is never removed, empty or not.
        drop(check_writable(&dir.join("c")).unwrap());
        assert!(dir.join("c").is_dir());
        let _ = std::fs::remove_dir_all(dir);
    }
}

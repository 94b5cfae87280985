//! What a long run tells its caller while it works ([`Progress`]: runs started and finished,
//! lines for the user), and the worker pool runs share ([`thread_pool`]). The library draws
//! no progress bar and prints nothing to standard error itself.

use crate::error::ReportError;

/// Receives a run's progress. Every method has an empty default, so `&()` reports nothing.
/// Called from worker threads ([`Progress::finished_one`]), hence `Sync`.
pub trait Progress: Sync {
    /// A stage of `total` runs (algorithm × replication) begins.
    fn begin(&self, total: u64) {
        let _ = total;
    }
    /// The stage is now working on `label` (a scenario or case name).
    fn working_on(&self, label: &str) {
        let _ = label;
    }
    /// One run of the stage finished.
    fn finished_one(&self) {}
    /// The stage is over.
    fn end(&self) {}
    /// A line for the user (a long run announced, a case started); not a result.
    fn note(&self, line: &str) {
        let _ = line;
    }
}

/// No progress: every report is dropped.
impl Progress for () {}

/// A rayon pool with `jobs` threads (default: all cores). Results never depend on it.
pub fn thread_pool(jobs: Option<usize>) -> Result<rayon::ThreadPool, ReportError> {
    let mut b = rayon::ThreadPoolBuilder::new();
    if let Some(j) = jobs {
        if j == 0 {
            return Err(ReportError::Options("--jobs must be at least 1".into()));
        }
        b = b.num_threads(j);
    }
    Ok(b.build()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_jobs_is_bad_input_and_one_job_gives_one_thread() {
        assert!(thread_pool(Some(0)).unwrap_err().is_bad_input());
        assert_eq!(thread_pool(Some(1)).unwrap().current_num_threads(), 1);
    }
}

//! What a long run tells its caller while it works ([`Progress`]: runs started and finished,
//! lines for the user), and the worker pool runs share ([`thread_pool`]: at most one thread
//! per run and per core unless asked, `--jobs` from 1 to 1024). The library draws
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

/// The largest `--jobs` (`jobs=`) taken: more threads than this only cost memory and
/// scheduling (each run is one thread's work), and a typo such as `10**6` would start a
/// million threads.
const MAX_JOBS: usize = 1024;

/// A rayon pool for `runs` runs on `jobs` threads (default: one per core), never more threads
/// than runs: at most `min(jobs or cores, runs)` threads, at least one. `jobs` outside 1 to
/// 1024 is bad input. Results never depend on it.
pub fn thread_pool(jobs: Option<usize>, runs: usize) -> Result<rayon::ThreadPool, ReportError> {
    let threads = match jobs {
        Some(j) if !(1..=MAX_JOBS).contains(&j) => {
            return Err(ReportError::Options(format!("--jobs (jobs=) must be from 1 to {MAX_JOBS}, not {j}")));
        }
        Some(j) => j,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    Ok(rayon::ThreadPoolBuilder::new().num_threads(threads.min(runs).max(1)).build()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_jobs_is_bad_input_and_one_job_gives_one_thread() {
        assert!(thread_pool(Some(0), 10).unwrap_err().is_bad_input());
        assert_eq!(thread_pool(Some(1), 10).unwrap().current_num_threads(), 1);
    }

    #[test]
    fn more_than_1024_jobs_is_bad_input_naming_the_bound() {
        assert_eq!(thread_pool(Some(1024), 3).unwrap().current_num_threads(), 3);
        let e = thread_pool(Some(1025), 3).unwrap_err();
        assert!(e.is_bad_input() && e.to_string().contains("from 1 to 1024"), "{e}");
        assert!(thread_pool(Some(1_000_000), 3).unwrap_err().is_bad_input());
    }

    #[test]
    fn a_pool_never_has_more_threads_than_runs() {
        assert_eq!(thread_pool(Some(8), 2).unwrap().current_num_threads(), 2);
        assert_eq!(thread_pool(Some(2), 8).unwrap().current_num_threads(), 2);
        assert_eq!(thread_pool(None, 1).unwrap().current_num_threads(), 1);
        assert_eq!(thread_pool(Some(4), 0).unwrap().current_num_threads(), 1);
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert_eq!(thread_pool(None, 10_000).unwrap().current_num_threads(), cores);
    }
}

//! `series.csv` of long-lived network runs written while the runs go, not kept in memory
//! until they end: each algorithm's replication 0 streams its rows into a part file of its
//! own beside the result (the jobs run in parallel), and the parts are joined, in scenario
//! order under the header, into `series.csv` through a temporary file and a rename when the
//! runs are done. The bytes are those of [`coapcc_sim::results::series_csv`] of the same runs
//! (the rows are formatted by the one [`network_series_row`]); the other replications' series
//! are not written (`series.csv` shows replication 0) and so are dropped as they come.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use coapcc_driver::SeriesSink;
use coapcc_driver::metrics::SeriesPoint;
use coapcc_sim::results::{NETWORK_SERIES_HEADER, network_series_row};

use crate::error::ReportError;
use crate::files::AtomicFile;

/// The rows one algorithm's replication 0 has written so far.
#[derive(Debug)]
struct Part {
    path: PathBuf,
    /// Opened at the first row.
    out: Option<BufWriter<std::fs::File>>,
    rows: u64,
    /// The first write that failed (the rows after it are not written).
    error: Option<std::io::Error>,
}

impl Part {
    fn row(&mut self, algorithm: &str, p: &SeriesPoint) {
        if self.error.is_some() {
            return;
        }
        if self.out.is_none() {
            match std::fs::File::create(&self.path) {
                Ok(f) => self.out = Some(BufWriter::new(f)),
                Err(e) => {
                    self.error = Some(e);
                    return;
                }
            }
        }
        if let Some(out) = self.out.as_mut() {
            match out.write_all(network_series_row(algorithm, p).as_bytes()) {
                Ok(()) => self.rows += 1,
                Err(e) => self.error = Some(e),
            }
        }
    }
}

/// The part files of one scenario's `series.csv`, one per algorithm; dropped, they are
/// removed.
#[derive(Debug)]
pub(crate) struct StreamedSeries {
    algorithms: Vec<String>,
    parts: Vec<Arc<Mutex<Part>>>,
}

impl StreamedSeries {
    /// Parts for the rows of `algorithms` (in scenario order), beside `dir/series.csv` (the
    /// folder created if missing).
    pub(crate) fn new(dir: &Path, algorithms: &[String]) -> Result<StreamedSeries, ReportError> {
        std::fs::create_dir_all(dir).map_err(|source| ReportError::File {
            action: "create the folder of",
            path: dir.join("series.csv"),
            source,
        })?;
        let parts = (0..algorithms.len())
            .map(|a| {
                let path = dir.join(format!(".series.csv.part{a}-{}", std::process::id()));
                Arc::new(Mutex::new(Part { path, out: None, rows: 0, error: None }))
            })
            .collect();
        Ok(StreamedSeries { algorithms: algorithms.to_vec(), parts })
    }

    /// Where job (`algorithm`, `replication`)'s series goes: replication 0's rows to the
    /// algorithm's part, the other replications' nowhere.
    pub(crate) fn sink(&self, algorithm: usize, replication: u32) -> Option<Box<dyn SeriesSink>> {
        let (Some(part), Some(name)) = (self.parts.get(algorithm), self.algorithms.get(algorithm)) else {
            return Some(Box::new(|_| {}));
        };
        if replication != 0 {
            return Some(Box::new(|_| {}));
        }
        let (part, name) = (Arc::clone(part), name.clone());
        Some(Box::new(move |p: SeriesPoint| part.lock().unwrap_or_else(PoisonError::into_inner).row(&name, &p)))
    }

    /// Joins the parts into `path` (atomically), when the first algorithm's replication 0 has
    /// a series (as `series_csv` decides); returns whether the file was written.
    pub(crate) fn finish(self, path: &Path) -> Result<bool, ReportError> {
        let fail = |action: &'static str, source: std::io::Error| ReportError::File {
            action,
            path: path.to_path_buf(),
            source,
        };
        let mut parts = Vec::with_capacity(self.parts.len());
        for part in &self.parts {
            let mut p = part.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(e) = p.error.take() {
                return Err(fail("write", e));
            }
            if let Some(out) = p.out.as_mut() {
                out.flush().map_err(|e| fail("write", e))?;
            }
            parts.push((p.path.clone(), p.rows));
        }
        if parts.first().is_none_or(|&(_, rows)| rows == 0) {
            return Ok(false);
        }
        let mut file = AtomicFile::create(path)?;
        file.write_all(NETWORK_SERIES_HEADER.as_bytes()).map_err(|e| file.error("write", e))?;
        for (part, rows) in parts {
            if rows > 0 {
                let mut from = std::fs::File::open(&part).map_err(|e| fail("read back the rows of", e))?;
                std::io::copy(&mut from, &mut file).map_err(|e| file.error("write", e))?;
            }
        }
        file.commit()?;
        Ok(true)
    }
}

impl Drop for StreamedSeries {
    fn drop(&mut self) {
        for part in &self.parts {
            let mut p = part.lock().unwrap_or_else(PoisonError::into_inner);
            if p.out.take().is_some() {
                let _ = std::fs::remove_file(&p.path);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use coapcc_driver::scenario::{Catalogue, Scenario};
    use coapcc_sim::results::series_csv;
    use coapcc_sim::run_scenario;

    use crate::sim::run_to;

    fn long_lived(hours: u64, sets: &[&str]) -> Scenario {
        let mut all: Vec<coapcc_driver::scenario::Setting> =
            sets.iter().map(|s| s.parse().unwrap_or_else(|e| panic!("{s}: {e:?}"))).collect();
        all.push(format!("duration_ms={}", hours * 3_600_000).parse().unwrap_or_else(|e| panic!("{e:?}")));
        Catalogue::BuiltIn
            .load(std::path::Path::new("makarem/residual-high-variability.toml"), &all)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn a_streamed_series_csv_has_the_bytes_of_the_kept_one_and_leaves_no_part_behind() {
        let dir = std::env::temp_dir().join(format!("coapcc-series-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let s = long_lived(2, &["algorithms=[\"idc\", \"default\"]", "replications=2"]);
        run_to(&s, &dir, false, &|| {}).unwrap_or_else(|e| panic!("{e}"));
        let streamed = std::fs::read_to_string(dir.join("series.csv")).unwrap_or_else(|e| panic!("{e}"));
        let kept = series_csv(&run_scenario(&s, &|| {}).unwrap_or_else(|e| panic!("{e}"))).unwrap_or_default();
        assert_eq!(streamed, kept);
        // Replication 0 of each algorithm, in scenario order: 2 h of 5-s windows = 1 440 rows each.
        let lines: Vec<&str> = streamed.lines().collect();
        assert_eq!(lines.len(), 1 + 2 * 1_440);
        assert!(lines[1].starts_with("idc,0.000000,") && lines[1_441].starts_with("default,0.000000,"));
        assert!(lines[1_440].starts_with("idc,7195.000000,"), "{}", lines[1_440]);
        let hidden: Vec<String> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{e}"))
            .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
            .filter(|n| n.starts_with('.'))
            .collect();
        assert!(hidden.is_empty(), "left behind: {hidden:?}");
        let _ = std::fs::remove_dir_all(dir);
    }
}

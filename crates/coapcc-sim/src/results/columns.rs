//! Results tables as named, typed columns ([`Columns`]): what a data-frame library builds its
//! columns from (the Python package hands them to Arrow without going through text), built row
//! by row ([`Builder`]); and the CSV text of a table at full precision ([`csv_of`], the
//! multihop files).

use coapcc_driver::metrics::Quantiles;

/// One column of a results table, typed: what a data-frame library builds its column from
/// (the Python package hands these to Arrow without going through text).
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    /// Text (algorithm names, kinds).
    Str(Vec<String>),
    /// Counts and indices.
    U64(Vec<u64>),
    /// Measurements; NaN where the CSV field is empty.
    F64(Vec<f64>),
    /// Flags (`true` / `false` in the CSV).
    Bool(Vec<bool>),
    /// Counts and ids that may be absent (an empty CSV field; a null in Arrow).
    OptU64(Vec<Option<u64>>),
}

impl Column {
    /// Number of rows.
    pub fn len(&self) -> usize {
        match self {
            Column::Str(v) => v.len(),
            Column::U64(v) => v.len(),
            Column::F64(v) => v.len(),
            Column::Bool(v) => v.len(),
            Column::OptU64(v) => v.len(),
        }
    }

    /// Whether the column has no row.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A results table as named, typed columns, in the order (and with the names) of the
/// matching CSV file's header; the values are the CSV's before its formatting.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Columns {
    /// `(name, column)`, every column of the same length.
    pub columns: Vec<(String, Column)>,
}

/// Builds [`Columns`] row by row: one call per column of a row, in header order.
pub(crate) struct Builder {
    columns: Vec<(String, Column)>,
    next: usize,
}

impl Builder {
    /// Columns named by the comma-separated `header`, typed by `kinds` (one letter per column:
    /// `s` text, `u` count, `f` measurement, `b` flag, `o` optional count).
    pub(crate) fn new(header: &str, kinds: &str) -> Builder {
        let columns = header
            .split(',')
            .zip(kinds.chars())
            .map(|(name, k)| {
                let c = match k {
                    's' => Column::Str(Vec::new()),
                    'u' => Column::U64(Vec::new()),
                    'b' => Column::Bool(Vec::new()),
                    'o' => Column::OptU64(Vec::new()),
                    _ => Column::F64(Vec::new()),
                };
                (name.to_string(), c)
            })
            .collect();
        Builder { columns, next: 0 }
    }

    fn slot(&mut self) -> &mut Column {
        let i = self.next % self.columns.len();
        self.next += 1;
        &mut self.columns[i].1
    }

    pub(crate) fn s(&mut self, x: &str) -> &mut Self {
        if let Column::Str(v) = self.slot() {
            v.push(x.to_string());
        }
        self
    }

    pub(crate) fn u(&mut self, x: u64) -> &mut Self {
        if let Column::U64(v) = self.slot() {
            v.push(x);
        }
        self
    }

    pub(crate) fn f(&mut self, x: f64) -> &mut Self {
        if let Column::F64(v) = self.slot() {
            v.push(x);
        }
        self
    }

    pub(crate) fn b(&mut self, x: bool) -> &mut Self {
        if let Column::Bool(v) = self.slot() {
            v.push(x);
        }
        self
    }

    pub(crate) fn o(&mut self, x: Option<u64>) -> &mut Self {
        if let Column::OptU64(v) = self.slot() {
            v.push(x);
        }
        self
    }

    pub(crate) fn q(&mut self, q: &Quantiles) -> &mut Self {
        self.f(q.p10).f(q.p25).f(q.p50).f(q.p75).f(q.p90)
    }

    pub(crate) fn finish(self) -> Columns {
        Columns { columns: self.columns }
    }
}

/// A measurement at full precision (the shortest text that reads back to the same `f64`),
/// empty when not finite.
pub(crate) fn full(x: f64) -> String {
    if x.is_finite() { format!("{x}") } else { String::new() }
}

/// A text field, quoted when it must be.
pub(crate) fn quoted(s: &str) -> String {
    if s.contains([',', '"', '\n']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s.to_string() }
}

/// The CSV text of `columns`: the header row, then one row per value, text quoted when it
/// must be, counts as integers, measurements at full precision (empty when not finite), flags
/// as `true` / `false`, absent counts empty. No columns: no text.
pub fn csv_of(columns: &Columns) -> String {
    if columns.columns.is_empty() {
        return String::new();
    }
    let names: Vec<&str> = columns.columns.iter().map(|(n, _)| n.as_str()).collect();
    let mut out = format!("{}\n", names.join(","));
    let rows = columns.columns.iter().map(|(_, c)| c.len()).min().unwrap_or(0);
    for i in 0..rows {
        for (k, (_, c)) in columns.columns.iter().enumerate() {
            if k > 0 {
                out.push(',');
            }
            match c {
                Column::Str(v) => out.push_str(&quoted(&v[i])),
                Column::U64(v) => out.push_str(&v[i].to_string()),
                Column::F64(v) => out.push_str(&full(v[i])),
                Column::Bool(v) => out.push_str(if v[i] { "true" } else { "false" }),
                Column::OptU64(v) => out.push_str(&v[i].map_or(String::new(), |x| x.to_string())),
            }
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_text_quotes_what_it_must_and_leaves_missing_values_empty() {
        let mut b = Builder::new("name,n,x,flag,id", "sufbo");
        b.s("a,b").u(3).f(0.1).b(true).o(None);
        b.s("say \"hi\"").u(0).f(f64::NAN).b(false).o(Some(7));
        assert_eq!(csv_of(&b.finish()), "name,n,x,flag,id\n\"a,b\",3,0.1,true,\n\"say \"\"hi\"\"\",0,,false,7\n");
        assert_eq!(csv_of(&Columns::default()), "");
    }
}

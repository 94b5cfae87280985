//! `coapcc algorithms [NAME]`: the registry as a table or CSV, or one algorithm's keys
//! ([`coapcc_report::algorithms_table`]).

use std::io::Write;

use clap::{Args, ValueEnum};
use coapcc_report::{algorithm_keys_text, algorithms_csv, algorithms_table};

use crate::error::CliError;

/// Formats of the list.
#[derive(Clone, Copy, ValueEnum)]
pub enum Format {
    /// Aligned columns.
    Table,
    /// RFC 4180 CSV.
    Csv,
}

/// Arguments of `coapcc algorithms`.
#[derive(Args)]
pub struct AlgorithmsArgs {
    /// Show this algorithm's configuration keys with their preset values (TOML).
    name: Option<String>,
    /// Output format of the list.
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
}

/// Runs `coapcc algorithms`.
pub fn run(args: &AlgorithmsArgs, out: &mut dyn Write) -> Result<(), CliError> {
    let text = match (&args.name, args.format) {
        (Some(name), _) => algorithm_keys_text(name)?,
        (None, Format::Table) => algorithms_table(),
        (None, Format::Csv) => algorithms_csv(),
    };
    out.write_all(text.as_bytes())?;
    Ok(())
}

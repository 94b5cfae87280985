//! `coapcc scenarios [NAME]`: the built-in scenarios as a list, or one scenario's file
//! ([`coapcc_report::scenarios_table`], [`coapcc_report::scenario_text`]).

use std::io::Write;

use clap::{Args, ValueEnum};
use coapcc_report::{scenario_text, scenarios_csv, scenarios_json, scenarios_table};

use crate::error::CliError;

/// Formats of the list.
#[derive(Clone, Copy, ValueEnum)]
pub enum Format {
    /// Aligned columns.
    Text,
    /// RFC 4180 CSV.
    Csv,
    /// A JSON array of objects.
    Json,
}

/// Arguments of `coapcc scenarios`.
#[derive(Args)]
pub struct ScenariosArgs {
    /// Print this built-in scenario's file (`fasor/10-flows-error-free-random`).
    name: Option<String>,
    /// Output format of the list.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

/// Runs `coapcc scenarios`.
pub fn run(args: &ScenariosArgs, out: &mut dyn Write) -> Result<(), CliError> {
    let text = match (&args.name, args.format) {
        (Some(name), _) => scenario_text(name)?,
        (None, Format::Text) => scenarios_table(),
        (None, Format::Csv) => scenarios_csv(),
        (None, Format::Json) => scenarios_json()?,
    };
    out.write_all(text.as_bytes())?;
    Ok(())
}

//! Building a configuration from a preset name and `KEY=VALUE` settings without an
//! allocator, with the meaning `coapcc --set KEY=VALUE` gives them: the value text is read as
//! the command line reads it (module `value`), and the key is applied through the configuration's
//! own serde impls in `coapcc-core` (module `bridge`), so key names, units and checks are the
//! ones the CLI, scenario files and the Python package use. Firmware calls this directly;
//! the C API calls it through `coapcc_config_preset` and `coapcc_config_set`.

// Without an allocator an error carries its message inline (about 200 bytes), and a value
// its items; both live on the stack for the length of one call.
#![allow(clippy::result_large_err, clippy::large_enum_variant)]

mod bridge;
mod error;
mod value;

use coapcc_core::{AnyConfig, ConfigMapper};

pub use error::{Kind, MAX_MESSAGE, SetError};

/// The preset configuration of the algorithm `name` (see `coapcc algorithms`).
pub fn preset(name: &str) -> Result<AnyConfig, SetError> {
    AnyConfig::from_name(name)
        .ok_or_else(|| SetError::new(Kind::UnknownAlgorithm, format_args!("unknown algorithm `{name}`")))
}

/// Applies one `KEY=VALUE` setting (blanks around either ignored) to `config`. Only the
/// algorithm's own keys exist (see `coapcc algorithms NAME`); the configuration is checked as
/// a whole when the controller is built.
pub fn apply(config: &mut AnyConfig, setting: &str) -> Result<(), SetError> {
    let Some((key, text)) = setting.split_once('=').filter(|(k, _)| !k.trim().is_empty()) else {
        return Err(SetError::new(Kind::Syntax, format_args!("expected KEY=VALUE, got `{setting}`")));
    };
    let (key, text) = (key.trim(), text.trim());
    let value = value::parse(text)
        .map_err(|e| SetError::new(e.kind(), format_args!("bad value for key `{key}`: {}", e.message())))?;
    *config = config.map_with(&mut Apply { key, value: &value })?;
    Ok(())
}

/// Replaces one key of whichever configuration type the algorithm has.
struct Apply<'a> {
    key: &'a str,
    value: &'a value::Value,
}

impl ConfigMapper for Apply<'_> {
    type Error = SetError;
    fn map<T: serde::Serialize + serde::de::DeserializeOwned>(&mut self, config: T) -> Result<T, SetError> {
        bridge::replace_key(&config, self.key, self.value)
    }
}

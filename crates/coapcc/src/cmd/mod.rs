//! One module per subcommand: its arguments (clap) and a `run` that calls the library that
//! owns the work and writes what it returns.

pub(crate) mod algorithms;
pub(crate) mod bench;
pub(crate) mod client;
pub(crate) mod emulate;
pub(crate) mod probe;
pub(crate) mod replay;
pub(crate) mod reproduce;
pub(crate) mod scenarios;
pub(crate) mod server;
pub(crate) mod shell;
pub(crate) mod sim;
pub(crate) mod testbed;

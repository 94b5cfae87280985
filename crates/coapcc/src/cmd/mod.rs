//! One module per subcommand: its arguments (clap) and a `run` that calls the library that
//! owns the work and writes what it returns.

pub mod algorithms;
pub mod bench;
pub mod client;
pub mod emulate;
pub mod replay;
pub mod reproduce;
pub mod server;
pub mod sim;
pub mod testbed;

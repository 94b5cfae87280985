//! RFC 7959 block-wise transfer: the Block1/Block2 option value and slicing a body into
//! blocks, from `coapcc-proto` (the endpoint's automatic answer and the simulator use the same).

pub use coapcc_proto::block::{Block, MAX_SZX, range, size_of_szx, slice, szx_at_most};
